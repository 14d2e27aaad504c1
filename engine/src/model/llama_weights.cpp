#include "model/llama_weights.h"

#include <string>

#include "gguf/gguf_file.h"

namespace kvchat {

namespace {

std::string shape_string(const std::vector<uint64_t>& dims) {
  std::string s = "[";
  for (size_t k = 0; k < dims.size(); ++k) s += (k ? ", " : "") + std::to_string(dims[k]);
  return s + "]";
}

// Looks up `name` and checks that its GGUF dims equal [cols] (vector) or [cols, rows].
Result<WeightView> view(const gguf::GgufFile& f, const std::string& name, int64_t rows,
                        int64_t cols, bool vector) {
  const gguf::TensorInfo* t = f.find_tensor(name);
  if (!t) return Error{f.name() + ": missing required tensor '" + name + "'"};
  std::vector<uint64_t> want = vector ? std::vector<uint64_t>{uint64_t(cols)}
                                      : std::vector<uint64_t>{uint64_t(cols), uint64_t(rows)};
  if (t->dims != want) {
    return Error{f.name() + ": tensor '" + name + "' has shape " + shape_string(t->dims) +
                 ", expected " + shape_string(want)};
  }
  if (vector && t->type != gguf::TensorType::F32) {
    return Error{f.name() + ": tensor '" + name + "' must be F32, got " +
                 std::string(gguf::tensor_type_name(t->type))};
  }
  WeightView w;
  w.type = t->type;
  w.data = f.tensor_data(*t);
  w.rows = vector ? 1 : rows;
  w.cols = cols;
  w.row_bytes = t->n_bytes / w.rows;
  return w;
}

}  // namespace

Result<LlamaWeights> LlamaWeights::from_gguf(const gguf::GgufFile& f, LlamaHParams& hp) {
  LlamaWeights w;
  const gguf::TensorInfo* embd = f.find_tensor("token_embd.weight");
  if (!embd) return Error{f.name() + ": missing required tensor 'token_embd.weight'"};
  if (embd->dims.size() != 2 || embd->dims[0] != uint64_t(hp.n_embd) || embd->dims[1] > (1u << 24)) {
    return Error{f.name() + ": tensor 'token_embd.weight' has shape " + shape_string(embd->dims) +
                 ", expected [" + std::to_string(hp.n_embd) + ", n_vocab]"};
  }
  hp.n_vocab = static_cast<int32_t>(embd->dims[1]);
  const int64_t dim = hp.n_embd, q = hp.q_dim(), kv = hp.kv_dim(), ff = hp.n_ff, nv = hp.n_vocab;

#define KV_VIEW(dst, name, rows, cols, vec)                    \
  do {                                                         \
    auto r_ = view(f, name, rows, cols, vec);                  \
    if (!r_) return r_.error();                                \
    dst = r_.value();                                          \
  } while (0)

  KV_VIEW(w.token_embd, "token_embd.weight", nv, dim, false);
  KV_VIEW(w.output_norm, "output_norm.weight", 1, dim, true);
  if (f.find_tensor("output.weight")) {
    KV_VIEW(w.output, "output.weight", nv, dim, false);
  } else {
    w.output = w.token_embd;
    w.tied_embeddings = true;
  }
  w.layers.resize(hp.n_layers);
  for (int l = 0; l < hp.n_layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    LlamaLayerWeights& L = w.layers[l];
    KV_VIEW(L.attn_norm, p + "attn_norm.weight", 1, dim, true);
    KV_VIEW(L.wq, p + "attn_q.weight", q, dim, false);
    KV_VIEW(L.wk, p + "attn_k.weight", kv, dim, false);
    KV_VIEW(L.wv, p + "attn_v.weight", kv, dim, false);
    KV_VIEW(L.wo, p + "attn_output.weight", dim, q, false);
    KV_VIEW(L.ffn_norm, p + "ffn_norm.weight", 1, dim, true);
    KV_VIEW(L.w_gate, p + "ffn_gate.weight", ff, dim, false);
    KV_VIEW(L.w_up, p + "ffn_up.weight", ff, dim, false);
    KV_VIEW(L.w_down, p + "ffn_down.weight", dim, ff, false);
  }
#undef KV_VIEW
  return w;
}

}  // namespace kvchat
