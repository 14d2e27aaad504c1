// The gated FFN activation: out (n, n_ff) = act(gate) * up from gate_up (n, 2*n_ff) whose
// rows are [gate | up]; act = silu (SwiGLU) or GELU-tanh (GeGLU, gemma): math::glu. A
// grid-stride loop, one thread per output value, in the CPU's order (within expf's and
// tanhf's few ulp of cpu::gated_activation).
#include <cstdint>

#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/value_math.cuh"
#include "backend/cuda/launch.cuh"

namespace kvchat::cuda {

namespace {

constexpr int kThreads = 256;

// gate_up: (n, 2*n_ff);  out: (n, n_ff)
__global__ void __launch_bounds__(kThreads)
    glu_kernel(const float* __restrict__ gate_up, float* __restrict__ out, int64_t total, int n_ff,
               bool gelu) {
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * kThreads) {
    out[idx] = math::glu_at(idx, gate_up, n_ff, gelu);
  }
}

}  // namespace

cudaError_t glu(bool gelu, const float* gate_up, float* out, int n, int n_ff, cudaStream_t stream) {
  if (n == 0 || n_ff == 0) return cudaSuccess;
  if (n < 0 || n_ff < 0) return cudaErrorInvalidValue;
  const int64_t total = static_cast<int64_t>(n) * n_ff;
  const int64_t blocks = (total + kThreads - 1) / kThreads;
  const unsigned grid = static_cast<unsigned>(blocks < 65536 ? blocks : 65536);
  return launch<glu_kernel>(grid, kThreads, 0, stream, gate_up, out, total, n_ff, gelu);
}

}  // namespace kvchat::cuda
