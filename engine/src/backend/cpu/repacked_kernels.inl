// The integer kernels over x8-repacked weights (repack.h), included inside
// namespace kvchat::cpu { namespace { ... } } of repacked_avx2.cpp, repacked_avxvnni.cpp and
// repacked_avx512.cpp, so each file gets its own copy compiled with its own flags.
// KVCHAT_RP_VNNI: 0 = maddubs + madd, 1 = AVX-VNNI (VEX dpbusd), 2 = AVX-512 VNNI (EVEX).
//
// One call computes 8 rows (one group) x T tokens. A 32-byte load of the codes holds 4
// bytes of each of the 8 rows; multiplied with 4 activation bytes broadcast to every lane,
// int32 lane r is row r's partial sum. So each row keeps one accumulator (lane r of one
// vector per token), the 8 rows' f16 scales come in one load and one F16C conversion, and
// nothing is folded horizontally: acc[t] is stored as Y[t][8g .. 8g + 8).
//
// Float operations are those of quant_dot_scalar, in its order, lane by lane (the files are
// compiled with -ffp-contract=off: no fused multiply-adds), so every result is bit for bit
// the scalar definition's, for any T: decode and prefill agree exactly.

inline __m256i load256(const uint8_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
inline __m128i load128(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
// 4 activation bytes in every int32 lane.
inline __m256i bcast4(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return _mm256_set1_epi32(v);
}
inline __m256 f16x8(const uint8_t* p) { return _mm256_cvtph_ps(load128(p)); }

// acc + per int32 lane the sum of 4 products of unsigned bytes u and signed bytes s.
inline __m256i dpbusd(__m256i acc, __m256i u, __m256i s) {
#if KVCHAT_RP_VNNI == 1
  return _mm256_dpbusd_avx_epi32(acc, u, s);
#elif KVCHAT_RP_VNNI == 2
  return _mm256_dpbusd_epi32(acc, u, s);
#else
  return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1)));
#endif
}
#if KVCHAT_RP_VNNI
// acc + per int32 lane the sum of the products of its two int16 halves in a and in b.
inline __m256i dpwssd(__m256i acc, __m256i a, __m256i b) {
#if KVCHAT_RP_VNNI == 1
  return _mm256_dpwssd_avx_epi32(acc, a, b);
#else
  return _mm256_dpwssd_epi32(acc, a, b);
#endif
}
#endif

inline __m256i low_nibbles(__m256i w) { return _mm256_and_si256(w, _mm256_set1_epi8(0x0F)); }
inline __m256i high_nibbles(__m256i w) {
  return _mm256_and_si256(_mm256_srli_epi16(w, 4), _mm256_set1_epi8(0x0F));
}

// Byte b (0..3) of each int32 lane, zero-extended to both int16 halves of the lane: a
// row's scale for madd against the row's two int16 pair sums.
inline __m256i byte_to_int16_pair(__m256i v, int b) {
  const char i = static_cast<char>(b), z = static_cast<char>(0x80);
  const __m256i mask =
      _mm256_setr_epi8(i, z, i, z, i + 4, z, i + 4, z, i + 8, z, i + 8, z, i + 12, z, i + 12, z,  //
                       i, z, i, z, i + 4, z, i + 4, z, i + 8, z, i + 8, z, i + 12, z, i + 12, z);
  return _mm256_shuffle_epi8(v, mask);
}

// The x8 block about 4 KiB on (whole blocks, at least 2): one group is one contiguous
// stream, fetched ahead of use. Two blocks of a small type were too close: bench-serve Q4_0
// (144-byte x8 blocks) on an Intel Xeon, 4 sessions: 288 bytes ahead 72-78 tok/s, 1 KiB
// 96, 2 KiB 100, 4 KiB 100-102. One session's decode on a Sapphire Rapids-class Xeon, 2
// threads, 4 KiB against 2 KiB: Q4_0 42.1-44.0 against 37.1-38.6 tok/s, Q4_K_M 37.2-38.8
// against 34.3-36.5 (docs/PERFORMANCE.md).
// Into L2 (T1) rather than L1: the 4-token kernels' prefetches waited on L1's miss
// buffers (perf, AMD EPYC); 4 sessions +0-4% in 3 alternated pairs, one token unchanged.
template <int64_t kBytes>
inline void prefetch_ahead(const uint8_t* b) {
  constexpr int64_t kAhead = std::max<int64_t>(2, (4096 + kBytes - 1) / kBytes) * kBytes;
  for (int64_t line = 0; line < kBytes; line += 64)
    _mm_prefetch(reinterpret_cast<const char*>(b + kAhead + line), _MM_HINT_T1);
}

template <int T>
inline void store_rows(const __m256 (&acc)[T], float* Y, int64_t ldy) {
  for (int t = 0; t < T; ++t) _mm256_storeu_ps(Y + t * ldy, acc[t]);
}

