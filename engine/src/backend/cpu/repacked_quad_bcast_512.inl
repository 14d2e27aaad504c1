// 4-token kernels without shuffles in the loop (included by repacked_kernels_512.inl, inside
// its anonymous namespace): each zmm of codes is permuted once, row by row, so that lane 2r is
// row r's chunk c and lane 2r + 1 its chunk c + 1, and each token's 8 activation bytes of
// chunks c and c + 1 come by a 64-bit broadcast load, [c c+1] in every lane pair:
//   dpbusd(acc[t], codes, bcast8(token t)) -> lanes (row r, chunk c | chunk c + 1) of token t.
// One vpermd for 4 tokens' 4 (Q6_K) or 8 (Q4_0, Q4_K) dpbusd, where the quad_*_512 kernels
// shuffle the codes once per dpbusd: Intel runs vpdpbusd and the shuffles on the same two
// ports (a Sapphire Rapids-class Xeon: 4.4 G vpdpbusd/s a core alone, 2.6 G/s with a vpshufd
// each). Per lane the integer sums and the float operations are those of the 8-row kernels
// (so of quant_dot_scalar), bit for bit; the two halves of a row are added before the float
// operations, tokens in pairs: lane 2r + u of pair p = (row r, token 2p + u).

// The 64 bytes of chunks c and c + 1 of 8 rows (chunk c's 8 rows, then c + 1's) row by row.
inline __m512i rows_interleaved(__m512i w) {
  return _mm512_permutexvar_epi32(
      _mm512_setr_epi32(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15), w);
}
// One int32 per row (8 lanes) in both lanes of its row's pair.
inline __m512i dup_rows(__m256i v) {
  return _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7),
                                  _mm512_castsi256_si512(v));
}
inline __m512 dup_rows(__m256 v) { return _mm512_castsi512_ps(dup_rows(_mm256_castps_si256(v))); }
// 8 bytes at p in every 64-bit lane (a broadcast load).
inline __m512i bcast8(const void* p) {
  int64_t v;
  std::memcpy(&v, p, 8);
  return _mm512_set1_epi64(v);
}
inline __m512 bcast8_ps(const float* p) { return _mm512_castsi512_ps(bcast8(p)); }

// The 4 tokens' bytes of block k (token t's blocks of type Block at act + t * act_stride).
template <typename Block = BlockQ8_K>
struct TokenBytes {
  const int8_t* qs[4];
  TokenBytes(const uint8_t* act, uint64_t act_stride, int64_t k) {
    for (int t = 0; t < 4; ++t) qs[t] = reinterpret_cast<const Block*>(act + t * act_stride)[k].qs;
  }
  const int8_t* operator[](int t) const { return qs[t]; }
};

// Tokens 2p, 2p + 1 of the per-token sums v[4] (lanes 2r, 2r + 1: row r's two halves) ->
// lane 2r + u = row r's whole sum of token 2p + u.
inline __m512i pair_sums(const __m512i (&v)[4], int p) {
  const __m512i even = _mm512_add_epi32(v[2 * p], _mm512_srli_epi64(v[2 * p], 32));
  const __m512i odd = _mm512_add_epi32(v[2 * p + 1], _mm512_slli_epi64(v[2 * p + 1], 32));
  return _mm512_mask_blend_epi32(0xAAAA, even, odd);
}
// acc[p] (lane 2r + u = row r, token 2p + u) -> Y[t * ldy + 0..7].
inline void store_pairs(const __m512 (&acc)[2], float* Y, int64_t ldy) {
  const __m512i split = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
  for (int p = 0; p < 2; ++p) {
    const __m512 v = _mm512_permutexvar_ps(split, acc[p]);
    _mm256_storeu_ps(Y + 2 * p * ldy, _mm512_castps512_ps256(v));
    _mm256_storeu_ps(Y + (2 * p + 1) * ldy, high_half(v));
  }
}

