// The CUDA backend's forward pass (contract and layer order: cuda_backend.h): a chunk of
// tokens through the device layers by GEMVs (decode) or GEMMs (prefill), the one-token
// decode graph, the logits, and the hand-off of the residual stream to the CPU backend
// when the layers are split.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "backend/cuda/cuda_backend.h"
#include "backend/cuda/cuda_check.h"
#include "kv/kv_cache.h"

namespace kvchat::cuda {

namespace {
int round_up(int n, int step) { return (n + step - 1) / step * step; }
}  // namespace

// tokens (n) at positions [pos0, pos0 + n). logits: (n, n_vocab) when all_logits, else
// (n_vocab) for the last token, or null for none.
Status CudaBackend::forward_chunk(std::span<const TokenId> tokens, int32_t pos0, KvCache& kv,
                                  float* logits, bool all_logits) {
  const int n = static_cast<int>(tokens.size());
  int32_t* io = host_io_.get<int32_t>();
  for (int b = 0; b < n; ++b) {
    io[b] = tokens[b];
    io[kMaxBatch + b] = pos0 + b;
  }
  KV_CUDA_TRY(cudaMemcpyAsync(a_.tokens, io, n * sizeof(int32_t), cudaMemcpyHostToDevice, stream_));
  KV_CUDA_TRY(cudaMemcpyAsync(a_.positions, io + kMaxBatch, n * sizeof(int32_t),
                              cudaMemcpyHostToDevice, stream_));

  const bool decode = n <= kGemvMaxTokens;
  if (split()) {
    if (auto s = decode ? decode_layers(n) : prefill_layers(n); !s) return s;
    return to_host_part(tokens, pos0, kv, logits, all_logits);
  }
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
    KV_CUDA_TRY(rmsnorm(a_.x + static_cast<int64_t>(r0) * hp_.n_embd, weights_->output_norm, a_.xb,
                        rows, hp_.n_embd, hp_.rms_eps, stream_));
    if (auto s = gemm_.run(weights_->output, a_.xb, rows, a_.logits, hp_.n_vocab, false); !s)
      return s;
    if (auto s = finish_logits(rows); !s) return s;
    if (auto s = copy_logits(logits + static_cast<int64_t>(r0) * hp_.n_vocab, rows); !s) return s;
  }
  return {};
}

// Partial offload: x (n, dim) after the device layers crosses to the host once; the CPU
// backend runs layers [gpu_layers, n_layers) and the logits on it.
Status CudaBackend::to_host_part(std::span<const TokenId> tokens, int32_t pos0, KvCache& kv,
                                 float* logits, bool all_logits) {
  const int n = static_cast<int>(tokens.size());
  float* x = host_x_.get<float>();
  const uint64_t bytes = static_cast<uint64_t>(n) * hp_.n_embd * sizeof(float);
  KV_CUDA_TRY(cudaMemcpyAsync(x, a_.x, bytes, cudaMemcpyDeviceToHost, stream_));
  KV_CUDA_TRY(cudaStreamSynchronize(stream_));
  if (auto s = host_->forward_layers(x, n, pos0, gpu_layers_, hp_.n_layers, kv); !s) return s;
  if (!logits) return {};
  return host_->output_logits(x, n, logits, all_logits);
}

