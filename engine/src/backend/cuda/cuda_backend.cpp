// The CUDA backend: the llama forward pass on one NVIDIA GPU.
//
// - Weights: uploaded once (DeviceWeights), in their GGUF types.
// - KV: the session's paged cache lives in device memory (DeviceKvMemory); the block
//   table is mirrored to a device array of block pointers before each step.
// - Decode (n <= kGemvMaxTokens tokens): fused GEMVs (RMSNorm and SwiGLU folded into the
//   matrix reads, residual adds into the outputs), split-K paged attention. A one-token
//   step is captured once as a CUDA graph and replayed; positions and tokens are read
//   from device memory, so the graph is re-captured only when the KV block table's
//   capacity class grows (or the cache is replaced).
// - Prefill (more tokens): cuBLAS GEMMs and tiled causal attention, kMaxBatch at a time.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/cuda/attention.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/device_memory.h"
#include "backend/cuda/device_roofline.h"
#include "backend/cuda/device_weights.h"
#include "backend/cuda/gemm.h"
#include "backend/cuda_plugin.h"
#include "kv/kv_cache.h"
#include "kvchat/memory_report.h"
#include "kvchat/model.h"
#include "model/model_hparams.h"
#include "model/model_weights.h"

namespace kvchat::cuda {

namespace {

constexpr int kMaxBatch = 1024;     // tokens per prefill chunk: large GEMMs, bounded activations
constexpr int kLogitRows = 64;      // logits rows computed per pass when all are wanted
constexpr int kGraphKvStep = 1024;  // the decode graph's attention grid covers KV in these steps

int round_up(int n, int step) { return (n + step - 1) / step * step; }

bool same_cache(const DeviceKv& a, const DeviceKv& b) {
  return a.blocks == b.blocks && a.type == b.type && a.n_layers == b.n_layers &&
         a.block_tokens == b.block_tokens && a.n_kv_heads == b.n_kv_heads &&
         a.head_dim == b.head_dim && a.row_bytes == b.row_bytes;
}

class CudaBackend final : public Backend {
 public:
  CudaBackend(const Model& model, const BackendOptions& options)
      : hp_(model.hparams()),
        n_ctx_(options.n_ctx > 0 ? options.n_ctx : model.hparams().n_ctx_train) {}

  ~CudaBackend() override {
    if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  Status init(const Model& model) {
    cudaDeviceProp prop{};
    KV_CUDA_TRY(cudaGetDevice(&device_));
    KV_CUDA_TRY(cudaGetDeviceProperties(&prop, device_));
    device_name_ = prop.name;
    KV_CUDA_TRY(cudaStreamCreate(&stream_));
    auto weights = shared_device_weights(model.weights());
    if (!weights) return Error{weights.message()};
    weights_ = std::move(weights.value());
    return allocate_scratch();
  }

  std::string_view name() const override { return "cuda"; }
  std::shared_ptr<KvMemory> kv_memory() override { return kv_memory_; }
  // Host buffers only; the device's are in report_device_memory.
  uint64_t scratch_bytes() const override {
    return 2ull * kMaxBatch * sizeof(int32_t) +
           static_cast<uint64_t>(kLogitRows) * hp_.n_vocab * sizeof(float);
  }

  void report_device_memory(MemoryReport& r) const override {
    r.device_name = device_name_;
    r.device_weights_bytes = weights_->memory.bytes();  // shared with the model's other sessions
    r.device_kv_bytes = kv_memory_->bytes_held();
    r.device_scratch_bytes = device_scratch_bytes();
    // The device's totals, asked for at most every 250 ms (a report follows every token),
    // like the host's in recent_process_memory().
    const auto now = std::chrono::steady_clock::now();
    if (now - mem_info_at_ > std::chrono::milliseconds(250)) {
      size_t free_bytes = 0, total_bytes = 0;
      if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
        device_free_ = free_bytes;
        device_total_ = total_bytes;
        mem_info_at_ = now;
      } else {
        cudaGetLastError();
      }
    }
    if (device_total_ == 0) return;  // never answered: the host's figures stay
    r.device_total_bytes = r.system_total_bytes = device_total_;
    r.device_free_bytes = r.system_available_bytes = device_free_;
  }

