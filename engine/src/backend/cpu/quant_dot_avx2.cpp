// AVX2 integer dots (maddubs/madd) of quantized weight rows with 8-bit activations, as
// register-tiled kernels over R weight rows x T tokens: each weight block is unpacked to
// bytes once and dotted with the T tokens' activation blocks. Block scales are converted
// with F16C. Compiled with -mavx2 -mfma -mf16c; called only when use_avx2_kernels().
// The scalar definitions are in quant_dot.cpp (same integer sums, same scaling).
#include <immintrin.h>

#include <cstring>
#include <type_traits>

#include "backend/cpu/quant_dot.h"

#ifndef KVCHAT_QDOT_VNNI
#define KVCHAT_QDOT_VNNI 0
#endif

namespace kvchat::cpu {

using gguf::TensorType;

namespace {
#include "backend/cpu/quant_dot_kernels.inl"
}  // namespace

namespace {
// max |x| over 8 lanes.
inline float hmax_abs(__m256 v) {
  v = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v);
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

// n (a multiple of 32) values -> int8 round(x * id) into qs; returns the int32 sums of each
// 16 values in sums[n / 16]. Same rounding as the scalar quantizer (nearest, ties to even).
inline void round_to_int8(const float* x, float id, int n, int8_t* qs, int32_t* sums16) {
  const __m256 mul = _mm256_set1_ps(id);
  for (int j = 0; j < n; j += 32) {
    __m256i i[4];
    for (int k = 0; k < 4; ++k) {
      const __m256 v = _mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(x + j + 8 * k), mul),
                                       _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      i[k] = _mm256_cvtps_epi32(v);
    }
    // int32 -> int8 in order: packs interleave 128-bit lanes, a permute restores the order.
    const __m256i w01 = _mm256_packs_epi32(i[0], i[1]), w23 = _mm256_packs_epi32(i[2], i[3]);
    const __m256i b = _mm256_packs_epi16(w01, w23);
    const __m256i ordered =
        _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(qs + j), ordered);
    const __m256i s01 = _mm256_add_epi32(i[0], i[1]), s23 = _mm256_add_epi32(i[2], i[3]);
    alignas(32) int32_t lanes[16];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), s01);
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes + 8), s23);
    int32_t a = 0, c = 0;
    for (int k = 0; k < 8; ++k) a += lanes[k], c += lanes[8 + k];
    sums16[j / 16] = a;
    sums16[j / 16 + 1] = c;
  }
}

inline float block_amax(const float* x, int n) {
  __m256 m = _mm256_setzero_ps();
  const __m256 sign = _mm256_set1_ps(-0.0f);
  for (int j = 0; j < n; j += 8)
    m = _mm256_max_ps(m, _mm256_andnot_ps(sign, _mm256_loadu_ps(x + j)));
  return hmax_abs(m);
}
}  // namespace

void quantize_activations_q8_32_avx2(const float* x, BlockQ8_32* out, int64_t n) {
  for (int64_t k = 0; k < n / kQuantBlock; ++k, x += kQuantBlock) {
    BlockQ8_32& b = out[k];
    b.d = block_amax(x, kQuantBlock) / 127.0f;
    int32_t sums[2];
    round_to_int8(x, b.d > 0 ? 1.0f / b.d : 0.0f, kQuantBlock, b.qs, sums);
    b.sum = sums[0] + sums[1];
  }
}

void quantize_activations_q8_k_avx2(const float* x, BlockQ8_K* out, int64_t n) {
  for (int64_t k = 0; k < n / kSuperBlock; ++k, x += kSuperBlock) {
    BlockQ8_K& b = out[k];
    b.d = block_amax(x, kSuperBlock) / 127.0f;
    int32_t sums[16];
    round_to_int8(x, b.d > 0 ? 1.0f / b.d : 0.0f, kSuperBlock, b.qs, sums);
    for (int g = 0; g < 16; ++g) b.bsums[g] = static_cast<int16_t>(sums[g]);
  }
}

QuantTileFn quant_dot_tile_kernel_avx2(TensorType type) { return tile_kernel(type); }

float quant_dot_avx2(TensorType type, const void* row, const void* act, int64_t n) {
  return dot_one_row(type, row, act, n);
}

void quant_dot_tile_avx2(TensorType type, const void* row, uint64_t row_bytes, int n_rows,
                         const void* act, uint64_t act_stride, int n_tokens, int64_t n,
                         float* out) {
  dot_tile(type, row, row_bytes, n_rows, act, act_stride, n_tokens, n, out);
}

}  // namespace kvchat::cpu
