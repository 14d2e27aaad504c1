#include "model/model_weights.h"

#include <algorithm>
#include <string>

#include "gguf/gguf_file.h"

namespace kvchat {

namespace {

std::string shape_string(const std::vector<uint64_t>& dims) {
  std::string s = "[";
  for (size_t k = 0; k < dims.size(); ++k) s += (k ? ", " : "") + std::to_string(dims[k]);
  return s + "]";
}

class WeightFinder {
 public:
  WeightFinder(const gguf::GgufFile& f, std::vector<std::string>& problems,
               const std::vector<std::string>& skip)
      : f_(f), problems_(problems), skip_(skip) {}

  // `name` with GGUF dims [cols] (vector) or [cols, rows]; a problem when it is absent
  // and required or has another shape. Vectors must be F32.
  WeightView find(const std::string& name, int64_t rows, int64_t cols, bool vector,
                  bool required = true) {
    if (std::find(skip_.begin(), skip_.end(), name) != skip_.end()) return {};
    const gguf::TensorInfo* t = f_.find_tensor(name);
    if (!t) {
      if (required) problems_.push_back("missing required tensor '" + name + "'");
      return {};
    }
    std::vector<uint64_t> want = vector ? std::vector<uint64_t>{uint64_t(cols)}
                                        : std::vector<uint64_t>{uint64_t(cols), uint64_t(rows)};
    if (t->dims != want) {
      problems_.push_back("tensor '" + name + "' has shape " + shape_string(t->dims) +
                          ", expected " + shape_string(want));
      return {};
    }
    if (vector && t->type != gguf::TensorType::F32) {
      problems_.push_back("tensor '" + name + "' must be F32, got " +
                          std::string(gguf::tensor_type_name(t->type)));
      return {};
    }
    WeightView w;
    w.type = t->type;
    w.data = f_.tensor_data(*t);
    w.rows = vector ? 1 : rows;
    w.cols = cols;
    w.row_bytes = t->n_bytes / w.rows;
    return w;
  }

 private:
  const gguf::GgufFile& f_;
  std::vector<std::string>& problems_;
  const std::vector<std::string>& skip_;
};

// Rows [first, first + n) of a matrix view.
WeightView row_range(const WeightView& w, int64_t first, int64_t n) {
  if (!w) return w;
  WeightView r = w;
  r.data = w.row(first);
  r.rows = n;
  return r;
}

}  // namespace

bool ModelWeights::from_gguf(const gguf::GgufFile& f, ModelHParams& hp, ModelWeights& w,
                             std::vector<std::string>& problems,
                             const std::vector<std::string>& skip) {
  const size_t problems_before = problems.size();
  const ArchitectureDesc& a = *hp.arch;
  const bool embd_skipped = std::find(skip.begin(), skip.end(), "token_embd.weight") != skip.end();
  const gguf::TensorInfo* embd = f.find_tensor("token_embd.weight");
  if (!embd && !embd_skipped) {
    problems.push_back("missing required tensor 'token_embd.weight'");
  } else if (embd && (embd->dims.size() != 2 || embd->dims[0] != uint64_t(hp.n_embd) ||
                      embd->dims[1] > (1u << 24))) {
    problems.push_back("tensor 'token_embd.weight' has shape " + shape_string(embd->dims) +
                       ", expected [" + std::to_string(hp.n_embd) + ", n_vocab]");
    embd = nullptr;
  }
  if (embd) hp.n_vocab = static_cast<int32_t>(embd->dims[1]);
  const int64_t dim = hp.n_embd, q = hp.q_dim(), kv = hp.kv_dim(), ff = hp.n_ff, nv = hp.n_vocab;
  const int64_t hd = hp.head_dim;
  WeightFinder find(f, problems, skip);

  if (embd) w.token_embd = find.find("token_embd.weight", nv, dim, false);
  w.output_norm = find.find("output_norm.weight", 1, dim, true);
  if (f.find_tensor("output.weight") && embd) {
    w.output = find.find("output.weight", nv, dim, false);
  } else {
    w.output = w.token_embd;
    w.tied_embeddings = true;
  }
  w.rope_freqs = find.find("rope_freqs.weight", 1, hp.n_rot / 2, true, false);
  // LongRoPE (Phi-3 128k, Phi-3.5): both factor tensors or neither; the converter writes no
  // rope.scaling.type for it, so the tensors say it.
  const bool has_long = f.find_tensor("rope_factors_long.weight") != nullptr;
  const bool has_short = f.find_tensor("rope_factors_short.weight") != nullptr;
  if (has_long != has_short) {
    problems.push_back(
        "LongRoPE needs both rope_factors_long.weight and rope_factors_short.weight");
  } else if (has_long) {
    w.rope_factors_long = find.find("rope_factors_long.weight", 1, hp.n_rot / 2, true);
    w.rope_factors_short = find.find("rope_factors_short.weight", 1, hp.n_rot / 2, true);
    if (hp.rope_scaling.type != RopeScalingType::None || w.rope_freqs) {
      problems.push_back("LongRoPE factors together with other rope scaling are not supported");
    } else {
      hp.rope_scaling.type = RopeScalingType::LongRope;
      // Without original_context_length the trained context is the switch point.
      if (hp.rope_scaling.orig_ctx <= 0) hp.rope_scaling.orig_ctx = hp.n_ctx_train;
    }
  }

  w.layers.resize(hp.n_layers);
  for (int l = 0; l < hp.n_layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    ModelLayerWeights& L = w.layers[l];
    L.attn_norm = find.find(p + "attn_norm.weight", 1, dim, true);
    if (a.fused_qkv) {
      const WeightView qkv = find.find(p + "attn_qkv.weight", q + 2 * kv, dim, false);
      L.wq = row_range(qkv, 0, q);
      L.wk = row_range(qkv, q, kv);
      L.wv = row_range(qkv, q + kv, kv);
    } else {
      L.wq = find.find(p + "attn_q.weight", q, dim, false);
      L.wk = find.find(p + "attn_k.weight", kv, dim, false);
      L.wv = find.find(p + "attn_v.weight", kv, dim, false);
    }
    if (a.qkv_bias) {
      L.bq = find.find(p + "attn_q.bias", 1, q, true);
      L.bk = find.find(p + "attn_k.bias", 1, kv, true);
      L.bv = find.find(p + "attn_v.bias", 1, kv, true);
    }
    if (a.qk_norm) {
      L.q_norm = find.find(p + "attn_q_norm.weight", 1, hd, true);
      L.k_norm = find.find(p + "attn_k_norm.weight", 1, hd, true);
    }
    L.wo = find.find(p + "attn_output.weight", dim, q, false);
    if (a.post_norms) L.post_attn_norm = find.find(p + "post_attention_norm.weight", 1, dim, true);
    L.ffn_norm = find.find(p + "ffn_norm.weight", 1, dim, true);
    if (a.fused_gate_up) {
      const WeightView gate_up = find.find(p + "ffn_up.weight", 2 * ff, dim, false);
      L.w_gate = row_range(gate_up, 0, ff);
      L.w_up = row_range(gate_up, ff, ff);
    } else {
      L.w_gate = find.find(p + "ffn_gate.weight", ff, dim, false);
      L.w_up = find.find(p + "ffn_up.weight", ff, dim, false);
    }
    L.w_down = find.find(p + "ffn_down.weight", dim, ff, false);
    if (a.post_norms) L.post_ffw_norm = find.find(p + "post_ffw_norm.weight", 1, dim, true);
  }
  return problems.size() == problems_before;
}

}  // namespace kvchat
