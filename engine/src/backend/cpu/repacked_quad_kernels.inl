// Four tokens at once over x8-repacked weights, with the activations interleaved by token
// ("quad" activations): included by repacked_kernels.inl where dpbusd exists (KVCHAT_RP_VNNI
// 1 or 2), inside its anonymous namespace.
//
// The 8-row kernels broadcast 4 activation bytes of one token to all 8 lanes for every
// dpbusd: a broadcast load per multiply, which on an AMD EPYC (Zen 4) halves the rate
// dpbusd issues at. Here one 16-byte load brings the same 4-byte chunk of all 4 tokens,
// [t0 t1 t2 t3], repeated in both 128-bit halves, and the weights are shuffled instead:
// vpshufd picks row j's 4 bytes within each half, [r_j x4 | r_j+4 x4], so
//   dpbusd(acc[j], shuffle(codes, j), chunk) -> lanes (row j, t0..t3 | row j+4, t0..t3).
// acc[j] (j = 0..3) holds rows j and j + 4 for the 4 tokens; the per-row scales are
// shuffled the same way and the per-token ones come interleaved; the end is a 4x4 transpose
// in each half back to Y[t][8 rows]. Per lane the integer sums and the float operations are
// those of the 8-row kernels (so of quant_dot_scalar), bit for bit.

// One 4-byte activation chunk of tokens 0..3.
struct QuadChunk {
  int8_t b[4][4];  // [token][byte]
};
// BlockQ8_K of 4 tokens: d, the pair sums Q4_K/Q5_K's mins use, the 16 bsums Q6_K uses (as
// int16 pairs of groups 2p, 2p + 1), qs.
struct QuadQ8_K {
  float d[4];
  int32_t min_pairs[4][4];        // [p][token]: two_int16 of pair sums (0,2) (1,3) (4,6) (5,7)
  int32_t bsum_pairs[8][4];       // [p][token]: two_int16(bsums[2p], bsums[2p + 1])
  QuadChunk qs[kSuperBlock / 4];  // (not filled for the broadcast kernels, which read the
                                  // tokens' own blocks)
};
// BlockQ8_32 of 4 tokens, with -8 * sum: Q4_0's offset.
struct QuadQ8_32 {
  float d[4];
  int32_t offset_sum[4];
  QuadChunk qs[kQuantBlock / 4];  // (not filled for the broadcast kernel, as QuadQ8_K's)
};

inline __m256i bcast16(const void* p) {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128(static_cast<const __m128i*>(p)));
}
inline __m256 bcast16_ps(const float* p) {
  return _mm256_broadcast_ps(reinterpret_cast<const __m128*>(p));
}

// Row j's and row j + 4's lane of v, each in all four lanes of its half.
template <int J>
inline __m256i rows_of(__m256i v) {
  return _mm256_shuffle_epi32(v, J * 0x55);
}
template <int J>
inline __m256 rows_of(__m256 v) {
  return _mm256_shuffle_ps(v, v, J * 0x55);
}

// acc[j] += the products of codes (8 rows x 4 bytes) with chunk (4 tokens x 4 bytes).
inline void quad_dot(__m256i (&acc)[4], __m256i codes, __m256i chunk) {
  acc[0] = dpbusd(acc[0], rows_of<0>(codes), chunk);
  acc[1] = dpbusd(acc[1], rows_of<1>(codes), chunk);
  acc[2] = dpbusd(acc[2], rows_of<2>(codes), chunk);
  acc[3] = dpbusd(acc[3], rows_of<3>(codes), chunk);
}
// acc[j] = acc[j] + rows_of<j>(scale) * v[j] (exact int32).
inline void add_scaled(__m256i (&acc)[4], const __m256i (&v)[4], __m256i scale) {
  acc[0] = _mm256_add_epi32(acc[0], _mm256_mullo_epi32(v[0], rows_of<0>(scale)));
  acc[1] = _mm256_add_epi32(acc[1], _mm256_mullo_epi32(v[1], rows_of<1>(scale)));
  acc[2] = _mm256_add_epi32(acc[2], _mm256_mullo_epi32(v[2], rows_of<2>(scale)));
  acc[3] = _mm256_add_epi32(acc[3], _mm256_mullo_epi32(v[3], rows_of<3>(scale)));
}