// The one-token decode step with its logits, as a CUDA graph. A new configuration
// (KV capacity step, cache replaced) runs eagerly once — which also lets the kernels
// make their one-time queries outside a capture — and is captured on its next step.
Status CudaBackend::run_decode_graph() {
  const int max_kv = round_up(std::max(kv_capacity_, 1), kGraphKvStep);
  const bool captured = graph_exec_ && graph_max_kv_ == max_kv && graph_kv_ == kv_;
  if (!captured) {
    const bool seen = eager_max_kv_ == max_kv && eager_kv_ == kv_;
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

Status CudaBackend::capture_decode_graph(int max_kv) {
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

// x (n, dim) = token_embd[tokens] [x embed_scale].
Status CudaBackend::embed(int n) {
  KV_CUDA_TRY(embed_rows(weights_->token_embd, a_.tokens, n, a_.x, stream_));
  if (hp_.embed_scale != 1.0f) {
    KV_CUDA_TRY(scale_values(a_.x, static_cast<int64_t>(n) * hp_.n_embd, hp_.embed_scale, stream_));
  }
  return {};
}

AttentionShape CudaBackend::attention_shape(int32_t layer, int n, int max_kv) const {
  return AttentionShape{
      n, hp_.n_heads, max_kv, hp_.query_scale, hp_.window(layer), hp_.attn_softcap};
}

// q (n, q_dim), k, v (n, kv_dim) of `layer` just projected: [biases], [per-head RMSNorm of q
// and k], RoPE with the layer's table, then k and v into the cache.
Status CudaBackend::qk_finish(const DeviceLayer& L, int32_t layer, float* q, float* k, float* v,
                              int n) {
  const int32_t hd = hp_.head_dim;
  if (L.bq) KV_CUDA_TRY(add_bias(q, L.bq, n, hp_.q_dim(), stream_));
  if (L.bk) KV_CUDA_TRY(add_bias(k, L.bk, n, hp_.kv_dim(), stream_));
  if (L.bv) KV_CUDA_TRY(add_bias(v, L.bv, n, hp_.kv_dim(), stream_));
  if (L.q_norm) KV_CUDA_TRY(rmsnorm(q, L.q_norm, q, n * hp_.n_heads, hd, hp_.rms_eps, stream_));
  if (L.k_norm) KV_CUDA_TRY(rmsnorm(k, L.k_norm, k, n * hp_.n_kv_heads, hd, hp_.rms_eps, stream_));
  const DeviceBuffer& cs = rope_cs_[layer_rope_[layer]];
  KV_CUDA_TRY(rope(q, hp_.n_heads, k, hp_.n_kv_heads, n, hd, hp_.n_rot, rope_neox_[layer] != 0,
                   a_.positions, cs.get<float2>(), stream_));
  KV_CUDA_TRY(kv_write(layer_kv(layer), layer_index(layer), k, v, n, a_.positions, stream_));
  return {};
}

// att (n, q_dim) = attention of q over the layer's cached K/V.
Status CudaBackend::attention_block(int32_t layer, int n, int max_kv, bool prefill) {
  const float* q = a_.qkv;
  const AttentionShape shape = attention_shape(layer, n, max_kv);
  if (prefill) {
    KV_CUDA_TRY(attention_prefill(layer_kv(layer), layer_index(layer), q, a_.att, shape,
                                  a_.positions, stream_));
  } else {
    KV_CUDA_TRY(attention_decode(layer_kv(layer), layer_index(layer), q, a_.att, shape,
                                 a_.positions, a_.partials, stream_));
  }
  return {};
}

// x (n, dim) += [post_norm](branch (n, dim)); branch is overwritten by its norm.
Status CudaBackend::residual_add(const float* branch, const float* post_norm, int n) {
  float* b = const_cast<float*>(branch);
  if (post_norm) KV_CUDA_TRY(rmsnorm(b, post_norm, b, n, hp_.n_embd, hp_.rms_eps, stream_));
  KV_CUDA_TRY(add_inplace(a_.x, b, static_cast<int64_t>(n) * hp_.n_embd, stream_));
  return {};
}

// n <= kGemvMaxTokens tokens through the device layers with GEMVs. x ends as the residual
// stream after the last device layer. max_kv: the attention grid's KV bound (0 = from the
// cache).
Status CudaBackend::decode_layers(int n, int max_kv) {
  const int32_t dim = hp_.n_embd, q_dim = hp_.q_dim(), kv_dim = hp_.kv_dim(), n_ff = hp_.n_ff;
  const bool gelu = hp_.arch->activation == FfnActivation::GeluTanhGlu;
  if (max_kv == 0) max_kv = round_up(std::max(kv_capacity_, 1), kGraphKvStep);
  float* q = a_.qkv;
  float* k = q + static_cast<int64_t>(n) * q_dim;
  float* v = k + static_cast<int64_t>(n) * kv_dim;
  if (auto s = embed(n); !s) return s;
  for (int32_t l = 0; l < gpu_layers_; ++l) {
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
    if (auto s = qk_finish(L, l, q, k, v, n); !s) return s;
    if (auto s = attention_block(l, n, max_kv, false); !s) return s;
    if (L.post_attn_norm) {
      KV_CUDA_TRY(
          gemv(L.wo, a_.att, a_.xb, n, {GemvInput::Plain, nullptr, nullptr, false}, stream_));
      if (auto s = residual_add(a_.xb, L.post_attn_norm, n); !s) return s;
    } else {
      KV_CUDA_TRY(gemv(L.wo, a_.att, a_.x, n, {GemvInput::Plain, nullptr, nullptr, true}, stream_));
    }

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
    // The branch's output: straight into x, or into xb for its post-norm.
    const bool post = L.post_ffw_norm != nullptr;
    float* out = post ? a_.xb : a_.x;
    if (n <= 3 && !gelu) {  // SwiGLU fused into the read of w_down's input
      KV_CUDA_TRY(gemv(L.w_down, a_.gate_up, out, n, {GemvInput::SwiGlu, nullptr, nullptr, !post},
                       stream_));
    } else {  // more tokens (recomputing silu per row group would cost more) or GeGLU
      KV_CUDA_TRY(glu(gelu, a_.gate_up, a_.hidden, n, n_ff, stream_));
      KV_CUDA_TRY(
          gemv(L.w_down, a_.hidden, out, n, {GemvInput::Plain, nullptr, nullptr, !post}, stream_));
    }
    if (post) {
      if (auto s = residual_add(a_.xb, L.post_ffw_norm, n); !s) return s;
    }
  }
  return {};
}

// logits (rows, n_vocab) of tokens [first, first + rows) into a_.logits.
Status CudaBackend::decode_logits(int first, int rows) {
  const float* x = a_.x + static_cast<int64_t>(first) * hp_.n_embd;
  KV_CUDA_TRY(rms_scale(x, a_.scale, rows, hp_.n_embd, hp_.rms_eps, stream_));
  KV_CUDA_TRY(gemv(weights_->output, x, a_.logits, rows,
                   {GemvInput::RmsNorm, a_.scale, weights_->output_norm, false}, stream_));
  return finish_logits(rows);
}

// The final soft-cap of the logits rows in a_.logits (gemma2), when the model has one.
Status CudaBackend::finish_logits(int rows) {
  if (hp_.final_softcap > 0) {
    KV_CUDA_TRY(softcap_values(a_.logits, static_cast<int64_t>(rows) * hp_.n_vocab,
                               hp_.final_softcap, stream_));
  }
  return {};
}

// n > kGemvMaxTokens consecutive tokens through the device layers with GEMMs.
Status CudaBackend::prefill_layers(int n) {
  const int32_t dim = hp_.n_embd, q_dim = hp_.q_dim(), kv_dim = hp_.kv_dim(), n_ff = hp_.n_ff;
  const bool gelu = hp_.arch->activation == FfnActivation::GeluTanhGlu;
  float* q = a_.qkv;
  float* k = q + static_cast<int64_t>(n) * q_dim;
  float* v = k + static_cast<int64_t>(n) * kv_dim;
  if (auto s = embed(n); !s) return s;
  for (int32_t l = 0; l < gpu_layers_; ++l) {
    const DeviceLayer& L = weights_->layers[l];
    KV_CUDA_TRY(rmsnorm(a_.x, L.attn_norm, a_.xb, n, dim, hp_.rms_eps, stream_));
    if (auto s = gemm_.run(L.wq, a_.xb, n, q, q_dim, false); !s) return s;
    if (auto s = gemm_.run(L.wk, a_.xb, n, k, kv_dim, false); !s) return s;
    if (auto s = gemm_.run(L.wv, a_.xb, n, v, kv_dim, false); !s) return s;
    if (auto s = qk_finish(L, l, q, k, v, n); !s) return s;
    if (auto s = attention_block(l, n, std::max(kv_capacity_, 1), true); !s) return s;
    if (L.post_attn_norm) {
      if (auto s = gemm_.run(L.wo, a_.att, n, a_.xb, dim, false); !s) return s;
      if (auto s = residual_add(a_.xb, L.post_attn_norm, n); !s) return s;
    } else if (auto s = gemm_.run(L.wo, a_.att, n, a_.x, dim, true); !s) {  // x += wo . att
      return s;
    }

    KV_CUDA_TRY(rmsnorm(a_.x, L.ffn_norm, a_.xb, n, dim, hp_.rms_eps, stream_));
    if (L.gate_up_fused) {
      if (auto s = gemm_.run(L.w_gate_up, a_.xb, n, a_.gate_up, 2 * n_ff, false); !s) return s;
    } else {
      // Gate and up written interleaved per token: row stride 2*n_ff.
      if (auto s = gemm_.run(L.w_gate, a_.xb, n, a_.gate_up, 2 * n_ff, false); !s) return s;
      if (auto s = gemm_.run(L.w_up, a_.xb, n, a_.gate_up + n_ff, 2 * n_ff, false); !s) return s;
    }
    KV_CUDA_TRY(glu(gelu, a_.gate_up, a_.hidden, n, n_ff, stream_));
    if (L.post_ffw_norm) {
      if (auto s = gemm_.run(L.w_down, a_.hidden, n, a_.xb, dim, false); !s) return s;
      if (auto s = residual_add(a_.xb, L.post_ffw_norm, n); !s) return s;
    } else if (auto s = gemm_.run(L.w_down, a_.hidden, n, a_.x, dim, true);
               !s) {  // x += w_down . h
      return s;
    }
  }
  return {};
}

// rows x n_vocab logits from a_.logits to the caller, through pinned memory.
Status CudaBackend::copy_logits(float* dst, int rows) {
  const uint64_t bytes = static_cast<uint64_t>(rows) * hp_.n_vocab * sizeof(float);
  KV_CUDA_TRY(
      cudaMemcpyAsync(host_logits_.get(), a_.logits, bytes, cudaMemcpyDeviceToHost, stream_));
  KV_CUDA_TRY(cudaStreamSynchronize(stream_));
  std::memcpy(dst, host_logits_.get(), bytes);
  return {};
}

}  // namespace kvchat::cuda
