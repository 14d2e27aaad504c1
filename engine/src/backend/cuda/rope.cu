// RoPE (as cpu::rope_cached), in place on q (n, n_q_heads, head_dim) and k (n,
// n_kv_heads, head_dim). One thread per (token, head, pair), q's heads first then k's:
// pair i (adjacent or half split) -> (v0*c - v1*s, v0*s + v1*c), (c, s) = rope_cs[pos][i],
// math::rope_rotate; dims past n_rot are not touched. Equal to the CPU's bit for bit.
#include <cstdint>

#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/value_math.cuh"
#include "backend/cuda/launch.cuh"

namespace kvchat::cuda {

namespace {

constexpr int kThreads = 256;

// q: (n, n_q_heads, head_dim);  k: (n, n_kv_heads, head_dim) (null: n_kv_heads = 0 here);
// positions: (n);  rope_cs: (max_pos, n_rot / 2)
__global__ void __launch_bounds__(kThreads)
    rope_kernel(float* __restrict__ q, int n_q_heads, float* __restrict__ k, int n_kv_heads, int n,
                int head_dim, int n_rot, bool neox, const int32_t* __restrict__ positions,
                const float2* __restrict__ rope_cs) {
  const int64_t total = static_cast<int64_t>(n) * (n_q_heads + n_kv_heads) * (n_rot / 2);
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * kThreads) {
    math::rope_at(idx, q, n_q_heads, k, n_kv_heads, head_dim, n_rot, neox, positions, rope_cs);
  }
}

}  // namespace

cudaError_t rope(float* q, int n_q_heads, float* k, int n_kv_heads, int n, int head_dim, int n_rot,
                 bool neox, const int32_t* positions, const float2* rope_cs, cudaStream_t stream) {
  if (!q) n_q_heads = 0;
  if (!k) n_kv_heads = 0;
  if (n == 0 || n_q_heads + n_kv_heads == 0 || n_rot < 2) return cudaSuccess;
  if (n < 0 || n_q_heads < 0 || n_kv_heads < 0 || n_rot % 2 != 0 || n_rot > head_dim) {
    return cudaErrorInvalidValue;
  }
  const int64_t total = static_cast<int64_t>(n) * (n_q_heads + n_kv_heads) * (n_rot / 2);
  const int64_t blocks = (total + kThreads - 1) / kThreads;
  const unsigned grid = static_cast<unsigned>(blocks < 65536 ? blocks : 65536);
  return launch<rope_kernel>(grid, kThreads, 0, stream, q, n_q_heads, k, n_kv_heads, n, head_dim,
                             n_rot, neox, positions, rope_cs);
}

}  // namespace kvchat::cuda
