// Block-quantized weight formats, byte for byte as GGML stores them in GGUF.
// Every block is a fixed number of values (32, or 256 for the K- and XS-types); d and m
// are f16 unless noted. "q" is the stored unsigned code of one value.
//
//   Q8_0   (34 B / 32)  value[j] = d * qs[j]                                   qs int8
//   Q4_0   (18 B / 32)  value[j] = d * (q[j] - 8)        q 4-bit: j < 16 low nibble of qs[j],
//                                                        j >= 16 high nibble of qs[j-16]
//   Q4_1   (20 B / 32)  value[j] = d * q[j] + m          nibbles as Q4_0
//   Q5_0   (22 B / 32)  value[j] = d * (q[j] - 16)       q = nibble (as Q4_0) | bit j of qh << 4
//   Q5_1   (24 B / 32)  value[j] = d * q[j] + m          q as Q5_0
//   IQ4_NL (18 B / 32)  value[j] = d * kIq4nlValues[q[j]]                       nibbles as Q4_0
//
//   K-types, super-block of 256 = 16 sub-blocks of 16 or 8 sub-blocks of 32:
//   Q2_K  (84 B)  16 x 16: value = d * (scales[s] & 0xF) * q - dmin * (scales[s] >> 4), q 2-bit
//   Q3_K (110 B)  16 x 16: value = d * (scale6[s] - 32) * (q - (hmask bit ? 0 : 4)),   q 2-bit
//   Q4_K (144 B)   8 x 32: value = d * sc[s] * q - dmin * mn[s],  sc/mn 6-bit,         q 4-bit
//   Q5_K (176 B)   8 x 32: as Q4_K with q 5-bit (fifth bit in qh)
//   Q6_K (210 B)  16 x 16: value = d * scales[s] * (q - 32),  scales int8,              q 6-bit
//   IQ4_XS(136 B)  8 x 32: value = d * (scale6[s] - 32) * kIq4nlValues[q],             q 4-bit
//   Q8_K (292 B)  256 int8 with an f32 scale and 16 partial sums: the activation format the
//                 K-types are dotted with (never stored in GGUF weights by kvchat).
// Where the bits of each code sit is spelled out in numeric/dequantize.cpp.
#pragma once

#include <cstdint>

namespace kvchat {

constexpr int kQuantBlock = 32;   // values per block of the 32-types
constexpr int kSuperBlock = 256;  // values per super-block of the K- and XS-types

struct BlockQ8_0 {
  uint16_t d;
  int8_t qs[kQuantBlock];
};
static_assert(sizeof(BlockQ8_0) == 34);

struct BlockQ4_0 {
  uint16_t d;
  uint8_t qs[kQuantBlock / 2];
};
static_assert(sizeof(BlockQ4_0) == 18);

struct BlockQ4_1 {
  uint16_t d, m;
  uint8_t qs[kQuantBlock / 2];
};
static_assert(sizeof(BlockQ4_1) == 20);

struct BlockQ5_0 {
  uint16_t d;
  uint8_t qh[4];  // bit j (little-endian u32) = fifth bit of value j
  uint8_t qs[kQuantBlock / 2];
};
static_assert(sizeof(BlockQ5_0) == 22);

struct BlockQ5_1 {
  uint16_t d, m;
  uint8_t qh[4];
  uint8_t qs[kQuantBlock / 2];
};
static_assert(sizeof(BlockQ5_1) == 24);

struct BlockIq4Nl {
  uint16_t d;
  uint8_t qs[kQuantBlock / 2];
};
static_assert(sizeof(BlockIq4Nl) == 18);

// The 16 non-uniform levels of IQ4_NL and IQ4_XS.
inline constexpr int8_t kIq4nlValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                            1,    13,   25,  38,  53,  69,  89,  113};

struct BlockQ2_K {
  uint8_t scales[kSuperBlock / 16];  // per 16 values: low nibble scale, high nibble min
  uint8_t qs[kSuperBlock / 4];       // 2-bit codes
  uint16_t d, dmin;
};
static_assert(sizeof(BlockQ2_K) == 84);

struct BlockQ3_K {
  uint8_t hmask[kSuperBlock / 8];  // third bit of each code
  uint8_t qs[kSuperBlock / 4];     // low 2 bits of each code
  uint8_t scales[12];              // 16 x 6-bit scales, offset by 32
  uint16_t d;
};
static_assert(sizeof(BlockQ3_K) == 110);

struct BlockQ4_K {
  uint16_t d, dmin;
  uint8_t scales[12];           // 8 x (6-bit scale, 6-bit min)
  uint8_t qs[kSuperBlock / 2];  // 4-bit codes
};
static_assert(sizeof(BlockQ4_K) == 144);

struct BlockQ5_K {
  uint16_t d, dmin;
  uint8_t scales[12];
  uint8_t qh[kSuperBlock / 8];  // fifth bit of each code
  uint8_t qs[kSuperBlock / 2];
};
static_assert(sizeof(BlockQ5_K) == 176);

struct BlockQ6_K {
  uint8_t ql[kSuperBlock / 2];  // low 4 bits
  uint8_t qh[kSuperBlock / 4];  // high 2 bits
  int8_t scales[kSuperBlock / 16];
  uint16_t d;
};
static_assert(sizeof(BlockQ6_K) == 210);

struct BlockIq4Xs {
  uint16_t d;
  uint16_t scales_h;                   // high 2 bits of the 8 sub-block scales
  uint8_t scales_l[kSuperBlock / 64];  // low 4 bits, two per byte
  uint8_t qs[kSuperBlock / 2];
};
static_assert(sizeof(BlockIq4Xs) == 136);

struct BlockQ8_K {
  float d;
  int8_t qs[kSuperBlock];
  int16_t bsums[kSuperBlock / 16];  // sum of each 16 qs
};
static_assert(sizeof(BlockQ8_K) == 292);

// The 6-bit scale and min of sub-block j (0..7) of a Q4_K / Q5_K super-block.
inline void k_scale_min(int j, const uint8_t* scales, uint8_t& sc, uint8_t& mn) {
  if (j < 4) {
    sc = scales[j] & 63;
    mn = scales[j + 4] & 63;
  } else {
    sc = static_cast<uint8_t>((scales[j + 4] & 0xF) | ((scales[j - 4] >> 6) << 4));
    mn = static_cast<uint8_t>((scales[j + 4] >> 4) | ((scales[j] >> 6) << 4));
  }
}

// The 16 signed scales of a Q3_K super-block (6-bit codes minus 32).
inline void q3_k_scales(const uint8_t* packed, int8_t out[16]) {
  for (int j = 0; j < 16; ++j) {
    const int low = j < 8 ? (packed[j] & 0xF) : (packed[j - 8] >> 4);
    const int high = (packed[8 + (j % 4)] >> (2 * (j / 4))) & 3;
    out[j] = static_cast<int8_t>((low | (high << 4)) - 32);
  }
}

// The 6-bit scale code (0..63) of sub-block j (0..7) of an IQ4_XS super-block.
inline int iq4_xs_scale(const BlockIq4Xs& b, int j) {
  return ((b.scales_l[j / 2] >> (4 * (j % 2))) & 0xF) | (((b.scales_h >> (2 * j)) & 3) << 4);
}

}  // namespace kvchat
