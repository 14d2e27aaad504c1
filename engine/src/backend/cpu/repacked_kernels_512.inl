// Kernels on 512-bit registers where AVX-512 VNNI exists (KVCHAT_RP_VNNI 2; included by
// repacked_quad_kernels.inl, inside its anonymous namespace): the 4-token kernels in place
// of its 256-bit ones (which serve AVX-VNNI), and the one-token Q4_K/Q5_K kernel in place of
// group_q45k<kFive, 1>.
//
// 4 tokens: a zmm holds two consecutive 4-byte chunks of the 8 rows (64 bytes of codes, chunk c in
// the low 256 bits, c + 1 in the high), and the tokens' chunks come as [c | c | c+1 | c+1]
// by 128-bit lane, so each vpshufd / vpdpbusd does the work of two of the 256-bit kernels:
// lanes (row j, t0..t3 | row j+4, t0..t3) of chunk c, then the same of chunk c + 1. The two
// halves are added (int32, exact: the same integer sum in another order) once per block,
// before the float operations, which are the 256-bit kernels' own, bit for bit. Where the
// CPU executes 512-bit operations whole (AMD Zen 5, Intel), four sessions' decode step,
// bound by these kernels, takes fewer cycles.

// 32 bytes at p as [0..15 | 0..15 | 16..31 | 16..31] by 128-bit lane: chunks c and c + 1 of 4
// tokens as [c | c | c+1 | c+1], or two of a QuadQ8_K's 16-byte rows.
inline __m512i pair_of_16(const void* p) {
  const __m512i v = _mm512_castsi256_si512(_mm256_loadu_si256(static_cast<const __m256i*>(p)));
  return _mm512_shuffle_i64x2(v, v, 0x50);
}
inline __m512i chunk_pair(const QuadChunk* p) { return pair_of_16(p); }

template <int J>
inline __m512i rows_of(__m512i v) {
  return _mm512_shuffle_epi32(v, static_cast<_MM_PERM_ENUM>(J * 0x55));
}

inline void quad_dot(__m512i (&acc)[4], __m512i codes, __m512i chunks) {
  acc[0] = _mm512_dpbusd_epi32(acc[0], rows_of<0>(codes), chunks);
  acc[1] = _mm512_dpbusd_epi32(acc[1], rows_of<1>(codes), chunks);
  acc[2] = _mm512_dpbusd_epi32(acc[2], rows_of<2>(codes), chunks);
  acc[3] = _mm512_dpbusd_epi32(acc[3], rows_of<3>(codes), chunks);
}
// acc[j] += v[j] * rows_of<j>(scale), scale: one int32 per row (256 bits) in both halves.
inline void add_scaled(__m512i (&acc)[4], const __m512i (&v)[4], __m256i scale) {
  const __m512i s = _mm512_broadcast_i64x4(scale);
  acc[0] = _mm512_add_epi32(acc[0], _mm512_mullo_epi32(v[0], rows_of<0>(s)));
  acc[1] = _mm512_add_epi32(acc[1], _mm512_mullo_epi32(v[1], rows_of<1>(s)));
  acc[2] = _mm512_add_epi32(acc[2], _mm512_mullo_epi32(v[2], rows_of<2>(s)));
  acc[3] = _mm512_add_epi32(acc[3], _mm512_mullo_epi32(v[3], rows_of<3>(s)));
}
// add_scaled where every lane of v fits in int16 and every lane of scale is in [0, 2^15):
// vpdpwssd multiplies the int16 halves of each lane pairwise and adds both products to acc,
// v's low half (v itself) times the scale and its high half (v's sign) times 0 - the same
// exact sum in one instruction for vpmulld's two and the add.
inline void add_scaled_int16(__m512i (&acc)[4], const __m512i (&v)[4], __m256i scale) {
  const __m512i s = _mm512_broadcast_i64x4(scale);
  acc[0] = _mm512_dpwssd_epi32(acc[0], v[0], rows_of<0>(s));
  acc[1] = _mm512_dpwssd_epi32(acc[1], v[1], rows_of<1>(s));
  acc[2] = _mm512_dpwssd_epi32(acc[2], v[2], rows_of<2>(s));
  acc[3] = _mm512_dpwssd_epi32(acc[3], v[3], rows_of<3>(s));
}
// The two chunks' sums of each lane: the low half plus the high half.
inline void fold_halves(const __m512i (&v)[4], __m256i (&out)[4]) {
  for (int j = 0; j < 4; ++j)
    out[j] = _mm256_add_epi32(_mm512_castsi512_si256(v[j]), _mm512_extracti64x4_epi64(v[j], 1));
}

