// The register-tiled integer dot kernels of quant_dot_avx2.cpp and quant_dot_avxvnni.cpp:
// included inside namespace kvchat::cpu { namespace { ... } } of each, so every file gets
// its own copy compiled with its own flags. KVCHAT_QDOT_VNNI selects AVX-VNNI's dpbusd for
// the u8 x s8 sums of 4 (else maddubs + madd; equal here: no pair sum reaches int16 limits).

// int32 lanes: sums of 4 products of unsigned bytes u and signed bytes s.
inline __m256i dot_u8s8(__m256i u, __m256i s) {
#if KVCHAT_QDOT_VNNI
  return _mm256_dpbusd_avx_epi32(_mm256_setzero_si256(), u, s);
#else
  return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
#endif
}

inline float h2f(uint16_t h) { return _cvtsh_ss(h); }

inline __m256i load256(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
inline __m128i load128(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }

inline float hsum(__m256 v) {
  __m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
  lo = _mm_add_ps(lo, hi);
  lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
  lo = _mm_add_ss(lo, _mm_movehdup_ps(lo));
  return _mm_cvtss_f32(lo);
}

// 16 packed bytes of 4-bit codes -> 32 bytes in value order (low nibbles 0..15, high 16..31).
inline __m256i nibbles_32(const uint8_t* qs) {
  const __m128i v = load128(qs);
  const __m256i both = _mm256_inserti128_si256(_mm256_castsi128_si256(v), _mm_srli_epi16(v, 4), 1);
  return _mm256_and_si256(both, _mm256_set1_epi8(0x0F));
}

// The 32 bits of a little-endian u32 as 32 bytes: 0xFF where the bit is set.
inline __m256i bits_to_bytes(uint32_t bits) {
  const __m256i spread =
      _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits)),
                          _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202,
                                            0x0101010101010101, 0x0000000000000000));
  const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ull));
  return _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit);
}

inline __m256i iq4nl_table() {
  return _mm256_broadcastsi128_si256(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(kIq4nlValues)));
}

// ---- 32-value weight types x BlockQ8_32 ------------------------------------------------
// Unpacked block: q = codes as bytes (unsigned), or |value| with sgn = value (signed types);
// value = d * code + c, the c term paid with the activation block sum s.
struct Unpacked32 {
  __m256i q, sgn;
  uint16_t dh, mh;  // f16 scale d and min m (Q4_1, Q5_1)
};

template <TensorType kType_>
struct Kind32 {
  static constexpr TensorType kType = kType_;
  // Q8_0 and IQ4_NL values are signed (sign trick); the others are unsigned codes whose
  // integer offset (Q4_0 8, Q5_0 16) or min (Q4_1, Q5_1) is paid with the activation sum.
  static constexpr bool kSigned = kType == TensorType::Q8_0 || kType == TensorType::IQ4_NL;
  static constexpr int kOffset = kType == TensorType::Q4_0 ? 8 : kType == TensorType::Q5_0 ? 16 : 0;
  static constexpr bool kHasMin = kType == TensorType::Q4_1 || kType == TensorType::Q5_1;

  static inline void unpack(const uint8_t* block, Unpacked32& u) {
    u.mh = 0;
    if constexpr (kType == TensorType::Q8_0) {
      const auto& b = *reinterpret_cast<const BlockQ8_0*>(block);
      u.sgn = load256(b.qs);
      u.dh = b.d;
    } else if constexpr (kType == TensorType::Q4_0) {
      const auto& b = *reinterpret_cast<const BlockQ4_0*>(block);
      u.q = nibbles_32(b.qs);
      u.dh = b.d;
    } else if constexpr (kType == TensorType::Q4_1) {
      const auto& b = *reinterpret_cast<const BlockQ4_1*>(block);
      u.q = nibbles_32(b.qs);
      u.dh = b.d, u.mh = b.m;
    } else if constexpr (kType == TensorType::Q5_0 || kType == TensorType::Q5_1) {
      using Block = std::conditional_t<kType == TensorType::Q5_0, BlockQ5_0, BlockQ5_1>;
      const auto& b = *reinterpret_cast<const Block*>(block);
      uint32_t qh;
      std::memcpy(&qh, b.qh, 4);
      const __m256i q = _mm256_or_si256(
          nibbles_32(b.qs), _mm256_and_si256(bits_to_bytes(qh), _mm256_set1_epi8(0x10)));
      u.dh = b.d;
      u.q = q;
      if constexpr (kType == TensorType::Q5_1) u.mh = b.m;
    } else {  // IQ4_NL
      const auto& b = *reinterpret_cast<const BlockIq4Nl*>(block);
      u.sgn = _mm256_shuffle_epi8(iq4nl_table(), nibbles_32(b.qs));
      u.dh = b.d;
    }
    if constexpr (kSigned) u.q = _mm256_abs_epi8(u.sgn);
  }

