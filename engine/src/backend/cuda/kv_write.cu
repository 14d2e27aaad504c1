// KV cache write: encodes k and v (n, kv_dim) f32 into the rows of `layer` at positions
// [0..n) of the paged cache (DeviceKv), bit-identical to the CPU's quantize_row.
//  - F32 / F16: one thread per value (f16: round to nearest even, as numeric/half.h).
//  - Q8_0 / Q4_0: one warp per 32-value block, lane j = value j. Q8_0: amax by a warp max,
//    d = f16(amax / 127), q = clamp(round-half-away(x * (1/d)), -127, 127). Q4_0: the value
//    of largest |x| (first on ties, never a zero) by a warp arg-max, d = f16(vmax / -8),
//    q = clamp(floor(x * (1/d) + 8.5), 0, 15), byte j = q[j] | q[j+16] << 4.
//    Every operation is rounded on its own (__fdiv_rn, __fmul_rn, __fadd_rn): no FMA
//    contraction, as the CPU build (x86-64 without -mfma) computes it.
// Grid-stride loops over (token, K/V, value or block), K first.
#include <cstdint>

#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/dequant.cuh"
#include "backend/cuda/launch.cuh"

namespace kvchat::cuda {

namespace {

using gguf::TensorType;

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 132 * 16;

unsigned grid_for(int64_t threads) {
  const int64_t blocks = (threads + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

__device__ __forceinline__ uint8_t* row_of(const DeviceKv& kv, int layer, int which, int pos) {
  return kv.blocks[pos / kv.block_tokens] + kv_row_offset(kv, layer, which, pos);
}

// k, v: (n, kv_dim) f32;  positions: (n);  the cache rows: kv_dim f32 or f16 values.
template <bool kF16>
__global__ void __launch_bounds__(kThreads)
    kv_write_plain_kernel(DeviceKv kv, int layer, const float* __restrict__ k,
                          const float* __restrict__ v, int n,
                          const int32_t* __restrict__ positions) {
  const int dim = kv.n_kv_heads * kv.head_dim;  // kv_dim() is host-only
  const int64_t total = static_cast<int64_t>(n) * 2 * dim;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * kThreads) {
    const int i = static_cast<int>(idx % dim);
    const int which = static_cast<int>((idx / dim) % 2);
    const int b = static_cast<int>(idx / (2 * static_cast<int64_t>(dim)));
    const float x = (which == 0 ? k : v)[static_cast<int64_t>(b) * dim + i];
    uint8_t* row = row_of(kv, layer, which, positions[b]);
    if constexpr (kF16) {
      reinterpret_cast<uint16_t*>(row)[i] = dev::f32_to_f16_bits(x);
    } else {
      reinterpret_cast<float*>(row)[i] = x;
    }
  }
}

// Q8_0: block = f16 d, int8 qs[32]. x: value `lane` of the block; out: the block.
__device__ __forceinline__ void quantize_q8_0(float x, int lane, uint8_t* out) {
  float amax = fabsf(x);  // fmaxf drops NaN, as the CPU's std::max(amax, |x|) does
#pragma unroll
  for (int off = 16; off > 0; off >>= 1)
    amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, off));
  amax = fmaxf(amax, 0.0f);
  const uint16_t d16 = dev::f32_to_f16_bits(__fdiv_rn(amax, 127.0f));
  const float d = dev::f16_bits_to_f32(d16);
  const float inv = d != 0.0f ? __fdiv_rn(1.0f, d) : 0.0f;
  const float q =
      fminf(fmaxf(roundf(__fmul_rn(x, inv)), -127.0f), 127.0f);  // roundf = lround's ties
  out[2 + lane] = static_cast<uint8_t>(static_cast<int8_t>(q));
  if (lane == 0) *reinterpret_cast<uint16_t*>(out) = d16;
}

// Q4_0: block = f16 d, qs[16]. x: value `lane` of the block; out: the block.
__device__ __forceinline__ void quantize_q4_0(float x, int lane, uint8_t* out) {
  // Arg-max of |x| over the block, lowest index on ties; zeros (and NaN) never win, as
  // the CPU's strict `|x| > amax` from amax = 0 (then vmax stays +0).
  float key = fabsf(x) > 0.0f ? fabsf(x) : -1.0f;
  int at = lane;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    const float k2 = __shfl_xor_sync(0xffffffffu, key, off);
    const int at2 = __shfl_xor_sync(0xffffffffu, at, off);
    if (k2 > key || (k2 == key && at2 < at)) {
      key = k2;
      at = at2;
    }
  }
  const float picked = __shfl_sync(0xffffffffu, x, at);
  const float vmax = key > 0.0f ? picked : 0.0f;
  const uint16_t d16 = dev::f32_to_f16_bits(__fdiv_rn(vmax, -8.0f));
  const float d = dev::f16_bits_to_f32(d16);
  const float inv = d != 0.0f ? __fdiv_rn(1.0f, d) : 0.0f;
  const float qf = fminf(fmaxf(floorf(__fadd_rn(__fmul_rn(x, inv), 8.5f)), 0.0f), 15.0f);
  const uint32_t q = static_cast<uint32_t>(qf);
  const uint32_t q_hi = __shfl_down_sync(0xffffffffu, q, 16);  // value lane + 16
  if (lane < 16) out[2 + lane] = static_cast<uint8_t>(q | (q_hi << 4));
  if (lane == 0) *reinterpret_cast<uint16_t*>(out) = d16;
}

