// Hyper-parameters of a supported GGUF architecture, read from its `{arch}.` metadata,
// with what the architecture's description (model/architecture.h) makes of them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kvchat/result.h"
#include "model/architecture.h"
#include "model/rope_table.h"

namespace kvchat {

namespace gguf {
class GgufFile;
}

struct ModelHParams {
  const ArchitectureDesc* arch = nullptr;  // never null after from_gguf
  int32_t n_layers = 0;                    // {arch}.block_count
  int32_t n_embd = 0;                      // {arch}.embedding_length (dim)
  int32_t n_heads = 0;                     // {arch}.attention.head_count
  int32_t n_kv_heads = 0;                  // {arch}.attention.head_count_kv (GQA when < n_heads)
  int32_t head_dim = 0;     // {arch}.attention.key_length (= value_length), else n_embd / n_heads
  int32_t n_ff = 0;         // {arch}.feed_forward_length (gated FFN hidden size)
  int32_t n_vocab = 0;      // rows of token_embd.weight
  int32_t n_ctx_train = 0;  // {arch}.context_length
  int32_t n_rot = 0;        // {arch}.rope.dimension_count (default head_dim)
  float rms_eps = 1e-5f;    // {arch}.attention.layer_norm_rms_epsilon
  float rope_freq_base = 10000.0f;  // {arch}.rope.freq_base
  RopeScaling rope_scaling;         // {arch}.rope.scaling.*
  float rope_freq_base_swa =
      0;  // {arch}.rope.freq_base_swa: windowed layers' base (0: the description's)

  float embed_scale = 1;       // sqrt(n_embd) for gemma
  float query_scale = 0;       // scores = (q . k) * query_scale
  float attn_softcap = 0;      // 0: none; else scores = cap * tanh(scores / cap)
  float final_softcap = 0;     // 0: none; else logits = cap * tanh(logits / cap)
  int32_t sliding_window = 0;  // {arch}.attention.sliding_window, 0 when no layer uses one
  std::vector<uint8_t>
      swa_layer;  // (n_layers) 1 = layer attends to its last sliding_window positions

  // Filled by Model::load once the weights are known (rope_freqs.weight).
  RopeTable rope_global;  // non-windowed layers
  RopeTable rope_local;   // windowed layers (gemma3: base 10000, unscaled)
  // LongRoPE only: non-windowed layers of a session whose context exceeds
  // rope_scaling.orig_ctx (rope_factors_long.weight; rope_global has the short factors).
  RopeTable rope_global_long;

  int32_t kv_dim() const { return n_kv_heads * head_dim; }  // width of one K or V row
  int32_t q_dim() const { return n_heads * head_dim; }
  bool windowed(int32_t layer) const { return swa_layer[layer] != 0; }
  // The window of layer `layer` in tokens, 0 for full attention.
  int32_t window(int32_t layer) const { return windowed(layer) ? sliding_window : 0; }
  // The table of layer `layer` in a session of n_ctx tokens (<= 0: n_ctx_train): LongRoPE
  // takes the long factors when n_ctx > rope_scaling.orig_ctx, as llama.cpp does. Backends
  // and context shift choose once per session.
  const RopeTable& rope(int32_t layer, int32_t n_ctx) const {
    if (windowed(layer)) return rope_local;
    const int32_t ctx = n_ctx > 0 ? n_ctx : n_ctx_train;
    return rope_scaling.type == RopeScalingType::LongRope && ctx > rope_scaling.orig_ctx
               ? rope_global_long
               : rope_global;
  }
  int32_t n_windowed_layers() const;

  // Appends every problem found to `problems` (messages without the file name) and
  // returns false if there was any.
  static bool from_gguf(const gguf::GgufFile& file, ModelHParams& out,
                        std::vector<std::string>& problems);
};

}  // namespace kvchat