  using Act = BlockQ8_32;
  using Unpacked = Unpacked32;
  static constexpr int kBlockValues = kQuantBlock;

  // Per token and block: the activation bytes and d in every lane, the offset times the
  // activation sum in lane 0 (subtracted from one lane of the code sums, which are added up
  // at the end) and d * sum (the min's coefficient), loaded once for R rows.
  struct Token {
    __m256i x;
    __m256 d;
    __m256i offset_sum;
    float s;
  };
  static inline Token load_token(const BlockQ8_32& a) {
    return {load256(a.qs), _mm256_set1_ps(a.d),
            _mm256_setr_epi32(kOffset * a.sum, 0, 0, 0, 0, 0, 0, 0),
            a.d * static_cast<float>(a.sum)};
  }

  static inline void dot(const Unpacked32& u, const Token& a, __m256& acc, float& cacc) {
    __m256i x = a.x;
    if constexpr (kSigned) x = _mm256_sign_epi8(x, u.sgn);
    __m256i sum = dot_u8s8(u.q, x);
    if constexpr (kOffset != 0) sum = _mm256_sub_epi32(sum, a.offset_sum);
    const __m128 d = _mm_set1_ps(h2f(u.dh));
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum), _mm256_mul_ps(_mm256_set_m128(d, d), a.d), acc);
    if constexpr (kHasMin) cacc += h2f(u.mh) * a.s;
  }
};

// ---- 256-value K- and XS-types x BlockQ8_K ---------------------------------------------
// Unpacked super-block: q[j] = codes of values 32j..32j+31 as bytes (|value| with sgn for
// IQ4_XS); pair[j] = the int16 scales of groups 2j (low lane) and 2j+1 (high lane);
// sc16 / mn16 = the 16 group scales / mins as int16. value = d * scale * (code - offset)
// - dmin * min.
struct UnpackedK {
  __m256i q[8];
  __m256i pair[8];
  __m256i sc16, mn16;
  float d, dmin;
};
struct UnpackedKSigned : UnpackedK {
  __m256i sgn[8];
};

// pair[j] from 16 int16 group scales.
inline void scale_pairs(__m256i sc16, __m256i pair[8]) {
  const __m256i lo = _mm256_broadcastsi128_si256(_mm256_castsi256_si128(sc16));
  const __m256i hi = _mm256_broadcastsi128_si256(_mm256_extracti128_si256(sc16, 1));
// Lane 0 repeats int16 2k, lane 1 int16 2k+1 (k = j % 4).
#pragma GCC unroll 8
  for (int k = 0; k < 4; ++k) {
    const char b0 = static_cast<char>(4 * k), b1 = static_cast<char>(4 * k + 1);
    const char c0 = static_cast<char>(4 * k + 2), c1 = static_cast<char>(4 * k + 3);
    const __m256i mask =
        _mm256_setr_epi8(b0, b1, b0, b1, b0, b1, b0, b1, b0, b1, b0, b1, b0, b1, b0, b1,  //
                         c0, c1, c0, c1, c0, c1, c0, c1, c0, c1, c0, c1, c0, c1, c0, c1);
    pair[k] = _mm256_shuffle_epi8(lo, mask);
    pair[k + 4] = _mm256_shuffle_epi8(hi, mask);
  }
}

// 8 per-32 scales (bytes) -> 16 int16 group scales (each repeated for its two groups).
inline __m256i dup_scales_8(__m128i bytes8) {
  const __m128i s = _mm_cvtepu8_epi16(bytes8);
  return _mm256_set_m128i(_mm_unpackhi_epi16(s, s), _mm_unpacklo_epi16(s, s));
}

// The 6-bit scales and mins of Q4_K/Q5_K as 8 bytes each (see k_scale_min).
inline void k_scales_mins(const uint8_t* scales, __m128i& sc8, __m128i& mn8) {
  uint32_t w0, w1, w2;
  std::memcpy(&w0, scales, 4);
  std::memcpy(&w1, scales + 4, 4);
  std::memcpy(&w2, scales + 8, 4);
  const uint32_t sc_lo = w0 & 0x3f3f3f3f, mn_lo = w1 & 0x3f3f3f3f;
  const uint32_t sc_hi = (w2 & 0x0f0f0f0f) | (((w0 >> 6) & 0x03030303) << 4);
  const uint32_t mn_hi = ((w2 >> 4) & 0x0f0f0f0f) | (((w1 >> 6) & 0x03030303) << 4);
  sc8 = _mm_set_epi32(0, 0, static_cast<int>(sc_hi), static_cast<int>(sc_lo));
  mn8 = _mm_set_epi32(0, 0, static_cast<int>(mn_hi), static_cast<int>(mn_lo));
}

