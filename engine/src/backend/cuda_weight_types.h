// The weight types the CUDA kernels read, written once for both sides: the host check that
// runs without nvcc (cuda_capabilities.cpp) and the kernels' dispatch (cuda/weight_chunks.cuh).
#pragma once

#include "gguf/tensor_type.h"

#if defined(__CUDACC__)
#define KVCHAT_CUDA_HOST_DEVICE __host__ __device__
#else
#define KVCHAT_CUDA_HOST_DEVICE
#endif

namespace kvchat {

// Values per block of a weight type the CUDA kernels read (1 for F32/F16/BF16); 0 for a
// type they do not read.
inline KVCHAT_CUDA_HOST_DEVICE int cuda_weight_block_values(gguf::TensorType type) {
  switch (type) {
    case gguf::TensorType::F32:
    case gguf::TensorType::F16:
    case gguf::TensorType::BF16: return 1;
    case gguf::TensorType::Q8_0:
    case gguf::TensorType::Q4_0:
    case gguf::TensorType::Q4_1:
    case gguf::TensorType::Q5_0:
    case gguf::TensorType::Q5_1:
    case gguf::TensorType::IQ4_NL: return 32;
    case gguf::TensorType::Q2_K:
    case gguf::TensorType::Q3_K:
    case gguf::TensorType::Q4_K:
    case gguf::TensorType::Q5_K:
    case gguf::TensorType::Q6_K:
    case gguf::TensorType::IQ4_XS: return 256;
  }
  return 0;
}

}  // namespace kvchat
