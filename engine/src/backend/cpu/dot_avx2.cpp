// AVX2 + FMA + F16C dot products. This file alone is compiled with -mavx2 -mfma -mf16c;
// dot.cpp calls it only after checking the CPU at run time.
#include <immintrin.h>

#include "backend/cpu/dot.h"
#include "numeric/half.h"
#include "numeric/quant_blocks.h"

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

inline __m256 i8x8_to_f32(const int8_t* p) {
  __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b));
}

}  // namespace

float dot_f32_avx2(const float* a, const float* b, int64_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    a0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), a0);
    a1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), a1);
  }
  float sum = hsum(_mm256_add_ps(a0, a1));
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

void dot_f32_4x2_avx2(const float* w, int64_t ldw, const float* x, int64_t ldx, int64_t n,
                      float* out) {
  const float *w0 = w, *w1 = w + ldw, *w2 = w + 2 * ldw, *w3 = w + 3 * ldw;
  const float *x0 = x, *x1 = x + ldx;
  __m256 a00 = _mm256_setzero_ps(), a01 = a00, a02 = a00, a03 = a00;  // token 0, rows 0..3
  __m256 a10 = a00, a11 = a00, a12 = a00, a13 = a00;                  // token 1, rows 0..3
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v0 = _mm256_loadu_ps(x0 + i), v1 = _mm256_loadu_ps(x1 + i);
    __m256 r = _mm256_loadu_ps(w0 + i);
    a00 = _mm256_fmadd_ps(r, v0, a00);
    a10 = _mm256_fmadd_ps(r, v1, a10);
    r = _mm256_loadu_ps(w1 + i);
    a01 = _mm256_fmadd_ps(r, v0, a01);
    a11 = _mm256_fmadd_ps(r, v1, a11);
    r = _mm256_loadu_ps(w2 + i);
    a02 = _mm256_fmadd_ps(r, v0, a02);
    a12 = _mm256_fmadd_ps(r, v1, a12);
    r = _mm256_loadu_ps(w3 + i);
    a03 = _mm256_fmadd_ps(r, v0, a03);
    a13 = _mm256_fmadd_ps(r, v1, a13);
  }
  float res[8] = {hsum(a00), hsum(a01), hsum(a02), hsum(a03),
                  hsum(a10), hsum(a11), hsum(a12), hsum(a13)};
  for (; i < n; ++i) {
    res[0] += w0[i] * x0[i], res[1] += w1[i] * x0[i], res[2] += w2[i] * x0[i], res[3] += w3[i] * x0[i];
    res[4] += w0[i] * x1[i], res[5] += w1[i] * x1[i], res[6] += w2[i] * x1[i], res[7] += w3[i] * x1[i];
  }
  for (int k = 0; k < 8; ++k) out[k] = res[k];
}

bool dequantize_row_avx2(TensorType type, const void* row, float* dst, int64_t n) {
  if (type != TensorType::F16 && type != TensorType::BF16) return false;
  const auto* h = static_cast<const uint16_t*>(row);
  const bool f16 = type == TensorType::F16;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, f16 ? load_f16x8(h + i) : load_bf16x8(h + i));
  for (; i < n; ++i) dst[i] = f16 ? f16_to_f32(h[i]) : bf16_to_f32(h[i]);
  return true;
}