inline __m256 high_half(__m512 v) {  // (AVX512F: no AVX512DQ extractf32x8)
  return _mm256_castsi256_ps(_mm512_extracti64x4_epi64(_mm512_castps_si512(v), 1));
}

// Rows j and j + 1 of pair p (j = 2p) in one zmm: [sums of j | sums of j + 1], each the
// lane-wise sum of its two chunks' halves.
inline __m512i fold_pair(__m512i a, __m512i b) {
  return _mm512_add_epi32(_mm512_shuffle_i64x2(a, b, 0x44), _mm512_shuffle_i64x2(a, b, 0xEE));
}

// Q4_0 (quad_q4_0's integer sums and float operations, two of its 256-bit accumulators in
// each zmm: acc2[p] = [acc[2p] | acc[2p + 1]]).
void quad_q4_0_512(const uint8_t* g, int64_t nb, const void* quad_act, const uint8_t*, uint64_t,
                   float* Y, int64_t ldy) {
  constexpr int64_t kX8 = 8 * 18;
  const auto* qa = static_cast<const QuadQ8_32*>(quad_act);
  // f16x8(b) in both halves -> [rows_of<2p>(d) | rows_of<2p + 1>(d)].
  const __m512i pick0 = _mm512_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4, 9, 9, 9, 9, 13, 13, 13, 13);
  const __m512i pick1 = _mm512_setr_epi32(2, 2, 2, 2, 6, 6, 6, 6, 11, 11, 11, 11, 15, 15, 15, 15);
  __m512 acc2[2] = {_mm512_setzero_ps(), _mm512_setzero_ps()};
  for (int64_t k = 0; k < nb; ++k) {
    const uint8_t* b = g + k * kX8;
    prefetch_ahead<kX8>(b);
    const QuadQ8_32& a = qa[k];
    __m512i lo[4], hi[4];  // two dependency chains per lane
    for (int j = 0; j < 4; ++j) lo[j] = hi[j] = _mm512_setzero_si512();
    for (int c = 0; c < 4; c += 2) {
      const __m512i w = load512(b + 16 + 32 * c);
      quad_dot(lo, low_nibbles(w), chunk_pair(&a.qs[c]));
      quad_dot(hi, high_nibbles(w), chunk_pair(&a.qs[4 + c]));
    }
    for (int j = 0; j < 4; ++j) lo[j] = _mm512_add_epi32(lo[j], hi[j]);
    const __m512i offset =
        _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a.offset_sum)));
    const __m512 d = _mm512_cvtph_ps(_mm256_broadcastsi128_si256(load128(b)));
    const __m512 ad = _mm512_broadcast_f32x4(_mm_loadu_ps(a.d));
    const __m512 dj[2] = {_mm512_permutexvar_ps(pick0, d), _mm512_permutexvar_ps(pick1, d)};
    for (int p = 0; p < 2; ++p) {
      const __m512i s = _mm512_add_epi32(fold_pair(lo[2 * p], lo[2 * p + 1]), offset);
      const __m512 term = _mm512_mul_ps(_mm512_mul_ps(dj[p], ad), _mm512_cvtepi32_ps(s));
      acc2[p] = _mm512_add_ps(acc2[p], term);
    }
  }
  const __m256 acc[4] = {_mm512_castps512_ps256(acc2[0]), high_half(acc2[0]),
                         _mm512_castps512_ps256(acc2[1]), high_half(acc2[1])};
  store_quad(acc, Y, ldy);
}

