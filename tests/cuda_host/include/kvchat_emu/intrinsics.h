// Host emulation of the CUDA intrinsics the backend uses (test equipment): the execution
// space keywords, the half / bf16 types, and the float, bit and load intrinsics, each
// following the PTX ISA description of the instruction it stands for. The sources that use
// them are compiled with -ffp-contract=off: a product or sum rounds on its own, as the
// device's explicit _rn intrinsics do.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "kvchat_emu/vector_types.h"
#include "numeric/half.h"

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __align__(n) alignas(n)
#define __launch_bounds__(...)
// __shared__ is deliberately not defined: kernels declare shared arrays through KV_SHARED /
// KV_DYNAMIC_SHARED (engine/src/backend/cuda/launch.cuh), which place them in the block's
// arena at exactly their size.

// ---- f16 / bf16 ---------------------------------------------------------------------------
struct __half {
  unsigned short bits;
};
struct alignas(4) __half2 {
  __half x, y;
};
struct __nv_bfloat16 {
  unsigned short bits;
};

inline __half __ushort_as_half(unsigned short v) { return {v}; }
inline unsigned short __half_as_ushort(__half h) { return h.bits; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short v) { return {v}; }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.bits; }
// cvt.f32.f16: exact.
inline float __half2float(__half h) { return kvchat::f16_to_f32(h.bits); }
// cvt.rn.f16.f32: round to nearest even (numeric/half.h rounds the same way; NaN payloads
// differ from the device's 0x7fff, which the kernels never rely on).
inline __half __float2half_rn(float f) { return {kvchat::f32_to_f16(f)}; }
inline __half __float2half(float f) { return __float2half_rn(f); }
inline float2 __half22float2(__half2 h) { return {__half2float(h.x), __half2float(h.y)}; }
inline float __bfloat162float(__nv_bfloat16 b) { return kvchat::bf16_to_f32(b.bits); }

// ---- bit reinterpretation -----------------------------------------------------------------
inline float __uint_as_float(uint32_t u) { return kvchat::f32_from_bits(u); }
inline uint32_t __float_as_uint(float f) { return kvchat::bits_from_f32(f); }
inline float __int_as_float(int32_t i) { return kvchat::f32_from_bits(static_cast<uint32_t>(i)); }
inline int32_t __float_as_int(float f) { return static_cast<int32_t>(kvchat::bits_from_f32(f)); }

// ---- loads --------------------------------------------------------------------------------
// ld.global.nc / ld.global.cs: plain loads of the same value on the emulated device.
template <class T>
inline T __ldg(const T* p) {
  return *p;
}
template <class T>
inline T __ldcs(const T* p) {
  return *p;
}

// ---- integer ------------------------------------------------------------------------------
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

// The device's min/max overloads for integers and floats (the kernels call them unqualified).
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }

// ---- float --------------------------------------------------------------------------------
// Rounded products, sums and quotients (IEEE round to nearest even, no contraction).
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
// The fast-math forms: the device's approximations are within 2 ulp of these (the exact
// rounding of ex2.approx / rcp.approx is what only a device shows).
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
