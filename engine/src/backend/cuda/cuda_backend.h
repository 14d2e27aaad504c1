// The CUDA backend: the forward pass of every architecture of model/architecture.h on one
// NVIDIA GPU, whole or split with the CPU backend (partial offload).
//
// - Weights: uploaded once (DeviceWeights), in their GGUF types: the embedding and layers
//   [0, gpu_layers), and the output when every layer is on the device.
// - KV: the device layers' blocks of the session's paged cache live in device memory
//   (DeviceKvMemory), the other layers' in host memory (KvCacheConfig::memory_layers). The
//   cache's device groups (full-attention layers, windowed layers: KvCache::layer_group)
//   each have a block table mirrored to a device array of block pointers before each step;
//   blocks a window freed are null there and never read.
// - Decode (n <= kGemvMaxTokens tokens): fused GEMVs (RMSNorm and SwiGLU folded into the
//   matrix reads, residual adds into the outputs), split-K paged attention. With every
//   layer on the device a one-token step is captured once as a CUDA graph and replayed;
//   positions and tokens are read from device memory, so the graph is re-captured only
//   when a KV block table's capacity class grows (or the cache is replaced).
// - Prefill (more tokens): cuBLAS GEMMs and tiled causal attention, kMaxBatch at a time.
// - Partial offload: after layer gpu_layers - 1 the residual stream (n, dim) is copied to
//   pinned host memory once, and the CPU backend runs the remaining layers and the logits
//   (Backend::forward_layers / output_logits).
// Per layer, on either path: [bias] -> [per-head q/k RMSNorm] -> RoPE (the layer's table:
// norm or neox pairs, every scaling folded into the cos/sin) -> KV write -> attention
// ([window], [soft-cap], the model's query scale) -> wo -> [post-attention norm] -> +x ->
// FFN (SwiGLU or GeGLU) -> [post-FFN norm] -> +x; the embedding [x scale], the logits
// [soft-cap].
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/cuda/attention.h"
#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/device_memory.h"
#include "backend/cuda/device_weights.h"
#include "backend/cuda/gemm.h"
#include "model/model_hparams.h"

namespace kvchat::cuda {

constexpr int kMaxBatch = 1024;     // tokens per prefill chunk: large GEMMs, bounded activations
constexpr int kLogitRows = 64;      // logits rows computed per pass when all are wanted
constexpr int kGraphKvStep = 1024;  // the decode graph's attention grid covers KV in these steps

class CudaBackend final : public Backend {
 public:
  CudaBackend(const Model& model, const BackendOptions& options);
  ~CudaBackend() override;

  // gpu_layers: layers [0, gpu_layers) on the device (1..n_layers); the rest on `host`.
  Status init(const Model& model, int32_t gpu_layers, std::unique_ptr<Backend> host);

  std::string_view name() const override { return "cuda"; }
  // The CPU part's threads when the layers are split; 1 otherwise.
  int32_t threads() const override { return host_ ? host_->threads() : 1; }
  int32_t decode_threads() const override { return host_ ? host_->decode_threads() : 1; }
  std::shared_ptr<KvMemory> kv_memory() override { return kv_memory_; }
  int32_t kv_memory_layers() const override { return split() ? gpu_layers_ : -1; }
  uint64_t scratch_bytes() const override;  // host buffers (and the CPU part's)
  void report_device_memory(MemoryReport& r) const override;
  Status forward(std::span<const TokenId> tokens, int32_t pos0, KvCache& kv, float* logits,
                 bool all_logits) override;

 private:
  struct Activations {
    float* x = nullptr;            // (B, dim) residual stream
    float* xb = nullptr;           // (B, dim) normed input (prefill), a branch's output
    float* qkv = nullptr;          // (B, q_dim + 2*kv_dim): q (B, q_dim) then k, v (B, kv_dim) each
    float* att = nullptr;          // (B, q_dim) attention output
    float* gate_up = nullptr;      // (B, 2*n_ff) per token [gate | up]
    float* hidden = nullptr;       // (B, n_ff) act(gate) * up
    float* scale = nullptr;        // (B) RMSNorm scales for the fused GEMVs
    float* logits = nullptr;       // (kLogitRows, n_vocab)
    int32_t* tokens = nullptr;     // (B)
    int32_t* positions = nullptr;  // (B)
    void* partials = nullptr;      // split-K attention partials
  };
  // The cache's device groups as the kernels see them (0: full-attention layers,
  // 1: windowed layers), and where a layer's rows are.
  struct KvGroups {
    DeviceKv group[2];
    bool operator==(const KvGroups& o) const;
  };

