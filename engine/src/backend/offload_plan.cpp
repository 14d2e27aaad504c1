#include "backend/offload_plan.h"

#include <algorithm>
#include <cstdio>

#include "kv/memory_plan.h"
#include "model/model_hparams.h"
#include "model/model_weights.h"

namespace kvchat {

namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kMinReserve = 256 * kMiB;
// What the CUDA backend sizes its scratch for (backend/cuda/cuda_backend.cpp): prefill
// chunks of this many tokens, this many logits rows per pass, decode batches of up to
// this many tokens, the attention grid's KV step and its partition length.
constexpr uint64_t kPrefillTokens = 1024;
constexpr uint64_t kLogitRows = 64;
constexpr uint64_t kDecodeTokens = 8;
constexpr uint64_t kKvStep = 1024;
constexpr uint64_t kPartitionTokens = 256;
constexpr uint64_t kCublasWorkspace = 32 * kMiB;  // cuBLAS' own workspace and handles

uint64_t view_bytes(const WeightView& w) {
  return w ? static_cast<uint64_t>(w.rows) * w.row_bytes : 0;
}

bool needs_dequant_tile(const WeightView& w) {
  return w && w.type != gguf::TensorType::F32 && w.type != gguf::TensorType::F16 &&
         w.type != gguf::TensorType::BF16;
}

uint64_t matrix_values(const WeightView& w) {
  return static_cast<uint64_t>(w.rows) * static_cast<uint64_t>(w.cols);
}

uint64_t round_up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

std::string layers_text(const OffloadPlan& p) {
  return std::to_string(p.gpu_layers) + " of " + std::to_string(p.n_layers) + " layers";
}

std::string summary_of(const OffloadPlan& p) {
  const std::string free_text = gib_text(p.device_free_bytes) + " free";
  if (p.gpu_layers == 0) {
    return p.requested ? "0 of " + std::to_string(p.n_layers) +
                             " layers on the GPU (asked for): everything runs on the CPU"
                       : "0 of " + std::to_string(p.n_layers) + " layers on the GPU: " + free_text +
                             " is not enough for the embeddings and one layer";
  }
  std::string s = layers_text(p) + " on the GPU: " + gib_text(p.device_weight_bytes) +
                  " weights + " + gib_text(p.device_kv_bytes) + " KV of " + free_text;
  if (!p.fits) {
    s += " (does not fit: needs " + gib_text(p.device_total_bytes()) +
         " with scratch and head-room)";
  }
  return s;
}

}  // namespace

uint64_t layer_weight_bytes(const ModelLayerWeights& l) {
  uint64_t b = 0;
  for (const WeightView* w :
       {&l.attn_norm, &l.wq, &l.wk, &l.wv, &l.bq, &l.bk, &l.bv, &l.q_norm, &l.k_norm, &l.wo,
        &l.post_attn_norm, &l.ffn_norm, &l.w_gate, &l.w_up, &l.w_down, &l.post_ffw_norm}) {
    b += view_bytes(*w);
  }
  return b;
}

OffloadShape offload_shape(const ModelHParams& hp, const ModelWeights& w) {
  OffloadShape s;
  s.n_layers = hp.n_layers;
  s.n_embd = hp.n_embd;
  s.n_heads = hp.n_heads;
  s.n_kv_heads = hp.n_kv_heads;
  s.head_dim = hp.head_dim;
  s.n_ff = hp.n_ff;
  s.n_vocab = hp.n_vocab;
  s.n_rot = hp.n_rot;
  s.tied_embeddings = w.tied_embeddings;
  s.token_embd_bytes = view_bytes(w.token_embd);
  s.output_bytes = view_bytes(w.output_norm) + (w.tied_embeddings ? 0 : view_bytes(w.output));
  for (const ModelLayerWeights& l : w.layers) {
    s.layer_weight_bytes.push_back(layer_weight_bytes(l));
    for (const WeightView* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) {
      if (needs_dequant_tile(*m)) {
        s.largest_quantized_matrix_values =
            std::max(s.largest_quantized_matrix_values, matrix_values(*m));
      }
    }
  }
  const WeightView& output = w.tied_embeddings ? w.token_embd : w.output;
  if (needs_dequant_tile(output)) s.quantized_output_values = matrix_values(output);
  s.layer_weight_bytes.resize(static_cast<size_t>(std::max(0, hp.n_layers)), 0);
  s.windowed.assign(static_cast<size_t>(std::max(0, hp.n_layers)), 0);
  for (size_t i = 0; i < hp.swa_layer.size() && i < s.windowed.size(); ++i) {
    s.windowed[i] = hp.swa_layer[i];
  }
  s.window = hp.sliding_window;
  return s;
}

uint64_t layer_kv_tokens(const OffloadShape& shape, int32_t layer, int32_t n_ctx) {
  const uint64_t block = kDefaultKvBlockTokens;
  uint64_t tokens = static_cast<uint64_t>(std::max(0, n_ctx));
  const bool windowed = shape.window > 0 && shape.window_slack >= 0 &&
                        layer < static_cast<int32_t>(shape.windowed.size()) &&
                        shape.windowed[layer] != 0;
  if (windowed) {
    tokens = std::min<uint64_t>(
        tokens, static_cast<uint64_t>(shape.window) + static_cast<uint64_t>(shape.window_slack));
  }
  return round_up(tokens, block);
}

uint64_t layer_kv_bytes(const OffloadShape& shape, int32_t layer, int32_t n_ctx, KvType kv_type) {
  // The DESIGN.md formula memory_plan uses, for one layer.
  return kv_cache_bytes(kv_type, 1, layer_kv_tokens(shape, layer, n_ctx),
                        static_cast<uint64_t>(shape.n_kv_heads),
                        static_cast<uint64_t>(shape.head_dim));
}