// ---- Q4_0 and Q8_0: 32 values per block -------------------------------------------------
// scalar: sum += (d * a.d) * float(sumi) [sumi less 8 * a.sum for Q4_0]
template <gguf::TensorType kType, int T>
void group32(const uint8_t* g, int64_t nb, const uint8_t* act, uint64_t act_stride, float* Y,
             int64_t ldy) {
  constexpr bool kQ4 = kType == gguf::TensorType::Q4_0;
  constexpr int64_t kX8 = kQ4 ? 8 * 18 : 8 * 34;
  __m256 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
  for (int64_t k = 0; k < nb; ++k) {
    const uint8_t* b = g + k * kX8;
    prefetch_ahead<kX8>(b);
    const uint8_t* qs = b + 16;
    const BlockQ8_32* a[T];
    for (int t = 0; t < T; ++t)
      a[t] = reinterpret_cast<const BlockQ8_32*>(act + t * act_stride) + k;
    __m256i sum[T];
    if constexpr (kQ4) {
#if KVCHAT_RP_VNNI
      for (int t = 0; t < T; ++t) sum[t] = _mm256_set1_epi32(-8 * a[t]->sum);  // the offset
      for (int c = 0; c < 4; ++c) {
        const __m256i w = load256(qs + 32 * c);
        const __m256i lo = low_nibbles(w), hi = high_nibbles(w);
        for (int t = 0; t < T; ++t) {
          sum[t] = dpbusd(sum[t], lo, bcast4(a[t]->qs + 4 * c));
          sum[t] = dpbusd(sum[t], hi, bcast4(a[t]->qs + 16 + 4 * c));
        }
      }
#else
      // int16 pair sums of 8 maddubs: |sum| <= 8 * 2 * 15 * 127 = 30480, no saturation.
      __m256i p[T];
      for (int t = 0; t < T; ++t) p[t] = _mm256_setzero_si256();
      for (int c = 0; c < 4; ++c) {
        const __m256i w = load256(qs + 32 * c);
        const __m256i lo = low_nibbles(w), hi = high_nibbles(w);
        for (int t = 0; t < T; ++t) {
          p[t] = _mm256_add_epi16(p[t], _mm256_maddubs_epi16(lo, bcast4(a[t]->qs + 4 * c)));
          p[t] = _mm256_add_epi16(p[t], _mm256_maddubs_epi16(hi, bcast4(a[t]->qs + 16 + 4 * c)));
        }
      }
      for (int t = 0; t < T; ++t)  // less the offset
        sum[t] = _mm256_sub_epi32(_mm256_madd_epi16(p[t], _mm256_set1_epi16(1)),
                                  _mm256_set1_epi32(8 * a[t]->sum));
#endif
    } else {
      for (int t = 0; t < T; ++t) sum[t] = _mm256_setzero_si256();
      for (int c = 0; c < 8; ++c) {
        const __m256i w = load256(qs + 32 * c);
        const __m256i aw = _mm256_abs_epi8(w);
        for (int t = 0; t < T; ++t)
          sum[t] = dpbusd(sum[t], aw, _mm256_sign_epi8(bcast4(a[t]->qs + 4 * c), w));
      }
    }
    const __m256 d = f16x8(b);
    for (int t = 0; t < T; ++t) {
      const __m256 term =
          _mm256_mul_ps(_mm256_mul_ps(d, _mm256_set1_ps(a[t]->d)), _mm256_cvtepi32_ps(sum[t]));
      acc[t] = _mm256_add_ps(acc[t], term);
    }
  }
  store_rows<T>(acc, Y, ldy);
}

// ---- K-types and IQ4_XS: 256 values per super-block --------------------------------------
// The three scale words of an x8 Q4_K / Q5_K block per row (lane r), unpacked as
// k_scale_min: byte j of sc_lo / mn_lo is sub-block j's scale / min (j < 4), of sc_hi /
// mn_hi sub-block 4 + j's.
struct KScaleWords {
  __m256i sc_lo, mn_lo, sc_hi, mn_hi;
};
inline KScaleWords k_scale_words(const uint8_t* b) {
  const __m256i m3f = _mm256_set1_epi32(0x3f3f3f3f), m0f = _mm256_set1_epi32(0x0f0f0f0f);
  const __m256i m03 = _mm256_set1_epi32(0x03030303);
  const __m256i w0 = load256(b + 32), w1 = load256(b + 64), w2 = load256(b + 96);
  return {_mm256_and_si256(w0, m3f), _mm256_and_si256(w1, m3f),
          _mm256_or_si256(_mm256_and_si256(w2, m0f),
                          _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(w0, 6), m03), 4)),
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(w2, 4), m0f),
                          _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(w1, 6), m03), 4))};
}
// Sub-block j's scale (byte j % 4 of each lane of sc_lo / sc_hi) as int32.
inline __m256i sub_block_scale(__m256i scales, int j) {
  return _mm256_and_si256(_mm256_srli_epi32(scales, 8 * (j % 4)), _mm256_set1_epi32(0xff));
}
// The mins as int16 pairs per row: sub-blocks (0, 2), (1, 3), (4, 6), (5, 7).
inline void k_min_pairs(const KScaleWords& w, __m256i (&out)[4]) {
  const __m256i even16 = _mm256_set1_epi32(0x00ff00ff);
  out[0] = _mm256_and_si256(w.mn_lo, even16);
  out[1] = _mm256_and_si256(_mm256_srli_epi32(w.mn_lo, 8), even16);
  out[2] = _mm256_and_si256(w.mn_hi, even16);
  out[3] = _mm256_and_si256(_mm256_srli_epi32(w.mn_hi, 8), even16);
}
// Q5_K: 4-bit codes with bit `bit` of the qh bytes h as their fifth bit (bit j of qh byte l
// is the fifth bit of value 32j + l).
inline __m256i with_fifth_bit(__m256i nibbles, __m256i h, int bit) {
  return _mm256_or_si256(
      nibbles,
      _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, bit), _mm256_set1_epi8(1)), 4));
}
// Q6_K: the unsigned 6-bit codes of values 32kk.. of a 128-value half: the low 4 bits from
// ql (low nibbles for kk < 2, else high), the top 2 from bits 2kk of qh.
inline __m256i q6_codes(__m256i l, __m256i hb, int kk) {
  const __m256i m0f = _mm256_set1_epi8(0x0F), m03 = _mm256_set1_epi8(0x03);
  const __m256i low =
      kk < 2 ? _mm256_and_si256(l, m0f) : _mm256_and_si256(_mm256_srli_epi16(l, 4), m0f);
  const __m256i high = _mm256_and_si256(_mm256_srli_epi16(hb, 2 * kk), m03);
  return _mm256_or_si256(low, _mm256_slli_epi16(high, 4));
}
inline int16_t pair_sum(const int16_t* bsums, int j) {
  return static_cast<int16_t>(bsums[2 * j] + bsums[2 * j + 1]);
}
inline int32_t two_int16(int16_t lo, int16_t hi) {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint16_t>(lo)) |
                              (static_cast<uint32_t>(static_cast<uint16_t>(hi)) << 16));
}