// Q4_K and Q5_K (quad_q45k's).
template <bool kFive>
void quad_q45k_512(const uint8_t* g, int64_t nb, const void* quad_act, const uint8_t*, uint64_t,
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
    __m512i sumi2[4];
    for (auto& v : sumi2) v = _mm512_setzero_si512();
    for (int q = 0; q < 4; ++q) {  // sub-blocks 2q (low nibbles) and 2q + 1 (high nibbles)
      const __m256i scales = q < 2 ? sw.sc_lo : sw.sc_hi;
      __m512i dlo[4], dhi[4];
      for (int j = 0; j < 4; ++j) dlo[j] = dhi[j] = _mm512_setzero_si512();
      for (int c = 0; c < 8; c += 2) {
        const __m512i w = load512(b + kQsAt + 32 * (8 * q + c));
        __m512i lo = low_nibbles(w), hi = high_nibbles(w);
        if constexpr (kFive) {
          const __m512i h = load512(b + 128 + 32 * c);
          lo = with_fifth_bit(lo, h, 2 * q);
          hi = with_fifth_bit(hi, h, 2 * q + 1);
        }
        quad_dot(dlo, lo, chunk_pair(&a.qs[16 * q + c]));
        quad_dot(dhi, hi, chunk_pair(&a.qs[16 * q + 8 + c]));
      }
      if constexpr (kFive) {
        add_scaled(sumi2, dlo, sub_block_scale(scales, 2 * q));
        add_scaled(sumi2, dhi, sub_block_scale(scales, 2 * q + 1));
      } else {  // 4-bit codes: a lane half sums 16 products, |.| <= 16 * 15 * 128 < 2^15
        add_scaled_int16(sumi2, dlo, sub_block_scale(scales, 2 * q));
        add_scaled_int16(sumi2, dhi, sub_block_scale(scales, 2 * q + 1));
      }
    }
    __m256i sumi[4];
    fold_halves(sumi2, sumi);
    q45k_block_end(b, a, sw, sumi, acc);
  }
  store_quad(acc, Y, ldy);
}

// Q6_K (quad_q6k's integer sums; its float operations). Each zmm of codes is summed into its
// own dot, so a lane half holds 4 products, |.| <= 4 * 63 * 128 < 2^15, and takes the
// group's scale by dpwssd; off pairs two groups' scale * bsum per dpwssd, two pairs per zmm.
void quad_q6k_512(const uint8_t* g, int64_t nb, const void* quad_act, const uint8_t*, uint64_t,
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
    __m512i sumi2[4], off2[4];
    for (int j = 0; j < 4; ++j) sumi2[j] = off2[j] = _mm512_setzero_si512();
    for (int h = 0; h < 2; ++h) {         // values 128h ..
      for (int kk = 0; kk < 4; ++kk) {    // .. + 32kk ..
        for (int cq = 0; cq < 2; ++cq) {  // .. + 16cq: group 8h + 2kk + cq
          const int grp = 8 * h + 2 * kk + cq;
          const __m256i sc = q6_scales_int16(scales + 8 * grp);
          __m512i dot[2][4];
          for (auto& d2 : dot)
            for (auto& v : d2) v = _mm512_setzero_si512();
          for (int cc = 0; cc < 4; cc += 2) {
            const int ch = 4 * cq + cc;  // 4-byte chunks ch, ch + 1 of the 32 values
            const __m512i code = q6_codes(load512(ql + 32 * (8 * (2 * h + (kk & 1)) + ch)),
                                          load512(qh + 32 * (8 * h + ch)), kk);
            quad_dot(dot[cc / 2], code, chunk_pair(&a.qs[32 * h + 8 * kk + ch]));
          }
          add_scaled_int16(sumi2, dot[0], sc);
          add_scaled_int16(sumi2, dot[1], sc);
        }
      }
    }
    for (int p = 0; p < 8; p += 2) {  // [pair p | pair p + 1]
      const __m512i sp = _mm512_inserti64x4(_mm512_castsi256_si512(q6_scale_pairs(scales + 16 * p)),
                                            q6_scale_pairs(scales + 16 * p + 16), 1);
      const __m512i bp = pair_of_16(a.bsum_pairs[p]);
      off2[0] = _mm512_dpwssd_epi32(off2[0], rows_of<0>(sp), bp);
      off2[1] = _mm512_dpwssd_epi32(off2[1], rows_of<1>(sp), bp);
      off2[2] = _mm512_dpwssd_epi32(off2[2], rows_of<2>(sp), bp);
      off2[3] = _mm512_dpwssd_epi32(off2[3], rows_of<3>(sp), bp);
    }
    __m256i sumi[4], off[4];
    fold_halves(sumi2, sumi);
    fold_halves(off2, off);
    q6k_block_end(b, a, sumi, off, acc);
  }
  store_quad(acc, Y, ldy);
}