// acc[j] (rows j, j + 4 x tokens 0..3) -> Y[t * ldy + 0..7].
inline void store_quad(const __m256 (&acc)[4], float* Y, int64_t ldy) {
  const __m256 u0 = _mm256_unpacklo_ps(acc[0], acc[1]), u1 = _mm256_unpackhi_ps(acc[0], acc[1]);
  const __m256 u2 = _mm256_unpacklo_ps(acc[2], acc[3]), u3 = _mm256_unpackhi_ps(acc[2], acc[3]);
  _mm256_storeu_ps(Y, _mm256_shuffle_ps(u0, u2, 0x44));
  _mm256_storeu_ps(Y + ldy, _mm256_shuffle_ps(u0, u2, 0xEE));
  _mm256_storeu_ps(Y + 2 * ldy, _mm256_shuffle_ps(u1, u3, 0x44));
  _mm256_storeu_ps(Y + 3 * ldy, _mm256_shuffle_ps(u1, u3, 0xEE));
}

// ---- activations: 4 tokens' blocks (act + t * act_stride) -> nb interleaved blocks --------
// 16 bytes (4 chunks) of each token -> the 4 chunks' QuadChunks: a 4x4 transpose of dwords.
inline void interleave_16(const int8_t* const (&src)[4], QuadChunk* out) {
  const __m128i r0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src[0]));
  const __m128i r1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src[1]));
  const __m128i r2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src[2]));
  const __m128i r3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src[3]));
  const __m128i u0 = _mm_unpacklo_epi32(r0, r1), u1 = _mm_unpackhi_epi32(r0, r1);
  const __m128i u2 = _mm_unpacklo_epi32(r2, r3), u3 = _mm_unpackhi_epi32(r2, r3);
  auto* o = reinterpret_cast<__m128i*>(out);
  _mm_storeu_si128(o + 0, _mm_unpacklo_epi64(u0, u2));
  _mm_storeu_si128(o + 1, _mm_unpackhi_epi64(u0, u2));
  _mm_storeu_si128(o + 2, _mm_unpacklo_epi64(u1, u3));
  _mm_storeu_si128(o + 3, _mm_unpackhi_epi64(u1, u3));
}

// The 4 tokens' kValues bytes of one block (a[t]->qs) -> kValues / 4 QuadChunks.
template <int kValues, typename Block>
inline void interleave_qs(const Block* const (&a)[4], QuadChunk* out) {
  for (int c = 0; c < kValues / 4; c += 4) {
    const int8_t* const src[4] = {a[0]->qs + 4 * c, a[1]->qs + 4 * c, a[2]->qs + 4 * c,
                                  a[3]->qs + 4 * c};
    interleave_16(src, &out[c]);
  }
}

inline void interleave_q8_k(const uint8_t* act, uint64_t act_stride, int64_t nb, bool chunks,
                            QuadQ8_K* out) {
  for (int64_t k = 0; k < nb; ++k) {
    QuadQ8_K& o = out[k];
    const BlockQ8_K* a[4];
    for (int t = 0; t < 4; ++t) {
      a[t] = reinterpret_cast<const BlockQ8_K*>(act + t * act_stride) + k;
      o.d[t] = a[t]->d;
      const int16_t* bs = a[t]->bsums;
      o.min_pairs[0][t] = two_int16(pair_sum(bs, 0), pair_sum(bs, 2));
      o.min_pairs[1][t] = two_int16(pair_sum(bs, 1), pair_sum(bs, 3));
      o.min_pairs[2][t] = two_int16(pair_sum(bs, 4), pair_sum(bs, 6));
      o.min_pairs[3][t] = two_int16(pair_sum(bs, 5), pair_sum(bs, 7));
      for (int p = 0; p < 8; ++p) o.bsum_pairs[p][t] = two_int16(bs[2 * p], bs[2 * p + 1]);
    }
    if (chunks) interleave_qs<kSuperBlock>(a, o.qs);
  }
}
inline void interleave_q8_32(const uint8_t* act, uint64_t act_stride, int64_t nb, bool chunks,
                             QuadQ8_32* out) {
  for (int64_t k = 0; k < nb; ++k) {
    QuadQ8_32& o = out[k];
    const BlockQ8_32* a[4];
    for (int t = 0; t < 4; ++t) {
      a[t] = reinterpret_cast<const BlockQ8_32*>(act + t * act_stride) + k;
      o.d[t] = a[t]->d;
      o.offset_sum[t] = -8 * a[t]->sum;
    }
    if (chunks) interleave_qs<kQuantBlock>(a, o.qs);
  }
}

