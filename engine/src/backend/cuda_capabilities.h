// What the CUDA backend's kernels implement, checked against a model's description
// before any device is touched: the reason a model cannot run there is the same whether
// or not this build has CUDA or the machine a GPU, and backend 'auto' reports it when it
// falls back to the CPU.
#pragma once

#include "gguf/tensor_type.h"
#include "kvchat/result.h"

namespace kvchat {

struct ModelHParams;
struct ModelWeights;

// Ok for every architecture the CPU runs (every RoPE style and scaling, biases, q/k norms,
// post norms, GELU, soft-caps, windows, any head_dim) within the attention kernels' head
// sizes (head_dim a multiple of 32, at most 256; query heads a multiple of the KV heads);
// else an error naming what the kernels lack.
Status cuda_can_run(const ModelHParams& hp);

// Whether the CUDA kernels (GEMV, dequantization, embedding: backend/cuda/weight_chunks.cuh)
// read weight matrices of this type: F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL,
// Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS.
bool cuda_reads_weight_type(gguf::TensorType type);
// Ok when every weight matrix of the model is of such a type; else an error naming each
// other tensor and its type.
Status cuda_can_read_weights(const ModelWeights& w);

}  // namespace kvchat