// Q4_K / Q5_K, one token's end of a block: acc += (d * a.d) * sumi - (dmin * a.d) * summ,
// the mins as int16 pairs (sub-blocks j, j + 2) per row against the token's pair sums.
inline void q45k_token_end(__m256 d, __m256 dmin, const __m256i (&mins)[4], const BlockQ8_K& a,
                           __m256i sumi, __m256& acc) {
  const int16_t* bs = a.bsums;
  __m256i summ =
      _mm256_madd_epi16(mins[0], _mm256_set1_epi32(two_int16(pair_sum(bs, 0), pair_sum(bs, 2))));
  summ = _mm256_add_epi32(
      summ,
      _mm256_madd_epi16(mins[1], _mm256_set1_epi32(two_int16(pair_sum(bs, 1), pair_sum(bs, 3)))));
  summ = _mm256_add_epi32(
      summ,
      _mm256_madd_epi16(mins[2], _mm256_set1_epi32(two_int16(pair_sum(bs, 4), pair_sum(bs, 6)))));
  summ = _mm256_add_epi32(
      summ,
      _mm256_madd_epi16(mins[3], _mm256_set1_epi32(two_int16(pair_sum(bs, 5), pair_sum(bs, 7)))));
  const __m256 ad = _mm256_set1_ps(a.d);
  const __m256 t1 = _mm256_mul_ps(_mm256_mul_ps(d, ad), _mm256_cvtepi32_ps(sumi));
  const __m256 t2 = _mm256_mul_ps(_mm256_mul_ps(dmin, ad), _mm256_cvtepi32_ps(summ));
  acc = _mm256_add_ps(acc, _mm256_sub_ps(t1, t2));
}

// Q4_K and Q5_K. scalar: sum += (d * a.d) * float(sumi) - (dmin * a.d) * float(summ), with
// sumi = sum_j scale_j * dot_j and summ = sum_j min_j * (bsums[2j] + bsums[2j+1]).
template <bool kFive, int T>
void group_q45k(const uint8_t* g, int64_t nb, const uint8_t* act, uint64_t act_stride, float* Y,
                int64_t ldy) {
  constexpr int64_t kX8 = kFive ? 8 * 176 : 8 * 144;
  constexpr int kQsAt = kFive ? 384 : 128;
  // int16 pair sums stay below 2^15: 8 chunks of 4-bit codes (8 * 3810), 4 of 5-bit (4 * 7874).
  constexpr int kChunksPerFlush = kFive ? 4 : 8;
  __m256 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
  for (int64_t k = 0; k < nb; ++k) {
    const uint8_t* b = g + k * kX8;
    prefetch_ahead<kX8>(b);
    const BlockQ8_K* a[T];
    for (int t = 0; t < T; ++t) a[t] = reinterpret_cast<const BlockQ8_K*>(act + t * act_stride) + k;
    const KScaleWords sw = k_scale_words(b);
    __m256i sumi[T];
    for (int t = 0; t < T; ++t) sumi[t] = _mm256_setzero_si256();
    for (int q = 0; q < 4; ++q) {  // sub-blocks 2q (low nibbles) and 2q + 1 (high nibbles)
      const __m256i scales = q < 2 ? sw.sc_lo : sw.sc_hi;
#if KVCHAT_RP_VNNI
      // VNNI: dpbusd sums each sub-block's code x activation products in int32 directly (no
      // int16 pair sums to flush), then one multiply by the row's scale: the same integer
      // sumi (exact: |dot_j| < 2^16, scale < 64), a third of the instructions per token.
      {
        const __m256i s0 = sub_block_scale(scales, 2 * q), s1 = sub_block_scale(scales, 2 * q + 1);
        __m256i dlo[T], dhi[T];
        for (int t = 0; t < T; ++t) dlo[t] = dhi[t] = _mm256_setzero_si256();
        for (int c = 0; c < 8; ++c) {
          const __m256i w = load256(b + kQsAt + 32 * (8 * q + c));
          __m256i lo = low_nibbles(w), hi = high_nibbles(w);
          if constexpr (kFive) {
            const __m256i h = load256(b + 128 + 32 * c);
            lo = with_fifth_bit(lo, h, 2 * q);
            hi = with_fifth_bit(hi, h, 2 * q + 1);
          }
          for (int t = 0; t < T; ++t) {
            const int8_t* x = a[t]->qs + 64 * q + 4 * c;
            dlo[t] = dpbusd(dlo[t], lo, bcast4(x));
            dhi[t] = dpbusd(dhi[t], hi, bcast4(x + 32));
          }
        }
        for (int t = 0; t < T; ++t) {
          sumi[t] = _mm256_add_epi32(sumi[t], _mm256_add_epi32(_mm256_mullo_epi32(dlo[t], s0),
                                                               _mm256_mullo_epi32(dhi[t], s1)));
        }
        continue;
      }
#endif
      const __m256i s0 = byte_to_int16_pair(scales, (2 * q) % 4),
                    s1 = byte_to_int16_pair(scales, (2 * q + 1) % 4);
      for (int c0 = 0; c0 < 8; c0 += kChunksPerFlush) {
        __m256i plo[T], phi[T];
        for (int t = 0; t < T; ++t) plo[t] = phi[t] = _mm256_setzero_si256();
        for (int c = c0; c < c0 + kChunksPerFlush; ++c) {
          const __m256i w = load256(b + kQsAt + 32 * (8 * q + c));
          __m256i lo = low_nibbles(w), hi = high_nibbles(w);
          if constexpr (kFive) {
            const __m256i h = load256(b + 128 + 32 * c);
            lo = with_fifth_bit(lo, h, 2 * q);
            hi = with_fifth_bit(hi, h, 2 * q + 1);
          }
          for (int t = 0; t < T; ++t) {
            const int8_t* x = a[t]->qs + 64 * q + 4 * c;
            plo[t] = _mm256_add_epi16(plo[t], _mm256_maddubs_epi16(lo, bcast4(x)));
            phi[t] = _mm256_add_epi16(phi[t], _mm256_maddubs_epi16(hi, bcast4(x + 32)));
          }
        }
        for (int t = 0; t < T; ++t) {
          sumi[t] = _mm256_add_epi32(sumi[t], _mm256_add_epi32(_mm256_madd_epi16(plo[t], s0),
                                                               _mm256_madd_epi16(phi[t], s1)));
        }
      }
    }
    const __m256 d = f16x8(b), dmin = f16x8(b + 16);
    __m256i mins[4];
    k_min_pairs(sw, mins);
    for (int t = 0; t < T; ++t) q45k_token_end(d, dmin, mins, *a[t], sumi[t], acc[t]);
  }
  store_rows<T>(acc, Y, ldy);
}