#include "backend/cpu/repacked_quad_bcast_512.inl"

// ---- one token, one 8-row group -------------------------------------------------------
// The same two chunks per zmm, each lane one row, the token's two 4-byte chunks broadcast
// to the halves; one token's step is mostly bound by memory, so this gains less (Q4_K_M
// decode, 2 threads, AMD EPYC Zen 5: +2 to +8% in 4 of 5 alternated pairs).
// Activation bytes 4c..4c+3 in lanes 0..7 and 4c+4..4c+7 in lanes 8..15: against 64 bytes
// of codes (chunk c of the 8 rows, then chunk c + 1).
inline __m512i bcast4_pair(const int8_t* p) {
  const __m512i pick = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
  return _mm512_permutexvar_epi32(
      pick, _mm512_castsi128_si512(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
}

// Q4_K and Q5_K, one token (group_q45k<kFive, 1>'s integer sums, two chunks per zmm, and
// its float operations).
template <bool kFive>
void group_q45k_512(const uint8_t* g, int64_t nb, const uint8_t* act, uint64_t, float* Y, int64_t) {
  constexpr int64_t kX8 = kFive ? 8 * 176 : 8 * 144;
  constexpr int kQsAt = kFive ? 384 : 128;
  __m256 acc = _mm256_setzero_ps();
  for (int64_t k = 0; k < nb; ++k) {
    const uint8_t* b = g + k * kX8;
    prefetch_ahead<kX8>(b);
    const BlockQ8_K& a = reinterpret_cast<const BlockQ8_K*>(act)[k];
    const KScaleWords sw = k_scale_words(b);
    __m512i sumi2 = _mm512_setzero_si512();
    for (int q = 0; q < 4; ++q) {  // sub-blocks 2q (low nibbles) and 2q + 1 (high nibbles)
      const __m256i scales = q < 2 ? sw.sc_lo : sw.sc_hi;
      __m512i dlo = _mm512_setzero_si512(), dhi = _mm512_setzero_si512();
      for (int c = 0; c < 8; c += 2) {
        const __m512i w = load512(b + kQsAt + 32 * (8 * q + c));
        __m512i lo = low_nibbles(w), hi = high_nibbles(w);
        if constexpr (kFive) {
          const __m512i h = load512(b + 128 + 32 * c);
          lo = with_fifth_bit(lo, h, 2 * q);
          hi = with_fifth_bit(hi, h, 2 * q + 1);
        }
        const int8_t* x = a.qs + 64 * q + 4 * c;
        dlo = _mm512_dpbusd_epi32(dlo, lo, bcast4_pair(x));
        dhi = _mm512_dpbusd_epi32(dhi, hi, bcast4_pair(x + 32));
      }
      const __m512i s0 = _mm512_broadcast_i64x4(sub_block_scale(scales, 2 * q));
      const __m512i s1 = _mm512_broadcast_i64x4(sub_block_scale(scales, 2 * q + 1));
      sumi2 = _mm512_add_epi32(
          sumi2, _mm512_add_epi32(_mm512_mullo_epi32(dlo, s0), _mm512_mullo_epi32(dhi, s1)));
    }
    const __m256i sumi =
        _mm256_add_epi32(_mm512_castsi512_si256(sumi2), _mm512_extracti64x4_epi64(sumi2, 1));
    __m256i mins[4];
    k_min_pairs(sw, mins);
    q45k_token_end(f16x8(b), f16x8(b + 16), mins, a, sumi, acc);
  }
  _mm256_storeu_ps(Y, acc);
}
