// AVX2 + FMA + F16C attention kernels. This file alone is compiled with -mavx2 -mfma
// -mf16c; attention.cpp calls it only after checking the CPU at run time.
#include <immintrin.h>

#include <algorithm>

#include "backend/cpu/attention_kernels.h"
#include "backend/cpu/exp_avx2.h"
#include "numeric/quant_blocks.h"

namespace kvchat::cpu::attention_detail {

namespace {

constexpr int32_t kQ = kQuantBlock;

// The horizontal sum ((v0+v1)+(v2+v3)) + ((v4+v5)+(v6+v7)): the order hsum8 adds in, so
// that a score does not depend on whether its key came in a group of 8 (bit-identical
// results whatever the KV block size).
inline float hsum(__m256 v) {
  const __m256 t = _mm256_hadd_ps(v, v);
  const __m256 u = _mm256_hadd_ps(t, t);
  return _mm_cvtss_f32(_mm_add_ss(_mm256_castps256_ps128(u), _mm256_extractf128_ps(u, 1)));
}

// The 8 horizontal sums of a[0..7], in order, as one vector.
inline __m256 hsum8(const __m256* a) {
  const __m256 t0 = _mm256_hadd_ps(a[0], a[1]), t1 = _mm256_hadd_ps(a[2], a[3]);
  const __m256 t2 = _mm256_hadd_ps(a[4], a[5]), t3 = _mm256_hadd_ps(a[6], a[7]);
  const __m256 u0 = _mm256_hadd_ps(t0, t1), u1 = _mm256_hadd_ps(t2, t3);
  // u0 = [s0 s1 s2 s3 | s0' s1' s2' s3'] (low and high halves of a[0..3]); u1 the same for a[4..7].
  return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
}

inline float f16_scalar(uint16_t h) { return _cvtsh_ss(h); }

// 8 stored values (f32, or f16 converted by F16C) as f32; one value.
inline __m256 load8(const float* p) { return _mm256_loadu_ps(p); }
inline __m256 load8(const uint16_t* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
inline float value_of(float x) { return x; }
inline float value_of(uint16_t h) { return f16_scalar(h); }

// One KV head (hd values, hd % 8 == 0 or a scalar tail) of `type` as f32.
void head_to_f32(KvType type, const uint8_t* src, float* dst, int32_t hd) {
  switch (type) {
    case KvType::F32: std::copy_n(reinterpret_cast<const float*>(src), hd, dst); break;
    case KvType::F16: {
      const auto* h = reinterpret_cast<const uint16_t*>(src);
      int32_t d = 0;
      for (; d + 8 <= hd; d += 8) {
        _mm256_storeu_ps(dst + d,
                         _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(h + d))));
      }
      for (; d < hd; ++d) dst[d] = f16_scalar(h[d]);
      break;
    }
    case KvType::Q8_0: {
      const auto* b = reinterpret_cast<const BlockQ8_0*>(src);
      for (int32_t k = 0; k < hd / kQ; ++k) {
        const __m256 s = _mm256_set1_ps(f16_scalar(b[k].d));
        for (int c = 0; c < 4; ++c) {
          const __m128i x = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b[k].qs + 8 * c));
          _mm256_storeu_ps(dst + k * kQ + 8 * c,
                           _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(x))));
        }
      }
      break;
    }
    case KvType::Q4_0: {
      const auto* b = reinterpret_cast<const BlockQ4_0*>(src);
      const __m128i low4 = _mm_set1_epi8(0x0f), eight = _mm_set1_epi8(8);
      for (int32_t k = 0; k < hd / kQ; ++k) {
        const __m256 s = _mm256_set1_ps(f16_scalar(b[k].d));
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b[k].qs));
        const __m128i lo = _mm_sub_epi8(_mm_and_si128(x, low4), eight);  // values 0..15
        const __m128i hi =
            _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), low4), eight);  // values 16..31
        float* o = dst + k * kQ;
        _mm256_storeu_ps(o, _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(lo))));
        _mm256_storeu_ps(
            o + 8,
            _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8)))));
        _mm256_storeu_ps(o + 16, _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(hi))));
        _mm256_storeu_ps(
            o + 24,
            _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8)))));
      }
      break;
    }
    default: break;  // rotated types arrive here as their layout (kv_layout)
  }
}