// Q6_K. scalar: sum += (d * a.d) * float(sumi - 32 * sum_g scale_g * bsums[g]), sumi =
// sum_g scale_g * dot_g over the 16 groups of 16 (unsigned 6-bit codes).
template <int T>
void group_q6k(const uint8_t* g, int64_t nb, const uint8_t* act, uint64_t act_stride, float* Y,
               int64_t ldy) {
  constexpr int64_t kX8 = 8 * 210;
  // 8 int8 scales (one per row) -> int16 pairs [s_r, s_r], sign-extended.
  const __m128i dup = _mm_setr_epi8(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
  __m256 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
  for (int64_t k = 0; k < nb; ++k) {
    const uint8_t* b = g + k * kX8;
    prefetch_ahead<kX8>(b);
    const uint8_t *scales = b + 16, *ql = b + 144, *qh = b + 1168;
    const BlockQ8_K* a[T];
    for (int t = 0; t < T; ++t) a[t] = reinterpret_cast<const BlockQ8_K*>(act + t * act_stride) + k;
    __m256i sumi[T], off[T];
    for (int t = 0; t < T; ++t) sumi[t] = off[t] = _mm256_setzero_si256();
    for (int h = 0; h < 2; ++h) {         // values 128h ..
      for (int kk = 0; kk < 4; ++kk) {    // .. + 32kk ..
        for (int cq = 0; cq < 2; ++cq) {  // .. + 16cq: group 8h + 2kk + cq
          const int grp = 8 * h + 2 * kk + cq;
#if KVCHAT_RP_VNNI
          // VNNI: the group's 16 code x activation products summed in int32 by dpbusd, then
          // one multiply by the row's scale (the same exact integer sums: |dot| < 2^14 * 63).
          {
            const __m256i sc32 = _mm256_cvtepi8_epi32(
                _mm_loadl_epi64(reinterpret_cast<const __m128i*>(scales + 8 * grp)));
            __m256i dot[T];
            for (int t = 0; t < T; ++t) dot[t] = _mm256_setzero_si256();
            for (int cc = 0; cc < 4; ++cc) {
              const int ch = 4 * cq + cc;  // 4-byte chunk of the 32 values
              const __m256i code = q6_codes(load256(ql + 32 * (8 * (2 * h + (kk & 1)) + ch)),
                                            load256(qh + 32 * (8 * h + ch)), kk);
              for (int t = 0; t < T; ++t)
                dot[t] = dpbusd(dot[t], code, bcast4(a[t]->qs + 128 * h + 32 * kk + 4 * ch));
            }
            // off counts 2 * s * bsum per group, as the madd below does.
            const __m256i sc2 = _mm256_add_epi32(sc32, sc32);
            for (int t = 0; t < T; ++t) {
              sumi[t] = _mm256_add_epi32(sumi[t], _mm256_mullo_epi32(dot[t], sc32));
              off[t] = _mm256_add_epi32(
                  off[t], _mm256_mullo_epi32(sc2, _mm256_set1_epi32(a[t]->bsums[grp])));
            }
            continue;
          }
#endif
          const __m256i sc = _mm256_cvtepi8_epi16(_mm_shuffle_epi8(
              _mm_loadl_epi64(reinterpret_cast<const __m128i*>(scales + 8 * grp)), dup));
          for (int pp = 0; pp < 2; ++pp) {  // two chunks per int16 sum (2 * 16002 < 2^15)
            __m256i p[T];
            for (int t = 0; t < T; ++t) p[t] = _mm256_setzero_si256();
            for (int cc = 0; cc < 2; ++cc) {
              const int ch = 4 * cq + 2 * pp + cc;  // 4-byte chunk of the 32 values
              const __m256i code = q6_codes(load256(ql + 32 * (8 * (2 * h + (kk & 1)) + ch)),
                                            load256(qh + 32 * (8 * h + ch)), kk);
              for (int t = 0; t < T; ++t) {
                p[t] = _mm256_add_epi16(p[t], _mm256_maddubs_epi16(code, bcast4(a[t]->qs + 128 * h +
                                                                                32 * kk + 4 * ch)));
              }
            }
            for (int t = 0; t < T; ++t)
              sumi[t] = _mm256_add_epi32(sumi[t], _mm256_madd_epi16(p[t], sc));
          }
          // madd of [s, s] with [bsum, bsum]: 2 * s * bsum per row; 32 * s * bsum = 16 * that.
          for (int t = 0; t < T; ++t)
            off[t] = _mm256_add_epi32(off[t],
                                      _mm256_madd_epi16(sc, _mm256_set1_epi16(a[t]->bsums[grp])));
        }
      }
    }
    const __m256 d = f16x8(b);
    for (int t = 0; t < T; ++t) {
      const __m256i s = _mm256_sub_epi32(sumi[t], _mm256_slli_epi32(off[t], 4));
      acc[t] = _mm256_add_ps(
          acc[t], _mm256_mul_ps(_mm256_mul_ps(d, _mm256_set1_ps(a[t]->d)), _mm256_cvtepi32_ps(s)));
    }
  }
  store_rows<T>(acc, Y, ldy);
}

// IQ4_XS. scalar: sum += (d * a.d) * float(sum_j (scale6_j - 32) * dot_j), values from the
// IQ4_NL table (signed: maddubs of |value| with the activation given the value's sign).
template <int T>
void group_iq4xs(const uint8_t* g, int64_t nb, const uint8_t* act, uint64_t act_stride, float* Y,
                 int64_t ldy) {
  constexpr int64_t kX8 = 8 * 136;
  const __m256i table =
      _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kIq4nlValues)));
  __m256 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
  for (int64_t k = 0; k < nb; ++k) {
    const uint8_t* b = g + k * kX8;
    prefetch_ahead<kX8>(b);
    const BlockQ8_K* a[T];
    for (int t = 0; t < T; ++t) a[t] = reinterpret_cast<const BlockQ8_K*>(act + t * act_stride) + k;
    const __m256i sl = load256(b + 32), sh = _mm256_cvtepu16_epi32(load128(b + 16));
    __m256i sumi[T];
    for (int t = 0; t < T; ++t) sumi[t] = _mm256_setzero_si256();
    for (int j = 0; j < 8; ++j) {
      // Sub-block j's scale per row as iq4_xs_scale - 32, in both int16 halves of lane r.
      const __m256i s = _mm256_sub_epi32(
          _mm256_or_si256(
              _mm256_and_si256(_mm256_srli_epi32(sl, 4 * j), _mm256_set1_epi32(0xF)),
              _mm256_slli_epi32(
                  _mm256_and_si256(_mm256_srli_epi32(sh, 2 * j), _mm256_set1_epi32(3)), 4)),
          _mm256_set1_epi32(32));
      const __m256i s16 =
          _mm256_or_si256(_mm256_and_si256(s, _mm256_set1_epi32(0xFFFF)), _mm256_slli_epi32(s, 16));
      for (int c = 0; c < 4; ++c) {
        const __m256i w = load256(b + 64 + 32 * (4 * j + c));
        const __m256i vlo = _mm256_shuffle_epi8(table, low_nibbles(w)),
                      vhi = _mm256_shuffle_epi8(table, high_nibbles(w));
        const __m256i alo = _mm256_abs_epi8(vlo), ahi = _mm256_abs_epi8(vhi);
        for (int t = 0; t < T; ++t) {
          const int8_t* x = a[t]->qs + 32 * j + 4 * c;
          const __m256i plo = _mm256_maddubs_epi16(alo, _mm256_sign_epi8(bcast4(x), vlo));
          const __m256i phi = _mm256_maddubs_epi16(ahi, _mm256_sign_epi8(bcast4(x + 16), vhi));
          sumi[t] = _mm256_add_epi32(
              sumi[t], _mm256_add_epi32(_mm256_madd_epi16(plo, s16), _mm256_madd_epi16(phi, s16)));
        }
      }
    }
    const __m256 d = f16x8(b);
    for (int t = 0; t < T; ++t) {
      acc[t] = _mm256_add_ps(acc[t], _mm256_mul_ps(_mm256_mul_ps(d, _mm256_set1_ps(a[t]->d)),
                                                   _mm256_cvtepi32_ps(sumi[t])));
    }
  }
  store_rows<T>(acc, Y, ldy);
}

