// Views of a model's weights inside the mapped GGUF (no copies), for every supported
// architecture: optional tensors are null views (data == nullptr) when the architecture
// has none; fused tensors (phi3's attn_qkv, gate|up) are split into row ranges here, so
// the forward passes see separate q/k/v and gate/up matrices whatever the file holds.
// Shapes are written (rows, cols): a matrix has `rows` rows of `cols` values; the
// GGUF dims are [cols, rows]. Matrix-vector products compute y[r] = dot(W[r,:], x).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gguf/tensor_type.h"
#include "kvchat/result.h"
#include "model/model_hparams.h"

namespace kvchat {

namespace gguf {
class GgufFile;
}

struct WeightView {
  gguf::TensorType type = gguf::TensorType::F32;
  const uint8_t* data = nullptr;  // null: the tensor is absent (optional)
  int64_t rows = 0;
  int64_t cols = 0;
  uint64_t row_bytes = 0;  // bytes of one row in `type`
  // Rows interleaved in groups of 8 (backend/cpu/repack.h: the CPU backend's own copy);
  // then row() is not a row: only the repacked kernels read such a view.
  bool repacked = false;

  const uint8_t* row(int64_t r) const { return data + r * row_bytes; }
  explicit operator bool() const { return data != nullptr; }
  const float* f32() const { return reinterpret_cast<const float*>(data); }
};

struct ModelLayerWeights {
  WeightView attn_norm;       // (dim)                       f32 RMSNorm gain
  WeightView wq;              // (n_heads*head_dim, dim)
  WeightView wk;              // (n_kv_heads*head_dim, dim)
  WeightView wv;              // (n_kv_heads*head_dim, dim)
  WeightView bq, bk, bv;      // (n_heads*head_dim), (kv_dim), (kv_dim)  f32 biases (qwen2)
  WeightView q_norm, k_norm;  // (head_dim)                  f32 per-head RMSNorm (qwen3, gemma3)
  WeightView wo;              // (dim, n_heads*head_dim)
  WeightView post_attn_norm;  // (dim)                       f32 (gemma2/3)
  WeightView ffn_norm;        // (dim)
  WeightView w_gate;          // (n_ff, dim)                  gate (w1)
  WeightView w_up;            // (n_ff, dim)                  up (w3)
  WeightView w_down;          // (dim, n_ff)                  (w2)
  WeightView post_ffw_norm;   // (dim)                       f32 (gemma2/3)
};

struct ModelWeights {
  WeightView token_embd;                  // (n_vocab, dim)
  std::vector<ModelLayerWeights> layers;  // (n_layers)
  WeightView output_norm;                 // (dim)
  WeightView output;                      // (n_vocab, dim); == token_embd when tied
  WeightView rope_freqs;                  // (n_rot/2) f32 Llama 3 frequency factors, optional
  WeightView rope_factors_short;  // (n_rot/2) f32 LongRoPE divisors up to orig_ctx, optional
  WeightView rope_factors_long;   // (n_rot/2) f32 LongRoPE divisors beyond orig_ctx (with short)
  bool tied_embeddings = false;

  // Finds every tensor the architecture needs, checks its type and shape against hp
  // (and sets hp.n_vocab); appends one problem per missing or malformed tensor, naming
  // it, and returns false if there was any. Tensors named in `skip` (of an unsupported
  // type, already reported) are neither viewed nor reported missing.
  static bool from_gguf(const gguf::GgufFile& file, ModelHParams& hp, ModelWeights& out,
                        std::vector<std::string>& problems,
                        const std::vector<std::string>& skip = {});
};

}  // namespace kvchat
