// AVX512-BF16 kernels of bf16_dot.h: vdpbf16ps over 32 BF16 values per instruction (or f32
// FMAs summing the same way, for prefill on CPUs where those are faster), and vcvtneps2bf16
// for the activations. This file alone is compiled with -mavx512bf16
// (cmake/KvchatEngine.cmake); bf16_dot.cpp calls it only when use_avx512bf16_kernels().
// Bit for bit the definition in bf16_dot.h: vdpbf16ps adds lane j's odd product, then its
// even product, each rounded, subnormals flushed (checked on this CPU by test_bf16_dot).
// GCC 12 warns that its own _mm512_extractf64x4_pd reads an undefined vector (the intrinsic
// starts from _mm256_undefined_pd): a false positive, as in dot_avx512.cpp.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>

#include "backend/cpu/bf16_dot.h"
#include "backend/cpu/float_prefetch.h"

namespace kvchat::cpu {

namespace {

// Step 3 of the definition: lanes j and j + 8, then + 4, + 2, + 1.
inline float fold_halves(__m512 v) {
  const __m256 lo = _mm512_castps512_ps256(v);
  const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
  const __m256 s8 = _mm256_add_ps(lo, hi);
  const __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(s8), _mm256_extractf128_ps(s8, 1));
  const __m128 s2 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  return _mm_cvtss_f32(_mm_add_ss(s2, _mm_shuffle_ps(s2, s2, 1)));
}

// R rows x T tokens; acc[r][t] lane j is the definition's s_j; the tail chunk is read
// with its missing values as zeros (the definition's padding). Summed by vdpbf16ps, or
// (kFma) by f32 FMAs for prefill where those are faster (avx512bf16_faster_than_fma()):
// a 32-bit lane j of 32 loaded BF16 values holds value 2j in its low half and 2j + 1 in its
// high half, so masking the low half off gives the odd values as f32 and shifting left by
// 16 the even ones, and lane j of acc gets the odd product, then the even one, as the
// instruction adds them. Each product of two BF16 values is exact in f32, so fma(w, x, s)
// rounds s + w*x once, as the instruction does; with the caller's MXCSR set to DAZ and FTZ
// (with_bf16_mxcsr), a subnormal weight reads as zero and a subnormal sum becomes the zero
// of its sign. The odd and even halves run as two passes over the tile so the 6 token
// vectors and 24 sums fit the 32 registers.
template <int R, int T, bool kFma>
void bf16_tile(const uint8_t* rows, uint64_t row_bytes, const uint16_t* X, int64_t ldx, int64_t n,
               float* Y, int64_t ldy) {
  __m512 acc[R][T];
  for (int r = 0; r < R; ++r) {
    for (int t = 0; t < T; ++t) acc[r][t] = _mm512_setzero_ps();
  }
  const auto row = [&](int r) { return reinterpret_cast<const uint16_t*>(rows + r * row_bytes); };
  const auto step = [&](int64_t at, auto load) {
    if constexpr (kFma) {
      const __m512i high = _mm512_set1_epi32(static_cast<int>(0xffff0000u));
      const auto half = [&](auto widen) {
        __m512 x[T];
        for (int t = 0; t < T; ++t) x[t] = widen(load(X + t * ldx + at));
        for (int r = 0; r < R; ++r) {
          const __m512 w = widen(load(row(r) + at));
          for (int t = 0; t < T; ++t) acc[r][t] = _mm512_fmadd_ps(w, x[t], acc[r][t]);
        }
      };
      half([&](__m512i v) { return _mm512_castsi512_ps(_mm512_and_si512(v, high)); });  // odd
      half([](__m512i v) { return _mm512_castsi512_ps(_mm512_slli_epi32(v, 16)); });    // even
    } else {
      __m512bh x[T];
      for (int t = 0; t < T; ++t) x[t] = (__m512bh)load(X + t * ldx + at);
      for (int r = 0; r < R; ++r) {
        const __m512bh w = (__m512bh)load(row(r) + at);
        for (int t = 0; t < T; ++t) acc[r][t] = _mm512_dpbf16_ps(acc[r][t], w, x[t]);
      }
    }
  };
  const auto full = [](const uint16_t* p) { return _mm512_loadu_si512(p); };
  int64_t i = 0;
  if constexpr (T == 1) {  // decode: each row 1 KiB ahead (float_prefetch.h)
    for (; i + 64 <= n; i += 64) {
      prefetch_rows_ahead<gguf::TensorType::BF16, R>(rows, row_bytes, i);
      prefetch_rows_ahead<gguf::TensorType::BF16, R>(rows, row_bytes, i + 32);
      step(i, full);
      step(i + 32, full);
    }
  }
  for (; i + 32 <= n; i += 32) step(i, full);
  if (i < n) {
    const __mmask32 m = _cvtu32_mask32((1u << (n - i)) - 1);
    step(i, [m](const uint16_t* p) { return _mm512_maskz_loadu_epi16(m, p); });
  }
  for (int r = 0; r < R; ++r) {
    for (int t = 0; t < T; ++t) Y[t * ldy + r] = fold_halves(acc[r][t]);
  }
}

// MXCSR with DAZ (bit 6) and FTZ (bit 15) set while f runs, as vdpbf16ps behaves whatever
// MXCSR says; the caller's MXCSR is put back.
template <class F>
void with_bf16_mxcsr(F f) {
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u);
  f();
  _mm_setcsr(saved);
}

