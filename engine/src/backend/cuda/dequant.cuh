// Device helpers shared by the kernels that read or write weights and KV rows:
//  - f16 / bf16 encoders bit-identical to numeric/half.h (round to nearest even, same NaN),
//  - "chunk" readers: one thread reads a fixed run of values of a row with few, wide,
//    aligned loads and dequantizes them in groups of 4 (float4), for the GEMV, the
//    embedding and dequantize_to_f16 (the other block types: quant_chunks.cuh; all types,
//    the dispatch and the scalar fallback: weight_chunks.cuh).
//
// Chunks per type (c = chunk index inside a row, b = quant block):
//   F32   4 values  = one 16-byte load                 group 0 -> values 4c..4c+3
//   F16   8 values  = one 16-byte load                 group g -> values 8c+4g..
//   BF16  8 values  = one 16-byte load                 group g -> values 8c+4g..
//   Q8_0  8 values  = a quarter block (b = c/4): 8 qs bytes + the f16 scale
//                     group g -> values 8c+4g..
//   Q4_0 16 values  = half a block (b = c/2, h = c%2): qs bytes 8h..8h+7 + the scale;
//                     group 0/1: low nibbles  -> values 32b+8h+{0..3}, 32b+8h+{4..7}
//                     group 2/3: high nibbles -> values 32b+16+8h+{0..3}, ..+{4..7}
//   Q4_1 ... IQ4_XS: 32 values (quant_chunks.cuh), group g -> values 32c+4g..
// F32/F16/BF16 chunks need a 16-byte aligned row. Quantized rows are 34/18-byte blocks,
// so their qs bytes are only 2-byte aligned: read_8_bytes() / read_words() read them with aligned
// 4-byte loads (plus one 2-byte load when misaligned) and a funnel shift, touching only
// bytes of the block itself.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "gguf/tensor_type.h"

namespace kvchat::cuda::dev {

// ---- f16 / bf16 ----------------------------------------------------------------------
__device__ __forceinline__ float f16_bits_to_f32(uint32_t h) {
  return __half2float(__ushort_as_half(static_cast<unsigned short>(h)));
}
__device__ __forceinline__ float bf16_bits_to_f32(uint32_t b) { return __uint_as_float(b << 16); }

// As numeric/half.h f32_to_f16: round to nearest even (cvt.rn, subnormals kept, >= 65520
// -> inf), and NaN -> sign | 0x7e00 (the hardware would give 0x7fff).
__device__ __forceinline__ uint16_t f32_to_f16_bits(float f) {
  const uint32_t x = __float_as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>(((x >> 16) & 0x8000u) | 0x7e00u);
  return __half_as_ushort(__float2half_rn(f));
}
// As numeric/half.h f32_to_bf16, the same integer rounding.
__device__ __forceinline__ uint16_t f32_to_bf16_bits(float f) {
  uint32_t x = __float_as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

// ---- raw loads -----------------------------------------------------------------------
// Weights stream through once: evict-first (ld.global.cs) for the 16-byte loads.
__device__ __forceinline__ uint4 load_stream16(const uint8_t* p) {
  return __ldcs(reinterpret_cast<const uint4*>(p));
}

// The 8 bytes at p (p 2-byte aligned) as two little-endian words. Reads [p-2, p+8) when p
// is 2 mod 4 (p-2 must be readable: it is the quant block's scale or qs), else [p, p+8).
__device__ __forceinline__ void read_8_bytes(const uint8_t* p, uint32_t& lo, uint32_t& hi) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const uint32_t* w = reinterpret_cast<const uint32_t*>(a & ~static_cast<uintptr_t>(3));
  const unsigned shift = static_cast<unsigned>(a & 2u) * 8u;  // 0 or 16 bits
  const uint32_t w0 = __ldg(w), w1 = __ldg(w + 1);
  const uint32_t w2 =
      shift ? static_cast<uint32_t>(__ldg(reinterpret_cast<const unsigned short*>(w + 2))) : 0u;
  lo = __funnelshift_r(w0, w1, shift);
  hi = __funnelshift_r(w1, w2, shift);
}

// N little-endian words from p (p 2-byte aligned): as read_8_bytes, N + 1 aligned loads
// (the last one 2 bytes) when p is 2 mod 4, reading [p-2, p+4N); N when p is 4-aligned.
// The word at p-2 is the aligned word that holds p itself, so it is always readable.
template <int N>
__device__ __forceinline__ void read_words(const uint8_t* p, uint32_t (&out)[N]) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  const uint32_t* w = reinterpret_cast<const uint32_t*>(a & ~static_cast<uintptr_t>(3));
  const unsigned shift = static_cast<unsigned>(a & 2u) * 8u;  // 0 or 16 bits
  uint32_t words[N + 1];
#pragma unroll
  for (int k = 0; k < N; ++k) words[k] = __ldg(w + k);
  words[N] =
      shift ? static_cast<uint32_t>(__ldg(reinterpret_cast<const unsigned short*>(w + N))) : 0u;
#pragma unroll
  for (int k = 0; k < N; ++k) out[k] = __funnelshift_r(words[k], words[k + 1], shift);
}

