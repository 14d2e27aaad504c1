// SwiGLU: out (n, n_ff) = silu(gate) * up, silu(g) = g / (1 + e^-g), from gate_up (n, 2*n_ff)
// whose rows are [gate | up]. A grid-stride loop, one thread per output value; expf and
// an IEEE division, evaluated in the CPU's order (within expf's 2 ulp of cpu::swiglu).
#include <cstdint>

#include "backend/cuda/cuda_ops.h"

namespace kvchat::cuda {

namespace {

constexpr int kThreads = 256;

// gate_up: (n, 2*n_ff);  out: (n, n_ff)
__global__ void __launch_bounds__(kThreads)
    swiglu_kernel(const float* __restrict__ gate_up, float* __restrict__ out, int64_t total,
                  int n_ff) {
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * kThreads) {
    const int64_t t = idx / n_ff, i = idx % n_ff;
    const float g = gate_up[t * 2 * n_ff + i], u = gate_up[t * 2 * n_ff + n_ff + i];
    out[idx] = __fmul_rn(__fdiv_rn(g, __fadd_rn(1.0f, expf(-g))), u);
  }
}

}  // namespace

cudaError_t swiglu(const float* gate_up, float* out, int n, int n_ff, cudaStream_t stream) {
  if (n == 0 || n_ff == 0) return cudaSuccess;
  if (n < 0 || n_ff < 0) return cudaErrorInvalidValue;
  const int64_t total = static_cast<int64_t>(n) * n_ff;
  const int64_t blocks = (total + kThreads - 1) / kThreads;
  const unsigned grid = static_cast<unsigned>(blocks < 65536 ? blocks : 65536);
  swiglu_kernel<<<grid, kThreads, 0, stream>>>(gate_up, out, total, n_ff);
  return cudaGetLastError();
}

}  // namespace kvchat::cuda
