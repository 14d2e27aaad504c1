#include "model/synthetic_model.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>
#include <utility>
#include <vector>
#include <algorithm>

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "model/architecture.h"
#include "model/model_presets.h"
#include "model/rope_table.h"
#include "numeric/convert.h"

namespace kvchat {

namespace {

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform values in [-scale, scale], encoded as `type`. Each row has its own random
// stream (seeded by seed and row index), so rows are generated in parallel: an 8B-shape
// model takes seconds on a many-core machine, not minutes.
gguf::GgufWriter::Filler random_matrix(gguf::TensorType type, int64_t cols, float scale,
                                       uint64_t seed) {
  return [=](uint8_t* dst, uint64_t n_bytes) {
    const auto traits = *gguf::tensor_type_traits(static_cast<uint32_t>(type));
    const uint64_t per_row = cols / traits.block_elements * traits.block_bytes;
    const int64_t n_rows = static_cast<int64_t>(n_bytes / per_row);
    auto fill_rows = [&](int64_t r0, int64_t r1) {
      std::vector<float> row(cols);
      for (int64_t r = r0; r < r1; ++r) {
        uint64_t state = seed * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(r);
        for (int64_t i = 0; i < cols; ++i) {
          const double u = (splitmix64(state) >> 11) * 0x1.0p-53;  // [0, 1)
          row[i] = static_cast<float>((2 * u - 1) * scale);
        }
        quantize_row(type, row.data(), dst + r * per_row, cols);
      }
    };
    const int64_t n_threads =
        n_bytes < (8u << 20) ? 1 : std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> threads;
    for (int64_t t = 1; t < n_threads; ++t) {
      threads.emplace_back(fill_rows, n_rows * t / n_threads, n_rows * (t + 1) / n_threads);
    }
    fill_rows(0, n_rows / n_threads);
    for (std::thread& t : threads) t.join();
  };
}

// n f32 values uniform in [center - spread, center + spread] (exactly center when spread is 0).
gguf::GgufWriter::Filler uniform_vector(int64_t n, float center, float spread, uint64_t seed) {
  return [=](uint8_t* dst, uint64_t) {
    std::vector<float> v(n, center);
    uint64_t state = seed * 0x9e3779b97f4a7c15ull + 12345;
    for (int64_t i = 0; i < n && spread != 0; ++i) {
      const double u = (splitmix64(state) >> 11) * 0x1.0p-53;
      v[i] = static_cast<float>(center + (2 * u - 1) * spread);
    }
    std::memcpy(dst, v.data(), n * sizeof(float));
  };
}

// <unk>, <s>, </s>, 256 byte pieces, then "▁" + letters pieces with descending scores.
void write_vocab(gguf::GgufWriter& w, int n_vocab) {
  std::vector<std::string> pieces = {"<unk>", "<s>", "</s>"};
  std::vector<int32_t> types = {2, 3, 3};
  char buf[8];
  for (int b = 0; b < 256; ++b) {
    std::snprintf(buf, sizeof buf, "<0x%02X>", b);
    pieces.push_back(buf);
    types.push_back(6);
  }
  const std::string alphabet = "etaoinshrdlucmfwypvbgkqjxz";
  for (char c : alphabet) pieces.push_back(std::string(1, c)), types.push_back(1);
  pieces.push_back("\xe2\x96\x81"), types.push_back(1);  // "▁"
  for (int k = 0; static_cast<int>(pieces.size()) < n_vocab; ++k) {
    // Distinct pieces "▁" + base-26 spelling of k.
    std::string s = "\xe2\x96\x81";
    int x = k;
    do {
      s += alphabet[x % 26];
      x /= 26;
    } while (x > 0);
    pieces.push_back(s);
    types.push_back(1);
  }
  std::vector<float> scores(pieces.size());
  for (size_t i = 0; i < scores.size(); ++i) scores[i] = types[i] == 1 ? -static_cast<float>(i) : 0;
  w.set_string("tokenizer.ggml.model", "llama");
  w.set_strings("tokenizer.ggml.tokens", pieces);
  w.set_f32s("tokenizer.ggml.scores", scores);
  w.set_i32s("tokenizer.ggml.token_type", types);
  w.set_u32("tokenizer.ggml.bos_token_id", 1);
  w.set_u32("tokenizer.ggml.eos_token_id", 2);
  w.set_u32("tokenizer.ggml.unknown_token_id", 0);
  w.set_bool("tokenizer.ggml.add_bos_token", true);
}

// The model's dimensions: n_embd, query heads x head_dim, KV heads x head_dim, n_ff,
// n_vocab, head_dim.
struct Shape {
  int64_t dim, q, kv, ff, nv, hd;
};

// general.* and the {arch}.* hyperparameters up to the RoPE dimension count.
void write_hparams(gguf::GgufWriter& w, const SyntheticModelSpec& spec, const ArchitectureDesc& a,
                   int64_t hd) {
  const std::string ap = spec.arch + ".";
  w.set_string("general.architecture", spec.arch);
  const std::string_view type_name = spec.mix == WeightMix::Uniform
                                         ? gguf::tensor_type_name(spec.type)
                                         : weight_mix_name(spec.mix);
  w.set_string("general.name", spec.name + "-random-" + std::string(type_name));
  w.set_u32(ap + "block_count", static_cast<uint32_t>(spec.n_layers));
  w.set_u32(ap + "context_length", static_cast<uint32_t>(spec.n_ctx));
  w.set_u32(ap + "embedding_length", static_cast<uint32_t>(spec.n_embd));
  w.set_u32(ap + "feed_forward_length", static_cast<uint32_t>(spec.n_ff));
  w.set_u32(ap + "attention.head_count", static_cast<uint32_t>(spec.n_heads));
  w.set_u32(ap + "attention.head_count_kv", static_cast<uint32_t>(spec.n_kv_heads));
  if (spec.head_dim > 0) {
    w.set_u32(ap + "attention.key_length", static_cast<uint32_t>(hd));
    w.set_u32(ap + "attention.value_length", static_cast<uint32_t>(hd));
  }
  w.set_f32(ap + "attention.layer_norm_rms_epsilon", a.embed_scale_sqrt_dim ? 1e-6f : 1e-5f);
  w.set_f32(ap + "rope.freq_base", spec.rope_base);
  w.set_u32(ap + "rope.dimension_count", static_cast<uint32_t>(hd));
}

// The rope.scaling.* keys; returns the scaling they describe (factor and original context
// of linear, yarn and llama3; the defaults for none and longrope).
RopeScaling write_rope_scaling(gguf::GgufWriter& w, const SyntheticModelSpec& spec) {
  const std::string ap = spec.arch + ".";
  RopeScaling scaling;
  if (spec.rope_scaling == "longrope") {
    // As convert_hf_to_gguf's Phi-3: no type, no factor; the tensors below say LongRoPE.
    const double orig = spec.rope_orig_ctx > 0 ? spec.rope_orig_ctx : spec.n_ctx;
    const double scale = spec.n_ctx / orig;
    w.set_u32(ap + "rope.scaling.original_context_length", static_cast<uint32_t>(orig));
    w.set_f32(
        ap + "rope.scaling.attn_factor",
        scale > 1 ? static_cast<float>(std::sqrt(1 + std::log(scale) / std::log(orig))) : 1.0f);
  } else if (!spec.rope_scaling.empty()) {
    w.set_string(ap + "rope.scaling.type", spec.rope_scaling);
    w.set_f32(ap + "rope.scaling.factor", spec.rope_factor);
    scaling.factor = spec.rope_factor;
    scaling.orig_ctx = spec.rope_orig_ctx > 0 ? spec.rope_orig_ctx : spec.n_ctx;
    if (spec.rope_orig_ctx > 0) {
      w.set_u32(ap + "rope.scaling.original_context_length",
                static_cast<uint32_t>(spec.rope_orig_ctx));
    }
    if (spec.rope_scaling == "llama3") {
      w.set_f32(ap + "rope.scaling.low_freq_factor", scaling.llama3_low_freq_factor);
      w.set_f32(ap + "rope.scaling.high_freq_factor", scaling.llama3_high_freq_factor);
    }
  }
  return scaling;
}

// The sliding window, its pattern and the softcaps.
void write_attention_extras(gguf::GgufWriter& w, const SyntheticModelSpec& spec,
                            const ArchitectureDesc& a) {
  const std::string ap = spec.arch + ".";
  if (a.swa_pattern > 0) {
    w.set_u32(ap + "attention.sliding_window",
              static_cast<uint32_t>(spec.sliding_window > 0 ? spec.sliding_window : 4096));
  }
  if (spec.swa_pattern.size() == 1) {
    w.set_u32(ap + "attention.sliding_window_pattern",
              static_cast<uint32_t>(spec.swa_pattern.front()));
  } else if (!spec.swa_pattern.empty()) {
    std::vector<bool> windowed;
    for (int32_t v : spec.swa_pattern) windowed.push_back(v != 0);
    w.set_bools(ap + "attention.sliding_window_pattern", windowed);
  }
  if (spec.attn_softcap > 0) w.set_f32(ap + "attn_logit_softcapping", spec.attn_softcap);
  if (spec.final_softcap > 0) w.set_f32(ap + "final_logit_softcapping", spec.final_softcap);
}

// The RoPE factor tensors: rope_freqs.weight (hd/2) for llama3 scaling, and for longrope
// rope_factors_long/short.weight (hd/2 each): short 1 + 0.1 t, long 1 + 39 t^2,
// t = i / (hd/2 - 1): like Phi-3.5's.
void add_rope_factors(gguf::GgufWriter& w, const SyntheticModelSpec& spec, int64_t hd,
                      const RopeScaling& scaling) {
  if (spec.rope_scaling == "llama3") {
    const std::vector<float> factors =
        llama3_freq_factors(static_cast<int32_t>(hd), spec.rope_base, scaling);
    w.add_tensor("rope_freqs.weight", {uint64_t(factors.size())}, gguf::TensorType::F32,
                 std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(factors.data()),
                                          factors.size() * sizeof(float)));
  }
  if (spec.rope_scaling == "longrope") {
    const int64_t n = hd / 2;
    std::vector<float> short_f(n), long_f(n);
    for (int64_t i = 0; i < n; ++i) {
      const double t = n > 1 ? static_cast<double>(i) / (n - 1) : 0;
      short_f[i] = static_cast<float>(1 + 0.1 * t);
      long_f[i] = static_cast<float>(1 + 39 * t * t);
    }
    for (const auto& [name, v] : {std::pair{"rope_factors_long.weight", &long_f},
                                  std::pair{"rope_factors_short.weight", &short_f}}) {
      w.add_tensor(
          name, {uint64_t(n)}, gguf::TensorType::F32,
          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v->data()), n * sizeof(float)));
    }
  }
}

