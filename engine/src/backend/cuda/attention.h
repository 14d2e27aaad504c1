// Causal attention over the paged KV cache in device memory (see DeviceKv in cuda_ops.h).
//
// q:   (n, n_heads, head_dim) f32, already rotated.
// out: (n, n_heads, head_dim) f32.
// Token b attends to the cached K/V of positions [window_first, positions[b]] of `layer`
// (its own K/V already written; window_first = 0 without a window, value_math.cuh); no
// other position's block is read, so blocks a window left behind may be freed (null in the
// table). Query head h reads KV head h / (n_heads / n_kv_heads) (GQA). scores = [softcap](
// q.k * scale); softmax in f32; quantized K/V are dequantized inside the kernel.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/cuda_ops.h"

namespace kvchat::cuda {

struct AttentionShape {
  int n = 0;          // query tokens
  int n_heads = 0;    // query heads
  int max_kv = 0;     // an upper bound of positions[b] + 1 over the batch (sizes the grid,
                      // so a captured decode graph stays valid while max_kv does not change)
  float scale = 0;    // the query scale (1 / sqrt(head_dim) unless the model says otherwise)
  int window = 0;     // > 0: a query at pos attends to [pos - window + 1, pos] only
  float softcap = 0;  // > 0: scores = softcap * tanh(scores / softcap) before the softmax
};

// ---- attention_decode.cu -------------------------------------------------------------
// Split-K flash decoding: the KV range is split into partitions of whole blocks, each
// (token, head, partition) computes a partial softmax (max, sum, weighted V) and a second
// kernel merges the partitions. Any n (used for decode, n small); positions arbitrary.
// partials: device scratch of attention_decode_scratch_bytes(...) bytes.
size_t attention_decode_scratch_bytes(const DeviceKv& kv, const AttentionShape& shape);
cudaError_t attention_decode(const DeviceKv& kv, int layer, const float* q, float* out,
                             const AttentionShape& shape, const int32_t* positions, void* partials,
                             cudaStream_t stream);

// ---- attention_prefill.cu ------------------------------------------------------------
// Tiled causal attention for a batch of consecutive positions pos0 .. pos0 + n - 1 (pos0
// = positions[0]): a thread block takes a tile of queries of one head, streams K/V tiles
// through shared memory with an online softmax, and skips tiles past the causal limit.
cudaError_t attention_prefill(const DeviceKv& kv, int layer, const float* q, float* out,
                              const AttentionShape& shape, const int32_t* positions,
                              cudaStream_t stream);

}  // namespace kvchat::cuda
