// Embedding lookup: out (n, cols) f32 = rows tokens[0..n) of the table, dequantized.
// One 256-thread block per token; its threads stride over the row's chunks (weight_chunks.cuh:
// wide aligned loads, float4 stores) or, when the table or out are not aligned for that,
// over single values. A token outside [0, rows) yields a row of NaN (never a stray read).
#include <cstdint>

#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/weight_chunks.cuh"
#include "backend/cuda/launch.cuh"

namespace kvchat::cuda {

namespace {

using gguf::TensorType;

constexpr int kThreads = 256;

// table: (rows, row_bytes) bytes;  tokens: (n);  out: (n, cols) f32.
template <class T>
__global__ void __launch_bounds__(kThreads)
    embed_chunk_kernel(const uint8_t* __restrict__ table, uint64_t row_bytes, int64_t rows,
                       int cols, const int32_t* __restrict__ tokens, float* __restrict__ out) {
  const int32_t token = tokens[blockIdx.x];
  float* o = out + static_cast<int64_t>(blockIdx.x) * cols;
  if (token < 0 || token >= rows) {
    for (int i = threadIdx.x; i < cols; i += kThreads) o[i] = __int_as_float(0x7fffffff);
    return;
  }
  const uint8_t* row = table + static_cast<uint64_t>(token) * row_bytes;
  for (int c = threadIdx.x; c < cols / T::kValues; c += kThreads) {
    const typename T::Raw raw = T::load(row, c);
#pragma unroll
    for (int g = 0; g < T::kGroups; ++g) {
      *reinterpret_cast<float4*>(o + T::x_offset(c, g)) = T::group(raw, g);
    }
  }
}

// Same shapes; any alignment the types allow.
__global__ void __launch_bounds__(kThreads)
    embed_scalar_kernel(TensorType type, const uint8_t* __restrict__ table, uint64_t row_bytes,
                        int64_t rows, int cols, const int32_t* __restrict__ tokens,
                        float* __restrict__ out) {
  const int32_t token = tokens[blockIdx.x];
  float* o = out + static_cast<int64_t>(blockIdx.x) * cols;
  const bool valid = token >= 0 && token < rows;
  const uint8_t* row = table + static_cast<uint64_t>(valid ? token : 0) * row_bytes;
  for (int i = threadIdx.x; i < cols; i += kThreads) {
    o[i] = valid ? dev::dequant_value(type, row, i) : __int_as_float(0x7fffffff);
  }
}

template <class T>
cudaError_t launch_chunks(const DeviceMatrix& t, const int32_t* tokens, int n, float* out,
                          cudaStream_t stream) {
  return launch<embed_chunk_kernel<T>>(n, kThreads, 0, stream, static_cast<const uint8_t*>(t.data),
                                       t.row_bytes, t.rows, static_cast<int>(t.cols), tokens, out);
}

}  // namespace

cudaError_t embed_rows(const DeviceMatrix& table, const int32_t* tokens, int n, float* out,
                       cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (n < 0 || !dev::is_weight_type(table.type) || table.cols <= 0 || table.cols > INT32_MAX ||
      table.cols % dev::block_values(table.type) != 0) {
    return cudaErrorInvalidValue;
  }
  if (dev::chunk_path_ok(table.type, table.data, table.row_bytes, table.cols) &&
      reinterpret_cast<uintptr_t>(out) % 16 == 0) {
    return dev::with_chunk(table.type, [&](auto chunk) {
      return launch_chunks<decltype(chunk)>(table, tokens, n, out, stream);
    });
  }
  return launch<embed_scalar_kernel>(n, kThreads, 0, stream, table.type,
                                     static_cast<const uint8_t*>(table.data), table.row_bytes,
                                     table.rows, static_cast<int>(table.cols), tokens, out);
}

}  // namespace kvchat::cuda
