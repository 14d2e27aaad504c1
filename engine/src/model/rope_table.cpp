#include "model/rope_table.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace kvchat {

namespace {

double correction_dim(int32_t n_rot, int32_t orig_ctx, double beta, double base) {
  return n_rot * std::log(orig_ctx / (beta * 2 * std::numbers::pi)) / (2 * std::log(base));
}

}  // namespace

void yarn_correction_dims(int32_t n_rot, int32_t orig_ctx, float base, float beta_fast,
                          float beta_slow, float dims[2]) {
  const double low = std::floor(correction_dim(n_rot, orig_ctx, beta_fast, base));
  const double high = std::ceil(correction_dim(n_rot, orig_ctx, beta_slow, base));
  dims[0] = static_cast<float>(std::max(0.0, low));
  dims[1] = static_cast<float>(std::min(static_cast<double>(n_rot - 1), high));
}

std::vector<float> llama3_freq_factors(int32_t n_rot, float base, const RopeScaling& s) {
  std::vector<float> out(n_rot / 2);
  const double low_wavelen = s.orig_ctx / s.llama3_low_freq_factor;
  const double high_wavelen = s.orig_ctx / s.llama3_high_freq_factor;
  for (int32_t i = 0; i < n_rot / 2; ++i) {
    const double freq = std::pow(static_cast<double>(base), -2.0 * i / n_rot);
    const double wavelen = 2 * std::numbers::pi / freq;
    double f = 1;
    if (wavelen > low_wavelen) {
      f = s.factor;
    } else if (wavelen >= high_wavelen) {
      const double smooth = (s.orig_ctx / wavelen - s.llama3_low_freq_factor) /
                            (s.llama3_high_freq_factor - s.llama3_low_freq_factor);
      f = 1 / ((1 - smooth) / s.factor + smooth);
    }
    out[i] = static_cast<float>(f);
  }
  return out;
}

RopeTable make_rope_table(RopeStyle style, int32_t n_rot, float base, const RopeScaling& s,
                          const float* freq_factors) {
  RopeTable t;
  t.style = style;
  t.n_rot = n_rot;
  t.inv_freq.resize(n_rot / 2);
  const double freq_scale = s.factor > 0 ? 1.0 / s.factor : 1.0;
  float dims[2] = {0, 0};
  if (s.type == RopeScalingType::Yarn) {
    yarn_correction_dims(n_rot, s.orig_ctx, base, s.yarn_beta_fast, s.yarn_beta_slow, dims);
    t.mscale = static_cast<float>(s.attn_factor * (1 + 0.1 * std::log(1 / freq_scale)));
  } else if (s.type == RopeScalingType::LongRope) {
    t.mscale = s.attn_factor;
  }
  for (int32_t i = 0; i < n_rot / 2; ++i) {
    double f = std::pow(static_cast<double>(base), -2.0 * i / n_rot);
    if (freq_factors) f /= freq_factors[i];
    switch (s.type) {
      case RopeScalingType::None:
      case RopeScalingType::Llama3:
      case RopeScalingType::LongRope: break;
      case RopeScalingType::Linear: f *= freq_scale; break;
      case RopeScalingType::Yarn: {
        // ramp 1 below dims[0] (extrapolate: keep f), 0 above dims[1] (interpolate).
        const double y = (i - dims[0]) / std::max(0.001, static_cast<double>(dims[1] - dims[0]));
        const double extrapolate = 1 - std::min(1.0, std::max(0.0, y));
        f = f * freq_scale * (1 - extrapolate) + f * extrapolate;
        break;
      }
    }
    t.inv_freq[i] = static_cast<float>(f);
  }
  return t;
}

void RopeCosSin::cover(int32_t n_pos) {
  if (n_pos <= n_pos_) return;
  const RopeTable& t = *table_;
  const int32_t half = t.n_rot / 2;
  int32_t n_new = n_pos_ > 0 ? n_pos_ : 64;
  while (n_new < n_pos) n_new *= 2;  // doubling: a long generation recomputes nothing
  cs_.resize(static_cast<size_t>(n_new) * t.n_rot);
  for (int32_t pos = n_pos_; pos < n_new; ++pos) {
    float* row = cs_.data() + static_cast<int64_t>(pos) * t.n_rot;
    for (int32_t i = 0; i < half; ++i) {
      const double theta = static_cast<double>(pos) * t.inv_freq[i];
      row[2 * i] = static_cast<float>(std::cos(theta)) * t.mscale;
      row[2 * i + 1] = static_cast<float>(std::sin(theta)) * t.mscale;
    }
  }
  n_pos_ = n_new;
}

}  // namespace kvchat