// ---- kernels: one 8-row group x 4 tokens ----------------------------------------------------
// Q4_K / Q5_K, the end of x8 block b: acc[j] += (d * a.d) * sumi - (dmin * a.d) * summ, the
// mins as int16 pairs (sub-blocks j, j + 2) per row against the tokens' pair sums.
inline void q45k_block_end(const uint8_t* b, const QuadQ8_K& a, const KScaleWords& sw,
                           const __m256i (&sumi)[4], __m256 (&acc)[4]) {
  const __m256 d = f16x8(b), dmin = f16x8(b + 16), ad = bcast16_ps(a.d);
  __m256i mins[4];
  k_min_pairs(sw, mins);
  __m256i summ[4];
  for (auto& v : summ) v = _mm256_setzero_si256();
  for (int p = 0; p < 4; ++p) {
    const __m256i pairs = bcast16(a.min_pairs[p]);
    summ[0] = _mm256_add_epi32(summ[0], _mm256_madd_epi16(rows_of<0>(mins[p]), pairs));
    summ[1] = _mm256_add_epi32(summ[1], _mm256_madd_epi16(rows_of<1>(mins[p]), pairs));
    summ[2] = _mm256_add_epi32(summ[2], _mm256_madd_epi16(rows_of<2>(mins[p]), pairs));
    summ[3] = _mm256_add_epi32(summ[3], _mm256_madd_epi16(rows_of<3>(mins[p]), pairs));
  }
  const __m256 dj[4] = {rows_of<0>(d), rows_of<1>(d), rows_of<2>(d), rows_of<3>(d)};
  const __m256 mj[4] = {rows_of<0>(dmin), rows_of<1>(dmin), rows_of<2>(dmin), rows_of<3>(dmin)};
  for (int j = 0; j < 4; ++j) {
    const __m256 t1 = _mm256_mul_ps(_mm256_mul_ps(dj[j], ad), _mm256_cvtepi32_ps(sumi[j]));
    const __m256 t2 = _mm256_mul_ps(_mm256_mul_ps(mj[j], ad), _mm256_cvtepi32_ps(summ[j]));
    acc[j] = _mm256_add_ps(acc[j], _mm256_sub_ps(t1, t2));
  }
}

// Q6_K: the 8 rows' int8 scales of one group (8 bytes at s) as int16 with a zero high half,
// one row per int32 lane (an operand of dpwssd against a lane's int16 sum).
inline __m256i q6_scales_int16(const uint8_t* s) {
  return _mm256_cvtepu16_epi32(
      _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(s))));
}
// Q6_K: the 8 rows' int8 scales of groups 2p and 2p + 1 (8 bytes each at s, as x8 blocks
// keep them) as int16 pairs, one row per int32 lane: against QuadQ8_K::bsum_pairs[p] by dpwssd.
inline __m256i q6_scale_pairs(const uint8_t* s) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
  return _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(v, _mm_srli_si128(v, 8)));
}

// Q6_K, the end of x8 block b: acc[j] += (d * a.d) * (sumi - 32 * off), off = sum over the
// groups of scale * bsum.
inline void q6k_block_end(const uint8_t* b, const QuadQ8_K& a, const __m256i (&sumi)[4],
                          const __m256i (&off)[4], __m256 (&acc)[4]) {
  const __m256 d = f16x8(b), ad = bcast16_ps(a.d);
  const __m256 dj[4] = {rows_of<0>(d), rows_of<1>(d), rows_of<2>(d), rows_of<3>(d)};
  for (int j = 0; j < 4; ++j) {
    const __m256i sv = _mm256_sub_epi32(sumi[j], _mm256_slli_epi32(off[j], 5));
    acc[j] = _mm256_add_ps(acc[j], _mm256_mul_ps(_mm256_mul_ps(dj[j], ad), _mm256_cvtepi32_ps(sv)));
  }
}

