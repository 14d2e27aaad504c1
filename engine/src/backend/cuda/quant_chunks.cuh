// Chunk readers (see dequant.cuh) of the block types beyond Q8_0/Q4_0: Q4_1, Q5_0, Q5_1,
// IQ4_NL and the 256-value super-block types Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS. Block
// layouts: numeric/quant_blocks.h; the definition they reproduce bit for bit:
// numeric/dequantize.cpp.
//
// For all of them a chunk is 32 consecutive values of a row: one block of the 32-value
// types, one 32-value sub-block (c % 8 of super-block c / 8) of the others. load() reads
// the chunk's packed bits with aligned 4-byte loads (read_words: blocks are only 2-byte
// aligned) and its scale bytes, and decodes them into Codes32; group(g) then yields the
// values 4g..4g+3 of the chunk:
//
//     value = a[h] * code            (h = g / 4: the 16-value half of the chunk)
//     value = a[h] * code + b[h]     (types with a min / offset term: kMin)
//
// with the products and the sum rounded one at a time (no FMA), in the order dequantize.cpp
// evaluates them, so the f32 values are identical to the CPU's. code = byte of q[g] minus
// kBias, converted exactly. The GEMV uses the codes and the scales apart (codes(), a, b):
// sum(code * x) per 16 values, then one multiply by a (and b * sum(x)). The lanes of a warp read
// neighbouring chunks, so bytes that two chunks share (the nibble halves of Q4_K, the high bits of
// Q5_K/Q3_K/Q6_K) come from the same load instruction's cache lines.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/dequant.cuh"
#include "numeric/quant_blocks.h"

namespace kvchat::cuda::dev {

// One decoded chunk: code byte k of q[g] is value 4g + k of the chunk.
struct Codes32 {
  uint32_t q[8];
  float a[2], b[2];  // per 16-value half: scale, and the min term (kMin types)
};

// group() and x_offset() of every 32-value chunk type. kBias: subtracted from each code
// byte; kMin: whether b is added.
template <int kBias, bool kMin>
struct Chunk32 {
  static constexpr int kValues = 32, kGroups = 8;
  using Raw = Codes32;
  __device__ static float code(uint32_t w, int k) {
    const uint32_t u = __byte_perm(w, 0x4B00u, 0x5440u + static_cast<unsigned>(k));
    return __uint_as_float(u) - (8388608.0f + kBias);  // 2^23 + byte - (2^23 + bias), exact
  }
  __device__ static float value(float code, float a, float b) {
    const float v = __fmul_rn(a, code);
    if constexpr (kMin) return __fadd_rn(v, b);
    return v;
  }
  static constexpr bool kHasMin = kMin;
  // The codes of values 4g..4g+3 (exact small integers as floats). g is a constant in the
  // unrolled loops; the selects let a runtime g stay in registers.
  __device__ static float4 codes(const Raw& r, int g) {
    uint32_t w = r.q[0];
#pragma unroll
    for (int k = 1; k < 8; ++k) w = g == k ? r.q[k] : w;
    return make_float4(code(w, 0), code(w, 1), code(w, 2), code(w, 3));
  }
  // Values 4g..4g+3, bit-equal to dequantize_row.
  __device__ static float4 group(const Raw& r, int g) {
    const float4 q = codes(r, g);
    const float a = g < 4 ? r.a[0] : r.a[1], b = g < 4 ? r.b[0] : r.b[1];
    return make_float4(value(q.x, a, b), value(q.y, a, b), value(q.z, a, b), value(q.w, a, b));
  }
  __device__ static int x_offset(int c, int g) { return 32 * c + 4 * g; }
};

// ---- bit helpers -------------------------------------------------------------------------
__device__ __forceinline__ uint32_t low_nibbles(uint32_t w) { return w & 0x0f0f0f0fu; }
__device__ __forceinline__ uint32_t high_nibbles(uint32_t w) { return (w >> 4) & 0x0f0f0f0fu; }
// Bits 0..3 of x to bit 0 of bytes 0..3 (the four shifted copies do not overlap).
__device__ __forceinline__ uint32_t spread_4_bits(uint32_t x) {
  return ((x & 0xfu) * 0x00204081u) & 0x01010101u;
}

// The 16 IQ4 levels as int8 bytes, 4 per word.
constexpr uint32_t iq4_level_word(int k) {
  uint32_t w = 0;
  for (int i = 0; i < 4; ++i)
    w |= static_cast<uint32_t>(static_cast<uint8_t>(kIq4nlValues[4 * k + i])) << (8 * i);
  return w;
}
constexpr uint32_t kIq4Levels0 = iq4_level_word(0), kIq4Levels1 = iq4_level_word(1),
                   kIq4Levels2 = iq4_level_word(2), kIq4Levels3 = iq4_level_word(3);
// n: four indices 0..15 (one per byte) -> their int8 levels, offset by 128 (as unsigned
// bytes, for kBias 128). byte_perm picks among 8 bytes: one for levels 0..7, one for
// 8..15, and bit 3 of each index chooses.
__device__ __forceinline__ uint32_t iq4_levels_biased(uint32_t n) {
  const uint32_t sel =
      (n & 0x7u) | ((n >> 4) & 0x70u) | ((n >> 8) & 0x700u) | ((n >> 12) & 0x7000u);
  const uint32_t lo = __byte_perm(kIq4Levels0, kIq4Levels1, sel);
  const uint32_t hi = __byte_perm(kIq4Levels2, kIq4Levels3, sel);
  const uint32_t upper = ((n >> 3) & 0x01010101u) * 0xffu;
  return ((hi & upper) | (lo & ~upper)) ^ 0x80808080u;
}

__device__ __forceinline__ int ldg_u8(const uint8_t* p) { return __ldg(p); }

// Codes of a 32-value Q4_0-style nibble block (low nibbles: values 0..15, high: 16..31)
// from its 16 qs bytes.
__device__ __forceinline__ void split_nibbles(const uint32_t (&w)[4], Codes32& r) {
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    r.q[k] = low_nibbles(w[k]);
    r.q[4 + k] = high_nibbles(w[k]);
  }
}
// The fifth bits qh (bit j = value j) added at bit 4 of each code.
__device__ __forceinline__ void add_fifth_bits(uint32_t qh, Codes32& r) {
#pragma unroll
  for (int g = 0; g < 8; ++g) r.q[g] |= spread_4_bits(qh >> (4 * g)) << 4;
}
__device__ __forceinline__ void same_scale(Codes32& r, float a, float b) {
  r.a[0] = r.a[1] = a;
  r.b[0] = r.b[1] = b;
}