// Adds random tensors to w, each random one with the next seed, and counts the matrices
// whose type fell back (fallback_weight_type) by note.
class RandomTensors {
 public:
  RandomTensors(gguf::GgufWriter& w, const SyntheticModelSpec& spec)
      : w_(w), spec_(spec), s_(spec.seed * 1000003) {}

  // A (rows, cols) matrix uniform in +-scale/sqrt(cols), of the type the spec gives it.
  void mat(const std::string& name, int64_t rows, int64_t cols, float scale = 1) {
    gguf::TensorType wanted =
        mix_weight_type(spec_.mix, spec_.type, name, spec_.n_layers, spec_.tied);
    for (const auto& [tensor, t] : spec_.tensor_types) {
      if (tensor == name) wanted = t;
    }
    const gguf::TensorType t = fallback_weight_type(wanted, cols);
    if (t != wanted) {
      const std::string kind =
          name.starts_with("blk.") ? "blk.*." + name.substr(name.find('.', 4) + 1) : name;
      ++fallbacks_[kind + ": rows of " + std::to_string(cols) + " values are not whole " +
                   std::string(gguf::tensor_type_name(wanted)) + " blocks, written as " +
                   std::string(gguf::tensor_type_name(t))];
    }
    w_.add_tensor(name, {uint64_t(cols), uint64_t(rows)}, t,
                  random_matrix(t, cols, scale / std::sqrt(static_cast<float>(cols)), ++s_));
  }
  // A norm weight (n) around 1.
  void norm(const std::string& name, int64_t n) {
    w_.add_tensor(name, {uint64_t(n)}, gguf::TensorType::F32,
                  uniform_vector(n, 1, spec_.norm_jitter, vec_seed()));
  }
  // A bias (n) around 0.
  void bias(const std::string& name, int64_t n) {
    w_.add_tensor(name, {uint64_t(n)}, gguf::TensorType::F32,
                  uniform_vector(n, 0, spec_.norm_jitter, vec_seed()));
  }
  const std::map<std::string, int>& fallbacks() const { return fallbacks_; }