#if KVCHAT_RP_VNNI == 1  // (AVX-512: the 512-bit kernels of repacked_kernels_512.inl)
// Q4_0 (group32<Q4_0>'s operations).
void quad_q4_0(const uint8_t* g, int64_t nb, const void* quad_act, const uint8_t*, uint64_t,
               float* Y, int64_t ldy) {
  constexpr int64_t kX8 = 8 * 18;
  const auto* qa = static_cast<const QuadQ8_32*>(quad_act);
  __m256 acc[4];
  for (auto& v : acc) v = _mm256_setzero_ps();
  for (int64_t k = 0; k < nb; ++k) {
    const uint8_t* b = g + k * kX8;
    prefetch_ahead<kX8>(b);
    const QuadQ8_32& a = qa[k];
    __m256i sum[4], sum_hi[4];  // two dependency chains per lane; the offset paid first
    for (int j = 0; j < 4; ++j) {
      sum[j] = bcast16(a.offset_sum);
      sum_hi[j] = _mm256_setzero_si256();
    }
    for (int c = 0; c < 4; ++c) {
      const __m256i w = load256(b + 16 + 32 * c);
      quad_dot(sum, low_nibbles(w), bcast16(&a.qs[c]));
      quad_dot(sum_hi, high_nibbles(w), bcast16(&a.qs[4 + c]));
    }
    for (int j = 0; j < 4; ++j) sum[j] = _mm256_add_epi32(sum[j], sum_hi[j]);
    const __m256 d = f16x8(b), ad = bcast16_ps(a.d);
    const __m256 dj[4] = {rows_of<0>(d), rows_of<1>(d), rows_of<2>(d), rows_of<3>(d)};
    for (int j = 0; j < 4; ++j) {
      const __m256 term = _mm256_mul_ps(_mm256_mul_ps(dj[j], ad), _mm256_cvtepi32_ps(sum[j]));
      acc[j] = _mm256_add_ps(acc[j], term);
    }
  }
  store_quad(acc, Y, ldy);
}

// Q4_K and Q5_K (group_q45k's VNNI operations).
template <bool kFive>
void quad_q45k(const uint8_t* g, int64_t nb, const void* quad_act, const uint8_t*, uint64_t,
               float* Y, int64_t ldy) {
  constexpr int64_t kX8 = kFive ? 8 * 176 : 8 * 144;
  constexpr int kQsAt = kFive ? 384 : 128;
  const auto* qa = static_cast<const QuadQ8_K*>(quad_act);
  __m256 acc[4];
  for (auto& v : acc) v = _mm256_setzero_ps();
  for (int64_t k = 0; k < nb; ++k) {
    const uint8_t* b = g + k * kX8;
    prefetch_ahead<kX8>(b);
    const QuadQ8_K& a = qa[k];
    const KScaleWords sw = k_scale_words(b);
    __m256i sumi[4];
    for (auto& v : sumi) v = _mm256_setzero_si256();
    for (int q = 0; q < 4; ++q) {  // sub-blocks 2q (low nibbles) and 2q + 1 (high nibbles)
      const __m256i scales = q < 2 ? sw.sc_lo : sw.sc_hi;
      const __m256i s0 = sub_block_scale(scales, 2 * q), s1 = sub_block_scale(scales, 2 * q + 1);
      __m256i dlo[4], dhi[4];
      for (int j = 0; j < 4; ++j) dlo[j] = dhi[j] = _mm256_setzero_si256();
      for (int c = 0; c < 8; ++c) {
        const __m256i w = load256(b + kQsAt + 32 * (8 * q + c));
        __m256i lo = low_nibbles(w), hi = high_nibbles(w);
        if constexpr (kFive) {
          const __m256i h = load256(b + 128 + 32 * c);
          lo = with_fifth_bit(lo, h, 2 * q);
          hi = with_fifth_bit(hi, h, 2 * q + 1);
        }
        quad_dot(dlo, lo, bcast16(&a.qs[16 * q + c]));
        quad_dot(dhi, hi, bcast16(&a.qs[16 * q + 8 + c]));
      }
      add_scaled(sumi, dlo, s0);
      add_scaled(sumi, dhi, s1);
    }
    q45k_block_end(b, a, sw, sumi, acc);
  }
  store_quad(acc, Y, ldy);
}