// k, v: (n, kv_dim) f32;  positions: (n);  the cache rows: kv_dim / 32 blocks of 34 / 18 bytes.
template <bool kQ4>
__global__ void __launch_bounds__(kThreads)
    kv_write_quant_kernel(DeviceKv kv, int layer, const float* __restrict__ k,
                          const float* __restrict__ v, int n,
                          const int32_t* __restrict__ positions) {
  const int dim = kv.n_kv_heads * kv.head_dim, blocks = dim / 32, lane = threadIdx.x & 31;
  const int64_t total = static_cast<int64_t>(n) * 2 * blocks;  // warps of work
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (kThreads / 32);
  // Every lane of a warp runs the same iterations (the shuffles need all 32).
  for (int64_t idx = (static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x) / 32; idx < total;
       idx += warps) {
    const int blk = static_cast<int>(idx % blocks);
    const int which = static_cast<int>((idx / blocks) % 2);
    const int b = static_cast<int>(idx / (2 * static_cast<int64_t>(blocks)));
    const float x = (which == 0 ? k : v)[static_cast<int64_t>(b) * dim + 32 * blk + lane];
    uint8_t* row = row_of(kv, layer, which, positions[b]);
    if constexpr (kQ4) {
      quantize_q4_0(x, lane, row + 18 * blk);
    } else {
      quantize_q8_0(x, lane, row + 34 * blk);
    }
  }
}

}  // namespace

cudaError_t kv_write(const DeviceKv& kv, int layer, const float* k, const float* v, int n,
                     const int32_t* positions, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  const int64_t dim = kv.kv_dim();
  if (n < 0 || dim <= 0 || kv.block_tokens <= 0 || layer < 0 || layer >= kv.n_layers)
    return cudaErrorInvalidValue;
  switch (kv.type) {
    case TensorType::F32:
      return launch<kv_write_plain_kernel<false>>(grid_for(n * 2 * dim), kThreads, 0, stream, kv,
                                                  layer, k, v, n, positions);
    case TensorType::F16:
      return launch<kv_write_plain_kernel<true>>(grid_for(n * 2 * dim), kThreads, 0, stream, kv,
                                                 layer, k, v, n, positions);
    case TensorType::Q8_0:
      if (dim % 32 != 0) return cudaErrorInvalidValue;
      return launch<kv_write_quant_kernel<false>>(grid_for(n * 2 * dim), kThreads, 0, stream, kv,
                                                  layer, k, v, n, positions);
    case TensorType::Q4_0:
      if (dim % 32 != 0) return cudaErrorInvalidValue;
      return launch<kv_write_quant_kernel<true>>(grid_for(n * 2 * dim), kThreads, 0, stream, kv,
                                                 layer, k, v, n, positions);
    default: break;  // BF16 and the weight-only types: no KV storage
  }
  return cudaErrorInvalidValue;
}

}  // namespace kvchat::cuda