 private:
  // Constant vectors take no seed, so preset models keep the weights they always had.
  uint64_t vec_seed() { return spec_.norm_jitter != 0 ? ++s_ : s_; }

  gguf::GgufWriter& w_;
  const SyntheticModelSpec& spec_;
  uint64_t s_;
  std::map<std::string, int> fallbacks_;  // note -> how many matrices
};

// The tensors of layer l: attention (fused or not, biases, q/k norms), then the FFN.
void add_layer(RandomTensors& r, const ArchitectureDesc& a, int l, const Shape& sh) {
  const std::string p = "blk." + std::to_string(l) + ".";
  r.norm(p + "attn_norm.weight", sh.dim);
  if (a.fused_qkv) {
    r.mat(p + "attn_qkv.weight", sh.q + 2 * sh.kv, sh.dim);
  } else {
    r.mat(p + "attn_q.weight", sh.q, sh.dim);
    r.mat(p + "attn_k.weight", sh.kv, sh.dim);
    r.mat(p + "attn_v.weight", sh.kv, sh.dim);
  }
  if (a.qkv_bias) {
    r.bias(p + "attn_q.bias", sh.q);
    r.bias(p + "attn_k.bias", sh.kv);
    r.bias(p + "attn_v.bias", sh.kv);
  }
  if (a.qk_norm) {
    r.norm(p + "attn_q_norm.weight", sh.hd);
    r.norm(p + "attn_k_norm.weight", sh.hd);
  }
  r.mat(p + "attn_output.weight", sh.dim, sh.q);
  if (a.post_norms) r.norm(p + "post_attention_norm.weight", sh.dim);
  r.norm(p + "ffn_norm.weight", sh.dim);
  if (a.fused_gate_up) {
    r.mat(p + "ffn_up.weight", 2 * sh.ff, sh.dim);
  } else {
    r.mat(p + "ffn_gate.weight", sh.ff, sh.dim);
    r.mat(p + "ffn_up.weight", sh.ff, sh.dim);
  }
  r.mat(p + "ffn_down.weight", sh.dim, sh.ff);
  if (a.post_norms) r.norm(p + "post_ffw_norm.weight", sh.dim);
}

}  // namespace

