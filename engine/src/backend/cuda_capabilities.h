// What the CUDA backend's kernels implement, checked against a model's description
// before any device is touched: the reason a model cannot run there is the same whether
// or not this build has CUDA or the machine a GPU, and backend 'auto' reports it when it
// falls back to the CPU.
#pragma once

#include "kvchat/result.h"

namespace kvchat {

struct ModelHParams;
struct ModelWeights;

// Ok for the plain llama forward pass (adjacent-pair RoPE without scaling or frequency
// factors, SiLU-GLU, no biases, q/k norms, post norms, soft-caps or windows, head_dim =
// n_embd / n_heads); else an error naming everything the kernels lack.
Status cuda_can_run(const ModelHParams& hp);

// Ok when every weight matrix is of a type the CUDA kernels dequantize (F32, F16, BF16,
// Q8_0, Q4_0); else an error naming the other types and that the CPU backend runs them.
Status cuda_can_run_weights(const ModelWeights& w);

}  // namespace kvchat
