// Next-token distributions compared in double: the log-softmax of a row of logits and the
// KL divergence of two of them. Shared by the KV-quality measurement (session/kv_quality)
// and kvchat-cli perplexity, which must compute the same figures.
#pragma once

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

namespace kvchat {

// out[i] = logits[i] - log(sum_j exp(logits[j])), computed stably (the max subtracted first).
inline void log_softmax(std::span<const float> logits, std::vector<double>& out) {
  out.resize(logits.size());
  double mx = -INFINITY;
  for (float x : logits) mx = std::max(mx, static_cast<double>(x));
  double sum = 0;
  for (float x : logits) sum += std::exp(static_cast<double>(x) - mx);
  const double log_z = mx + std::log(sum);
  for (size_t i = 0; i < logits.size(); ++i) out[i] = static_cast<double>(logits[i]) - log_z;
}

// KL(p || q) in nats from log-probabilities (clamped at 0 against rounding).
inline double kl_divergence(const std::vector<double>& log_p, const std::vector<double>& log_q) {
  double kl = 0;
  for (size_t i = 0; i < log_p.size(); ++i) kl += std::exp(log_p[i]) * (log_p[i] - log_q[i]);
  return std::max(0.0, kl);
}

}  // namespace kvchat