// The 16 signed Q3_K scales as int16 (as q3_k_scales): low 4 bits of scale j are the low
// nibble of byte j (j < 8) or the high nibble of byte j - 8; its top 2 bits are bits
// 2(j / 4)..2(j / 4)+1 of byte 8 + j % 4.
inline __m256i q3_k_scales16(const uint8_t* packed) {
  uint64_t lo8;
  uint32_t h;
  std::memcpy(&lo8, packed, 8);
  std::memcpy(&h, packed + 8, 4);
  const __m128i low = _mm_set_epi64x(static_cast<int64_t>((lo8 >> 4) & 0x0F0F0F0F0F0F0F0Full),
                                     static_cast<int64_t>(lo8 & 0x0F0F0F0F0F0F0F0Full));
  const __m128i high = _mm_set_epi32(
      static_cast<int>((h >> 6) & 0x03030303), static_cast<int>((h >> 4) & 0x03030303),
      static_cast<int>((h >> 2) & 0x03030303), static_cast<int>(h & 0x03030303));
  const __m128i codes = _mm_or_si128(low, _mm_slli_epi16(high, 4));  // 0..63, no carry across bytes
  return _mm256_sub_epi16(_mm256_cvtepu8_epi16(codes), _mm256_set1_epi16(32));
}

// The 8 IQ4_XS 6-bit scale codes as bytes (as iq4_xs_scale).
inline __m128i iq4_xs_scales8(const BlockIq4Xs& b) {
  uint32_t l;
  std::memcpy(&l, b.scales_l, 4);
  const __m128i low = _mm_unpacklo_epi8(_mm_cvtsi32_si128(static_cast<int>(l & 0x0F0F0F0F)),
                                        _mm_cvtsi32_si128(static_cast<int>((l >> 4) & 0x0F0F0F0F)));
  const __m256i high32 =
      _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(b.scales_h),
                                         _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14)),
                       _mm256_set1_epi32(3));
  const __m128i high16 =
      _mm_packus_epi32(_mm256_castsi256_si128(high32), _mm256_extracti128_si256(high32, 1));
  const __m128i high8 = _mm_packus_epi16(high16, high16);
  return _mm_or_si128(low, _mm_slli_epi16(high8, 4));
}

template <TensorType kType_>
struct KindK {
  static constexpr TensorType kType = kType_;
  static constexpr bool kSigned = kType == TensorType::IQ4_XS;
  static constexpr bool kMins =
      kType == TensorType::Q2_K || kType == TensorType::Q4_K || kType == TensorType::Q5_K;
  static constexpr int kOffsetShift = kType == TensorType::Q3_K   ? 2
                                      : kType == TensorType::Q6_K ? 5
                                                                  : -1;
  using Unpacked = std::conditional_t<kSigned, UnpackedKSigned, UnpackedK>;
  using Act = BlockQ8_K;
  static constexpr int kBlockValues = kSuperBlock;