// ---- driver --------------------------------------------------------------------------------
#if KVCHAT_RP_VNNI == 2
// Two groups (16 rows) in 512-bit registers: lanes 0..7 are group g's rows, lanes 8..15
// group g + 1's, each lane exactly the 8-row kernel's arithmetic (so bit-exact with it); one
// broadcast activation word feeds 16 rows and every instruction does twice the work.
inline __m512i load2x256(const uint8_t* p0, const uint8_t* p1) {
  return _mm512_inserti64x4(_mm512_castsi256_si512(load256(p0)), load256(p1), 1);
}
inline __m512i bcast4_x16(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, 4);
  return _mm512_set1_epi32(v);
}
inline __m512i load512(const uint8_t* p) { return _mm512_loadu_si512(p); }
// The 256-bit code helpers above on 512 bits (the 16-row kernels here and the kernels of
// repacked_kernels_512.inl).
inline __m512i low_nibbles(__m512i w) { return _mm512_and_si512(w, _mm512_set1_epi8(0x0F)); }
inline __m512i high_nibbles(__m512i w) {
  return _mm512_and_si512(_mm512_srli_epi16(w, 4), _mm512_set1_epi8(0x0F));
}
inline __m512i with_fifth_bit(__m512i nibbles, __m512i h, int bit) {
  return _mm512_or_si512(
      nibbles,
      _mm512_slli_epi16(_mm512_and_si512(_mm512_srli_epi16(h, bit), _mm512_set1_epi8(1)), 4));
}
inline __m512i q6_codes(__m512i l, __m512i hb, int kk) {
  const __m512i m0f = _mm512_set1_epi8(0x0F), m03 = _mm512_set1_epi8(0x03);
  const __m512i low =
      kk < 2 ? _mm512_and_si512(l, m0f) : _mm512_and_si512(_mm512_srli_epi16(l, 4), m0f);
  const __m512i high = _mm512_and_si512(_mm512_srli_epi16(hb, 2 * kk), m03);
  return _mm512_or_si512(low, _mm512_slli_epi16(high, 4));
}

inline __m512 f16x16(const uint8_t* p0, const uint8_t* p1) {
  return _mm512_cvtph_ps(
      _mm256_inserti128_si256(_mm256_castsi128_si256(load128(p0)), load128(p1), 1));
}

