// RoPE (adjacent pairs, as cpu::rope), in place on q (n, n_q_heads, head_dim) and k (n,
// n_kv_heads, head_dim). One thread per (token, head, pair), q's heads first then k's:
// (v0, v1) = (x[2i], x[2i+1]) -> (v0*c - v1*s, v0*s + v1*c), (c, s) = rope_cs[pos][i],
// 2i < n_rot; dims past n_rot are not touched. Products and sums are rounded separately
// (__fmul_rn / __fadd_rn: no FMA contraction) so the result equals the CPU's bit for bit.
#include <cstdint>

#include "backend/cuda/cuda_ops.h"

namespace kvchat::cuda {

namespace {

constexpr int kThreads = 256;

// q: (n, n_q_heads, head_dim);  k: (n, n_kv_heads, head_dim) (null: n_kv_heads = 0 here);
// positions: (n);  rope_cs: (max_pos, n_rot / 2)
__global__ void __launch_bounds__(kThreads)
    rope_kernel(float* __restrict__ q, int n_q_heads, float* __restrict__ k, int n_kv_heads, int n,
                int head_dim, int n_rot, const int32_t* __restrict__ positions,
                const float2* __restrict__ rope_cs) {
  const int half = n_rot / 2;
  const int heads = n_q_heads + n_kv_heads;
  const int64_t total = static_cast<int64_t>(n) * heads * half;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * kThreads) {
    const int i = static_cast<int>(idx % half);
    const int h = static_cast<int>((idx / half) % heads);
    const int b = static_cast<int>(idx / (static_cast<int64_t>(half) * heads));
    float* v = h < n_q_heads
                   ? q + (static_cast<int64_t>(b) * n_q_heads + h) * head_dim
                   : k + (static_cast<int64_t>(b) * n_kv_heads + (h - n_q_heads)) * head_dim;
    v += 2 * i;
    const float2 cs = rope_cs[static_cast<int64_t>(positions[b]) * half + i];
    const float v0 = v[0], v1 = v[1];
    v[0] = __fsub_rn(__fmul_rn(v0, cs.x), __fmul_rn(v1, cs.y));
    v[1] = __fadd_rn(__fmul_rn(v0, cs.y), __fmul_rn(v1, cs.x));
  }
}

}  // namespace

cudaError_t rope(float* q, int n_q_heads, float* k, int n_kv_heads, int n, int head_dim, int n_rot,
                 const int32_t* positions, const float2* rope_cs, cudaStream_t stream) {
  if (!q) n_q_heads = 0;
  if (!k) n_kv_heads = 0;
  if (n == 0 || n_q_heads + n_kv_heads == 0 || n_rot < 2) return cudaSuccess;
  if (n < 0 || n_q_heads < 0 || n_kv_heads < 0 || n_rot % 2 != 0 || n_rot > head_dim) {
    return cudaErrorInvalidValue;
  }
  const int64_t total = static_cast<int64_t>(n) * (n_q_heads + n_kv_heads) * (n_rot / 2);
  const int64_t blocks = (total + kThreads - 1) / kThreads;
  const unsigned grid = static_cast<unsigned>(blocks < 65536 ? blocks : 65536);
  rope_kernel<<<grid, kThreads, 0, stream>>>(q, n_q_heads, k, n_kv_heads, n, head_dim, n_rot,
                                             positions, rope_cs);
  return cudaGetLastError();
}

}  // namespace kvchat::cuda
