// AVX-512 float-weight dots (F32/F16/BF16 rows x f32 tokens) and the 512-bit FMA-peak loop:
// the float_rows_dot contract of dot.h with 16-lane sums. This file alone is compiled with
// the AVX-512 flags (cmake/KvchatEngine.cmake); dot.cpp calls it only when
// use_avx512_kernels(), for decode and prefill alike, so every (row, token) is still summed
// the same way whatever the batch (decode = prefill, bit for bit, on this path).
// GCC 12 warns that its own _mm512_cvtph_ps / _mm512_cvtepu16_epi32 read an undefined
// vector (the intrinsics start from _mm512_undefined_*): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "backend/cpu/dot.h"
#include "backend/cpu/float_prefetch.h"
#include "numeric/half.h"

namespace kvchat::cpu {

using gguf::TensorType;

namespace {

template <TensorType kType>
inline __m512 load_w16(const uint8_t* row, int64_t i) {
  if constexpr (kType == TensorType::F32) {
    return _mm512_loadu_ps(reinterpret_cast<const float*>(row) + i);
  } else if constexpr (kType == TensorType::F16) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(
        reinterpret_cast<const __m256i*>(reinterpret_cast<const uint16_t*>(row) + i)));
  } else {
    const __m256i h = _mm256_loadu_si256(
        reinterpret_cast<const __m256i*>(reinterpret_cast<const uint16_t*>(row) + i));
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
}

template <TensorType kType>
inline float load_w1(const uint8_t* row, int64_t i) {
  if constexpr (kType == TensorType::F32) {
    return reinterpret_cast<const float*>(row)[i];
  } else if constexpr (kType == TensorType::F16) {
    return _cvtsh_ss(reinterpret_cast<const uint16_t*>(row)[i]);
  } else {
    return bf16_to_f32(reinterpret_cast<const uint16_t*>(row)[i]);
  }
}

// R rows x T tokens. Per (row, token): one 16-lane running sum over the 16-value chunks in
// order, then _mm512_reduce_add_ps, then the tail values in order (fused multiply-adds): the
// same for every R, T.
template <TensorType kType, int R, int T>
void float_tile(const uint8_t* rows, uint64_t row_bytes, const float* X, int64_t ldx, int64_t n,
                float* Y, int64_t ldy) {
  __m512 acc[R][T];
  for (int r = 0; r < R; ++r) {
    for (int t = 0; t < T; ++t) acc[r][t] = _mm512_setzero_ps();
  }
  const auto step = [&](int64_t at) {
    __m512 x[T];
    for (int t = 0; t < T; ++t) x[t] = _mm512_loadu_ps(X + t * ldx + at);
    for (int r = 0; r < R; ++r) {
      const __m512 w = load_w16<kType>(rows + r * row_bytes, at);
      for (int t = 0; t < T; ++t) acc[r][t] = _mm512_fmadd_ps(w, x[t], acc[r][t]);
    }
  };
  int64_t i = 0;
  if constexpr (T == 1) {  // decode (float_prefetch.h); prefill runs slower with it
    for (; i + 32 <= n; i += 32) {
      prefetch_rows_ahead<kType, R>(rows, row_bytes, i);
      step(i);
      step(i + 16);
    }
  }
  for (; i + 16 <= n; i += 16) step(i);
  for (int r = 0; r < R; ++r) {
    for (int t = 0; t < T; ++t) {
      float sum = _mm512_reduce_add_ps(acc[r][t]);
      // Fused explicitly: left to contraction, GCC fuses some rows' tails and not others.
      for (int64_t k = i; k < n; ++k)
        sum = __builtin_fmaf(load_w1<kType>(rows + r * row_bytes, k), X[t * ldx + k], sum);
      Y[t * ldy + r] = sum;
    }
  }
}

// Tokens in tiles of 6 (24 accumulators, 6 token vectors and a weight vector: 31 of the 32
// registers), then one tile of what is left.
template <TensorType kType, int R>
void float_tile_tokens(const uint8_t* rows, uint64_t row_bytes, const float* X, int64_t ldx,
                       int64_t n_tokens, int64_t n, float* Y, int64_t ldy) {
  int64_t t = 0;
  for (; t + 6 <= n_tokens; t += 6)
    float_tile<kType, R, 6>(rows, row_bytes, X + t * ldx, ldx, n, Y + t * ldy, ldy);
  const auto rest = [&](auto tile) {
    tile(rows, row_bytes, X + t * ldx, ldx, n, Y + t * ldy, ldy);
  };
  switch (n_tokens - t) {
    case 5: return rest(float_tile<kType, R, 5>);
    case 4: return rest(float_tile<kType, R, 4>);
    case 3: return rest(float_tile<kType, R, 3>);
    case 2: return rest(float_tile<kType, R, 2>);
    case 1: return rest(float_tile<kType, R, 1>);
    default: return;
  }
}

constexpr int64_t kTokenTile = 6;
#include "backend/cpu/float_rows.inl"

}  // namespace

// A switch to this file's template instances (F32/F16/BF16 loads differ inside the FMA loop;
// not a column of numeric/weight_type_traits.h), once per call, i.e. per matrix row range.
void float_rows_dot_avx512(TensorType type, const uint8_t* rows, uint64_t row_bytes, int64_t n_rows,
                           const float* X, int64_t ldx, int64_t n_tokens, int64_t n, float* Y,
                           int64_t ldy) {
  switch (type) {
    case TensorType::F32:
      return float_rows<TensorType::F32>(rows, row_bytes, n_rows, X, ldx, n_tokens, n, Y, ldy);
    case TensorType::F16:
      return float_rows<TensorType::F16>(rows, row_bytes, n_rows, X, ldx, n_tokens, n, Y, ldy);
    case TensorType::BF16:
      return float_rows<TensorType::BF16>(rows, row_bytes, n_rows, X, ldx, n_tokens, n, Y, ldy);
    default:
      return float_rows_dot_scalar(type, rows, row_bytes, n_rows, X, ldx, n_tokens, n, Y, ldy);
  }
}

double fma_peak_loop_avx512(int64_t iterations) {
  // 12 independent chains: enough to cover the FMA latency on two 512-bit FMA ports.
  __m512 a[12];
  for (int i = 0; i < 12; ++i) a[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-6f);
  for (int64_t it = 0; it < iterations; ++it) {
    for (int i = 0; i < 12; ++i) a[i] = _mm512_fmadd_ps(a[i], m, c);
  }
  __m512 s = a[0];
  for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, a[i]);
  volatile float sink = _mm512_reduce_add_ps(s);
  (void)sink;
  return 2.0 * 12 * 16 * static_cast<double>(iterations);
}

namespace {
#include "backend/cpu/streaming_read.inl"
}  // namespace

uint64_t streaming_read_avx512(const uint8_t* p, uint64_t bytes) {
  return streaming_read_lines(p, bytes);
}

}  // namespace kvchat::cpu
