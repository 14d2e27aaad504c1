// The partial-offload planner: how many of a model's layers a GPU backend runs on the
// device (layers [0, gpu_layers)) and what each side then holds. Pure arithmetic on the
// model's shape, no CUDA, no allocation of model memory.
//
// The split (backend/backend.h): the device holds token_embd, the layers [0, g) (their
// matrices, norms and biases) and their KV; when g == n_layers also output_norm and output
// (a tied output is token_embd, already there). The host runs layers [g, n_layers) and
// the logits from the file's mapped weights, their KV in host memory. g == 0: nothing is
// on the device.
//
// Device total at g = weights(g) + KV(g) + scratch + reserve, where
//   KV(g)   = sum over layers [0, g) of 2 x tokens(layer) x kv_dim values in the KV type,
//             tokens = n_ctx rounded up to whole KV blocks (kDefaultKvBlockTokens), a
//             windowed layer's min(n_ctx, window + window slack) rounded likewise;
//   scratch = device_scratch_estimate (activations of a prefill batch, logits rows, the
//             RoPE table, attention partials, f16 tiles and the cuBLAS workspace);
//   reserve = max(256 MiB, 5% of the free memory planned against): head-room for the
//             driver, other processes and the allocator's rounding.
// Auto picks the largest g whose total fits the free memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kv/kv_type.h"

namespace kvchat {

struct ModelHParams;
struct ModelWeights;
struct ModelLayerWeights;

// What the planner needs of a model: its shape and what each part's weights weigh.
struct OffloadShape {
  int32_t n_layers = 0, n_embd = 0, n_heads = 0, n_kv_heads = 0, head_dim = 0, n_ff = 0;
  int32_t n_vocab = 0, n_rot = 0;
  std::vector<uint64_t> layer_weight_bytes;  // (n_layers) matrices rows x row_bytes + vectors
  uint64_t token_embd_bytes = 0;             // (n_vocab, dim)
  uint64_t output_bytes = 0;  // output_norm (dim) + output (n_vocab, dim); the norm only when tied
  bool tied_embeddings = false;  // the logits read token_embd (so the host needs it too)
  // rows x cols of the largest layer matrix that is not F16/BF16/F32 (the GEMMs dequantize
  // it to an f16 tile), and of the output matrix when it is such (0 otherwise).
  uint64_t largest_quantized_matrix_values = 0;
  uint64_t quantized_output_values = 0;
  std::vector<uint8_t> windowed;  // (n_layers) 1 = the layer attends to its last window tokens
  int32_t window = 0;             // the sliding window in tokens; 0: none
  int32_t window_slack = 256;     // rows the cache keeps beyond the window (< 0: never freed)
};

struct OffloadPlan {
  int32_t n_layers = 0;
  int32_t gpu_layers = 0;  // layers [0, gpu_layers) on the device
  bool requested = false;  // gpu_layers was asked for (not auto)
  bool fits = true;        // the device total fits device_free_bytes
  uint64_t device_weight_bytes = 0, host_weight_bytes = 0;  // weights each side runs from
  uint64_t device_kv_bytes = 0, host_kv_bytes = 0;          // KV at n_ctx tokens in kv_type
  uint64_t device_scratch_bytes = 0;  // an estimate of the device activations + cuBLAS workspace
  uint64_t device_free_bytes = 0;     // what it was planned against
  uint64_t device_reserve_bytes = 0;  // head-room kept free: max(256 MiB, 5% of free)
  // One sentence: "28 of 32 layers on the GPU: 6.1 GiB weights + 1.0 GiB KV of 7.6 GiB free".
  std::string summary;

  // weights + KV + scratch + reserve on the device (0 when no layer is there).
  uint64_t device_total_bytes() const {
    return gpu_layers > 0
               ? device_weight_bytes + device_kv_bytes + device_scratch_bytes + device_reserve_bytes
               : 0;
  }
};

// Bytes of one layer's tensors: every matrix rows x row_bytes, every norm and bias.
uint64_t layer_weight_bytes(const ModelLayerWeights& layer);
OffloadShape offload_shape(const ModelHParams& hp, const ModelWeights& weights);

// Tokens of KV one layer holds at n_ctx tokens (whole blocks; a windowed layer only its
// window + slack), and its K and V bytes in kv_type.
uint64_t layer_kv_tokens(const OffloadShape& shape, int32_t layer, int32_t n_ctx);
uint64_t layer_kv_bytes(const OffloadShape& shape, int32_t layer, int32_t n_ctx, KvType kv_type);
// The device buffers a GPU backend allocates besides weights and KV (see the file comment)
// with gpu_layers layers there (the output's f16 tile only when all are); 0 for none.
uint64_t device_scratch_estimate(const OffloadShape& shape, int32_t n_ctx, int32_t gpu_layers);
// max(256 MiB, 5% of free).
uint64_t device_reserve(uint64_t device_free_bytes);

// requested_gpu_layers < 0: auto (the largest fitting g); else clamped to [0, n_layers]
// and honoured even when it does not fit (fits = false, the summary says so).
OffloadPlan plan_offload(const OffloadShape& shape, int32_t n_ctx, KvType kv_type,
                         uint64_t device_free_bytes, int32_t requested_gpu_layers);
OffloadPlan plan_offload(const ModelHParams& hp, const ModelWeights& weights, int32_t n_ctx,
                         KvType kv_type, uint64_t device_free_bytes, int32_t requested_gpu_layers);

// Weights each side runs from at g layers on the device (plan_offload's split).
struct WeightSplit {
  uint64_t device = 0, host = 0;
};
WeightSplit split_weights(const OffloadShape& shape, int32_t gpu_layers);

// "6.1 GiB" (one decimal, binary units; "512 MiB" below 1 GiB).
std::string gib_text(uint64_t bytes);

}  // namespace kvchat