  static inline void unpack(const uint8_t* block, Unpacked& u) {
    const __m256i m2 = _mm256_set1_epi8(3), m4 = _mm256_set1_epi8(0x0F);
    if constexpr (kType == TensorType::Q2_K || kType == TensorType::Q3_K) {
      using Block = std::conditional_t<kType == TensorType::Q2_K, BlockQ2_K, BlockQ3_K>;
      const auto& b = *reinterpret_cast<const Block*>(block);
#pragma GCC unroll 8
      for (int c = 0; c < 2; ++c) {
        const __m256i bytes = load256(b.qs + 32 * c);
        u.q[4 * c + 0] = _mm256_and_si256(bytes, m2);
        u.q[4 * c + 1] = _mm256_and_si256(_mm256_srli_epi16(bytes, 2), m2);
        u.q[4 * c + 2] = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), m2);
        u.q[4 * c + 3] = _mm256_and_si256(_mm256_srli_epi16(bytes, 6), m2);
      }
      if constexpr (kType == TensorType::Q2_K) {
        const __m128i s = load128(b.scales);
        u.sc16 = _mm256_cvtepu8_epi16(_mm_and_si128(s, _mm_set1_epi8(0x0F)));
        u.mn16 = _mm256_cvtepu8_epi16(_mm_and_si128(_mm_srli_epi16(s, 4), _mm_set1_epi8(0x0F)));
        u.dmin = h2f(b.dmin);
      } else {
        const __m256i hm = load256(b.hmask);  // bit j of byte l: third bit of value 32j + l
        const __m256i one = _mm256_set1_epi8(1);
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) {
          const __m256i hb = _mm256_and_si256(_mm256_srl_epi16(hm, _mm_cvtsi32_si128(j)), one);
          u.q[j] = _mm256_or_si256(u.q[j], _mm256_slli_epi16(hb, 2));
        }
        u.sc16 = q3_k_scales16(b.scales);
      }
      u.d = h2f(b.d);
    } else if constexpr (kType == TensorType::Q4_K || kType == TensorType::Q5_K) {
      using Block = std::conditional_t<kType == TensorType::Q4_K, BlockQ4_K, BlockQ5_K>;
      const auto& b = *reinterpret_cast<const Block*>(block);
#pragma GCC unroll 8
      for (int c = 0; c < 4; ++c) {
        const __m256i bytes = load256(b.qs + 32 * c);
        u.q[2 * c] = _mm256_and_si256(bytes, m4);
        u.q[2 * c + 1] = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), m4);
      }
      if constexpr (kType == TensorType::Q5_K) {
        const __m256i qh = load256(b.qh);  // bit j of byte l: fifth bit of value 32j + l
        const __m256i one = _mm256_set1_epi8(1);
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) {
          const __m256i hb = _mm256_and_si256(_mm256_srl_epi16(qh, _mm_cvtsi32_si128(j)), one);
          u.q[j] = _mm256_or_si256(u.q[j], _mm256_slli_epi16(hb, 4));
        }
      }
      __m128i sc8, mn8;
      k_scales_mins(b.scales, sc8, mn8);
      u.sc16 = dup_scales_8(sc8);
      u.mn16 = dup_scales_8(mn8);
      u.d = h2f(b.d), u.dmin = h2f(b.dmin);
    } else if constexpr (kType == TensorType::Q6_K) {
      const auto& b = *reinterpret_cast<const BlockQ6_K*>(block);
#pragma GCC unroll 8
      for (int c = 0; c < 2; ++c) {
        const __m256i l0 = load256(b.ql + 64 * c), l1 = load256(b.ql + 64 * c + 32);
        const __m256i h = load256(b.qh + 32 * c);
        u.q[4 * c + 0] = _mm256_or_si256(_mm256_and_si256(l0, m4),
                                         _mm256_slli_epi16(_mm256_and_si256(h, m2), 4));
        u.q[4 * c + 1] =
            _mm256_or_si256(_mm256_and_si256(l1, m4),
                            _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 2), m2), 4));
        u.q[4 * c + 2] =
            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l0, 4), m4),
                            _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 4), m2), 4));
        u.q[4 * c + 3] =
            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(l1, 4), m4),
                            _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 6), m2), 4));
      }
      u.sc16 = _mm256_cvtepi8_epi16(load128(b.scales));
      u.d = h2f(b.d);
    } else {  // IQ4_XS
      const auto& b = *reinterpret_cast<const BlockIq4Xs*>(block);
      const __m256i table = iq4nl_table();
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) {
        u.sgn[j] = _mm256_shuffle_epi8(table, nibbles_32(b.qs + 16 * j));
        u.q[j] = _mm256_abs_epi8(u.sgn[j]);
      }
      u.sc16 = _mm256_sub_epi16(dup_scales_8(iq4_xs_scales8(b)), _mm256_set1_epi16(32));
      u.d = h2f(b.d);
    }
    scale_pairs(u.sc16, u.pair);
  }

  using Token = const BlockQ8_K&;
  static inline const BlockQ8_K& load_token(const BlockQ8_K& a) { return a; }

  static inline void dot(const Unpacked& u, const BlockQ8_K& a, __m256& acc, float& /*cacc*/) {
    __m256i s0 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int j = 0; j < 8; j += 2) {
      __m256i x0 = load256(a.qs + 32 * j), x1 = load256(a.qs + 32 * j + 32);
      if constexpr (kSigned) {
        x0 = _mm256_sign_epi8(x0, u.sgn[j]);
        x1 = _mm256_sign_epi8(x1, u.sgn[j + 1]);
      }
      s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_maddubs_epi16(u.q[j], x0), u.pair[j]));
      s1 = _mm256_add_epi32(s1,
                            _mm256_madd_epi16(_mm256_maddubs_epi16(u.q[j + 1], x1), u.pair[j + 1]));
    }
    __m256i sumi = _mm256_add_epi32(s0, s1);
    if constexpr (kOffsetShift >= 0 || kMins) {
      const __m256i bsums = load256(a.bsums);
      if constexpr (kOffsetShift >= 0) {
        sumi = _mm256_sub_epi32(sumi,
                                _mm256_slli_epi32(_mm256_madd_epi16(bsums, u.sc16), kOffsetShift));
      }
      if constexpr (kMins) {
        acc = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(_mm256_madd_epi16(bsums, u.mn16)),
                               _mm256_set1_ps(u.dmin * a.d), acc);
      }
    }
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sumi), _mm256_set1_ps(u.d * a.d), acc);
  }
};