std::vector<std::string> synthetic_preset_names() { return model_preset_names(); }

Result<SyntheticModelSpec> synthetic_preset(const std::string& name) {
  auto p = find_model_preset(name);
  if (!p) return p.error();
  SyntheticModelSpec s;
  s.name = p->name;
  s.arch = p->arch;
  s.n_layers = p->n_layers;
  s.n_embd = p->n_embd;
  s.n_heads = p->n_heads;
  s.n_kv_heads = p->n_kv_heads;
  s.head_dim = p->n_embd == p->n_heads * p->head_dim ? 0 : p->head_dim;
  s.n_ff = p->n_ff;
  s.n_vocab = p->n_vocab;
  s.n_ctx = p->n_ctx_train;
  s.rope_base = p->rope_base;
  s.tied = p->tied_embeddings;
  s.sliding_window = p->sliding_window;
  return s;
}

std::vector<std::string> synthetic_arch_names() {
  return {"llama", "llama3-rope", "qwen2", "qwen3", "gemma2", "gemma3", "phi3", "phi3-longrope"};
}

Result<SyntheticModelSpec> synthetic_arch_spec(const std::string& arch) {
  SyntheticModelSpec s;
  s.name = "synthetic-" + arch;
  s.arch = arch == "llama3-rope" ? "llama" : arch == "phi3-longrope" ? "phi3" : arch;
  s.n_layers = 3;
  s.n_embd = 128;
  s.n_heads = 4;
  s.n_kv_heads = 2;
  s.n_ff = 192;
  s.n_vocab = 384;
  s.n_ctx = 512;
  s.tied = false;
  s.norm_jitter = 0.2f;
  s.embd_scale = 8;
  s.type = gguf::TensorType::F32;
  if (arch == "llama") {
  } else if (arch == "llama3-rope") {
    s.rope_base = 500000.0f;
    s.rope_scaling = "llama3";
    s.rope_factor = 8;
    s.rope_orig_ctx = 8192;
  } else if (arch == "qwen2") {
    s.rope_base = 1000000.0f;
  } else if (arch == "qwen3") {
    s.head_dim = 64;
    s.rope_base = 1000000.0f;
  } else if (arch == "gemma2") {
    s.head_dim = 64;
    s.sliding_window = 8;
    s.attn_softcap = 50;
    s.final_softcap = 30;
    s.tied = true;
  } else if (arch == "gemma3") {
    s.n_layers = 6;  // five windowed layers, then one global
    s.head_dim = 64;
    s.sliding_window = 8;
    s.rope_base = 1000000.0f;
    s.rope_scaling = "linear";
    s.rope_factor = 8;
    s.tied = true;
  } else if (arch == "phi3") {
  } else if (arch == "phi3-longrope") {
    s.rope_scaling = "longrope";
    s.rope_orig_ctx = 64;
  } else {
    std::string all;
    for (const std::string& n : synthetic_arch_names()) all += (all.empty() ? "" : ", ") + n;
    return Error{"unknown --arch '" + arch + "' (" + all + ")"};
  }
  return s;
}