  Status forward(std::span<const TokenId> tokens, int32_t pos0, KvCache& kv, float* logits,
                 bool all_logits) override {
    if (auto s = sync_block_table(kv); !s) return s;
    for (size_t start = 0; start < tokens.size(); start += kMaxBatch) {
      const int n = static_cast<int>(std::min<size_t>(kMaxBatch, tokens.size() - start));
      const bool last_chunk = start + n == tokens.size();
      float* out = all_logits ? logits + start * hp_.n_vocab : (last_chunk ? logits : nullptr);
      if (auto s = forward_chunk(tokens.subspan(start, n), pos0 + static_cast<int32_t>(start), out,
                                 all_logits);
          !s) {
        cudaStreamSynchronize(stream_);
        cudaGetLastError();
        return s;
      }
    }
    return {};
  }

 private:
  struct Activations {
    float* x = nullptr;            // (B, dim) residual stream
    float* xb = nullptr;           // (B, dim) normed input (prefill)
    float* qkv = nullptr;          // (B, q_dim + 2*kv_dim): q (B, q_dim) then k, v (B, kv_dim) each
    float* att = nullptr;          // (B, q_dim) attention output
    float* gate_up = nullptr;      // (B, 2*n_ff) per token [gate | up]
    float* hidden = nullptr;       // (B, n_ff) swiglu output (prefill)
    float* scale = nullptr;        // (B) RMSNorm scales for the fused GEMVs
    float* logits = nullptr;       // (kLogitRows, n_vocab)
    int32_t* tokens = nullptr;     // (B)
    int32_t* positions = nullptr;  // (B)
    float2* rope_cs = nullptr;     // (n_ctx, n_rot/2)
    void* partials = nullptr;      // split-K attention partials
  };

  uint64_t device_scratch_bytes() const {
    return scratch_.bytes() + gemm_.scratch_bytes() + table_.bytes();
  }