// out[t * R + r] = dot(row r, token t) for R rows and T tokens.
template <class Kind, int R, int T>
void tile(const uint8_t* w, uint64_t row_bytes, uint64_t block_bytes, const uint8_t* act,
          uint64_t act_stride, int64_t n_blocks, float* out) {
  using Act = typename Kind::Act;
  __m256 acc[R][T];
  float cacc[R][T];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t) acc[r][t] = _mm256_setzero_ps(), cacc[r][t] = 0;
  }
  for (int64_t k = 0; k < n_blocks; ++k) {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {  // each row's block a few blocks ahead, whole (up to 4 lines)
      const char* ahead = reinterpret_cast<const char*>(w + r * row_bytes + (k + 4) * block_bytes);
      for (uint64_t line = 0; line < block_bytes; line += 64)
        _mm_prefetch(ahead + line, _MM_HINT_T0);
    }
    typename Kind::Unpacked u[R];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) Kind::unpack(w + r * row_bytes + k * block_bytes, u[r]);
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t) {
      const typename Kind::Token a =
          Kind::load_token(reinterpret_cast<const Act*>(act + t * act_stride)[k]);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) Kind::dot(u[r], a, acc[r][t], cacc[r][t]);
    }
  }
#pragma GCC unroll 8
  for (int t = 0; t < T; ++t) {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) out[t * R + r] = hsum(acc[r][t]) + cacc[r][t];
  }
}

// The int32 sums of NT tokens (1 or 2) with 4 unpacked K-type rows, folded per token into
// one vector by horizontal adds: lanes rows 0..3 twice (the halves are summed at the end).
// Group j's bytes are dotted and scaled (madd with the int16 scale pair) for every row and
// token before the next group, so the unpacked rows are read from L1 once per token pair
// and the 8 int32 accumulators stay in registers.
template <class Kind, int NT>
inline void k_sums_r4(const typename Kind::Unpacked* u, const BlockQ8_K* const* a,
                      __m256i folded[NT], __m256i folded_mins[NT]) {
  __m256i s[4][NT];
#pragma GCC unroll 8
  for (int r = 0; r < 4; ++r) {
#pragma GCC unroll 2
    for (int t = 0; t < NT; ++t) s[r][t] = _mm256_setzero_si256();
  }
#pragma GCC unroll 2
  for (int j = 0; j < 8; ++j) {
    __m256i x[NT];
#pragma GCC unroll 2
    for (int t = 0; t < NT; ++t) x[t] = load256(a[t]->qs + 32 * j);
#pragma GCC unroll 8
    for (int r = 0; r < 4; ++r) {
#pragma GCC unroll 2
      for (int t = 0; t < NT; ++t) {
        __m256i xs = x[t];
        if constexpr (Kind::kSigned) xs = _mm256_sign_epi8(xs, u[r].sgn[j]);
        s[r][t] = _mm256_add_epi32(
            s[r][t], _mm256_madd_epi16(_mm256_maddubs_epi16(u[r].q[j], xs), u[r].pair[j]));
      }
    }
  }
#pragma GCC unroll 2
  for (int t = 0; t < NT; ++t) {
    if constexpr (Kind::kOffsetShift >= 0 || Kind::kMins) {
      const __m256i bsums = load256(a[t]->bsums);
      if constexpr (Kind::kOffsetShift >= 0) {
#pragma GCC unroll 8
        for (int r = 0; r < 4; ++r) {
          s[r][t] = _mm256_sub_epi32(
              s[r][t], _mm256_slli_epi32(_mm256_madd_epi16(bsums, u[r].sc16), Kind::kOffsetShift));
        }
      }
      if constexpr (Kind::kMins) {
        __m256i m[4];
#pragma GCC unroll 8
        for (int r = 0; r < 4; ++r) m[r] = _mm256_madd_epi16(bsums, u[r].mn16);
        folded_mins[t] =
            _mm256_hadd_epi32(_mm256_hadd_epi32(m[0], m[1]), _mm256_hadd_epi32(m[2], m[3]));
      }
    }
    folded[t] =
        _mm256_hadd_epi32(_mm256_hadd_epi32(s[0][t], s[1][t]), _mm256_hadd_epi32(s[2][t], s[3][t]));
  }
}