// Tokens in tiles of 6 (24 accumulators, 6 token vectors and a weight vector: 31 of the 32
// registers), then one tile of what is left.
constexpr int64_t kTokenTile = 6;
template <int R, bool kFma>
void bf16_tile_tokens(const uint8_t* rows, uint64_t row_bytes, const uint16_t* X, int64_t ldx,
                      int64_t n_tokens, int64_t n, float* Y, int64_t ldy) {
  const auto run = [&](auto tile) { tile(rows, row_bytes, X, ldx, n, Y, ldy); };
  switch (n_tokens) {
    case 6: return run(bf16_tile<R, 6, kFma>);
    case 5: return run(bf16_tile<R, 5, kFma>);
    case 4: return run(bf16_tile<R, 4, kFma>);
    case 3: return run(bf16_tile<R, 3, kFma>);
    case 2: return run(bf16_tile<R, 2, kFma>);
    case 1: return run(bf16_tile<R, 1, kFma>);
    default: return;
  }
}

// Prefill in blocks of 16 rows, each block's 4-row tiles over one token tile after another
// (the token tile's activations stay in L1, the block's rows in L2): the loop order of
// float_rows.inl.
template <bool kFma>
void bf16_prefill_rows(const uint8_t* rows, uint64_t row_bytes, int64_t r0, int64_t n_rows,
                       const uint16_t* X, int64_t ldx, int64_t n_tokens, int64_t n, float* Y,
                       int64_t ldy) {
  constexpr int64_t kRowBlock = 16;
  for (int64_t rb = r0; rb < n_rows; rb += kRowBlock) {
    const int64_t re = std::min(n_rows, rb + kRowBlock);
    for (int64_t t = 0; t < n_tokens; t += kTokenTile) {
      const int64_t nt = std::min(kTokenTile, n_tokens - t);
      const uint16_t* Xt = X + t * ldx;
      float* Yt = Y + t * ldy;
      int64_t q = rb;
      for (; q + 4 <= re; q += 4)
        bf16_tile_tokens<4, kFma>(rows + q * row_bytes, row_bytes, Xt, ldx, nt, n, Yt + q, ldy);
      for (; q < re; ++q)
        bf16_tile_tokens<1, kFma>(rows + q * row_bytes, row_bytes, Xt, ldx, nt, n, Yt + q, ldy);
    }
  }
}

}  // namespace

// Decode 8 rows at a time with vdpbf16ps; prefill (and the rows decode leaves) with
// vdpbf16ps or its FMA twin, the same bits either way.
void bf16_rows_dot_avx512bf16(const uint8_t* rows, uint64_t row_bytes, int64_t n_rows,
                              const uint16_t* X, int64_t ldx, int64_t n_tokens, int64_t n, float* Y,
                              int64_t ldy, Bf16Prefill prefill) {
  int64_t r = 0;
  if (n_tokens == 1) {
    for (; r + 8 <= n_rows; r += 8)
      bf16_tile<8, 1, false>(rows + r * row_bytes, row_bytes, X, ldx, n, Y + r, ldy);
  }
  if (r == n_rows) return;
  if (prefill == Bf16Prefill::kDpbf16)
    return bf16_prefill_rows<false>(rows, row_bytes, r, n_rows, X, ldx, n_tokens, n, Y, ldy);
  with_bf16_mxcsr(
      [&] { bf16_prefill_rows<true>(rows, row_bytes, r, n_rows, X, ldx, n_tokens, n, Y, ldy); });
}

void round_activations_bf16_avx512bf16(const float* x, uint16_t* dst, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                        (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(x + i)));
  if (i < n) {
    const __mmask16 m = _cvtu32_mask16((1u << (n - i)) - 1);
    const __m256bh h = _mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, x + i));
    _mm256_mask_storeu_epi16(dst + i, m, (__m256i)h);
  }
}

}  // namespace kvchat::cpu
