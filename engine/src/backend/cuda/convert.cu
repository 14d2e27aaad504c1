// Element-wise conversions for the cuBLAS (prefill) path, all grid-stride loops:
//  - f32_to_f16 / f32_to_bf16: one thread per value, rounding bit-identical to numeric/half.h;
//  - dequantize_to_f16: one thread per chunk of a weight row of any weight type
//    (weight_chunks.cuh: wide aligned loads; F16 is a 16-byte copy), 4 values at a time
//    rounded to f16 and stored as 8 bytes, or one thread per value when the matrix or dst
//    is not aligned for that;
//  - add_inplace: y += x, one thread per value.
#include <cstdint>
#include <type_traits>

#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/weight_chunks.cuh"
#include "backend/cuda/launch.cuh"

namespace kvchat::cuda {

namespace {

using gguf::TensorType;

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 132 * 16;  // grid-stride beyond: enough to fill any current GPU

unsigned grid_for(int64_t work) {
  const int64_t blocks = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

#define GRID_STRIDE_LOOP(i, n)                                                         \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * kThreads)

// src: (n) f32;  dst: (n) f16
__global__ void __launch_bounds__(kThreads)
    f16_kernel(const float* __restrict__ src, __half* __restrict__ dst, int64_t n) {
  GRID_STRIDE_LOOP(i, n) dst[i] = __ushort_as_half(dev::f32_to_f16_bits(src[i]));
}

// src: (n) f32;  dst: (n) bf16
__global__ void __launch_bounds__(kThreads)
    bf16_kernel(const float* __restrict__ src, __nv_bfloat16* __restrict__ dst, int64_t n) {
  GRID_STRIDE_LOOP(i, n) dst[i] = __ushort_as_bfloat16(dev::f32_to_bf16_bits(src[i]));
}

// y: (n);  x: (n)
__global__ void __launch_bounds__(kThreads)
    add_kernel(float* __restrict__ y, const float* __restrict__ x, int64_t n) {
  GRID_STRIDE_LOOP(i, n) y[i] += x[i];
}

// w: (rows, row_bytes) bytes;  dst: (rows, cols) f16.  F16 chunks are copied as they are.
template <class T>
__global__ void __launch_bounds__(kThreads)
    dequant_chunk_kernel(const uint8_t* __restrict__ w, uint64_t row_bytes, int64_t rows, int cols,
                         __half* __restrict__ dst) {
  const int per_row = cols / T::kValues;
  GRID_STRIDE_LOOP(idx, rows * per_row) {
    const int64_t r = idx / per_row;
    const int c = static_cast<int>(idx % per_row);
    const typename T::Raw raw = T::load(w + static_cast<uint64_t>(r) * row_bytes, c);
    __half* out = dst + r * cols;
    if constexpr (std::is_same_v<T, dev::ChunkF16>) {
      *reinterpret_cast<uint4*>(out + 8 * c) = raw;
    } else {
#pragma unroll
      for (int g = 0; g < T::kGroups; ++g) {
        const float4 v = T::group(raw, g);
        const uint2 h =
            make_uint2(dev::f32_to_f16_bits(v.x) | (uint32_t{dev::f32_to_f16_bits(v.y)} << 16),
                       dev::f32_to_f16_bits(v.z) | (uint32_t{dev::f32_to_f16_bits(v.w)} << 16));
        *reinterpret_cast<uint2*>(out + T::x_offset(c, g)) = h;
      }
    }
  }
}

// Same shapes, one value per thread.
__global__ void __launch_bounds__(kThreads)
    dequant_scalar_kernel(TensorType type, const uint8_t* __restrict__ w, uint64_t row_bytes,
                          int64_t rows, int cols, __half* __restrict__ dst) {
  GRID_STRIDE_LOOP(idx, rows * cols) {
    const int64_t r = idx / cols, i = idx % cols;
    dst[idx] = __ushort_as_half(dev::f32_to_f16_bits(
        dev::dequant_value(type, w + static_cast<uint64_t>(r) * row_bytes, i)));
  }
}

#undef GRID_STRIDE_LOOP

template <class T>
cudaError_t launch_dequant(const DeviceMatrix& w, __half* dst, cudaStream_t stream) {
  const int64_t work = w.rows * (w.cols / T::kValues);
  return launch<dequant_chunk_kernel<T>>(grid_for(work), kThreads, 0, stream,
                                         static_cast<const uint8_t*>(w.data), w.row_bytes, w.rows,
                                         static_cast<int>(w.cols), dst);
}

}  // namespace

cudaError_t f32_to_f16(const float* src, __half* dst, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (n < 0) return cudaErrorInvalidValue;
  return launch<f16_kernel>(grid_for(n), kThreads, 0, stream, src, dst, n);
}

cudaError_t f32_to_bf16(const float* src, __nv_bfloat16* dst, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (n < 0) return cudaErrorInvalidValue;
  return launch<bf16_kernel>(grid_for(n), kThreads, 0, stream, src, dst, n);
}

cudaError_t dequantize_to_f16(const DeviceMatrix& w, __half* dst, cudaStream_t stream) {
  if (w.rows == 0 || w.cols == 0) return cudaSuccess;
  if (w.rows < 0 || w.cols < 0 || w.cols > INT32_MAX || !dev::is_weight_type(w.type) ||
      w.cols % dev::block_values(w.type) != 0)
    return cudaErrorInvalidValue;
  // The chunked stores are 8 bytes (16 for F16) at value offsets that are multiples of 4 (8).
  const uintptr_t d = reinterpret_cast<uintptr_t>(dst);
  const bool dst_ok = w.type == TensorType::F16 ? d % 16 == 0 : d % 8 == 0;
  if (dst_ok && dev::chunk_path_ok(w.type, w.data, w.row_bytes, w.cols)) {
    return dev::with_chunk(
        w.type, [&](auto chunk) { return launch_dequant<decltype(chunk)>(w, dst, stream); });
  }
  return launch<dequant_scalar_kernel>(grid_for(w.rows * w.cols), kThreads, 0, stream, w.type,
                                       static_cast<const uint8_t*>(w.data), w.row_bytes, w.rows,
                                       static_cast<int>(w.cols), dst);
}

cudaError_t add_inplace(float* y, const float* x, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (n < 0) return cudaErrorInvalidValue;
  return launch<add_kernel>(grid_for(n), kThreads, 0, stream, y, x, n);
}

}  // namespace kvchat::cuda