float dot_row_avx2(TensorType type, const void* row, const float* x, int64_t n) {
  switch (type) {
    case TensorType::F32: return dot_f32_avx2(static_cast<const float*>(row), x, n);
    case TensorType::F16:
    case TensorType::BF16: {
      const auto* w = static_cast<const uint16_t*>(row);
      const bool f16 = type == TensorType::F16;
      __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
      int64_t i = 0;
      for (; i + 16 <= n; i += 16) {
        __m256 w0 = f16 ? load_f16x8(w + i) : load_bf16x8(w + i);
        __m256 w1 = f16 ? load_f16x8(w + i + 8) : load_bf16x8(w + i + 8);
        a0 = _mm256_fmadd_ps(w0, _mm256_loadu_ps(x + i), a0);
        a1 = _mm256_fmadd_ps(w1, _mm256_loadu_ps(x + i + 8), a1);
      }
      float sum = hsum(_mm256_add_ps(a0, a1));
      for (; i < n; ++i) sum += (f16 ? f16_to_f32(w[i]) : bf16_to_f32(w[i])) * x[i];
      return sum;
    }
    case TensorType::Q8_0: {
      const auto* b = static_cast<const BlockQ8_0*>(row);
      __m256 acc = _mm256_setzero_ps();
      for (int64_t k = 0; k < n / kQuantBlock; ++k, x += kQuantBlock) {
        __m256 s = _mm256_mul_ps(i8x8_to_f32(b[k].qs), _mm256_loadu_ps(x));
        s = _mm256_fmadd_ps(i8x8_to_f32(b[k].qs + 8), _mm256_loadu_ps(x + 8), s);
        s = _mm256_fmadd_ps(i8x8_to_f32(b[k].qs + 16), _mm256_loadu_ps(x + 16), s);
        s = _mm256_fmadd_ps(i8x8_to_f32(b[k].qs + 24), _mm256_loadu_ps(x + 24), s);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(f16_to_f32(b[k].d)), s, acc);
      }
      return hsum(acc);
    }
    case TensorType::Q4_0: {
      const auto* b = static_cast<const BlockQ4_0*>(row);
      const __m128i low_mask = _mm_set1_epi8(0x0f), eight = _mm_set1_epi8(8);
      __m256 acc = _mm256_setzero_ps();
      for (int64_t k = 0; k < n / kQuantBlock; ++k, x += kQuantBlock) {
        __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b[k].qs));
        __m128i lo = _mm_sub_epi8(_mm_and_si128(q, low_mask), eight);                    // values 0..15
        __m128i hi = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(q, 4), low_mask), eight);  // values 16..31
        __m256 s = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(lo)), _mm256_loadu_ps(x));
        s = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8))),
                            _mm256_loadu_ps(x + 8), s);
        s = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(hi)), _mm256_loadu_ps(x + 16), s);
        s = _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8))),
                            _mm256_loadu_ps(x + 24), s);
        acc = _mm256_fmadd_ps(_mm256_set1_ps(f16_to_f32(b[k].d)), s, acc);
      }
      return hsum(acc);
    }
    default: return dot_row_scalar(type, row, x, n);
  }
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
// 16 packed rows x T tokens over all n: 2T accumulators (rows 0..7 and 8..15 of each token);
// per k one pair of row vectors and T broadcasts of x.
template <int T>
void gemm_16xT(const float* P, int n_rows, int64_t n, const float* X, int64_t ldx, float* Y, int64_t ldy) {
  __m256 lo[T], hi[T];
#pragma GCC unroll 8
  for (int t = 0; t < T; ++t) lo[t] = hi[t] = _mm256_setzero_ps();
  for (int64_t k = 0; k < n; ++k) {
    const __m256 w0 = _mm256_loadu_ps(P + k * kPackRows), w1 = _mm256_loadu_ps(P + k * kPackRows + 8);
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t) {
      const __m256 x = _mm256_broadcast_ss(X + t * ldx + k);
      lo[t] = _mm256_fmadd_ps(w0, x, lo[t]);
      hi[t] = _mm256_fmadd_ps(w1, x, hi[t]);
    }
  }
#pragma GCC unroll 8
  for (int t = 0; t < T; ++t) {
    if (n_rows == kPackRows) {
      _mm256_storeu_ps(Y + t * ldy, lo[t]);
      _mm256_storeu_ps(Y + t * ldy + 8, hi[t]);
    } else {
      alignas(32) float out[kPackRows];
      _mm256_store_ps(out, lo[t]);
      _mm256_store_ps(out + 8, hi[t]);
      for (int r = 0; r < n_rows; ++r) Y[t * ldy + r] = out[r];
    }
  }
}
}  // namespace

void gemm_packed_avx2(const float* P, int n_rows, int64_t n, const float* X, int64_t ldx, int64_t n_tokens, float* Y,
                      int64_t ldy) {
  constexpr int kTokens = 6;
  int64_t t = 0;
  for (; t + kTokens <= n_tokens; t += kTokens) gemm_16xT<kTokens>(P, n_rows, n, X + t * ldx, ldx, Y + t * ldy, ldy);
  switch (n_tokens - t) {
    case 5: return gemm_16xT<5>(P, n_rows, n, X + t * ldx, ldx, Y + t * ldy, ldy);
    case 4: return gemm_16xT<4>(P, n_rows, n, X + t * ldx, ldx, Y + t * ldy, ldy);
    case 3: return gemm_16xT<3>(P, n_rows, n, X + t * ldx, ldx, Y + t * ldy, ldy);
    case 2: return gemm_16xT<2>(P, n_rows, n, X + t * ldx, ldx, Y + t * ldy, ldy);
    case 1: return gemm_16xT<1>(P, n_rows, n, X + t * ldx, ldx, Y + t * ldy, ldy);
    default: return;
  }
}

}  // namespace kvchat::cpu