// Q4_K and Q5_K (quad_q45k_512's sums; q45k_block_end's float operations).
template <bool kFive>
void quad_q45k_bcast(const uint8_t* g, int64_t nb, const void* quad_act, const uint8_t* act,
                     uint64_t act_stride, float* Y, int64_t ldy) {
  constexpr int64_t kX8 = kFive ? 8 * 176 : 8 * 144;
  constexpr int kQsAt = kFive ? 384 : 128;
  const auto* qa = static_cast<const QuadQ8_K*>(quad_act);
  __m512 acc[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
  for (int64_t k = 0; k < nb; ++k) {
    const uint8_t* b = g + k * kX8;
    prefetch_ahead<kX8>(b);
    const QuadQ8_K& a = qa[k];
    const TokenBytes<> x_t(act, act_stride, k);
    const KScaleWords sw = k_scale_words(b);
    __m512i sumi[4];
    for (auto& v : sumi) v = _mm512_setzero_si512();
    for (int q = 0; q < 4; ++q) {  // sub-blocks 2q (low nibbles) and 2q + 1 (high nibbles)
      const __m256i scales = q < 2 ? sw.sc_lo : sw.sc_hi;
      __m512i dlo[4], dhi[4];
      for (int t = 0; t < 4; ++t) dlo[t] = dhi[t] = _mm512_setzero_si512();
      for (int c = 0; c < 8; c += 2) {
        const __m512i w = rows_interleaved(load512(b + kQsAt + 32 * (8 * q + c)));
        __m512i lo = low_nibbles(w), hi = high_nibbles(w);
        if constexpr (kFive) {
          const __m512i h = rows_interleaved(load512(b + 128 + 32 * c));
          lo = with_fifth_bit(lo, h, 2 * q);
          hi = with_fifth_bit(hi, h, 2 * q + 1);
        }
        for (int t = 0; t < 4; ++t) {
          const int8_t* x = x_t[t] + 64 * q + 4 * c;
          dlo[t] = _mm512_dpbusd_epi32(dlo[t], lo, bcast8(x));
          dhi[t] = _mm512_dpbusd_epi32(dhi[t], hi, bcast8(x + 32));
        }
      }
      const __m512i s0 = dup_rows(sub_block_scale(scales, 2 * q));
      const __m512i s1 = dup_rows(sub_block_scale(scales, 2 * q + 1));
      for (int t = 0; t < 4; ++t) {
        if constexpr (kFive) {
          sumi[t] = _mm512_add_epi32(sumi[t], _mm512_mullo_epi32(dlo[t], s0));
          sumi[t] = _mm512_add_epi32(sumi[t], _mm512_mullo_epi32(dhi[t], s1));
        } else {  // |lane| <= 16 * 15 * 128 < 2^15: add_scaled_int16's vpdpwssd
          sumi[t] = _mm512_dpwssd_epi32(sumi[t], dlo[t], s0);
          sumi[t] = _mm512_dpwssd_epi32(sumi[t], dhi[t], s1);
        }
      }
    }
    __m256i mins[4];
    k_min_pairs(sw, mins);
    const __m512 d = dup_rows(f16x8(b)), dmin = dup_rows(f16x8(b + 16));
    for (int p = 0; p < 2; ++p) {
      __m512i summ = _mm512_setzero_si512();
      for (int m = 0; m < 4; ++m)
        summ = _mm512_dpwssd_epi32(summ, dup_rows(mins[m]), bcast8(&a.min_pairs[m][2 * p]));
      const __m512 ad = bcast8_ps(&a.d[2 * p]);
      const __m512 t1 = _mm512_mul_ps(_mm512_mul_ps(d, ad), _mm512_cvtepi32_ps(pair_sums(sumi, p)));
      const __m512 t2 = _mm512_mul_ps(_mm512_mul_ps(dmin, ad), _mm512_cvtepi32_ps(summ));
      acc[p] = _mm512_add_ps(acc[p], _mm512_sub_ps(t1, t2));
    }
  }
  store_pairs(acc, Y, ldy);
}

// Q6_K (quad_q6k_512's sums and float operations).
void quad_q6k_bcast(const uint8_t* g, int64_t nb, const void* quad_act, const uint8_t* act,
                    uint64_t act_stride, float* Y, int64_t ldy) {
  constexpr int64_t kX8 = 8 * 210;
  const auto* qa = static_cast<const QuadQ8_K*>(quad_act);
  __m512 acc[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
  for (int64_t k = 0; k < nb; ++k) {
    const uint8_t* b = g + k * kX8;
    prefetch_ahead<kX8>(b);
    const uint8_t *scales = b + 16, *ql = b + 144, *qh = b + 1168;
    const QuadQ8_K& a = qa[k];
    const TokenBytes<> x_t(act, act_stride, k);
    __m512i sumi[4];
    for (auto& v : sumi) v = _mm512_setzero_si512();
    for (int h = 0; h < 2; ++h) {         // values 128h ..
      for (int kk = 0; kk < 4; ++kk) {    // .. + 32kk ..
        for (int cq = 0; cq < 2; ++cq) {  // .. + 16cq: group 8h + 2kk + cq
          const int grp = 8 * h + 2 * kk + cq;
          const __m512i sc = dup_rows(q6_scales_int16(scales + 8 * grp));
          for (int cc = 0; cc < 4; cc += 2) {  // one dot per zmm of codes: 4 products a lane
            const int ch = 4 * cq + cc;
            const __m512i code =
                rows_interleaved(q6_codes(load512(ql + 32 * (8 * (2 * h + (kk & 1)) + ch)),
                                          load512(qh + 32 * (8 * h + ch)), kk));
            for (int t = 0; t < 4; ++t) {
              const __m512i dot = _mm512_dpbusd_epi32(_mm512_setzero_si512(), code,
                                                      bcast8(x_t[t] + 128 * h + 32 * kk + 4 * ch));
              sumi[t] = _mm512_dpwssd_epi32(sumi[t], dot, sc);
            }
          }
        }
      }
    }
    const __m512 d = dup_rows(f16x8(b));
    for (int p = 0; p < 2; ++p) {
      __m512i off = _mm512_setzero_si512();
      for (int m = 0; m < 8; ++m)
        off = _mm512_dpwssd_epi32(off, dup_rows(q6_scale_pairs(scales + 16 * m)),
                                  bcast8(&a.bsum_pairs[m][2 * p]));
      const __m512i sv = _mm512_sub_epi32(pair_sums(sumi, p), _mm512_slli_epi32(off, 5));
      acc[p] = _mm512_add_ps(
          acc[p], _mm512_mul_ps(_mm512_mul_ps(d, bcast8_ps(&a.d[2 * p])), _mm512_cvtepi32_ps(sv)));
    }
  }
  store_pairs(acc, Y, ldy);
}

// Q4_0 (quad_q4_0_512's sums; its float operations). The offset (-8 * the token's sum) is
// added once a row, to the row's two halves' sum.
void quad_q4_0_bcast(const uint8_t* g, int64_t nb, const void* quad_act, const uint8_t* act,
                     uint64_t act_stride, float* Y, int64_t ldy) {
  constexpr int64_t kX8 = 8 * 18;
  const auto* qa = static_cast<const QuadQ8_32*>(quad_act);
  __m512 acc[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
  for (int64_t k = 0; k < nb; ++k) {
    const uint8_t* b = g + k * kX8;
    prefetch_ahead<kX8>(b);
    const QuadQ8_32& a = qa[k];
    const TokenBytes<BlockQ8_32> x_t(act, act_stride, k);
    __m512i sum[4];
    for (auto& v : sum) v = _mm512_setzero_si512();
    for (int c = 0; c < 4; c += 2) {
      const __m512i w = rows_interleaved(load512(b + 16 + 32 * c));
      const __m512i lo = low_nibbles(w), hi = high_nibbles(w);
      for (int t = 0; t < 4; ++t) {
        sum[t] = _mm512_dpbusd_epi32(sum[t], lo, bcast8(x_t[t] + 4 * c));
        sum[t] = _mm512_dpbusd_epi32(sum[t], hi, bcast8(x_t[t] + 16 + 4 * c));
      }
    }
    const __m512 d = dup_rows(f16x8(b));
    for (int p = 0; p < 2; ++p) {
      const __m512i s = _mm512_add_epi32(pair_sums(sum, p), bcast8(&a.offset_sum[2 * p]));
      const __m512 term =
          _mm512_mul_ps(_mm512_mul_ps(d, bcast8_ps(&a.d[2 * p])), _mm512_cvtepi32_ps(s));
      acc[p] = _mm512_add_ps(acc[p], term);
    }
  }
  store_pairs(acc, Y, ldy);
}
