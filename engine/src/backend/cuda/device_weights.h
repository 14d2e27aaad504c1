// The model's weights in device memory: uploaded once, into one cudaMalloc, each tensor
// 256-byte aligned and in its GGUF type. Matrices that multiply the same input are laid
// out back to back when their types agree, so one GEMV reads them as one matrix:
// wq|wk|wv (q_dim + 2*kv_dim rows) and w_gate|w_up (2*n_ff rows). With partial offload
// only the first device_layers layers are uploaded (and the output only when all are).
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

// Optional tensors (null when the architecture has none) are f32.
struct DeviceLayer {
  const float* attn_norm = nullptr;  // (dim)
  DeviceMatrix wq, wk, wv;           // (q_dim, dim), (kv_dim, dim), (kv_dim, dim)
  DeviceMatrix wqkv;                 // (q_dim + 2*kv_dim, dim) when qkv_fused
  bool qkv_fused = false;
  const float *bq = nullptr, *bk = nullptr, *bv = nullptr;  // (q_dim), (kv_dim), (kv_dim)
  const float *q_norm = nullptr, *k_norm = nullptr;         // (head_dim) per-head RMSNorm
  DeviceMatrix wo;                                          // (dim, q_dim)
  const float* post_attn_norm = nullptr;                    // (dim)
  const float* ffn_norm = nullptr;                          // (dim)
  DeviceMatrix w_gate, w_up;                                // (n_ff, dim) each
  DeviceMatrix w_gate_up;                                   // (2*n_ff, dim) when gate_up_fused
  bool gate_up_fused = false;
  DeviceMatrix w_down;                   // (dim, n_ff)
  const float* post_ffw_norm = nullptr;  // (dim)
};

struct DeviceWeights {
  DeviceBuffer memory;                 // every tensor below points into it
  DeviceMatrix token_embd;             // (n_vocab, dim)
  std::vector<DeviceLayer> layers;     // (device layers): layers [0, layers.size())
  const float* output_norm = nullptr;  // (dim); null when a layer stays on the host
  DeviceMatrix output;                 // (n_vocab, dim); == token_embd when tied; data null
                                       // when a layer stays on the host
  int64_t largest_matrix_values =
      0;  // rows*cols of the biggest block-quantized matrix (GEMM tiles)

  // Copies the embedding, layers [0, device_layers) and, when that is every layer, the
  // output norm and matrix of `w` to the device (synchronously).
  static Result<DeviceWeights> upload(const ModelWeights& w, int32_t device_layers);
};

// The weights of `w` on the device for `device_layers` layers, uploaded once however many
// sessions use the model that way (a chat and a summary job share one copy); freed when
// the last user lets go.
Result<std::shared_ptr<const DeviceWeights>> shared_device_weights(const ModelWeights& w,
                                                                   int32_t device_layers);
// The most device layers of a live upload of `w` (another session's), or -1 when none: a
// new session under auto takes the same split instead of planning against the memory that
// upload already holds (and uploading a second copy).
int32_t uploaded_device_layers(const ModelWeights& w);

}  // namespace kvchat::cuda
