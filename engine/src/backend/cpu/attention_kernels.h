// The inner kernels of attention.cpp, in a scalar version (the definition) and an
// AVX2/FMA/F16C version (attention_avx2.cpp, called only when cpu_has_avx2()).
// Internal to the CPU backend.
#pragma once

#include <cstdint>

#include "kv/kv_type.h"

namespace kvchat::cpu::attention_detail {

// The group's query heads quantized to 16 bits per 32 values: value ~ scale * quant,
// scale = max|x| / 32767 (8 bits would move the logits by ~1%, beyond the tolerance the
// fast path keeps against the reference; 16 x 8-bit products cost the same madd).
struct QueryQuants {
  const int16_t* quants = nullptr;  // (group, head_dim)
  const float* scales = nullptr;    // (group, head_dim / 32)
};

// scores[g * ld + j] = dot(q_g, k_j) * scale for the n rows k_j = rows + j * stride (bytes),
// each one KV head (head_dim values of `type`), and the group's query heads g.
struct KeyScoreArgs {
  KvType type = KvType::F32;
  const uint8_t* rows = nullptr;
  int64_t stride = 0;
  int32_t n = 0;
  const float* q = nullptr;  // (group, head_dim) f32 query heads (f32/f16 keys)
  QueryQuants qq;            // the same quantized (q8_0/q4_0 keys)
  int32_t group = 0, head_dim = 0;
  float scale = 1.0f;
  float* scores = nullptr;
  int64_t ld = 0;
  float* tile = nullptr;  // scratch: (n, head_dim) floats
};

// out[g * head_dim + d] += sum_j weights[g * ld + j] * v_j[d] for the n rows
// v_j = rows + j * stride (bytes).
struct ValueSumArgs {
  KvType type = KvType::F32;
  const uint8_t* rows = nullptr;
  int64_t stride = 0;
  int32_t n = 0;
  const float* weights = nullptr;
  int64_t ld = 0;
  int32_t group = 0, head_dim = 0;
  float* out = nullptr;   // (group, head_dim)
  float* tile = nullptr;  // scratch: (n, head_dim) floats
};

void key_scores_scalar(const KeyScoreArgs& a);
void value_sum_scalar(const ValueSumArgs& a);
// x[i] = exp(x[i] - max) for i < n; returns their sum.
float exp_sum_scalar(float* x, int64_t n, float max);
float max_scalar(const float* x, int64_t n);

void key_scores_avx2(const KeyScoreArgs& a);
void value_sum_avx2(const ValueSumArgs& a);
float exp_sum_avx2(float* x, int64_t n, float max);
float max_avx2(const float* x, int64_t n);

}  // namespace kvchat::cpu::attention_detail
