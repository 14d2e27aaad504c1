// Element-wise and normalisation ops shared by the CPU forward passes.
#pragma once

#include <cmath>
#include <cstdint>

#include "model/rope_table.h"

namespace kvchat::cpu {

// out[i] = x[i] / sqrt(mean(x^2) + eps) * gain[i]          x, gain, out: (n)
inline void rmsnorm(float* out, const float* x, const float* gain, int64_t n, float eps) {
  double ss = 0;
  for (int64_t i = 0; i < n; ++i) ss += static_cast<double>(x[i]) * x[i];
  const float scale = static_cast<float>(1.0 / std::sqrt(ss / n + eps));
  for (int64_t i = 0; i < n; ++i) out[i] = x[i] * scale * gain[i];
}

// RoPE by a precomputed table (model/rope_table.h): pair i of every head turns by
// theta = pos * t.inv_freq[i], with cos and sin scaled by `mscale` (t.mscale for a
// position; 1 to rotate keys already in the cache by a position delta).
//   Norm style: the pair is (x[2i], x[2i+1]); Neox style: (x[i], x[i + n_rot/2]).
//                                                                  vec: (n_heads, head_dim)
inline void rope(float* vec, int32_t n_heads, int32_t head_dim, const RopeTable& t, int32_t pos,
                 float mscale) {
  const int32_t half = t.n_rot / 2;
  const int32_t stride = t.style == RopeStyle::Neox ? 1 : 2;      // index step between pairs
  const int32_t partner = t.style == RopeStyle::Neox ? half : 1;  // offset of a pair's 2nd value
  for (int32_t i = 0; i < half; ++i) {
    const double theta = static_cast<double>(pos) * t.inv_freq[i];
    const float c = static_cast<float>(std::cos(theta)) * mscale;
    const float s = static_cast<float>(std::sin(theta)) * mscale;
    for (int32_t h = 0; h < n_heads; ++h) {
      float* v = vec + h * head_dim + i * stride;
      const float v0 = v[0], v1 = v[partner];
      v[0] = v0 * c - v1 * s;
      v[partner] = v0 * s + v1 * c;
    }
  }
}

inline void rope(float* vec, int32_t n_heads, int32_t head_dim, const RopeTable& t, int32_t pos) {
  rope(vec, n_heads, head_dim, t, pos, t.mscale);
}

// RoPE by cached cos/sin (RopeCosSin::at(pos): {cos, sin} per pair, mscale included):
// the same rotation, with the same values, as rope() above.        vec: (n_heads, head_dim)
inline void rope_cached(float* vec, int32_t n_heads, int32_t head_dim, RopeStyle style,
                        int32_t n_rot, const float* cos_sin) {
  const int32_t half = n_rot / 2;
  const int32_t stride = style == RopeStyle::Neox ? 1 : 2;
  const int32_t partner = style == RopeStyle::Neox ? half : 1;
  for (int32_t h = 0; h < n_heads; ++h) {
    float* head = vec + h * head_dim;
    for (int32_t i = 0; i < half; ++i) {
      const float c = cos_sin[2 * i], s = cos_sin[2 * i + 1];
      float* v = head + i * stride;
      const float v0 = v[0], v1 = v[partner];
      v[0] = v0 * c - v1 * s;
      v[partner] = v0 * s + v1 * c;
    }
  }
}

// RMSNorm of each of n_heads heads of head_dim values, in place, with one gain (head_dim).
inline void rmsnorm_heads(float* vec, int32_t n_heads, int32_t head_dim, const float* gain,
                          float eps) {
  for (int32_t h = 0; h < n_heads; ++h)
    rmsnorm(vec + h * head_dim, vec + h * head_dim, gain, head_dim, eps);
}

// x[i] += bias[i]                                                    x, bias: (n)
inline void add_bias(float* x, const float* bias, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] += bias[i];
}

// Soft-capping: x[i] = cap * tanh(x[i] / cap)                        x: (n)
inline void softcap(float* x, int64_t n, float cap) {
  const float inv = 1.0f / cap;
  for (int64_t i = 0; i < n; ++i) x[i] = cap * std::tanh(x[i] * inv);
}

// GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
inline float gelu_tanh(float x) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
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
// With AVX2 + FMA 8 values at a time (swiglu.cpp); each value's result is the same
// wherever it sits in the range (decode = prefill, bit for bit).
void swiglu(float* gate, const float* up, int64_t n);

// GeGLU: gate[i] = gelu_tanh(gate[i]) * up[i].                        gate, up: (n)
inline void geglu_tanh(float* gate, const float* up, int64_t n) {
  for (int64_t i = 0; i < n; ++i) gate[i] = gelu_tanh(gate[i]) * up[i];
}

// The gated activation of an architecture, chosen once per call, not per element.
inline void gated_activation(FfnActivation act, float* gate, const float* up, int64_t n) {
  if (act == FfnActivation::GeluTanhGlu) {
    geglu_tanh(gate, up, n);
  } else {
    swiglu(gate, up, n);
  }
}

}  // namespace kvchat::cpu