// ---- 32-value blocks ---------------------------------------------------------------------

struct ChunkQ4_1 : Chunk32<0, true> {  // f16 d, f16 m, qs[16]  (20 bytes)
  __device__ static Raw load(const uint8_t* row, int c) {
    const uint8_t* block = row + 20 * c;
    uint32_t w[4];
    read_words(block + 4, w);
    Raw r;
    split_nibbles(w, r);
    same_scale(r, load_f16_scale(block), load_f16_scale(block + 2));
    return r;
  }
};

struct ChunkQ5_0 : Chunk32<16, false> {  // f16 d, qh[4], qs[16]  (22 bytes)
  __device__ static Raw load(const uint8_t* row, int c) {
    const uint8_t* block = row + 22 * c;
    uint32_t qh[1], w[4];
    read_words(block + 2, qh);
    read_words(block + 6, w);
    Raw r;
    split_nibbles(w, r);
    add_fifth_bits(qh[0], r);
    same_scale(r, load_f16_scale(block), 0.0f);
    return r;
  }
};

struct ChunkQ5_1 : Chunk32<0, true> {  // f16 d, f16 m, qh[4], qs[16]  (24 bytes)
  __device__ static Raw load(const uint8_t* row, int c) {
    const uint8_t* block = row + 24 * c;
    uint32_t qh[1], w[4];
    read_words(block + 4, qh);
    read_words(block + 8, w);
    Raw r;
    split_nibbles(w, r);
    add_fifth_bits(qh[0], r);
    same_scale(r, load_f16_scale(block), load_f16_scale(block + 2));
    return r;
  }
};