// f32 or f16 keys (T, kld values apart): NG query heads from g0 against PJ keys at a
// time, NG * PJ accumulators (8 when the tile is full, reduced together by hsum8).
template <int NG, int PJ, typename T>
void float_scores(const KeyScoreArgs& a, const T* keys, int64_t kld, int32_t g0, int32_t j0) {
  const int32_t hd = a.head_dim;
  __m256 acc[NG * PJ];
  for (auto& x : acc) x = _mm256_setzero_ps();
  int32_t d = 0;
  for (; d + 8 <= hd; d += 8) {
    __m256 k[PJ];
    for (int p = 0; p < PJ; ++p) k[p] = load8(keys + (j0 + p) * kld + d);
    for (int g = 0; g < NG; ++g) {
      const __m256 q = _mm256_loadu_ps(a.q + static_cast<int64_t>(g0 + g) * hd + d);
      for (int p = 0; p < PJ; ++p) acc[p * NG + g] = _mm256_fmadd_ps(k[p], q, acc[p * NG + g]);
    }
  }
  float sums[NG * PJ];
  if constexpr (NG * PJ == 8) {
    _mm256_storeu_ps(sums, hsum8(acc));
  } else {
    for (int i = 0; i < NG * PJ; ++i) sums[i] = hsum(acc[i]);
  }
  for (; d < hd; ++d) {
    for (int p = 0; p < PJ; ++p) {
      for (int g = 0; g < NG; ++g)
        sums[p * NG + g] += value_of(keys[(j0 + p) * kld + d]) * a.q[(g0 + g) * hd + d];
    }
  }
  for (int p = 0; p < PJ; ++p) {
    for (int g = 0; g < NG; ++g) a.scores[(g0 + g) * a.ld + j0 + p] = sums[p * NG + g] * a.scale;
  }
}

// NG heads from g0 over all n keys: PJ keys at a time, then one at a time.
template <int NG, typename T>
void float_scores_heads(const KeyScoreArgs& a, const T* keys, int64_t kld, int32_t g0) {
  constexpr int PJ = 8 / NG;
  int32_t j = 0;
  for (; j + PJ <= a.n; j += PJ) float_scores<NG, PJ>(a, keys, kld, g0, j);
  for (; j < a.n; ++j) float_scores<NG, 1>(a, keys, kld, g0, j);
}

template <typename T>
void float_scores_all(const KeyScoreArgs& a, const T* keys, int64_t kld) {
  int32_t g = 0;
  for (; g + 8 <= a.group; g += 8) float_scores_heads<8>(a, keys, kld, g);
  for (; g + 4 <= a.group; g += 4) float_scores_heads<4>(a, keys, kld, g);
  for (; g + 2 <= a.group; g += 2) float_scores_heads<2>(a, keys, kld, g);
  for (; g < a.group; ++g) float_scores_heads<1>(a, keys, kld, g);
}

// q8_0 / q4_0 keys against the 16-bit query heads, NG heads from g0, one key at a time:
// the key block widened to int16 once, then two madd per head and block.
template <int NG, bool Q4>
void quant_scores(const KeyScoreArgs& a, int32_t g0) {
  const int32_t hd = a.head_dim, nb = hd / kQ;
  const __m128i low4 = _mm_set1_epi8(0x0f), eight = _mm_set1_epi8(8);
  for (int32_t j = 0; j < a.n; ++j) {
    const uint8_t* row = a.rows + j * a.stride;
    __m256 acc[NG];
    for (int g = 0; g < NG; ++g) acc[g] = _mm256_setzero_ps();
    for (int32_t k = 0; k < nb; ++k) {
      __m128i k0, k1;  // the block's values 0..15 and 16..31 as int8
      float dk;
      if constexpr (Q4) {
        const auto& b = reinterpret_cast<const BlockQ4_0*>(row)[k];
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs));
        k0 = _mm_sub_epi8(_mm_and_si128(x, low4), eight);
        k1 = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), low4), eight);
        dk = f16_scalar(b.d);
      } else {
        const auto& b = reinterpret_cast<const BlockQ8_0*>(row)[k];
        k0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs));
        k1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs + 16));
        dk = f16_scalar(b.d);
      }
      const __m256i w0 = _mm256_cvtepi8_epi16(k0), w1 = _mm256_cvtepi8_epi16(k1);
      for (int g = 0; g < NG; ++g) {
        const int64_t qb = static_cast<int64_t>(g0 + g) * nb + k;
        const int16_t* q = a.qq.quants + qb * kQ;
        // |k| <= 128, |q| <= 32767: each int32 lane sums 4 products, < 2^24 (exact in f32).
        const __m256i p = _mm256_add_epi32(
            _mm256_madd_epi16(w0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q))),
            _mm256_madd_epi16(w1, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 16))));
        acc[g] =
            _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), _mm256_set1_ps(dk * a.qq.scales[qb]), acc[g]);
      }
    }
    for (int g = 0; g < NG; ++g) a.scores[(g0 + g) * a.ld + j] = hsum(acc[g]) * a.scale;
  }
}

template <bool Q4>
void quant_scores_all(const KeyScoreArgs& a) {
  int32_t g = 0;
  for (; g + 8 <= a.group; g += 8) quant_scores<8, Q4>(a, g);
  for (; g + 4 <= a.group; g += 4) quant_scores<4, Q4>(a, g);
  for (; g + 2 <= a.group; g += 2) quant_scores<2, Q4>(a, g);
  for (; g < a.group; ++g) quant_scores<1, Q4>(a, g);
}