  Status allocate_scratch() {
    const int64_t B = kMaxBatch, dim = hp_.n_embd, qkv = hp_.q_dim() + 2 * hp_.kv_dim();
    // The attention partials for the largest decode batch at the full context.
    DeviceKv shape_kv;
    shape_kv.n_layers = hp_.n_layers;
    shape_kv.n_kv_heads = hp_.n_kv_heads;
    shape_kv.head_dim = hp_.head_dim;
    // The KV capacity is whole blocks (up to 4096 tokens each) past n_ctx at most, and the
    // partition count depends on the batch: take the largest over every decode batch.
    uint64_t partial_bytes = 0;
    for (int n = 1; n <= kGemvMaxTokens; ++n) {
      const AttentionShape shape{n, hp_.n_heads, round_up(n_ctx_ + 4096, kGraphKvStep), 0};
      partial_bytes =
          std::max<uint64_t>(partial_bytes, attention_decode_scratch_bytes(shape_kv, shape));
    }
    if (partial_bytes == 0) {
      return Error{"attention kernels do not support head_dim " + std::to_string(hp_.head_dim) +
                   " with " + std::to_string(hp_.n_heads) + " heads and " +
                   std::to_string(hp_.n_kv_heads) +
                   " KV heads (head_dim must be a multiple of 32, at most 256)"};
    }
    const int64_t half_rot = hp_.n_rot / 2;
    uint64_t floats = B * dim * 2 + B * qkv + B * hp_.q_dim() + B * 2 * hp_.n_ff + B * hp_.n_ff +
                      B + static_cast<int64_t>(kLogitRows) * hp_.n_vocab +
                      2 * static_cast<int64_t>(n_ctx_) * half_rot;
    const uint64_t bytes =
        floats * sizeof(float) + 2 * B * sizeof(int32_t) + partial_bytes + 16 * 256;
    auto scratch = DeviceBuffer::allocate(bytes);
    if (!scratch) return Error{"allocating the CUDA scratch: " + scratch.message()};
    scratch_ = std::move(scratch.value());
    uint8_t* p = scratch_.get();
    auto take = [&p](uint64_t n_bytes) {
      uint8_t* at = p;
      p += (n_bytes + 255) / 256 * 256;
      return at;
    };
    a_.x = reinterpret_cast<float*>(take(B * dim * 4));
    a_.xb = reinterpret_cast<float*>(take(B * dim * 4));
    a_.qkv = reinterpret_cast<float*>(take(B * qkv * 4));
    a_.att = reinterpret_cast<float*>(take(B * hp_.q_dim() * 4));
    a_.gate_up = reinterpret_cast<float*>(take(B * 2 * hp_.n_ff * 4));
    a_.hidden = reinterpret_cast<float*>(take(B * hp_.n_ff * 4));
    a_.scale = reinterpret_cast<float*>(take(B * 4));
    a_.logits = reinterpret_cast<float*>(take(static_cast<uint64_t>(kLogitRows) * hp_.n_vocab * 4));
    a_.tokens = reinterpret_cast<int32_t*>(take(B * 4));
    a_.positions = reinterpret_cast<int32_t*>(take(B * 4));
    a_.rope_cs = reinterpret_cast<float2*>(take(static_cast<uint64_t>(n_ctx_) * half_rot * 8));
    a_.partials = take(partial_bytes);

    // RoPE table from the model's (plain llama: cuda_capabilities refuses scaling and
    // windows), computed exactly as cpu::rope does: theta = pos x inv_freq[i] in double,
    // then float cos/sin.
    const RopeTable& rope_table = hp_.rope_global;
    std::vector<float2> cs(static_cast<size_t>(n_ctx_) * half_rot);
    for (int32_t pos = 0; pos < n_ctx_; ++pos) {
      for (int32_t i = 0; i < half_rot; ++i) {
        const double theta = static_cast<double>(pos) * rope_table.inv_freq[i];
        cs[static_cast<size_t>(pos) * half_rot + i] = {static_cast<float>(std::cos(theta)),
                                                       static_cast<float>(std::sin(theta))};
      }
    }
    KV_CUDA_TRY(
        cudaMemcpy(a_.rope_cs, cs.data(), cs.size() * sizeof(float2), cudaMemcpyHostToDevice));

    const int64_t max_x = B * std::max<int64_t>(std::max<int64_t>(dim, hp_.n_ff), hp_.q_dim());
    if (auto s = gemm_.init(stream_, max_x, weights_->largest_matrix_values); !s) return s;
    if (auto s = host_io_.allocate(2 * B * sizeof(int32_t)); !s) return s;
    return host_logits_.allocate(static_cast<uint64_t>(kLogitRows) * hp_.n_vocab * sizeof(float));
  }