__device__ __forceinline__ float load_f16_scale(const uint8_t* p) {
  return f16_bits_to_f32(__ldg(reinterpret_cast<const unsigned short*>(p)));
}

// Byte k (0..3) of w as a signed int8, converted exactly: 0x4B0000uu is 2^23 + uu.
__device__ __forceinline__ float s8_to_f32(uint32_t w, int k) {
  const uint32_t u = __byte_perm(w ^ 0x80808080u, 0x4B00u, 0x5440u + static_cast<unsigned>(k));
  return __uint_as_float(u) - 8388736.0f;  // 2^23 + 128
}
// Byte k of w, a value 0..15, minus 8, exactly.
__device__ __forceinline__ float nibble_minus_8(uint32_t w, int k) {
  const uint32_t u = __byte_perm(w, 0x4B00u, 0x5440u + static_cast<unsigned>(k));
  return __uint_as_float(u) - 8388616.0f;  // 2^23 + 8
}

// ---- chunk readers -------------------------------------------------------------------
// Each: kValues per chunk, kGroups groups of 4; Raw load(row, c); float4 group(raw, g);
// int x_offset(c, g) = index in the row of the group's first value.
struct ChunkF32 {
  static constexpr int kValues = 4, kGroups = 1;
  using Raw = uint4;
  __device__ static Raw load(const uint8_t* row, int c) { return load_stream16(row + 16 * c); }
  __device__ static float4 group(const Raw& r, int) {
    return make_float4(__uint_as_float(r.x), __uint_as_float(r.y), __uint_as_float(r.z),
                       __uint_as_float(r.w));
  }
  __device__ static int x_offset(int c, int) { return 4 * c; }
};

struct ChunkF16 {
  static constexpr int kValues = 8, kGroups = 2;
  using Raw = uint4;
  __device__ static Raw load(const uint8_t* row, int c) { return load_stream16(row + 16 * c); }
  __device__ static float4 group(const Raw& r, int g) {
    const uint32_t a = g == 0 ? r.x : r.z, b = g == 0 ? r.y : r.w;
    return make_float4(f16_bits_to_f32(a & 0xffffu), f16_bits_to_f32(a >> 16),
                       f16_bits_to_f32(b & 0xffffu), f16_bits_to_f32(b >> 16));
  }
  __device__ static int x_offset(int c, int g) { return 8 * c + 4 * g; }
};

struct ChunkBF16 {
  static constexpr int kValues = 8, kGroups = 2;
  using Raw = uint4;
  __device__ static Raw load(const uint8_t* row, int c) { return load_stream16(row + 16 * c); }
  __device__ static float4 group(const Raw& r, int g) {
    const uint32_t a = g == 0 ? r.x : r.z, b = g == 0 ? r.y : r.w;
    return make_float4(__uint_as_float(a << 16), __uint_as_float(a & 0xffff0000u),
                       __uint_as_float(b << 16), __uint_as_float(b & 0xffff0000u));
  }
  __device__ static int x_offset(int c, int g) { return 8 * c + 4 * g; }
};

struct QuantRaw {
  uint32_t lo, hi;  // 8 qs bytes
  float d;          // the block's scale
};

struct ChunkQ8_0 {  // block: f16 d, int8 qs[32] (34 bytes)
  static constexpr int kValues = 8, kGroups = 2;
  using Raw = QuantRaw;
  __device__ static Raw load(const uint8_t* row, int c) {
    const uint8_t* block = row + 34 * (c >> 2);
    Raw r;
    read_8_bytes(block + 2 + 8 * (c & 3), r.lo, r.hi);
    r.d = load_f16_scale(block);
    return r;
  }
  __device__ static float4 group(const Raw& r, int g) {
    const uint32_t w = g == 0 ? r.lo : r.hi;
    return make_float4(r.d * s8_to_f32(w, 0), r.d * s8_to_f32(w, 1), r.d * s8_to_f32(w, 2),
                       r.d * s8_to_f32(w, 3));
  }
  __device__ static int x_offset(int c, int g) { return 8 * c + 4 * g; }
};

struct ChunkQ4_0 {  // block: f16 d, qs[16]: low nibble = value j, high = value j+16 (18 bytes)
  static constexpr int kValues = 16, kGroups = 4;
  using Raw = QuantRaw;
  __device__ static Raw load(const uint8_t* row, int c) {
    const uint8_t* block = row + 18 * (c >> 1);
    Raw r;
    read_8_bytes(block + 2 + 8 * (c & 1), r.lo, r.hi);
    r.d = load_f16_scale(block);
    return r;
  }
  __device__ static float4 group(const Raw& r, int g) {
    uint32_t w = (g & 1) ? r.hi : r.lo;
    w = (g & 2) ? (w >> 4) & 0x0f0f0f0fu : w & 0x0f0f0f0fu;
    return make_float4(r.d * nibble_minus_8(w, 0), r.d * nibble_minus_8(w, 1),
                       r.d * nibble_minus_8(w, 2), r.d * nibble_minus_8(w, 3));
  }
  __device__ static int x_offset(int c, int g) {
    return 32 * (c >> 1) + 8 * (c & 1) + 4 * (g & 1) + 8 * (g & 2);
  }
};

}  // namespace kvchat::cuda::dev
