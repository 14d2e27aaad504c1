#include "backend/cpu/bf16_dot.h"

#include <cmath>

#include "backend/cpu/dot.h"
#include "numeric/half.h"

namespace kvchat::cpu {

uint16_t bf16_round_activation(float x) {
  uint32_t b = bits_from_f32(x);
  if ((b & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((b >> 16) | 0x40);  // NaN
  if ((b & 0x7f800000u) == 0) b &= 0x80000000u;  // subnormal: the zero of its sign
  b += 0x7fffu + ((b >> 16) & 1);                // to nearest even
  return static_cast<uint16_t>(b >> 16);
}

void round_activations_bf16(const float* x, uint16_t* dst, int64_t n) {
#if defined(KVCHAT_HAVE_AVX512BF16_TU)
  if (use_avx512bf16_kernels()) return round_activations_bf16_avx512bf16(x, dst, n);
#endif
  for (int64_t i = 0; i < n; ++i) dst[i] = bf16_round_activation(x[i]);
}

namespace {

constexpr int kLanes = 16, kChunk = 2 * kLanes;  // f32 sums; BF16 values per chunk

// A BF16 value as the instruction reads it: a subnormal is the zero of its sign.
float bf16_operand(uint16_t h) { return bf16_to_f32((h & 0x7f80u) == 0 ? h & 0x8000u : h); }

float flush_subnormal(float s) {
  return std::fpclassify(s) == FP_SUBNORMAL ? std::copysign(0.0f, s) : s;
}

float dot_definition(const uint16_t* w, const uint16_t* x, int64_t n) {
  float s[kLanes] = {};
  const auto value = [&](const uint16_t* v, int64_t i) {
    return i < n ? bf16_operand(v[i]) : 0.0f;
  };
  for (int64_t c = 0; c < n; c += kChunk) {
    for (int j = 0; j < kLanes; ++j) {
      const int64_t odd = c + 2 * j + 1, even = c + 2 * j;
      s[j] = flush_subnormal(s[j] + value(w, odd) * value(x, odd));
      s[j] = flush_subnormal(s[j] + value(w, even) * value(x, even));
    }
  }
  for (int half = kLanes / 2; half >= 1; half /= 2) {
    for (int j = 0; j < half; ++j) s[j] += s[j + half];
  }
  return s[0];
}

}  // namespace

void bf16_rows_dot_scalar(const uint8_t* rows, uint64_t row_bytes, int64_t n_rows,
                          const uint16_t* X, int64_t ldx, int64_t n_tokens, int64_t n, float* Y,
                          int64_t ldy) {
  for (int64_t r = 0; r < n_rows; ++r) {
    const auto* w = reinterpret_cast<const uint16_t*>(rows + r * row_bytes);
    for (int64_t t = 0; t < n_tokens; ++t) Y[t * ldy + r] = dot_definition(w, X + t * ldx, n);
  }
}

void bf16_rows_dot(const uint8_t* rows, uint64_t row_bytes, int64_t n_rows, const uint16_t* X,
                   int64_t ldx, int64_t n_tokens, int64_t n, float* Y, int64_t ldy) {
#if defined(KVCHAT_HAVE_AVX512BF16_TU)
  if (use_avx512bf16_kernels())
    return bf16_rows_dot_avx512bf16(
        rows, row_bytes, n_rows, X, ldx, n_tokens, n, Y, ldy,
        avx512bf16_faster_than_fma() ? Bf16Prefill::kDpbf16 : Bf16Prefill::kFma);
#endif
  bf16_rows_dot_scalar(rows, row_bytes, n_rows, X, ldx, n_tokens, n, Y, ldy);
}

}  // namespace kvchat::cpu