// 256-value types, 4 rows x T tokens: out[t * 4 + r]. Each super-block of the 4 rows is
// unpacked once (to L1) and dotted with the T tokens two at a time; per token one
// cvt/fma (and one for the mins) per super-block covers all four rows.
template <class Kind, int T>
void tile_k_r4(const uint8_t* w, uint64_t row_bytes, uint64_t block_bytes, const uint8_t* act,
               uint64_t act_stride, int64_t n_blocks, float* out) {
  __m256 acc[T];  // lanes: rows 0..3, twice
#pragma GCC unroll 8
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps();
  for (int64_t k = 0; k < n_blocks; ++k) {
#pragma GCC unroll 4
    for (int r = 0; r < 4; ++r) {  // each row's block a few blocks ahead, whole
      const char* ahead = reinterpret_cast<const char*>(w + r * row_bytes + (k + 2) * block_bytes);
      for (uint64_t line = 0; line < block_bytes; line += 64)
        _mm_prefetch(ahead + line, _MM_HINT_T0);
    }
    typename Kind::Unpacked u[4];
#pragma GCC unroll 4
    for (int r = 0; r < 4; ++r) Kind::unpack(w + r * row_bytes + k * block_bytes, u[r]);
    const __m128 d4 = _mm_setr_ps(u[0].d, u[1].d, u[2].d, u[3].d);
    const __m256 drows = _mm256_set_m128(d4, d4);
    __m256 dminrows = _mm256_setzero_ps();
    if constexpr (Kind::kMins) {
      const __m128 m4 = _mm_setr_ps(u[0].dmin, u[1].dmin, u[2].dmin, u[3].dmin);
      dminrows = _mm256_set_m128(m4, m4);
    }
    const auto token = [&](int t) {
      return reinterpret_cast<const BlockQ8_K*>(act + t * act_stride) + k;
    };
    const auto accumulate = [&](int t, __m256i sums, __m256i mins) {
      const __m256 ad = _mm256_set1_ps(token(t)->d);
      acc[t] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sums), _mm256_mul_ps(drows, ad), acc[t]);
      if constexpr (Kind::kMins)
        acc[t] = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(mins), _mm256_mul_ps(dminrows, ad), acc[t]);
    };
#pragma GCC unroll 4
    for (int t = 0; t + 1 < T; t += 2) {
      const BlockQ8_K* a[2] = {token(t), token(t + 1)};
      __m256i sums[2], mins[2];
      k_sums_r4<Kind, 2>(u, a, sums, mins);
      accumulate(t, sums[0], mins[0]);
      accumulate(t + 1, sums[1], mins[1]);
    }
    if constexpr (T % 2 == 1) {
      const BlockQ8_K* a[1] = {token(T - 1)};
      __m256i sums[1], mins[1];
      k_sums_r4<Kind, 1>(u, a, sums, mins);
      accumulate(T - 1, sums[0], mins[0]);
    }
  }
#pragma GCC unroll 8
  for (int t = 0; t < T; ++t) {
    const __m128 s = _mm_add_ps(_mm256_castps256_ps128(acc[t]), _mm256_extractf128_ps(acc[t], 1));
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, s);
#pragma GCC unroll 4
    for (int r = 0; r < 4; ++r) out[t * 4 + r] = lanes[r];
  }
}

// 32-value types, 4 rows x T tokens: the four rows' int32 sums of one token are folded
// into one vector by horizontal adds (shuffle ports) before the float conversion, so each
// token pays one cvt/mul/fma per block for all four rows. acc[t] lanes: rows 0..3, twice.
template <class Kind, int T>
void tile32_r4(const uint8_t* w, uint64_t row_bytes, uint64_t block_bytes, const uint8_t* act,
               uint64_t act_stride, int64_t n_blocks, float* out) {
  using Act = typename Kind::Act;
  __m256 acc[T], cacc[T];  // the d * code sums and the min terms: two dependency chains
#pragma GCC unroll 8
  for (int t = 0; t < T; ++t) acc[t] = _mm256_setzero_ps(), cacc[t] = _mm256_setzero_ps();
  for (int64_t k = 0; k < n_blocks; ++k) {
    if ((k & 3) == 0) {  // the four rows' bytes a few cache lines ahead (four streams)
#pragma GCC unroll 4
      for (int r = 0; r < 4; ++r)
        _mm_prefetch(reinterpret_cast<const char*>(w + r * row_bytes + (k + 16) * block_bytes),
                     _MM_HINT_T0);
    }
    typename Kind::Unpacked u[4];
#pragma GCC unroll 8
    for (int r = 0; r < 4; ++r) Kind::unpack(w + r * row_bytes + k * block_bytes, u[r]);
    // [d0 d1 d2 d3 d0 d1 d2 d3] and [m0 m1 m2 m3 0 0 0 0] (the min term, added once: the two
    // halves are summed at the end).
    const auto h = [](uint16_t v) { return static_cast<int16_t>(v); };
    const __m128 d4 =
        _mm_cvtph_ps(_mm_setr_epi16(h(u[0].dh), h(u[1].dh), h(u[2].dh), h(u[3].dh), 0, 0, 0, 0));
    const __m256 drows = _mm256_set_m128(d4, d4);
    __m256 mrows = _mm256_setzero_ps();
    if constexpr (Kind::kHasMin) {
      mrows = _mm256_castps128_ps256(
          _mm_cvtph_ps(_mm_setr_epi16(h(u[0].mh), h(u[1].mh), h(u[2].mh), h(u[3].mh), 0, 0, 0, 0)));
    }
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t) {
      const Act& a = reinterpret_cast<const Act*>(act + t * act_stride)[k];
      const __m256i x = load256(a.qs);
      __m256i v[4];
#pragma GCC unroll 8
      for (int r = 0; r < 4; ++r) {
        __m256i xs = x;
        if constexpr (Kind::kSigned) xs = _mm256_sign_epi8(x, u[r].sgn);
        v[r] = dot_u8s8(u[r].q, xs);
      }
      if constexpr (Kind::kHasMin) {
        const float s = a.d * static_cast<float>(a.sum);
        cacc[t] = _mm256_fmadd_ps(mrows, _mm256_set1_ps(s), cacc[t]);
      }
      __m256i h = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
      if constexpr (Kind::kOffset != 0) {  // from the low half's 4 rows (the halves are summed)
        const int os = Kind::kOffset * a.sum;
        h = _mm256_sub_epi32(h, _mm256_setr_epi32(os, os, os, os, 0, 0, 0, 0));
      }
      acc[t] =
          _mm256_fmadd_ps(_mm256_cvtepi32_ps(h), _mm256_mul_ps(drows, _mm256_set1_ps(a.d)), acc[t]);
    }
  }