// Copies every tokenizer.* key of the GGUF at `path`; returns its vocabulary size.
Result<int32_t> copy_vocab(gguf::GgufWriter& w, const std::string& path) {
  auto file = gguf::GgufFile::open(path);
  if (!file) return file.error();
  const gguf::Value* tokens = (*file)->find("tokenizer.ggml.tokens");
  if (!tokens || !tokens->as_array()) return Error{path + ": no tokenizer.ggml.tokens to copy"};
  for (const gguf::KeyValue& kv : (*file)->metadata()) {
    if (kv.key.starts_with("tokenizer.")) w.set(kv.key, kv.value);
  }
  return static_cast<int32_t>(tokens->as_array()->size());
}

Status write_synthetic_model(const std::string& path, const SyntheticModelSpec& spec_in,
                             std::vector<std::string>* notes) {
  SyntheticModelSpec spec = spec_in;
  gguf::GgufWriter w;
  if (!spec.vocab_from.empty()) {
    auto n_vocab = copy_vocab(w, spec.vocab_from);
    if (!n_vocab) return n_vocab.error();
    spec.n_vocab = *n_vocab;
  }
  const ArchitectureDesc* a = find_architecture(spec.arch);
  if (!a) return Error{"synthetic model: unknown architecture '" + spec.arch + "'"};
  const int64_t hd = spec.head_dim > 0 ? spec.head_dim : spec.n_embd / spec.n_heads;
  if ((spec.head_dim == 0 && spec.n_embd % spec.n_heads != 0) ||
      spec.n_heads % spec.n_kv_heads != 0 || spec.n_embd % 32 != 0 || spec.n_ff % 32 != 0 ||
      (hd * spec.n_heads) % 32 != 0 || spec.n_vocab < 300) {
    return Error{"synthetic model: inconsistent shape"};
  }
  const Shape sh{.dim = spec.n_embd,
                 .q = hd * spec.n_heads,
                 .kv = hd * spec.n_kv_heads,
                 .ff = spec.n_ff,
                 .nv = spec.n_vocab,
                 .hd = hd};
  write_hparams(w, spec, *a, hd);
  const RopeScaling scaling = write_rope_scaling(w, spec);
  write_attention_extras(w, spec, *a);
  if (spec.vocab_from.empty()) write_vocab(w, spec.n_vocab);

  RandomTensors r(w, spec);
  r.mat("token_embd.weight", sh.nv, sh.dim, spec.embd_scale);
  add_rope_factors(w, spec, hd, scaling);
  for (int l = 0; l < spec.n_layers; ++l) add_layer(r, *a, l, sh);
  r.norm("output_norm.weight", sh.dim);
  if (!spec.tied) r.mat("output.weight", sh.nv, sh.dim, spec.embd_scale);
  if (notes) {
    for (const auto& [note, count] : r.fallbacks()) {
      notes->push_back(note + (count > 1 ? " (" + std::to_string(count) + " matrices)" : ""));
    }
  }
  return w.write_file(path);
}

}  // namespace kvchat
