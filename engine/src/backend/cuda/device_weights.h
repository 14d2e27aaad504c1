// The model's weights in device memory: uploaded once, into one cudaMalloc, each tensor
// 256-byte aligned and in its GGUF type. Matrices that multiply the same input are laid
// out back to back when their types agree, so one GEMV reads them as one matrix:
// wq|wk|wv (q_dim + 2*kv_dim rows) and w_gate|w_up (2*n_ff rows).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/device_memory.h"
#include "kvchat/result.h"

namespace kvchat {
struct ModelWeights;
}  // namespace kvchat

namespace kvchat::cuda {

struct DeviceLayer {
  const float* attn_norm = nullptr;  // (dim)
  DeviceMatrix wq, wk, wv;           // (q_dim, dim), (kv_dim, dim), (kv_dim, dim)
  DeviceMatrix wqkv;                 // (q_dim + 2*kv_dim, dim) when qkv_fused
  bool qkv_fused = false;
  DeviceMatrix wo;                  // (dim, q_dim)
  const float* ffn_norm = nullptr;  // (dim)
  DeviceMatrix w_gate, w_up;        // (n_ff, dim) each
  DeviceMatrix w_gate_up;           // (2*n_ff, dim) when gate_up_fused
  bool gate_up_fused = false;
  DeviceMatrix w_down;  // (dim, n_ff)
};

struct DeviceWeights {
  DeviceBuffer memory;                 // every tensor below points into it
  DeviceMatrix token_embd;             // (n_vocab, dim)
  std::vector<DeviceLayer> layers;     // (n_layers)
  const float* output_norm = nullptr;  // (dim)
  DeviceMatrix output;                 // (n_vocab, dim); == token_embd when tied
  int64_t largest_matrix_values =
      0;  // rows*cols of the biggest block-quantized matrix (GEMM tiles)

  // Copies every tensor of `w` to the device (synchronously).
  static Result<DeviceWeights> upload(const ModelWeights& w);
};

// The weights of `w` on the device, uploaded once however many sessions use the model
// (a chat and a summary job share one copy); freed when the last user lets go.
Result<std::shared_ptr<const DeviceWeights>> shared_device_weights(const ModelWeights& w);

}  // namespace kvchat::cuda