// out[g0 + h][d, d + 32) += sum_j w[(g0 + h) * ld + j] * v_j[d, d + 32) for NH heads:
// each V load serves NH heads.
template <int NH, typename T>
void value_sum_32(const ValueSumArgs& a, const T* vals, int64_t vld, int32_t g0, int32_t d) {
  __m256 o[NH][4];
  for (int h = 0; h < NH; ++h) {
    for (int c = 0; c < 4; ++c)
      o[h][c] = _mm256_loadu_ps(a.out + static_cast<int64_t>(g0 + h) * a.head_dim + d + 8 * c);
  }
  for (int32_t j = 0; j < a.n; ++j) {
    const T* v = vals + j * vld + d;
    const __m256 v0 = load8(v), v1 = load8(v + 8), v2 = load8(v + 16), v3 = load8(v + 24);
    for (int h = 0; h < NH; ++h) {
      const __m256 w = _mm256_set1_ps(a.weights[(g0 + h) * a.ld + j]);
      o[h][0] = _mm256_fmadd_ps(w, v0, o[h][0]);
      o[h][1] = _mm256_fmadd_ps(w, v1, o[h][1]);
      o[h][2] = _mm256_fmadd_ps(w, v2, o[h][2]);
      o[h][3] = _mm256_fmadd_ps(w, v3, o[h][3]);
    }
  }
  for (int h = 0; h < NH; ++h) {
    for (int c = 0; c < 4; ++c)
      _mm256_storeu_ps(a.out + static_cast<int64_t>(g0 + h) * a.head_dim + d + 8 * c, o[h][c]);
  }
}

// out (group, hd) += sum_j w[g * ld + j] * v_j, v_j = vals + j * vld (f32 or f16).
template <typename T>
void float_value_sum(const ValueSumArgs& a, const T* vals, int64_t vld) {
  const int32_t hd = a.head_dim, d32 = hd / 32 * 32;
  for (int32_t d = 0; d < d32; d += 32) {
    int32_t g = 0;
    for (; g + 2 <= a.group; g += 2) value_sum_32<2>(a, vals, vld, g, d);
    for (; g < a.group; ++g) value_sum_32<1>(a, vals, vld, g, d);
  }
  for (int32_t g = 0; g < a.group; ++g) {
    const float* w = a.weights + g * a.ld;
    float* o = a.out + static_cast<int64_t>(g) * hd;
    int32_t d = d32;
    for (; d + 8 <= hd; d += 8) {
      __m256 o0 = _mm256_loadu_ps(o + d);
      for (int32_t j = 0; j < a.n; ++j)
        o0 = _mm256_fmadd_ps(_mm256_set1_ps(w[j]), load8(vals + j * vld + d), o0);
      _mm256_storeu_ps(o + d, o0);
    }
    for (; d < hd; ++d) {
      for (int32_t j = 0; j < a.n; ++j) o[d] += w[j] * value_of(vals[j * vld + d]);
    }
  }
}

}  // namespace

void key_scores_avx2(const KeyScoreArgs& a) {
  switch (a.type) {
    case KvType::F32:
      float_scores_all(a, reinterpret_cast<const float*>(a.rows),
                       a.stride / static_cast<int64_t>(sizeof(float)));
      break;
    case KvType::F16:
      float_scores_all(a, reinterpret_cast<const uint16_t*>(a.rows),
                       a.stride / static_cast<int64_t>(sizeof(uint16_t)));
      break;
    case KvType::Q8_0: quant_scores_all<false>(a); break;
    case KvType::Q4_0: quant_scores_all<true>(a); break;
    default: break;  // rotated types arrive here as their layout (kv_layout)
  }
}

void value_sum_avx2(const ValueSumArgs& a) {
  if (a.type == KvType::F32) {
    float_value_sum(a, reinterpret_cast<const float*>(a.rows),
                    a.stride / static_cast<int64_t>(sizeof(float)));
    return;
  }
  if (a.type == KvType::F16) {
    float_value_sum(a, reinterpret_cast<const uint16_t*>(a.rows),
                    a.stride / static_cast<int64_t>(sizeof(uint16_t)));
    return;
  }
  for (int32_t j = 0; j < a.n; ++j)
    head_to_f32(a.type, a.rows + j * a.stride, a.tile + j * a.head_dim, a.head_dim);
  float_value_sum(a, a.tile, a.head_dim);
}

float exp_sum_avx2(float* x, int64_t n, float max) {
  const __m256 m = _mm256_set1_ps(max);
  __m256 sum = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 e = exp_nonpositive(_mm256_sub_ps(_mm256_loadu_ps(x + i), m));
    _mm256_storeu_ps(x + i, e);
    sum = _mm256_add_ps(sum, e);
  }
  float s = hsum(sum);
  if (i < n) {
    float tail[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int64_t k = i; k < n; ++k) tail[k - i] = x[k] - max;
    float e[8];
    _mm256_storeu_ps(e, exp_nonpositive(_mm256_loadu_ps(tail)));
    for (int64_t k = i; k < n; ++k) {
      x[k] = e[k - i];
      s += e[k - i];
    }
  }
  return s;
}

float max_avx2(const float* x, int64_t n) {
  __m256 m = _mm256_set1_ps(x[0]);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) m = _mm256_max_ps(m, _mm256_loadu_ps(x + i));
  float r[8];
  _mm256_storeu_ps(r, m);
  float best = *std::max_element(r, r + 8);
  for (; i < n; ++i) best = x[i] > best ? x[i] : best;
  return best;
}

}  // namespace kvchat::cpu::attention_detail