#pragma GCC unroll 8
  for (int t = 0; t < T; ++t) {
    acc[t] = _mm256_add_ps(acc[t], cacc[t]);
    const __m128 s = _mm_add_ps(_mm256_castps256_ps128(acc[t]), _mm256_extractf128_ps(acc[t], 1));
    alignas(16) float lanes[4];
    _mm_store_ps(lanes, s);
#pragma GCC unroll 8
    for (int r = 0; r < 4; ++r) out[t * 4 + r] = lanes[r];
  }
}

// Tokens [0, nt) of one row group of R rows (nt as tile_tokens).
template <class Kind, int R>
inline void tile_rows(int nt, const uint8_t* w, uint64_t row_bytes, uint64_t block_bytes,
                      const uint8_t* act, uint64_t act_stride, int64_t nb, float* out) {
  if constexpr (R == 4 && Kind::kBlockValues == kQuantBlock) {
    switch (nt) {
      case 8: return tile32_r4<Kind, 8>(w, row_bytes, block_bytes, act, act_stride, nb, out);
      case 7: return tile32_r4<Kind, 7>(w, row_bytes, block_bytes, act, act_stride, nb, out);
      case 6: return tile32_r4<Kind, 6>(w, row_bytes, block_bytes, act, act_stride, nb, out);
      case 5: return tile32_r4<Kind, 5>(w, row_bytes, block_bytes, act, act_stride, nb, out);
      case 4: return tile32_r4<Kind, 4>(w, row_bytes, block_bytes, act, act_stride, nb, out);
      case 3: return tile32_r4<Kind, 3>(w, row_bytes, block_bytes, act, act_stride, nb, out);
      case 2: return tile32_r4<Kind, 2>(w, row_bytes, block_bytes, act, act_stride, nb, out);
      default: return tile32_r4<Kind, 1>(w, row_bytes, block_bytes, act, act_stride, nb, out);
    }
  } else if constexpr (R == 4) {
    switch (nt) {
      case 16: return tile_k_r4<Kind, 16>(w, row_bytes, block_bytes, act, act_stride, nb, out);
      case 8: return tile_k_r4<Kind, 8>(w, row_bytes, block_bytes, act, act_stride, nb, out);
      case 4: return tile_k_r4<Kind, 4>(w, row_bytes, block_bytes, act, act_stride, nb, out);
      case 2: return tile_k_r4<Kind, 2>(w, row_bytes, block_bytes, act, act_stride, nb, out);
      default: return tile_k_r4<Kind, 1>(w, row_bytes, block_bytes, act, act_stride, nb, out);
    }
  } else {
    switch (nt) {
      case 4: return tile<Kind, R, 4>(w, row_bytes, block_bytes, act, act_stride, nb, out);
      case 3: return tile<Kind, R, 3>(w, row_bytes, block_bytes, act, act_stride, nb, out);
      case 2: return tile<Kind, R, 2>(w, row_bytes, block_bytes, act, act_stride, nb, out);
      default: return tile<Kind, R, 1>(w, row_bytes, block_bytes, act, act_stride, nb, out);
    }
  }
}