struct ChunkIq4Nl : Chunk32<128, false> {  // f16 d, qs[16] indices into kIq4nlValues (18 bytes)
  __device__ static Raw load(const uint8_t* row, int c) {
    const uint8_t* block = row + 18 * c;
    uint32_t w[4];
    read_words(block + 2, w);
    Raw r;
    split_nibbles(w, r);
#pragma unroll
    for (int g = 0; g < 8; ++g) r.q[g] = iq4_levels_biased(r.q[g]);
    same_scale(r, load_f16_scale(block), 0.0f);
    return r;
  }
};

// ---- 256-value super-blocks: chunk c = sub-block s = c % 8 of super-block c / 8 ----------

// Q2_K (84 bytes): scales[16] @0, qs[64] @16, f16 d @80, f16 dmin @82. Value i: 2 bits
// (i % 128) / 32 of qs[32 (i / 128) + i % 32]; scale byte i / 16: low nibble scale, high min.
struct ChunkQ2_K : Chunk32<0, true> {
  __device__ static Raw load(const uint8_t* row, int c) {
    const uint8_t* sb = row + 84 * (c >> 3);
    const int s = c & 7;
    uint32_t w[8];
    read_words(sb + 16 + 32 * (s >> 2), w);
    Raw r;
    const int shift = 2 * (s & 3);
#pragma unroll
    for (int g = 0; g < 8; ++g) r.q[g] = (w[g] >> shift) & 0x03030303u;
    const float d = load_f16_scale(sb + 80), dmin = load_f16_scale(sb + 82);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int sc = ldg_u8(sb + 2 * s + h);
      r.a[h] = __fmul_rn(d, static_cast<float>(sc & 0xf));
      r.b[h] = -__fmul_rn(dmin, static_cast<float>(sc >> 4));
    }
    return r;
  }
};

// Q3_K (110 bytes): hmask[32] @0, qs[64] @32, scales[12] @96 (16 x 6 bits), f16 d @108.
// Value i: low 2 bits as Q2_K, third bit = bit i / 32 of hmask[i % 32]; the code
// low | high << 2 minus 4 is low - (high ? 0 : 4).
struct ChunkQ3_K : Chunk32<4, false> {
  __device__ static Raw load(const uint8_t* row, int c) {
    const uint8_t* sb = row + 110 * (c >> 3);
    const int s = c & 7;
    uint32_t hm[8], w[8];
    read_words(sb, hm);
    read_words(sb + 32 + 32 * (s >> 2), w);
    Raw r;
    const int shift = 2 * (s & 3);
#pragma unroll
    for (int g = 0; g < 8; ++g) {
      r.q[g] = ((w[g] >> shift) & 0x03030303u) | (((hm[g] >> s) & 0x01010101u) << 2);
    }
    const float d = load_f16_scale(sb + 108);
    const uint8_t* packed = sb + 96;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int j = 2 * s + h;  // the 16-value sub-block
      const int low = (ldg_u8(packed + (j & 7)) >> (4 * (j >> 3))) & 0xf;
      const int high = (ldg_u8(packed + 8 + (j & 3)) >> (2 * (j >> 2))) & 3;
      r.a[h] = __fmul_rn(d, static_cast<float>((low | (high << 4)) - 32));
      r.b[h] = 0.0f;
    }
    return r;
  }
};

// The 6-bit scale and min of sub-block j of a Q4_K/Q5_K super-block (numeric/quant_blocks.h
// k_scale_min), from its 12 packed bytes.
__device__ __forceinline__ void k_scale_min(const uint8_t* scales, int j, int& sc, int& mn) {
  const int x = ldg_u8(scales + j + 4), y = ldg_u8(scales + (j & 3)), z = ldg_u8(scales + j);
  sc = j < 4 ? y & 63 : (x & 0xf) | ((y >> 6) << 4);
  mn = j < 4 ? x & 63 : (x >> 4) | ((z >> 6) << 4);
}
__device__ __forceinline__ void k_scales(const uint8_t* sb, int s, Codes32& r) {
  int sc, mn;
  k_scale_min(sb + 4, s, sc, mn);
  same_scale(r, __fmul_rn(load_f16_scale(sb), static_cast<float>(sc)),
             -__fmul_rn(load_f16_scale(sb + 2), static_cast<float>(mn)));
}

