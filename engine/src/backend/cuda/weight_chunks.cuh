// Every weight type the kernels read, in one place: which types, the chunk reader of
// each (dequant.cuh, quant_chunks.cuh), when a matrix can take the chunk path, a dispatcher
// from the runtime type to its reader, and the scalar dequantizer of any single value
// (the fallback paths: misaligned x / outputs).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/dequant.cuh"
#include "backend/cuda/quant_chunks.cuh"
#include "backend/cuda_weight_types.h"
#include "gguf/tensor_type.h"

namespace kvchat::cuda::dev {

// Values per block of a weight type the kernels read (1 for F32/F16/BF16); 0 otherwise.
inline __host__ __device__ int block_values(gguf::TensorType type) {
  return cuda_weight_block_values(type);
}

inline bool is_weight_type(gguf::TensorType type) { return block_values(type) > 0; }
inline bool is_block_type(gguf::TensorType type) { return block_values(type) > 1; }

// Calls f(Chunk{}) with the chunk reader of `type` (a weight type) and returns its result.
template <class F>
cudaError_t with_chunk(gguf::TensorType type, F&& f) {
  switch (type) {
    case gguf::TensorType::F32: return f(ChunkF32{});
    case gguf::TensorType::F16: return f(ChunkF16{});
    case gguf::TensorType::BF16: return f(ChunkBF16{});
    case gguf::TensorType::Q8_0: return f(ChunkQ8_0{});
    case gguf::TensorType::Q4_0: return f(ChunkQ4_0{});
    case gguf::TensorType::Q4_1: return f(ChunkQ4_1{});
    case gguf::TensorType::Q5_0: return f(ChunkQ5_0{});
    case gguf::TensorType::Q5_1: return f(ChunkQ5_1{});
    case gguf::TensorType::IQ4_NL: return f(ChunkIq4Nl{});
    case gguf::TensorType::Q2_K: return f(ChunkQ2_K{});
    case gguf::TensorType::Q3_K: return f(ChunkQ3_K{});
    case gguf::TensorType::Q4_K: return f(ChunkQ4_K{});
    case gguf::TensorType::Q5_K: return f(ChunkQ5_K{});
    case gguf::TensorType::Q6_K: return f(ChunkQ6_K{});
    case gguf::TensorType::IQ4_XS: return f(ChunkIq4Xs{});
  }
  return cudaErrorInvalidValue;
}

// The chunk path's alignment needs: a 16-byte aligned row for F32/F16/BF16 (rows start at
// data + r*row_bytes), a 2-byte aligned one for the block types; cols in whole chunks.
inline bool chunk_path_ok(gguf::TensorType type, const void* data, uint64_t row_bytes,
                          int64_t cols) {
  const auto a = reinterpret_cast<uintptr_t>(data);
  switch (type) {
    case gguf::TensorType::F32: return a % 16 == 0 && row_bytes % 16 == 0 && cols % 4 == 0;
    case gguf::TensorType::F16:
    case gguf::TensorType::BF16: return a % 16 == 0 && row_bytes % 16 == 0 && cols % 8 == 0;
    default:
      return is_block_type(type) && a % 2 == 0 && row_bytes % 2 == 0 &&
             cols % block_values(type) == 0;
  }
}

// Component k (0..3) of v.
__device__ __forceinline__ float pick(const float4& v, int k) {
  return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}
// Value i of a 32-value-chunk row through its chunk reader (row 2-byte aligned).
template <class T>
__device__ float chunk_value(const uint8_t* row, int64_t i) {
  const int j = static_cast<int>(i % 32);
  return pick(T::group(T::load(row, static_cast<int>(i / 32)), j / 4), j % 4);
}

// Value i of a row of `type` (natural alignment: 4 bytes for F32, 2 for the others).
__device__ __forceinline__ float dequant_value(gguf::TensorType type, const uint8_t* row,
                                               int64_t i) {
  switch (type) {
    case gguf::TensorType::F32: return __ldg(reinterpret_cast<const float*>(row) + i);
    case gguf::TensorType::F16:
      return f16_bits_to_f32(__ldg(reinterpret_cast<const unsigned short*>(row) + i));
    case gguf::TensorType::BF16:
      return bf16_bits_to_f32(__ldg(reinterpret_cast<const unsigned short*>(row) + i));
    case gguf::TensorType::Q8_0: {
      const uint8_t* block = row + 34 * (i / 32);
      return load_f16_scale(block) *
             static_cast<float>(static_cast<int8_t>(__ldg(block + 2 + i % 32)));
    }
    case gguf::TensorType::Q4_0: {
      const uint8_t* block = row + 18 * (i / 32);
      const int j = static_cast<int>(i % 32);
      const uint32_t q = __ldg(block + 2 + (j & 15));
      return load_f16_scale(block) *
             static_cast<float>(static_cast<int>(j < 16 ? q & 15u : q >> 4) - 8);
    }
    case gguf::TensorType::Q4_1: return chunk_value<ChunkQ4_1>(row, i);
    case gguf::TensorType::Q5_0: return chunk_value<ChunkQ5_0>(row, i);
    case gguf::TensorType::Q5_1: return chunk_value<ChunkQ5_1>(row, i);
    case gguf::TensorType::IQ4_NL: return chunk_value<ChunkIq4Nl>(row, i);
    case gguf::TensorType::Q2_K: return chunk_value<ChunkQ2_K>(row, i);
    case gguf::TensorType::Q3_K: return chunk_value<ChunkQ3_K>(row, i);
    case gguf::TensorType::Q4_K: return chunk_value<ChunkQ4_K>(row, i);
    case gguf::TensorType::Q5_K: return chunk_value<ChunkQ5_K>(row, i);
    case gguf::TensorType::Q6_K: return chunk_value<ChunkQ6_K>(row, i);
    case gguf::TensorType::IQ4_XS: return chunk_value<ChunkIq4Xs>(row, i);
  }
  return 0.0f;
}

}  // namespace kvchat::cuda::dev