// Q4_0, 16 rows: group32<Q4_0, T>'s operations on both groups at once.
template <int T>
void group32_q4_0_x16(const uint8_t* g0, const uint8_t* g1, int64_t nb, const uint8_t* act,
                      uint64_t act_stride, float* Y, int64_t ldy) {
  constexpr int64_t kX8 = 8 * 18;
  __m512 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm512_setzero_ps();
  for (int64_t k = 0; k < nb; ++k) {
    const uint8_t *b0 = g0 + k * kX8, *b1 = g1 + k * kX8;
    prefetch_ahead<kX8>(b0);
    prefetch_ahead<kX8>(b1);
    const BlockQ8_32* a[T];
    for (int t = 0; t < T; ++t)
      a[t] = reinterpret_cast<const BlockQ8_32*>(act + t * act_stride) + k;
    __m512i sum[T];  // from -8 * the activation sum: the codes' offset
    for (int t = 0; t < T; ++t) sum[t] = _mm512_set1_epi32(-8 * a[t]->sum);
    for (int c = 0; c < 4; ++c) {
      const __m512i w = load2x256(b0 + 16 + 32 * c, b1 + 16 + 32 * c);
      const __m512i lo = low_nibbles(w), hi = high_nibbles(w);
      for (int t = 0; t < T; ++t) {
        sum[t] = _mm512_dpbusd_epi32(sum[t], lo, bcast4_x16(a[t]->qs + 4 * c));
        sum[t] = _mm512_dpbusd_epi32(sum[t], hi, bcast4_x16(a[t]->qs + 16 + 4 * c));
      }
    }
    const __m512 d = f16x16(b0, b1);
    for (int t = 0; t < T; ++t) {
      const __m512 term =
          _mm512_mul_ps(_mm512_mul_ps(d, _mm512_set1_ps(a[t]->d)), _mm512_cvtepi32_ps(sum[t]));
      acc[t] = _mm512_add_ps(acc[t], term);
    }
  }
  for (int t = 0; t < T; ++t) _mm512_storeu_ps(Y + t * ldy, acc[t]);
}

// Q4_K and Q5_K, 16 rows: group_q45k<kFive, T>'s VNNI operations on both groups at once.
template <bool kFive, int T>
void group_q45k_x16(const uint8_t* g0, const uint8_t* g1, int64_t nb, const uint8_t* act,
                    uint64_t act_stride, float* Y, int64_t ldy) {
  constexpr int64_t kX8 = kFive ? 8 * 176 : 8 * 144;
  constexpr int kQsAt = kFive ? 384 : 128;
  const __m512i m3f = _mm512_set1_epi32(0x3f3f3f3f), m0f = _mm512_set1_epi32(0x0f0f0f0f);
  const __m512i m03 = _mm512_set1_epi32(0x03030303), even16 = _mm512_set1_epi32(0x00ff00ff);
  const __m512i m_ff = _mm512_set1_epi32(0xff);
  __m512 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm512_setzero_ps();
  for (int64_t k = 0; k < nb; ++k) {
    const uint8_t *b0 = g0 + k * kX8, *b1 = g1 + k * kX8;
    prefetch_ahead<kX8>(b0);
    prefetch_ahead<kX8>(b1);
    const BlockQ8_K* a[T];
    for (int t = 0; t < T; ++t) a[t] = reinterpret_cast<const BlockQ8_K*>(act + t * act_stride) + k;
    const __m512i w0 = load2x256(b0 + 32, b1 + 32), w1 = load2x256(b0 + 64, b1 + 64),
                  w2 = load2x256(b0 + 96, b1 + 96);
    const __m512i sc_lo = _mm512_and_si512(w0, m3f), mn_lo = _mm512_and_si512(w1, m3f);
    const __m512i sc_hi =
        _mm512_or_si512(_mm512_and_si512(w2, m0f),
                        _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(w0, 6), m03), 4));
    const __m512i mn_hi =
        _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32(w2, 4), m0f),
                        _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(w1, 6), m03), 4));
    __m512i sumi[T];
    for (int t = 0; t < T; ++t) sumi[t] = _mm512_setzero_si512();
    for (int q = 0; q < 4; ++q) {  // sub-blocks 2q (low nibbles) and 2q + 1 (high nibbles)
      const __m512i scales = q < 2 ? sc_lo : sc_hi;
      const __m512i s0 = _mm512_and_si512(_mm512_srli_epi32(scales, 8 * ((2 * q) % 4)), m_ff),
                    s1 = _mm512_and_si512(_mm512_srli_epi32(scales, 8 * ((2 * q + 1) % 4)), m_ff);
      __m512i dlo[T], dhi[T];
      for (int t = 0; t < T; ++t) dlo[t] = dhi[t] = _mm512_setzero_si512();
      for (int c = 0; c < 8; ++c) {
        const int at = kQsAt + 32 * (8 * q + c);
        const __m512i w = load2x256(b0 + at, b1 + at);
        __m512i lo = low_nibbles(w), hi = high_nibbles(w);
        if constexpr (kFive) {
          const __m512i h = load2x256(b0 + 128 + 32 * c, b1 + 128 + 32 * c);
          lo = with_fifth_bit(lo, h, 2 * q);
          hi = with_fifth_bit(hi, h, 2 * q + 1);
        }
        for (int t = 0; t < T; ++t) {
          const int8_t* x = a[t]->qs + 64 * q + 4 * c;
          dlo[t] = _mm512_dpbusd_epi32(dlo[t], lo, bcast4_x16(x));
          dhi[t] = _mm512_dpbusd_epi32(dhi[t], hi, bcast4_x16(x + 32));
        }
      }
      for (int t = 0; t < T; ++t) {
        sumi[t] = _mm512_add_epi32(sumi[t], _mm512_add_epi32(_mm512_mullo_epi32(dlo[t], s0),
                                                             _mm512_mullo_epi32(dhi[t], s1)));
      }
    }
    const __m512 d = f16x16(b0, b1), dmin = f16x16(b0 + 16, b1 + 16);
    const __m512i mlo_e = _mm512_and_si512(mn_lo, even16),
                  mlo_o = _mm512_and_si512(_mm512_srli_epi32(mn_lo, 8), even16);
    const __m512i mhi_e = _mm512_and_si512(mn_hi, even16),
                  mhi_o = _mm512_and_si512(_mm512_srli_epi32(mn_hi, 8), even16);
    for (int t = 0; t < T; ++t) {
      const int16_t* bs = a[t]->bsums;
      __m512i summ =
          _mm512_madd_epi16(mlo_e, _mm512_set1_epi32(two_int16(pair_sum(bs, 0), pair_sum(bs, 2))));
      summ = _mm512_add_epi32(
          summ,
          _mm512_madd_epi16(mlo_o, _mm512_set1_epi32(two_int16(pair_sum(bs, 1), pair_sum(bs, 3)))));
      summ = _mm512_add_epi32(
          summ,
          _mm512_madd_epi16(mhi_e, _mm512_set1_epi32(two_int16(pair_sum(bs, 4), pair_sum(bs, 6)))));
      summ = _mm512_add_epi32(
          summ,
          _mm512_madd_epi16(mhi_o, _mm512_set1_epi32(two_int16(pair_sum(bs, 5), pair_sum(bs, 7)))));
      const __m512 ad = _mm512_set1_ps(a[t]->d);
      const __m512 t1 = _mm512_mul_ps(_mm512_mul_ps(d, ad), _mm512_cvtepi32_ps(sumi[t]));
      const __m512 t2 = _mm512_mul_ps(_mm512_mul_ps(dmin, ad), _mm512_cvtepi32_ps(summ));
      acc[t] = _mm512_add_ps(acc[t], _mm512_sub_ps(t1, t2));
    }
  }
  for (int t = 0; t < T; ++t) _mm512_storeu_ps(Y + t * ldy, acc[t]);
}