// Q6_K (group_q6k's VNNI operations).
void quad_q6k(const uint8_t* g, int64_t nb, const void* quad_act, const uint8_t*, uint64_t,
              float* Y, int64_t ldy) {
  constexpr int64_t kX8 = 8 * 210;
  const auto* qa = static_cast<const QuadQ8_K*>(quad_act);
  __m256 acc[4];
  for (auto& v : acc) v = _mm256_setzero_ps();
  for (int64_t k = 0; k < nb; ++k) {
    const uint8_t* b = g + k * kX8;
    prefetch_ahead<kX8>(b);
    const uint8_t *scales = b + 16, *ql = b + 144, *qh = b + 1168;
    const QuadQ8_K& a = qa[k];
    __m256i sumi[4], off[4];
    for (int j = 0; j < 4; ++j) sumi[j] = off[j] = _mm256_setzero_si256();
    for (int h = 0; h < 2; ++h) {         // values 128h ..
      for (int kk = 0; kk < 4; ++kk) {    // .. + 32kk ..
        for (int cq = 0; cq < 2; ++cq) {  // .. + 16cq: group 8h + 2kk + cq
          const int grp = 8 * h + 2 * kk + cq;
          const __m256i sc32 = _mm256_cvtepi8_epi32(
              _mm_loadl_epi64(reinterpret_cast<const __m128i*>(scales + 8 * grp)));
          __m256i dot_s[2][4];  // two dependency chains per lane (cc even, odd)
          for (auto& d2 : dot_s)
            for (auto& v : d2) v = _mm256_setzero_si256();
          for (int cc = 0; cc < 4; ++cc) {
            const int ch = 4 * cq + cc;  // 4-byte chunk of the 32 values
            const __m256i code = q6_codes(load256(ql + 32 * (8 * (2 * h + (kk & 1)) + ch)),
                                          load256(qh + 32 * (8 * h + ch)), kk);
            quad_dot(dot_s[cc % 2], code, bcast16(&a.qs[32 * h + 8 * kk + ch]));
          }
          __m256i dot[4];
          for (int j = 0; j < 4; ++j) dot[j] = _mm256_add_epi32(dot_s[0][j], dot_s[1][j]);
          add_scaled(sumi, dot, sc32);
        }
      }
    }
    for (int p = 0; p < 8; ++p) {  // off: two groups' scale * bsum per dpwssd
      const __m256i sp = q6_scale_pairs(scales + 16 * p), bp = bcast16(a.bsum_pairs[p]);
      off[0] = dpwssd(off[0], rows_of<0>(sp), bp);
      off[1] = dpwssd(off[1], rows_of<1>(sp), bp);
      off[2] = dpwssd(off[2], rows_of<2>(sp), bp);
      off[3] = dpwssd(off[3], rows_of<3>(sp), bp);
    }
    q6k_block_end(b, a, sumi, off, acc);
  }
  store_quad(acc, Y, ldy);
}

#else
#include "backend/cpu/repacked_kernels_512.inl"
#endif

// A 4-token kernel: an x8 group's nb blocks, the tile's interleaved activations, the 4 tokens'
// own blocks (token t's at act + t * act_stride; the broadcast kernels read their bytes
// there), Y.
using QuadKernel = void (*)(const uint8_t*, int64_t, const void*, const uint8_t*, uint64_t, float*,
                            int64_t);

// Whether this build's 4-token kernels are the broadcast ones (repacked_quad_bcast_512.inl),
// which read the tokens' own bytes rather than the tile's QuadChunks.
inline bool quad_broadcast() {
#if KVCHAT_RP_VNNI == 2
  return quad_kernels_broadcast();
#else
  return false;
#endif
}

// The type's 4-token kernel, or null where there is none (Q8_0, IQ4_XS: 8-row kernels).
inline QuadKernel quad_kernel(gguf::TensorType type) {
#if KVCHAT_RP_VNNI == 2
  const bool broadcast = quad_broadcast();
  switch (type) {
    case gguf::TensorType::Q4_0: return broadcast ? quad_q4_0_bcast : quad_q4_0_512;
    case gguf::TensorType::Q4_K: return broadcast ? quad_q45k_bcast<false> : quad_q45k_512<false>;
    case gguf::TensorType::Q5_K: return broadcast ? quad_q45k_bcast<true> : quad_q45k_512<true>;
    case gguf::TensorType::Q6_K: return broadcast ? quad_q6k_bcast : quad_q6k_512;
    default: return nullptr;
  }
#else
  switch (type) {
    case gguf::TensorType::Q4_0: return quad_q4_0;
    case gguf::TensorType::Q4_K: return quad_q45k<false>;
    case gguf::TensorType::Q5_K: return quad_q45k<true>;
    case gguf::TensorType::Q6_K: return quad_q6k;
    default: return nullptr;
  }
#endif
}

// Bytes of one 4-token tile of interleaved activations for nb blocks of `type`.
inline int64_t quad_tile_bytes(gguf::TensorType type, int64_t nb) {
  return nb *
         (type == gguf::TensorType::Q4_0 ? int64_t{sizeof(QuadQ8_32)} : int64_t{sizeof(QuadQ8_K)});
}
inline void interleave_tile(gguf::TensorType type, const uint8_t* act, uint64_t act_stride,
                            int64_t nb, uint8_t* out) {
  const bool chunks = !quad_broadcast();
  if (type == gguf::TensorType::Q4_0)
    interleave_q8_32(act, act_stride, nb, chunks, reinterpret_cast<QuadQ8_32*>(out));
  else
    interleave_q8_k(act, act_stride, nb, chunks, reinterpret_cast<QuadQ8_K*>(out));
}
