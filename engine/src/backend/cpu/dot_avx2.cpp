// AVX2 + FMA + F16C dot products. This file alone is compiled with -mavx2 -mfma -mf16c;
// dot.cpp calls it only after checking the CPU at run time.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "backend/cpu/dot.h"
#include "backend/cpu/float_prefetch.h"
#include "numeric/convert.h"
#include "numeric/half.h"

namespace kvchat::cpu {

using gguf::TensorType;

namespace {

inline float hsum(__m256 v) {
  __m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
  lo = _mm_add_ps(lo, hi);
  lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
  lo = _mm_add_ss(lo, _mm_movehdup_ps(lo));
  return _mm_cvtss_f32(lo);
}

inline __m256 load_f16x8(const uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

inline __m256 load_bf16x8(const uint16_t* p) {
  __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

}  // namespace

bool dequantize_row_avx2(TensorType type, const void* row, float* dst, int64_t n) {
  if (type != TensorType::F16 && type != TensorType::BF16) return false;
  const auto* h = static_cast<const uint16_t*>(row);
  const bool f16 = type == TensorType::F16;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, f16 ? load_f16x8(h + i) : load_bf16x8(h + i));
  for (; i < n; ++i) dst[i] = f16 ? f16_to_f32(h[i]) : bf16_to_f32(h[i]);
  return true;
}

namespace {

// 8 floats rounded to bf16 (nearest even) as quantize_row does: bits + 0x7fff + bit 16.
inline __m128i round_bf16x8(__m256 x) {
  const __m256i b = _mm256_castps_si256(x);
  const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(1));
  const __m256i r =
      _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(b, _mm256_set1_epi32(0x7fff)), odd), 16);
  return _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
}

}  // namespace

bool quantize_row_avx2(TensorType type, const float* src, void* dst, int64_t n) {
  if (type != TensorType::F16 && type != TensorType::BF16) return false;
  auto* h = static_cast<uint16_t*>(dst);
  const bool f16 = type == TensorType::F16;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(src + i);
    // NaN: the hardware keeps payload bits the scalar code does not; those 8 go by it.
    if (_mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)) != 0) {
      quantize_row(type, src + i, h + i, 8);
      continue;
    }
    const __m128i y =
        f16 ? _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC) : round_bf16x8(x);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(h + i), y);
  }
  if (i < n) quantize_row(type, src + i, h + i, n - i);
  return true;
}

double fma_peak_loop_avx2(int64_t iterations) {
  // 12 independent chains: enough to cover the FMA latency on both FMA ports.
  __m256 a[12];
  for (int i = 0; i < 12; ++i) a[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-6f);
  for (int64_t it = 0; it < iterations; ++it) {
    for (int i = 0; i < 12; ++i) a[i] = _mm256_fmadd_ps(a[i], m, c);
  }
  __m256 s = a[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, a[i]);
  volatile float sink = hsum(s);
  (void)sink;
  return 2.0 * 12 * 8 * static_cast<double>(iterations);
}

namespace {
// 8 weights at p (element index i) as f32: the same values whichever way a row is read.
template <TensorType kType>
inline __m256 load_w8(const uint8_t* row, int64_t i) {
  if constexpr (kType == TensorType::F32) {
    return _mm256_loadu_ps(reinterpret_cast<const float*>(row) + i);
  } else if constexpr (kType == TensorType::F16) {
    return load_f16x8(reinterpret_cast<const uint16_t*>(row) + i);
  } else {
    return load_bf16x8(reinterpret_cast<const uint16_t*>(row) + i);
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

// R rows x T tokens. Per (row, token): one 8-lane running sum over the 8-value chunks in
// order, then hsum, then the tail values in order: the same for every R and T.
template <TensorType kType, int R, int T>
void float_tile(const uint8_t* rows, uint64_t row_bytes, const float* X, int64_t ldx, int64_t n,
                float* Y, int64_t ldy) {
  __m256 acc[R][T];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t) acc[r][t] = _mm256_setzero_ps();
  }
  const auto step = [&](int64_t at) {
    __m256 x[T];
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t) x[t] = _mm256_loadu_ps(X + t * ldx + at);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256 w = load_w8<kType>(rows + r * row_bytes, at);
#pragma GCC unroll 4
      for (int t = 0; t < T; ++t) acc[r][t] = _mm256_fmadd_ps(w, x[t], acc[r][t]);
    }
  };
  int64_t i = 0;
  if constexpr (T == 1) {  // decode (float_prefetch.h)
    for (; i + 32 <= n; i += 32) {
      prefetch_rows_ahead<kType, R>(rows, row_bytes, i);
      step(i);
      step(i + 8);
      step(i + 16);
      step(i + 24);
    }
  }
  for (; i + 8 <= n; i += 8) step(i);
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int t = 0; t < T; ++t) {
      float sum = hsum(acc[r][t]);
      for (int64_t k = i; k < n; ++k)
        sum += load_w1<kType>(rows + r * row_bytes, k) * X[t * ldx + k];
      Y[t * ldy + r] = sum;
    }
  }
}

template <TensorType kType, int R>
void float_tile_tokens(const uint8_t* rows, uint64_t row_bytes, const float* X, int64_t ldx,
                       int64_t n_tokens, int64_t n, float* Y, int64_t ldy) {
  int64_t t = 0;
  for (; t + 3 <= n_tokens; t += 3)
    float_tile<kType, R, 3>(rows, row_bytes, X + t * ldx, ldx, n, Y + t * ldy, ldy);
  if (n_tokens - t == 2)
    float_tile<kType, R, 2>(rows, row_bytes, X + t * ldx, ldx, n, Y + t * ldy, ldy);
  if (n_tokens - t == 1)
    float_tile<kType, R, 1>(rows, row_bytes, X + t * ldx, ldx, n, Y + t * ldy, ldy);
}

constexpr int64_t kTokenTile = 3;
#include "backend/cpu/float_rows.inl"
}  // namespace

// A switch to this file's template instances (F32/F16/BF16 loads differ inside the FMA loop;
// not a column of numeric/weight_type_traits.h), once per call, i.e. per matrix row range.
void float_rows_dot_avx2(TensorType type, const uint8_t* rows, uint64_t row_bytes, int64_t n_rows,
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

namespace {
#include "backend/cpu/streaming_read.inl"
}  // namespace

uint64_t streaming_read_avx2(const uint8_t* p, uint64_t bytes) {
  return streaming_read_lines(p, bytes);
}

}  // namespace kvchat::cpu