// Q6_K, 16 rows: group_q6k<T>'s VNNI operations on both groups at once.
template <int T>
void group_q6k_x16(const uint8_t* g0, const uint8_t* g1, int64_t nb, const uint8_t* act,
                   uint64_t act_stride, float* Y, int64_t ldy) {
  constexpr int64_t kX8 = 8 * 210;
  __m512 acc[T];
  for (int t = 0; t < T; ++t) acc[t] = _mm512_setzero_ps();
  for (int64_t k = 0; k < nb; ++k) {
    const uint8_t *b0 = g0 + k * kX8, *b1 = g1 + k * kX8;
    prefetch_ahead<kX8>(b0);
    prefetch_ahead<kX8>(b1);
    const BlockQ8_K* a[T];
    for (int t = 0; t < T; ++t) a[t] = reinterpret_cast<const BlockQ8_K*>(act + t * act_stride) + k;
    __m512i sumi[T], off[T];
    for (int t = 0; t < T; ++t) sumi[t] = off[t] = _mm512_setzero_si512();
    for (int h = 0; h < 2; ++h) {
      for (int kk = 0; kk < 4; ++kk) {
        for (int cq = 0; cq < 2; ++cq) {
          const int grp = 8 * h + 2 * kk + cq;
          const __m512i sc32 = _mm512_cvtepi8_epi32(_mm_unpacklo_epi64(
              _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b0 + 16 + 8 * grp)),
              _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b1 + 16 + 8 * grp))));
          __m512i dot[T];
          for (int t = 0; t < T; ++t) dot[t] = _mm512_setzero_si512();
          for (int cc = 0; cc < 4; ++cc) {
            const int ch = 4 * cq + cc;
            const int l_at = 144 + 32 * (8 * (2 * h + (kk & 1)) + ch),
                      h_at = 1168 + 32 * (8 * h + ch);
            const __m512i l = load2x256(b0 + l_at, b1 + l_at);
            const __m512i hb = load2x256(b0 + h_at, b1 + h_at);
            const __m512i code = q6_codes(l, hb, kk);
            for (int t = 0; t < T; ++t)
              dot[t] = _mm512_dpbusd_epi32(dot[t], code,
                                           bcast4_x16(a[t]->qs + 128 * h + 32 * kk + 4 * ch));
          }
          const __m512i sc2 = _mm512_add_epi32(sc32, sc32);
          for (int t = 0; t < T; ++t) {
            sumi[t] = _mm512_add_epi32(sumi[t], _mm512_mullo_epi32(dot[t], sc32));
            off[t] = _mm512_add_epi32(off[t],
                                      _mm512_mullo_epi32(sc2, _mm512_set1_epi32(a[t]->bsums[grp])));
          }
        }
      }
    }
    const __m512 d = f16x16(b0, b1);
    for (int t = 0; t < T; ++t) {
      const __m512i sv = _mm512_sub_epi32(sumi[t], _mm512_slli_epi32(off[t], 4));
      acc[t] = _mm512_add_ps(
          acc[t], _mm512_mul_ps(_mm512_mul_ps(d, _mm512_set1_ps(a[t]->d)), _mm512_cvtepi32_ps(sv)));
    }
  }
  for (int t = 0; t < T; ++t) _mm512_storeu_ps(Y + t * ldy, acc[t]);
}

using GroupKernelX16 = void (*)(const uint8_t*, const uint8_t*, int64_t, const uint8_t*, uint64_t,
                                float*, int64_t);

// The type's 16-row kernel for T tokens, or null where there is none (8-row groups then).
template <int T>
GroupKernelX16 group_kernel_x16(gguf::TensorType type) {
  switch (type) {
    case gguf::TensorType::Q4_0: return group32_q4_0_x16<T>;
    case gguf::TensorType::Q4_K: return group_q45k_x16<false, T>;
    case gguf::TensorType::Q5_K: return group_q45k_x16<true, T>;
    case gguf::TensorType::Q6_K: return group_q6k_x16<T>;
    default: return nullptr;
  }
}
#endif

