// Device helpers shared by the attention kernels: reading one KV head slice (head_dim
// values of one K or V row, see DeviceKv in cuda_ops.h) in any KV type, dequantized to
// f32 exactly as numeric/convert.cpp's dequantize_row does (f16 -> f32 is exact; q8_0 /
// q4_0 values are d * q computed in f32), so the GPU sees the CPU's values bit for bit;
// and the host-side dispatch from (type, head_dim) to a kernel instantiation.
//
// Slice layout (head kvh of a row starts at kvh * slice_bytes):
//   F32  : hd floats                         (4 * hd bytes)
//   F16  : hd halves                         (2 * hd bytes)
//   Q8_0 : hd/32 blocks {f16 d, int8 qs[32]}  (34 * hd/32 bytes)
//   Q4_0 : hd/32 blocks {f16 d, u8 qs[16]}    (18 * hd/32 bytes): value j < 16 = low nibble of
//          qs[j], value j + 16 = high nibble of qs[j], both minus 8
// The slices of consecutive positions of one block are row_bytes apart, and row_bytes is
// n_kv_heads * slice_bytes, so every slice is aligned to slice_align(type, hd) bytes when
// the block memory is (cudaMalloc: 256).
#pragma once

#include <cuda_fp16.h>
#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "backend/cuda/cuda_ops.h"

namespace kvchat::cuda::kvload {

using gguf::TensorType;

// Bytes of one head slice of hd values; 0 for a type the attention kernels do not read.
constexpr int slice_bytes(TensorType t, int hd) {
  switch (t) {
    case TensorType::F32: return 4 * hd;
    case TensorType::F16: return 2 * hd;
    case TensorType::Q8_0: return hd / 32 * 34;
    case TensorType::Q4_0: return hd / 32 * 18;
    default: return 0;
  }
}
// The widest power of two <= 16 dividing `bytes`: the copy unit that keeps every slice
// aligned (f32/f16 slices: 16; q8_0 hd 128: 8; q4_0 hd 64: 4; q8_0 hd 32: 2).
constexpr int slice_align(int bytes) {
  return bytes % 16 == 0 ? 16 : bytes % 8 == 0 ? 8 : bytes % 4 == 0 ? 4 : 2;
}

__device__ __forceinline__ float half_at(const uint8_t* p) {
  return __half2float(__ushort_as_half(*reinterpret_cast<const unsigned short*>(p)));
}

// Value i (0 <= i < hd) of a head slice at s (global or shared memory).
template <TensorType T>
__device__ __forceinline__ float value(const uint8_t* s, int i) {
  if constexpr (T == TensorType::F32) {
    return reinterpret_cast<const float*>(s)[i];
  } else if constexpr (T == TensorType::F16) {
    return half_at(s + 2 * i);
  } else if constexpr (T == TensorType::Q8_0) {
    const uint8_t* blk = s + (i >> 5) * 34;
    const int8_t q = reinterpret_cast<const int8_t*>(blk + 2)[i & 31];
    return half_at(blk) * static_cast<float>(q);
  } else {
    static_assert(T == TensorType::Q4_0, "unsupported KV type");
    const uint8_t* blk = s + (i >> 5) * 18;
    const int e = i & 31;
    const int q = e < 16 ? (blk[2 + e] & 0x0f) : (blk[2 + e - 16] >> 4);
    return half_at(blk) * static_cast<float>(q - 8);
  }
}

// Values i .. i+3 (i % 4 == 0) of a head slice in global memory: one 16-byte load for
// f32, one 8-byte load for f16, byte loads for the quantized types.
template <TensorType T>
__device__ __forceinline__ float4 load4(const uint8_t* s, int i) {
  if constexpr (T == TensorType::F32) {
    return *reinterpret_cast<const float4*>(s + 4 * i);
  } else if constexpr (T == TensorType::F16) {
    const uint2 w = *reinterpret_cast<const uint2*>(s + 2 * i);
    const float2 a = __half22float2(*reinterpret_cast<const __half2*>(&w.x));
    const float2 b = __half22float2(*reinterpret_cast<const __half2*>(&w.y));
    return make_float4(a.x, a.y, b.x, b.y);
  } else {
    return make_float4(value<T>(s, i), value<T>(s, i + 1), value<T>(s, i + 2), value<T>(s, i + 3));
  }
}

// Copies A bytes (A = slice_align(...)) from global to shared memory: asynchronously
// (cp.async, completed by __pipeline_commit / __pipeline_wait_prior) for 4, 8 and 16 bytes,
// as a plain load and store for 2 (visible after the next __syncthreads()).
template <int A>
__device__ __forceinline__ void copy_to_shared(uint8_t* dst, const uint8_t* src) {
  if constexpr (A >= 4) {
    __pipeline_memcpy_async(dst, src, A);
  } else {
    static_assert(A == 2, "copy unit");
    *reinterpret_cast<unsigned short*>(dst) = *reinterpret_cast<const unsigned short*>(src);
  }
}

// The K slice of (layer, pos, kvh); its V slice is kv.block_tokens * kv.row_bytes further.
__device__ __forceinline__ const uint8_t* k_slice(const DeviceKv& kv, int layer, int pos, int kvh,
                                                  int slice) {
  return kv.blocks[pos / kv.block_tokens] + kv_row_offset(kv, layer, 0, pos) +
         static_cast<uint64_t>(kvh) * slice;
}

}  // namespace kvchat::cuda::kvload

namespace kvchat::cuda::kvload {

// Host: calls f(std::integral_constant<TensorType, T>{}, std::integral_constant<int, HD>{})
// for the kernel instantiation matching (type, hd); false when there is none. Head dims:
// every multiple of 32 up to 256.
using HeadDims = std::integer_sequence<int, 32, 64, 96, 128, 160, 192, 224, 256>;

template <TensorType T, class F, int... HD>
bool dispatch_head_dim(int hd, F& f, std::integer_sequence<int, HD...>) {
  return (
      (hd == HD
           ? (f(std::integral_constant<TensorType, T>{}, std::integral_constant<int, HD>{}), true)
           : false) ||
      ...);
}

template <class F>
bool dispatch(TensorType t, int hd, F&& f) {
  switch (t) {
    case TensorType::F32: return dispatch_head_dim<TensorType::F32>(hd, f, HeadDims{});
    case TensorType::F16: return dispatch_head_dim<TensorType::F16>(hd, f, HeadDims{});
    case TensorType::Q8_0: return dispatch_head_dim<TensorType::Q8_0>(hd, f, HeadDims{});
    case TensorType::Q4_0: return dispatch_head_dim<TensorType::Q4_0>(hd, f, HeadDims{});
    default: return false;
  }
}

}  // namespace kvchat::cuda::kvload