// Q4_K (144 bytes): f16 d @0, f16 dmin @2, scales[12] @4, qs[128] @16. Sub-block s: the
// low (s even) or high (s odd) nibbles of qs[32 (s / 2) ..+32).
struct ChunkQ4_K : Chunk32<0, true> {
  __device__ static Raw load(const uint8_t* row, int c) {
    const uint8_t* sb = row + 144 * (c >> 3);
    const int s = c & 7;
    uint32_t w[8];
    read_words(sb + 16 + 32 * (s >> 1), w);
    Raw r;
    const int shift = 4 * (s & 1);
#pragma unroll
    for (int g = 0; g < 8; ++g) r.q[g] = (w[g] >> shift) & 0x0f0f0f0fu;
    k_scales(sb, s, r);
    return r;
  }
};

// Q5_K (176 bytes): as Q4_K with qh[32] @16 (fifth bit of value i: bit i / 32 of
// qh[i % 32]) and qs[128] @48.
struct ChunkQ5_K : Chunk32<0, true> {
  __device__ static Raw load(const uint8_t* row, int c) {
    const uint8_t* sb = row + 176 * (c >> 3);
    const int s = c & 7;
    uint32_t qh[8], w[8];
    read_words(sb + 16, qh);
    read_words(sb + 48 + 32 * (s >> 1), w);
    Raw r;
    const int shift = 4 * (s & 1);
#pragma unroll
    for (int g = 0; g < 8; ++g) {
      r.q[g] = ((w[g] >> shift) & 0x0f0f0f0fu) | (((qh[g] >> s) & 0x01010101u) << 4);
    }
    k_scales(sb, s, r);
    return r;
  }
};

// Q6_K (210 bytes): ql[128] @0, qh[64] @128, int8 scales[16] @192, f16 d @208. Sub-block
// s = 4 h + k (half h, quarter k): low 4 bits from ql[64 h + 32 (k & 1) ..+32] (low
// nibbles for k < 2, high for k >= 2), high 2 bits = bits 2k, 2k+1 of qh[32 h ..+32].
struct ChunkQ6_K : Chunk32<32, false> {
  __device__ static Raw load(const uint8_t* row, int c) {
    const uint8_t* sb = row + 210 * (c >> 3);
    const int s = c & 7, h = s >> 2, k = s & 3;
    uint32_t ql[8], qh[8];
    read_words(sb + 64 * h + 32 * (k & 1), ql);
    read_words(sb + 128 + 32 * h, qh);
    Raw r;
    const int low_shift = 4 * (k >> 1), high_shift = 2 * k;
#pragma unroll
    for (int g = 0; g < 8; ++g) {
      r.q[g] = ((ql[g] >> low_shift) & 0x0f0f0f0fu) | (((qh[g] >> high_shift) & 0x03030303u) << 4);
    }
    const float d = load_f16_scale(sb + 208);
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int sc = static_cast<int8_t>(ldg_u8(sb + 192 + 2 * s + half));
      r.a[half] = __fmul_rn(d, static_cast<float>(sc));
      r.b[half] = 0.0f;
    }
    return r;
  }
};

// IQ4_XS (136 bytes): f16 d @0, u16 scales_h @2, scales_l[4] @4, qs[128] @8. Sub-block s:
// qs[16 s ..+16] as an IQ4_NL block; scale code = nibble s % 2 of scales_l[s / 2] | bits
// 2s, 2s+1 of scales_h << 4, minus 32.
struct ChunkIq4Xs : Chunk32<128, false> {
  __device__ static Raw load(const uint8_t* row, int c) {
    const uint8_t* sb = row + 136 * (c >> 3);
    const int s = c & 7;
    uint32_t w[4];
    read_words(sb + 8 + 16 * s, w);
    Raw r;
    split_nibbles(w, r);
#pragma unroll
    for (int g = 0; g < 8; ++g) r.q[g] = iq4_levels_biased(r.q[g]);
    const int scales_h = __ldg(reinterpret_cast<const unsigned short*>(sb + 2));
    const int code =
        ((ldg_u8(sb + 4 + (s >> 1)) >> (4 * (s & 1))) & 0xf) | (((scales_h >> (2 * s)) & 3) << 4);
    same_scale(r, __fmul_rn(load_f16_scale(sb), static_cast<float>(code - 32)), 0.0f);
    return r;
  }
};

}  // namespace kvchat::cuda::dev
