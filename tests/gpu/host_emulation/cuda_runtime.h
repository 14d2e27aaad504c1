// Host emulation of the few CUDA types and intrinsics that the weight chunk readers
// (engine/src/backend/cuda/dequant.cuh, quant_chunks.cuh, weight_chunks.cuh) and the
// per-value arithmetic (value_math.cuh) use, so test_chunk_decode_host and
// test_value_math_host can run them on the CPU of any build machine. Only for those tests:
// each intrinsic follows the PTX ISA description of the instruction it stands for.
#pragma once

#include <cstdint>
#include <cstring>

#include "numeric/half.h"

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline

struct float2 {
  float x, y;
};
struct float4 {
  float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
struct uint4 {
  unsigned x, y, z, w;
};
using cudaError_t = int;
constexpr cudaError_t cudaSuccess = 0, cudaErrorInvalidValue = 1;
using cudaStream_t = struct CUstream_st*;
struct __half {
  unsigned short bits;
};
struct __nv_bfloat16 {
  unsigned short bits;
};

inline __half __ushort_as_half(unsigned short v) { return {v}; }
inline unsigned short __half_as_ushort(__half h) { return h.bits; }
inline float __half2float(__half h) { return kvchat::f16_to_f32(h.bits); }
inline __half __float2half_rn(float f) { return {kvchat::f32_to_f16(f)}; }
inline float __uint_as_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint32_t __float_as_uint(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
template <class T>
T __ldg(const T* p) {
  return *p;
}
inline uint4 __ldcs(const uint4* p) { return *p; }
// shf.r.clamp: the low 32 bits of (hi:lo) >> min(shift, 32).
inline uint32_t __funnelshift_r(uint32_t lo, uint32_t hi, uint32_t shift) {
  const uint64_t wide = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<uint32_t>(wide >> (shift > 32 ? 32 : shift));
}
// prmt (default mode): byte n of the result is byte s[4n+2:4n] of {y, x} (x bytes 0..3,
// y bytes 4..7), or that byte's sign replicated when bit 4n+3 of s is set.
inline uint32_t __byte_perm(uint32_t x, uint32_t y, uint32_t s) {
  const uint64_t bytes = (static_cast<uint64_t>(y) << 32) | x;
  uint32_t r = 0;
  for (int n = 0; n < 4; ++n) {
    const uint32_t sel = (s >> (4 * n)) & 0xfu;
    uint32_t b = static_cast<uint32_t>(bytes >> (8 * (sel & 7u))) & 0xffu;
    if (sel & 8u) b = (b & 0x80u) ? 0xffu : 0u;
    r |= b << (8 * n);
  }
  return r;
}
// Rounded products, sums and quotients (these targets are compiled with -ffp-contract=off).
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