  // The device array of block pointers follows the cache's block table; when the cache
  // was replaced (another KV type, a restored snapshot) the decode graph is re-captured.
  Status sync_block_table(KvCache& kv) {
    const KvCacheConfig& c = kv.config();
    const int max_blocks = (c.max_tokens + c.block_tokens - 1) / c.block_tokens;
    if (table_.bytes() < max_blocks * sizeof(uint8_t*)) {
      auto t = DeviceBuffer::allocate(max_blocks * sizeof(uint8_t*));
      if (!t) return Error{t.message()};
      table_ = std::move(t.value());
      table_host_.clear();
    }
    // The session reserved the blocks for this step before calling forward. Only the
    // entries that changed (usually none, or the one new block) are copied; nothing is
    // allocated on a decode step.
    const size_t n = static_cast<size_t>(kv.token_blocks());
    size_t first_changed = n;
    table_host_.resize(n);
    for (size_t b = 0; b < n; ++b) {
      uint8_t* block = kv.group_block(0, static_cast<int32_t>(b));
      if (block == table_host_[b]) continue;
      if (reinterpret_cast<uintptr_t>(block) % 16 != 0) {  // the kernels' 16-byte copies
        table_host_.clear();
        return Error{"the CUDA backend needs KV blocks of a multiple of 16 bytes; " +
                     std::to_string(kv.block_bytes()) + " bytes per block (try --kv-block 16)"};
      }
      table_host_[b] = block;
      first_changed = std::min(first_changed, b);
    }
    if (first_changed < n) {
      // From pageable memory: the call returns once the bytes are staged, so table_host_
      // may change afterwards.
      KV_CUDA_TRY(cudaMemcpyAsync(
          table_.get<uint8_t*>() + first_changed, table_host_.data() + first_changed,
          (n - first_changed) * sizeof(uint8_t*), cudaMemcpyHostToDevice, stream_));
    }
    kv_.blocks = table_.get<uint8_t*>();
    kv_.type = kv_storage_type(kv.type());
    kv_.n_layers = c.n_layers;
    kv_.block_tokens = c.block_tokens;
    kv_.n_kv_heads = c.n_kv_heads;
    kv_.head_dim = c.head_dim;
    kv_.row_bytes = kv.row_bytes();
    kv_capacity_ = kv.capacity();
    return {};
  }

  // tokens (n) at positions [pos0, pos0 + n). logits: (n, n_vocab) when all_logits, else
  // (n_vocab) for the last token, or null for none.
  Status forward_chunk(std::span<const TokenId> tokens, int32_t pos0, float* logits,
                       bool all_logits) {
    const int n = static_cast<int>(tokens.size());
    int32_t* io = host_io_.get<int32_t>();
    for (int b = 0; b < n; ++b) {
      io[b] = tokens[b];
      io[kMaxBatch + b] = pos0 + b;
    }
    KV_CUDA_TRY(
        cudaMemcpyAsync(a_.tokens, io, n * sizeof(int32_t), cudaMemcpyHostToDevice, stream_));
    KV_CUDA_TRY(cudaMemcpyAsync(a_.positions, io + kMaxBatch, n * sizeof(int32_t),
                                cudaMemcpyHostToDevice, stream_));

    const bool decode = n <= kGemvMaxTokens;
    const int logit_rows = logits ? (all_logits ? n : 1) : 0;
    if (n == 1 && logits) {
      if (auto s = run_decode_graph(); !s) return s;
    } else if (decode) {
      if (auto s = decode_layers(n); !s) return s;
      if (logit_rows > 0) {
        if (auto s = decode_logits(n - logit_rows, logit_rows); !s) return s;
      }
    } else {
      if (auto s = prefill_layers(n); !s) return s;
    }
    if (logit_rows == 0) {
      KV_CUDA_TRY(cudaStreamSynchronize(stream_));
      return {};
    }
    if (decode) return copy_logits(logits, logit_rows);
    // Prefill: the last token's logits through a fused GEMV; all of them through GEMMs.
    if (!all_logits) {
      if (auto s = decode_logits(n - 1, 1); !s) return s;
      return copy_logits(logits, 1);
    }
    for (int r0 = 0; r0 < n; r0 += kLogitRows) {
      const int rows = std::min(kLogitRows, n - r0);
      KV_CUDA_TRY(rmsnorm(a_.x + static_cast<int64_t>(r0) * hp_.n_embd, weights_->output_norm,
                          a_.xb, rows, hp_.n_embd, hp_.rms_eps, stream_));
      if (auto s = gemm_.run(weights_->output, a_.xb, rows, a_.logits, hp_.n_vocab, false); !s)
        return s;
      if (auto s = copy_logits(logits + static_cast<int64_t>(r0) * hp_.n_vocab, rows); !s) return s;
    }
    return {};
  }

