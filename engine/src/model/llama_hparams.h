// Hyper-parameters of the GGUF "llama" architecture, read from metadata.
#pragma once

#include <cstdint>

#include "kvchat/result.h"

namespace kvchat {

namespace gguf {
class GgufFile;
}

struct LlamaHParams {
  int32_t n_layers = 0;     // llama.block_count
  int32_t n_embd = 0;       // llama.embedding_length (dim)
  int32_t n_heads = 0;      // llama.attention.head_count
  int32_t n_kv_heads = 0;   // llama.attention.head_count_kv (GQA when < n_heads)
  int32_t head_dim = 0;     // n_embd / n_heads
  int32_t n_ff = 0;         // llama.feed_forward_length (SwiGLU hidden size)
  int32_t n_vocab = 0;      // rows of token_embd.weight
  int32_t n_ctx_train = 0;  // llama.context_length
  int32_t n_rot = 0;        // llama.rope.dimension_count (default head_dim)
  float rms_eps = 1e-5f;    // llama.attention.layer_norm_rms_epsilon
  float rope_freq_base = 10000.0f;  // llama.rope.freq_base

  int32_t kv_dim() const { return n_kv_heads * head_dim; }  // width of one K or V row
  int32_t q_dim() const { return n_heads * head_dim; }

  static Result<LlamaHParams> from_gguf(const gguf::GgufFile& file);
};

}  // namespace kvchat
