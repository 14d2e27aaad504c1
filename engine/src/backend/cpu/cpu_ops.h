// Element-wise and normalisation ops shared by the CPU forward passes.
#pragma once

#include <cmath>
#include <cstdint>

namespace kvchat::cpu {

// out[i] = x[i] / sqrt(mean(x^2) + eps) * gain[i]          x, gain, out: (n)
inline void rmsnorm(float* out, const float* x, const float* gain, int64_t n, float eps) {
  double ss = 0;
  for (int64_t i = 0; i < n; ++i) ss += static_cast<double>(x[i]) * x[i];
  const float scale = static_cast<float>(1.0 / std::sqrt(ss / n + eps));
  for (int64_t i = 0; i < n; ++i) out[i] = x[i] * scale * gain[i];
}

// RoPE, adjacent-pair ("norm") convention: within each head, the pair (x[2i], x[2i+1]),
// 2i < n_rot, is rotated by pos * base^(-2i/n_rot).               vec: (n_heads, head_dim)
inline void rope(float* vec, int32_t n_heads, int32_t head_dim, int32_t n_rot, int32_t pos,
                 float freq_base) {
  for (int32_t i = 0; i < n_rot; i += 2) {
    const double theta = pos * std::pow(static_cast<double>(freq_base), -static_cast<double>(i) / n_rot);
    const float c = static_cast<float>(std::cos(theta)), s = static_cast<float>(std::sin(theta));
    for (int32_t h = 0; h < n_heads; ++h) {
      float* v = vec + h * head_dim + i;
      const float v0 = v[0], v1 = v[1];
      v[0] = v0 * c - v1 * s;
      v[1] = v0 * s + v1 * c;
    }
  }
}

// In-place softmax over x: (n).
inline void softmax(float* x, int64_t n) {
  float max_v = x[0];
  for (int64_t i = 1; i < n; ++i) max_v = x[i] > max_v ? x[i] : max_v;
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - max_v);
    sum += x[i];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int64_t i = 0; i < n; ++i) x[i] *= inv;
}

// SwiGLU: gate[i] = silu(gate[i]) * up[i], silu(g) = g / (1 + e^-g).     gate, up: (n)
inline void swiglu(float* gate, const float* up, int64_t n) {
  for (int64_t i = 0; i < n; ++i) gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

}  // namespace kvchat::cpu