  bool split() const { return gpu_layers_ < hp_.n_layers; }
  uint64_t device_scratch_bytes() const;
  Status allocate_scratch();
  Status upload_rope_tables();
  Status sync_block_tables(KvCache& kv);

  // cuda_forward.cpp: the layers and the logits.
  Status forward_chunk(std::span<const TokenId> tokens, int32_t pos0, KvCache& kv, float* logits,
                       bool all_logits);
  Status run_decode_graph();
  Status capture_decode_graph(int max_kv);
  Status embed(int n);
  AttentionShape attention_shape(int32_t layer, int n, int max_kv) const;
  const DeviceKv& layer_kv(int32_t layer) const { return kv_.group[layer_group_[layer]]; }
  int layer_index(int32_t layer) const { return layer_index_[layer]; }
  Status attention_block(int32_t layer, int n, int max_kv, bool prefill);
  Status qk_finish(const DeviceLayer& L, int32_t layer, float* q, float* k, float* v, int n);
  Status residual_add(const float* branch, const float* post_norm, int n);
  Status decode_layers(int n, int max_kv = 0);
  Status decode_logits(int first, int rows);
  Status prefill_layers(int n);
  Status finish_logits(int rows);
  Status copy_logits(float* dst, int rows);
  Status to_host_part(std::span<const TokenId> tokens, int32_t pos0, KvCache& kv, float* logits,
                      bool all_logits);

  const ModelHParams& hp_;
  const int32_t n_ctx_;
  int32_t gpu_layers_ = 0;
  int device_ = 0;
  std::string device_name_;
  mutable std::chrono::steady_clock::time_point mem_info_at_{};  // cudaMemGetInfo, cached
  mutable uint64_t device_free_ = 0, device_total_ = 0;
  cudaStream_t stream_ = nullptr;
  std::shared_ptr<const DeviceWeights> weights_;  // shared by every session of the model
  std::shared_ptr<DeviceKvMemory> kv_memory_ = std::make_shared<DeviceKvMemory>();
  std::unique_ptr<Backend> host_;  // the CPU backend of layers [gpu_layers, n_layers)
  DeviceBuffer scratch_;
  Activations a_;
  Gemm gemm_;
  PinnedBuffer host_io_;      // (2, kMaxBatch) int32: tokens, positions
  PinnedBuffer host_logits_;  // (kLogitRows, n_vocab) f32
  PinnedBuffer host_x_;       // (kMaxBatch, dim) f32: the residual stream handed to host_

  // RoPE: one device table per distinct RopeTable of this session's layers.
  std::vector<DeviceBuffer> rope_cs_;  // each (n_ctx, n_rot/2) float2 {cos, sin} x mscale
  std::vector<int32_t> layer_rope_;    // (n_layers) index into rope_cs_
  std::vector<uint8_t> rope_neox_;     // (n_layers) 1 = half-split pairs

  // The cache as the kernels see it, and its block tables (one per device group).
  std::vector<int32_t> layer_group_;     // (n_layers) the layer's device group
  std::vector<int32_t> layer_index_;     // (n_layers) its index within the group
  DeviceBuffer table_[2];                // (max blocks) block pointers
  std::vector<uint8_t*> table_host_[2];  // what table_ holds
  KvGroups kv_;
  int32_t kv_capacity_ = 0;

  // The captured one-token decode step.
  cudaGraphExec_t graph_exec_ = nullptr;
  KvGroups graph_kv_;
  int graph_max_kv_ = 0;
  KvGroups eager_kv_;  // the configuration last run without a graph
  int eager_max_kv_ = 0;
};

}  // namespace kvchat::cuda