  // The one-token decode step with its logits, as a CUDA graph. A new configuration
  // (KV capacity step, cache replaced) runs eagerly once — which also lets the kernels
  // make their one-time queries outside a capture — and is captured on its next step.
  Status run_decode_graph() {
    const int max_kv = round_up(std::max(kv_capacity_, 1), kGraphKvStep);
    const bool captured = graph_exec_ && graph_max_kv_ == max_kv && same_cache(graph_kv_, kv_);
    if (!captured) {
      const bool seen = eager_max_kv_ == max_kv && same_cache(eager_kv_, kv_);
      if (!seen) {
        eager_kv_ = kv_;
        eager_max_kv_ = max_kv;
        if (auto s = decode_layers(1, max_kv); !s) return s;
        return decode_logits(0, 1);
      }
      if (auto s = capture_decode_graph(max_kv); !s) return s;
    }
    KV_CUDA_TRY(cudaGraphLaunch(graph_exec_, stream_));
    return {};
  }

  Status capture_decode_graph(int max_kv) {
    if (graph_exec_) {
      cudaGraphExecDestroy(graph_exec_);
      graph_exec_ = nullptr;
    }
    cudaGraph_t graph = nullptr;
    KV_CUDA_TRY(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    Status body = decode_layers(1, max_kv);
    if (body) body = decode_logits(0, 1);
    const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
    if (!body) {
      if (graph) cudaGraphDestroy(graph);
      return body;
    }
    KV_CUDA_TRY(ended);
    const cudaError_t made = cudaGraphInstantiate(&graph_exec_, graph, 0);
    cudaGraphDestroy(graph);
    KV_CUDA_TRY(made);
    graph_kv_ = kv_;
    graph_max_kv_ = max_kv;
    return {};
  }

  // n <= kGemvMaxTokens tokens through every layer with GEMVs. x ends as the residual
  // stream after the last layer. max_kv: the attention grid's KV bound (0 = from the cache).
  Status decode_layers(int n, int max_kv = 0) {
    const int32_t dim = hp_.n_embd, q_dim = hp_.q_dim(), kv_dim = hp_.kv_dim(), n_ff = hp_.n_ff;
    if (max_kv == 0) max_kv = round_up(std::max(kv_capacity_, 1), kGraphKvStep);
    float* q = a_.qkv;
    float* k = q + static_cast<int64_t>(n) * q_dim;
    float* v = k + static_cast<int64_t>(n) * kv_dim;
    const AttentionShape shape{n, hp_.n_heads, max_kv,
                               1.0f / std::sqrt(static_cast<float>(hp_.head_dim))};
    KV_CUDA_TRY(embed_rows(weights_->token_embd, a_.tokens, n, a_.x, stream_));
    for (int32_t l = 0; l < hp_.n_layers; ++l) {
      const DeviceLayer& L = weights_->layers[l];
      KV_CUDA_TRY(rms_scale(a_.x, a_.scale, n, dim, hp_.rms_eps, stream_));
      const GemvArgs normed{GemvInput::RmsNorm, a_.scale, L.attn_norm, false};
      if (L.qkv_fused && n == 1) {
        KV_CUDA_TRY(gemv(L.wqkv, a_.x, a_.qkv, 1, normed, stream_));  // q|k|v of one token
      } else {
        KV_CUDA_TRY(gemv(L.wq, a_.x, q, n, normed, stream_));
        KV_CUDA_TRY(gemv(L.wk, a_.x, k, n, normed, stream_));
        KV_CUDA_TRY(gemv(L.wv, a_.x, v, n, normed, stream_));
      }
      KV_CUDA_TRY(rope(q, hp_.n_heads, k, hp_.n_kv_heads, n, hp_.head_dim, hp_.n_rot, a_.positions,
                       a_.rope_cs, stream_));
      KV_CUDA_TRY(kv_write(kv_, l, k, v, n, a_.positions, stream_));
      KV_CUDA_TRY(attention_decode(kv_, l, q, a_.att, shape, a_.positions, a_.partials, stream_));
      KV_CUDA_TRY(gemv(L.wo, a_.att, a_.x, n, {GemvInput::Plain, nullptr, nullptr, true}, stream_));

      KV_CUDA_TRY(rms_scale(a_.x, a_.scale, n, dim, hp_.rms_eps, stream_));
      const GemvArgs ffn_normed{GemvInput::RmsNorm, a_.scale, L.ffn_norm, false};
      if (L.gate_up_fused) {
        KV_CUDA_TRY(gemv(L.w_gate_up, a_.x, a_.gate_up, n, ffn_normed, stream_));  // (n, 2*n_ff)
      } else {
        // Unlike types: one token at a time keeps the [gate | up] row layout.
        for (int b = 0; b < n; ++b) {
          const GemvArgs one{GemvInput::RmsNorm, a_.scale + b, L.ffn_norm, false};
          float* row = a_.gate_up + static_cast<int64_t>(b) * 2 * n_ff;
          KV_CUDA_TRY(gemv(L.w_gate, a_.x + static_cast<int64_t>(b) * dim, row, 1, one, stream_));
          KV_CUDA_TRY(
              gemv(L.w_up, a_.x + static_cast<int64_t>(b) * dim, row + n_ff, 1, one, stream_));
        }
      }
      if (n <= 3) {  // SwiGLU fused into the read of w_down's input
        KV_CUDA_TRY(gemv(L.w_down, a_.gate_up, a_.x, n, {GemvInput::SwiGlu, nullptr, nullptr, true},
                         stream_));
      } else {  // more tokens: recomputing silu per row group would cost more than one pass
        KV_CUDA_TRY(swiglu(a_.gate_up, a_.hidden, n, n_ff, stream_));
        KV_CUDA_TRY(gemv(L.w_down, a_.hidden, a_.x, n, {GemvInput::Plain, nullptr, nullptr, true},
                         stream_));
      }
    }
    return {};
  }

  // logits (rows, n_vocab) of tokens [first, first + rows) into a_.logits.
  Status decode_logits(int first, int rows) {
    const float* x = a_.x + static_cast<int64_t>(first) * hp_.n_embd;
    KV_CUDA_TRY(rms_scale(x, a_.scale, rows, hp_.n_embd, hp_.rms_eps, stream_));
    KV_CUDA_TRY(gemv(weights_->output, x, a_.logits, rows,
                     {GemvInput::RmsNorm, a_.scale, weights_->output_norm, false}, stream_));
    return {};
  }

  // n > kGemvMaxTokens consecutive tokens through every layer with GEMMs.
  Status prefill_layers(int n) {
    const int32_t dim = hp_.n_embd, q_dim = hp_.q_dim(), kv_dim = hp_.kv_dim(), n_ff = hp_.n_ff;
    float* q = a_.qkv;
    float* k = q + static_cast<int64_t>(n) * q_dim;
    float* v = k + static_cast<int64_t>(n) * kv_dim;
    const AttentionShape shape{n, hp_.n_heads, std::max(kv_capacity_, 1),
                               1.0f / std::sqrt(static_cast<float>(hp_.head_dim))};
    KV_CUDA_TRY(embed_rows(weights_->token_embd, a_.tokens, n, a_.x, stream_));
    for (int32_t l = 0; l < hp_.n_layers; ++l) {
      const DeviceLayer& L = weights_->layers[l];
      KV_CUDA_TRY(rmsnorm(a_.x, L.attn_norm, a_.xb, n, dim, hp_.rms_eps, stream_));
      if (auto s = gemm_.run(L.wq, a_.xb, n, q, q_dim, false); !s) return s;
      if (auto s = gemm_.run(L.wk, a_.xb, n, k, kv_dim, false); !s) return s;
      if (auto s = gemm_.run(L.wv, a_.xb, n, v, kv_dim, false); !s) return s;
      KV_CUDA_TRY(rope(q, hp_.n_heads, k, hp_.n_kv_heads, n, hp_.head_dim, hp_.n_rot, a_.positions,
                       a_.rope_cs, stream_));
      KV_CUDA_TRY(kv_write(kv_, l, k, v, n, a_.positions, stream_));
      KV_CUDA_TRY(attention_prefill(kv_, l, q, a_.att, shape, a_.positions, stream_));
      if (auto s = gemm_.run(L.wo, a_.att, n, a_.x, dim, true); !s) return s;  // x += wo . att

      KV_CUDA_TRY(rmsnorm(a_.x, L.ffn_norm, a_.xb, n, dim, hp_.rms_eps, stream_));
      if (L.gate_up_fused) {
        if (auto s = gemm_.run(L.w_gate_up, a_.xb, n, a_.gate_up, 2 * n_ff, false); !s) return s;
      } else {
        // Gate and up written interleaved per token: row stride 2*n_ff.
        if (auto s = gemm_.run(L.w_gate, a_.xb, n, a_.gate_up, 2 * n_ff, false); !s) return s;
        if (auto s = gemm_.run(L.w_up, a_.xb, n, a_.gate_up + n_ff, 2 * n_ff, false); !s) return s;
      }
      KV_CUDA_TRY(swiglu(a_.gate_up, a_.hidden, n, n_ff, stream_));
      if (auto s = gemm_.run(L.w_down, a_.hidden, n, a_.x, dim, true); !s)
        return s;  // x += w_down . h
    }
    return {};
  }

  // rows x n_vocab logits from a_.logits to the caller, through pinned memory.
  Status copy_logits(float* dst, int rows) {
    const uint64_t bytes = static_cast<uint64_t>(rows) * hp_.n_vocab * sizeof(float);
    KV_CUDA_TRY(
        cudaMemcpyAsync(host_logits_.get(), a_.logits, bytes, cudaMemcpyDeviceToHost, stream_));
    KV_CUDA_TRY(cudaStreamSynchronize(stream_));
    std::memcpy(dst, host_logits_.get(), bytes);
    return {};
  }

  const ModelHParams& hp_;
  const int32_t n_ctx_;
  int device_ = 0;
  std::string device_name_;
  mutable std::chrono::steady_clock::time_point mem_info_at_{};  // cudaMemGetInfo, cached
  mutable uint64_t device_free_ = 0, device_total_ = 0;
  cudaStream_t stream_ = nullptr;
  std::shared_ptr<const DeviceWeights> weights_;  // shared by every session of the model
  std::shared_ptr<DeviceKvMemory> kv_memory_ = std::make_shared<DeviceKvMemory>();
  DeviceBuffer scratch_;
  Activations a_;
  Gemm gemm_;
  PinnedBuffer host_io_;      // (2, kMaxBatch) int32: tokens, positions
  PinnedBuffer host_logits_;  // (kLogitRows, n_vocab) f32

  // The cache as the kernels see it, and its block table.
  DeviceBuffer table_;                // (max blocks) block pointers
  std::vector<uint8_t*> table_host_;  // what table_ holds
  DeviceKv kv_;
  int32_t kv_capacity_ = 0;

  // The captured one-token decode step.
  cudaGraphExec_t graph_exec_ = nullptr;
  DeviceKv graph_kv_;
  int graph_max_kv_ = 0;
  DeviceKv eager_kv_;  // the configuration last run without a graph
  int eager_max_kv_ = 0;
};

Result<std::unique_ptr<Backend>> make_cuda_backend(const Model& model,
                                                   const BackendOptions& options) {
  // make_backend has checked the model against the kernels (backend/cuda_capabilities.h).
  int n_devices = 0;
  if (cudaGetDeviceCount(&n_devices) != cudaSuccess || n_devices == 0) {
    cudaGetLastError();  // clear the sticky "no device" error
    return Error{"no CUDA device"};
  }
  auto backend = std::make_unique<CudaBackend>(model, options);
  if (auto s = backend->init(model); !s) return Error{"CUDA backend: " + s.message()};
  return std::unique_ptr<Backend>(std::move(backend));
}

// Runs when the plugin is loaded (or at start in binaries that link the backend statically).
struct Registration {
  Registration() {
    register_backend(BackendKind::Cuda, &make_cuda_backend);
    register_cuda_roofline(&measure_device_roofline);
  }
};
Registration registration;

}  // namespace

}  // namespace kvchat::cuda
