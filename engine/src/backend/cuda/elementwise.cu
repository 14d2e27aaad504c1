// Element-wise ops of the architectures beyond plain llama, each a grid-stride loop with
// one thread per value, their arithmetic in value_math.cuh:
//   add_bias      x (n, cols) += bias (cols)          q/k/v biases (qwen2)
//   scale_values  x (count) *= scale                  the embedding scale (gemma)
//   softcap_values x (count) = cap tanh(x / cap)      the final logits' soft-cap (gemma2)
#include <cstdint>

#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/value_math.cuh"
#include "backend/cuda/launch.cuh"

namespace kvchat::cuda {

namespace {

constexpr int kThreads = 256;

unsigned grid_for(int64_t total) {
  const int64_t blocks = (total + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65536 ? blocks : 65536);
}

#define KVCHAT_FOR_EACH_VALUE(total)                                                           \
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; idx < (total); \
       idx += static_cast<int64_t>(gridDim.x) * kThreads)

// x: (total / cols, cols);  bias: (cols)
__global__ void __launch_bounds__(kThreads)
    add_bias_kernel(float* __restrict__ x, const float* __restrict__ bias, int64_t total,
                    int cols) {
  KVCHAT_FOR_EACH_VALUE(total) x[idx] = math::add_bias(x[idx], bias[idx % cols]);
}

// x: (total)
__global__ void __launch_bounds__(kThreads)
    scale_kernel(float* __restrict__ x, int64_t total, float scale) {
  KVCHAT_FOR_EACH_VALUE(total) x[idx] = math::scaled(x[idx], scale);
}

// x: (total)
__global__ void __launch_bounds__(kThreads)
    softcap_kernel(float* __restrict__ x, int64_t total, float cap) {
  KVCHAT_FOR_EACH_VALUE(total) x[idx] = math::softcap(x[idx], cap);
}

#undef KVCHAT_FOR_EACH_VALUE

}  // namespace

cudaError_t add_bias(float* x, const float* bias, int n, int cols, cudaStream_t stream) {
  if (n == 0 || cols == 0) return cudaSuccess;
  if (n < 0 || cols < 0 || x == nullptr || bias == nullptr) return cudaErrorInvalidValue;
  const int64_t total = static_cast<int64_t>(n) * cols;
  return launch<add_bias_kernel>(grid_for(total), kThreads, 0, stream, x, bias, total, cols);
}

cudaError_t scale_values(float* x, int64_t count, float scale, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  if (count < 0 || x == nullptr) return cudaErrorInvalidValue;
  return launch<scale_kernel>(grid_for(count), kThreads, 0, stream, x, count, scale);
}

cudaError_t softcap_values(float* x, int64_t count, float cap, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  if (count < 0 || x == nullptr || !(cap > 0)) return cudaErrorInvalidValue;
  return launch<softcap_kernel>(grid_for(count), kThreads, 0, stream, x, count, cap);
}

}  // namespace kvchat::cuda
