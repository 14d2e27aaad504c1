// Views of the llama weights inside the mapped GGUF (no copies).
// Shapes are written (rows, cols): a matrix has `rows` rows of `cols` values; the
// GGUF dims are [cols, rows]. Matrix-vector products compute y[r] = dot(W[r,:], x).
#pragma once

#include <cstdint>
#include <vector>

#include "gguf/tensor_type.h"
#include "kvchat/result.h"
#include "model/llama_hparams.h"

namespace kvchat {

namespace gguf {
class GgufFile;
}

struct WeightView {
  gguf::TensorType type = gguf::TensorType::F32;
  const uint8_t* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  uint64_t row_bytes = 0;  // bytes of one row in `type`

  const uint8_t* row(int64_t r) const { return data + r * row_bytes; }
};

struct LlamaLayerWeights {
  WeightView attn_norm;  // (dim)                       f32 RMSNorm gain
  WeightView wq;         // (n_heads*head_dim, dim)
  WeightView wk;         // (n_kv_heads*head_dim, dim)
  WeightView wv;         // (n_kv_heads*head_dim, dim)
  WeightView wo;         // (dim, n_heads*head_dim)
  WeightView ffn_norm;   // (dim)
  WeightView w_gate;     // (n_ff, dim)                  SwiGLU gate (w1)
  WeightView w_up;       // (n_ff, dim)                  SwiGLU up (w3)
  WeightView w_down;     // (dim, n_ff)                  (w2)
};

struct LlamaWeights {
  WeightView token_embd;             // (n_vocab, dim)
  std::vector<LlamaLayerWeights> layers;  // (n_layers)
  WeightView output_norm;            // (dim)
  WeightView output;                 // (n_vocab, dim); == token_embd when tied
  bool tied_embeddings = false;

  // Finds every tensor, checks its type and shape against hp; errors name the tensor.
  static Result<LlamaWeights> from_gguf(const gguf::GgufFile& file, LlamaHParams& hp);
};

}  // namespace kvchat