uint64_t device_scratch_estimate(const OffloadShape& s, int32_t n_ctx, int32_t gpu_layers) {
  if (gpu_layers <= 0) return 0;
  const uint64_t B = kPrefillTokens, dim = static_cast<uint64_t>(s.n_embd),
                 q_dim = static_cast<uint64_t>(s.n_heads) * static_cast<uint64_t>(s.head_dim),
                 kv_dim = static_cast<uint64_t>(s.n_kv_heads) * static_cast<uint64_t>(s.head_dim),
                 n_ff = static_cast<uint64_t>(s.n_ff),
                 ctx = static_cast<uint64_t>(std::max(0, n_ctx));
  // Activations of one prefill chunk: x, xb (dim), q|k|v, attention out (q_dim), gate|up
  // and hidden (3 n_ff), a scale; the logits rows; the RoPE cos/sin table (ctx, n_rot/2).
  const uint64_t floats = B * (2 * dim + q_dim + 2 * kv_dim + q_dim + 3 * n_ff + 1) +
                          kLogitRows * static_cast<uint64_t>(s.n_vocab) +
                          2 * ctx * static_cast<uint64_t>(s.n_rot / 2);
  // Decode attention partials: per token and head, one (head_dim + 2) f32 record per
  // partition of the KV grid.
  const uint64_t partitions = round_up(ctx + 4096, kKvStep) / kPartitionTokens;
  const uint64_t partials = kDecodeTokens * static_cast<uint64_t>(s.n_heads) * partitions *
                            (static_cast<uint64_t>(s.head_dim) + 2) * 4;
  // f16 tiles: x rounded to f16 for the GEMMs, one dequantized matrix.
  const uint64_t x16 = B * std::max({dim, n_ff, q_dim}) * 2;
  const uint64_t w16 =
      std::max(s.largest_quantized_matrix_values,
               gpu_layers >= s.n_layers ? s.quantized_output_values : uint64_t{0}) *
      2;
  return floats * 4 + 2 * B * 4 + partials + x16 + w16 + kCublasWorkspace;
}

uint64_t device_reserve(uint64_t device_free_bytes) {
  return std::max(kMinReserve, device_free_bytes / 20);
}

WeightSplit split_weights(const OffloadShape& s, int32_t g) {
  WeightSplit w;
  uint64_t layers_before = 0, layers_after = 0;
  for (int32_t l = 0; l < s.n_layers; ++l) {
    (l < g ? layers_before : layers_after) += s.layer_weight_bytes[l];
  }
  if (g <= 0) {
    w.host = s.token_embd_bytes + layers_after + s.output_bytes;
    return w;
  }
  w.device = s.token_embd_bytes + layers_before + (g >= s.n_layers ? s.output_bytes : 0);
  // The host runs the rest and the logits (from token_embd when tied).
  if (g < s.n_layers) {
    w.host = layers_after + s.output_bytes + (s.tied_embeddings ? s.token_embd_bytes : 0);
  }
  return w;
}

OffloadPlan plan_offload(const OffloadShape& s, int32_t n_ctx, KvType kv_type,
                         uint64_t device_free_bytes, int32_t requested_gpu_layers) {
  OffloadPlan p;
  p.n_layers = std::max(0, s.n_layers);
  p.requested = requested_gpu_layers >= 0;
  p.device_free_bytes = device_free_bytes;
  p.device_reserve_bytes = device_reserve(device_free_bytes);
  // kv_before[g]: the KV of layers [0, g).
  std::vector<uint64_t> kv_before(static_cast<size_t>(p.n_layers) + 1, 0);
  for (int32_t l = 0; l < p.n_layers; ++l) {
    kv_before[l + 1] = kv_before[l] + layer_kv_bytes(s, l, n_ctx, kv_type);
  }
  auto device_total = [&](int32_t g) -> uint64_t {
    if (g == 0) return 0;
    return split_weights(s, g).device + kv_before[g] + device_scratch_estimate(s, n_ctx, g) +
           p.device_reserve_bytes;
  };
  int32_t g = 0;
  if (p.requested) {
    g = std::min(requested_gpu_layers, p.n_layers);
  } else {
    // The device total grows with g: the largest fitting one.
    while (g < p.n_layers && device_total(g + 1) <= device_free_bytes) ++g;
  }
  p.gpu_layers = g;
  const WeightSplit w = split_weights(s, g);
  p.device_weight_bytes = w.device;
  p.host_weight_bytes = w.host;
  p.device_kv_bytes = kv_before[g];
  p.host_kv_bytes = kv_before[p.n_layers] - kv_before[g];
  p.device_scratch_bytes = device_scratch_estimate(s, n_ctx, g);
  p.fits = device_total(g) <= device_free_bytes;
  p.summary = summary_of(p);
  return p;
}

OffloadPlan plan_offload(const ModelHParams& hp, const ModelWeights& weights, int32_t n_ctx,
                         KvType kv_type, uint64_t device_free_bytes, int32_t requested_gpu_layers) {
  return plan_offload(offload_shape(hp, weights), n_ctx, kv_type, device_free_bytes,
                      requested_gpu_layers);
}

std::string gib_text(uint64_t bytes) {
  char buf[32];
  if (bytes < (1ull << 30)) {
    std::snprintf(buf, sizeof buf, "%.0f MiB", static_cast<double>(bytes) / kMiB);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  }
  return buf;
}

}  // namespace kvchat