// Tokens per tile: 32-value types take any 1..8 tokens with 4 rows; 256-value types 16, 8,
// 4, 2 or 1 with 4 rows (their unpacking is dearer, so it is shared by more tokens); a
// single row 1..4 tokens.
template <class Kind>
inline int tile_tokens(int rows, int left) {
  if (rows == 1) return left < 4 ? left : 4;
  if constexpr (Kind::kBlockValues == kQuantBlock) return left < 8 ? left : 8;
  int nt = 16;
  while (nt > left) nt /= 2;
  return nt;
}

// Any n_rows x n_tokens: tiles of 4 rows (then single rows) x tile_tokens tokens.
template <class Kind>
void tiles(const uint8_t* w, uint64_t row_bytes, int n_rows, const uint8_t* act,
           uint64_t act_stride, int n_tokens, int64_t n, float* out) {
  constexpr int kTileRows = 4;
  const uint64_t block_bytes = static_cast<uint64_t>(weight_type_traits(Kind::kType)->block_bytes);
  const int64_t nb = n / Kind::kBlockValues;
  float part[kTileRows * 16];
  for (int r = 0; r < n_rows;) {
    const int nr = n_rows - r >= kTileRows ? kTileRows : 1;
    for (int t = 0; t < n_tokens;) {
      const int nt = tile_tokens<Kind>(nr, n_tokens - t);
      const uint8_t* wr = w + r * row_bytes;
      const uint8_t* at = act + t * act_stride;
      if (nr == kTileRows) {
        tile_rows<Kind, kTileRows>(nt, wr, row_bytes, block_bytes, at, act_stride, nb, part);
      } else {
        tile_rows<Kind, 1>(nt, wr, row_bytes, block_bytes, at, act_stride, nb, part);
      }
      for (int tt = 0; tt < nt; ++tt) {
        for (int rr = 0; rr < nr; ++rr) out[(t + tt) * n_rows + r + rr] = part[tt * nr + rr];
      }
      t += nt;
    }
    r += nr;
  }
}

template <class Kind>
void tile_entry(TensorType, const void* row, uint64_t row_bytes, int n_rows, const void* act,
                uint64_t act_stride, int n_tokens, int64_t n, float* out) {
  tiles<Kind>(static_cast<const uint8_t*>(row), row_bytes, n_rows, static_cast<const uint8_t*>(act),
              act_stride, n_tokens, n, out);
}

// The type's instance of the tile templates in this ISA file, nullptr for a type without one.
// A switch, not a column of numeric/weight_type_traits.h: each ISA file instantiates its own
// templates. Called once per matrix row range (quant_dot_tile_kernel), not per tile.
inline QuantTileFn tile_kernel(TensorType type) {
  switch (type) {
    case TensorType::Q8_0: return tile_entry<Kind32<TensorType::Q8_0>>;
    case TensorType::Q4_0: return tile_entry<Kind32<TensorType::Q4_0>>;
    case TensorType::Q4_1: return tile_entry<Kind32<TensorType::Q4_1>>;
    case TensorType::Q5_0: return tile_entry<Kind32<TensorType::Q5_0>>;
    case TensorType::Q5_1: return tile_entry<Kind32<TensorType::Q5_1>>;
    case TensorType::IQ4_NL: return tile_entry<Kind32<TensorType::IQ4_NL>>;
    case TensorType::Q2_K: return tile_entry<KindK<TensorType::Q2_K>>;
    case TensorType::Q3_K: return tile_entry<KindK<TensorType::Q3_K>>;
    case TensorType::Q4_K: return tile_entry<KindK<TensorType::Q4_K>>;
    case TensorType::Q5_K: return tile_entry<KindK<TensorType::Q5_K>>;
    case TensorType::Q6_K: return tile_entry<KindK<TensorType::Q6_K>>;
    case TensorType::IQ4_XS: return tile_entry<KindK<TensorType::IQ4_XS>>;
    default: return nullptr;
  }
}

// The bodies of an ISA file's two entry points: a tile of n_rows weight rows x n_tokens
// activation rows (out: (n_tokens, n_rows)), and one row with one activation row.
inline void dot_tile(TensorType type, const void* row, uint64_t row_bytes, int n_rows,
                     const void* act, uint64_t act_stride, int n_tokens, int64_t n, float* out) {
  if (const QuantTileFn f = tile_kernel(type))
    f(type, row, row_bytes, n_rows, act, act_stride, n_tokens, n, out);
}

inline float dot_one_row(TensorType type, const void* row, const void* act, int64_t n) {
  const WeightTypeTraits& traits = *weight_type_traits(type);
  float out = 0;
  dot_tile(type, row, n / traits.block_values * traits.block_bytes, 1, act, 0, 1, n, &out);
  return out;
}