#if KVCHAT_RP_VNNI
#include "backend/cpu/repacked_quad_kernels.inl"
#endif

using GroupKernel = void (*)(const uint8_t*, int64_t, const uint8_t*, uint64_t, float*, int64_t);

// The type's x8 kernel for T tokens: a switch to this ISA file's template instances (they
// cannot be a column of numeric/weight_type_traits.h), run once per row range (rows_body).
template <int T>
GroupKernel group_kernel(gguf::TensorType type) {
#if KVCHAT_RP_VNNI == 2
  if constexpr (T == 1) {  // one token: two chunks per zmm (repacked_kernels_512.inl)
    if (type == gguf::TensorType::Q4_K) return group_q45k_512<false>;
    if (type == gguf::TensorType::Q5_K) return group_q45k_512<true>;
  }
#endif
  switch (type) {
    case gguf::TensorType::Q4_0: return group32<gguf::TensorType::Q4_0, T>;
    case gguf::TensorType::Q8_0: return group32<gguf::TensorType::Q8_0, T>;
    case gguf::TensorType::Q4_K: return group_q45k<false, T>;
    case gguf::TensorType::Q5_K: return group_q45k<true, T>;
    case gguf::TensorType::Q6_K: return group_q6k<T>;
    case gguf::TensorType::IQ4_XS: return group_iq4xs<T>;
    default: return nullptr;
  }
}

// Tokens per call: 4 (each code register is unpacked once for 4 tokens); 16 vector
// registers (AVX2) hold the K-types' unpacking and sums for 2.
inline int max_tokens(gguf::TensorType type) {
  const bool k_type = weight_type_traits(type)->block_values == kSuperBlock;
  return k_type && KVCHAT_RP_VNNI != 2 ? 2 : 4;
}

inline void rows_body(gguf::TensorType type, const uint8_t* data, uint64_t row_bytes, int64_t r0,
                      int64_t r1, const void* act, uint64_t act_stride, int64_t n_tokens, int64_t n,
                      float* Y, int64_t ldy) {
  const GroupKernel kernels[4] = {group_kernel<1>(type), group_kernel<2>(type),
                                  group_kernel<3>(type), group_kernel<4>(type)};
  const int64_t nb = n / weight_type_traits(type)->block_values;
  const int tile = max_tokens(type);
  const auto* a = static_cast<const uint8_t*>(act);
  int64_t r = r0;
#if KVCHAT_RP_VNNI == 2
  const GroupKernelX16 kernels16[4] = {group_kernel_x16<1>(type), group_kernel_x16<2>(type),
                                       group_kernel_x16<3>(type), group_kernel_x16<4>(type)};
  // Only for more than 4 tokens: up to 4 the 8-row (and quad) kernels read the two groups'
  // streams one after the other, faster where the step is bound by memory (bench-serve on an
  // AMD EPYC: one session 56 -> 40 tok/s with 16 rows); beyond 4 the arithmetic bounds it (8
  // sessions +20-40%; prefill also beats the quad kernels: 158-174% vs 118-130% of FMA peak).
  const bool sixteen = kernels16[0] && n_tokens > 4;
#else
  [[maybe_unused]] constexpr bool sixteen = false;
#endif
  int64_t t_done = 0;  // tokens already computed for all rows [r0, r1)
#if KVCHAT_RP_VNNI
  // Each full tile of 4 tokens by the quad kernels, the activations interleaved once per
  // call, at most kQuadTiles tiles at a time (a long prompt then reads the rows again per
  // 64 tokens, while arithmetic bounds it).
  if (const QuadKernel quad = quad_kernel(type); quad && !sixteen && n_tokens >= 4) {
    constexpr int64_t kQuadTiles = 16;
    const int64_t tiles = n_tokens / 4, tile_bytes = quad_tile_bytes(type, nb);
    thread_local std::vector<uint8_t> quad_act;
    quad_act.resize(std::min(tiles, kQuadTiles) * tile_bytes);
    for (int64_t i0 = 0; i0 < tiles; i0 += kQuadTiles) {
      const int64_t n_tiles = std::min(kQuadTiles, tiles - i0);
      for (int64_t i = 0; i < n_tiles; ++i)
        interleave_tile(type, a + 4 * (i0 + i) * act_stride, act_stride, nb,
                        quad_act.data() + i * tile_bytes);
      for (int64_t rq = r0; rq < r1; rq += kRepackRows) {
        const uint8_t* group = data + rq * row_bytes;
        for (int64_t i = 0; i < n_tiles; ++i)
          quad(group, nb, quad_act.data() + i * tile_bytes, a + 4 * (i0 + i) * act_stride,
               act_stride, Y + 4 * (i0 + i) * ldy + rq, ldy);
      }
    }
    t_done = 4 * tiles;
  }
#endif
#if KVCHAT_RP_VNNI == 2
  for (; sixteen && r + 2 * kRepackRows <= r1; r += 2 * kRepackRows) {
    const uint8_t* group = data + r * row_bytes;
    for (int64_t t = 0; t < n_tokens; t += 4) {
      const int nt = static_cast<int>(std::min<int64_t>(4, n_tokens - t));
      kernels16[nt - 1](group, group + kRepackRows * row_bytes, nb, a + t * act_stride, act_stride,
                        Y + t * ldy + r, ldy);
    }
  }
#endif
  for (; r < r1; r += kRepackRows) {
    const uint8_t* group = data + r * row_bytes;  // group r / 8 starts at (r / 8) * 8 * row_bytes
    for (int64_t t = t_done; t < n_tokens; t += tile) {
      const int nt = static_cast<int>(std::min<int64_t>(tile, n_tokens - t));
      kernels[nt - 1](group, nb, a + t * act_stride, act_stride, Y + t * ldy + r, ldy);
    }
  }
}
