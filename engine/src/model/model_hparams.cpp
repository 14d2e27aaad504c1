#include "model/model_hparams.h"

#include <cmath>
#include <string>

#include "gguf/gguf_file.h"

namespace kvchat {

namespace {

// Readers append a problem and leave `out` unchanged when the key is bad; an absent
// optional key leaves the default.
class MetadataReader {
 public:
  MetadataReader(const gguf::GgufFile& f, std::string prefix, std::vector<std::string>& problems)
      : f_(f), prefix_(std::move(prefix)), problems_(problems) {}

  bool has(const std::string& key) const { return f_.find(prefix_ + key) != nullptr; }
  const gguf::Value* find(const std::string& key) const { return f_.find(prefix_ + key); }
  std::string full_key(const std::string& key) const { return prefix_ + key; }

  void read_int(const std::string& key, int32_t& out, bool required, int64_t min_value,
                int64_t max_value) {
    const std::string full = prefix_ + key;
    const gguf::Value* v = f_.find(full);
    if (!v) {
      if (required) problems_.push_back("missing metadata key '" + full + "'");
      return;
    }
    auto x = v->as_int();
    if (!x) {
      problems_.push_back("metadata key '" + full + "' must be an integer, got " +
                          std::string(gguf::value_type_name(v->type)));
      return;
    }
    if (*x < min_value || *x > max_value) {
      problems_.push_back("metadata key '" + full + "' = " + std::to_string(*x) + " is outside [" +
                          std::to_string(min_value) + ", " + std::to_string(max_value) + "]");
      return;
    }
    out = static_cast<int32_t>(*x);
  }

  void read_float(const std::string& key, float& out, double min_value, double max_value) {
    const std::string full = prefix_ + key;
    const gguf::Value* v = f_.find(full);
    if (!v) return;
    auto x = v->as_float();
    if (!x || !(*x >= min_value && *x <= max_value)) {
      problems_.push_back("metadata key '" + full + "' must be a number in [" +
                          std::to_string(min_value) + ", " + std::to_string(max_value) + "], got " +
                          v->to_display_string());
      return;
    }
    out = static_cast<float>(*x);
  }

  std::string read_string(const std::string& key) {
    const gguf::Value* v = f_.find(prefix_ + key);
    return v && v->as_string() ? *v->as_string() : std::string();
  }

 private:
  const gguf::GgufFile& f_;
  std::string prefix_;
  std::vector<std::string>& problems_;
};

void read_rope_scaling(MetadataReader& r, ModelHParams& hp, std::vector<std::string>& problems) {
  RopeScaling& s = hp.rope_scaling;
  r.read_float("rope.scaling.factor", s.factor, 1e-3, 1e6);
  // Older files write the factor as rope.scale_linear.
  if (!r.has("rope.scaling.factor")) r.read_float("rope.scale_linear", s.factor, 1e-3, 1e6);
  const std::string type = r.read_string("rope.scaling.type");
  if (type.empty()) {
    // No type: a factor alone means linear (llama.cpp's default type).
    s.type = s.factor != 1 ? RopeScalingType::Linear : RopeScalingType::None;
  } else if (type == "none") {
    s.type = RopeScalingType::None;
  } else if (type == "linear") {
    s.type = RopeScalingType::Linear;
  } else if (type == "yarn") {
    s.type = RopeScalingType::Yarn;
  } else if (type == "llama3") {
    s.type = RopeScalingType::Llama3;
  } else {
    problems.push_back("rope scaling '" + type + "' is not supported (linear, yarn, llama3)");
  }
  s.orig_ctx = hp.n_ctx_train;
  r.read_int("rope.scaling.original_context_length", s.orig_ctx, false, 1, 1 << 26);
  r.read_float("rope.scaling.yarn_beta_fast", s.yarn_beta_fast, 0, 1e6);
  r.read_float("rope.scaling.yarn_beta_slow", s.yarn_beta_slow, 0, 1e6);
  r.read_float("rope.scaling.attn_factor", s.attn_factor, 1e-3, 1e3);
  r.read_float("rope.scaling.low_freq_factor", s.llama3_low_freq_factor, 1e-3, 1e6);
  r.read_float("rope.scaling.high_freq_factor", s.llama3_high_freq_factor, 1e-3, 1e6);
  if (s.type == RopeScalingType::Llama3 &&
      !(s.llama3_high_freq_factor > s.llama3_low_freq_factor)) {
    problems.push_back("llama3 rope scaling needs high_freq_factor > low_freq_factor");
  }
}

// Which layers are windowed, as llama.cpp reads them: {arch}.attention.sliding_window_pattern
// is a period n (layer l windowed when l % n < n - 1: n - 1 local layers, then a global
// one; 0 = every layer windowed) or one boolean (or integer) per layer; without the key,
// the architecture's period.
void read_swa_layers(MetadataReader& r, int32_t default_period, ModelHParams& hp,
                     std::vector<std::string>& problems) {
  const std::string key = "attention.sliding_window_pattern";
  if (const gguf::Value* v = r.find(key); v && v->as_array()) {
    const std::vector<gguf::Value>& layers = *v->as_array();
    if (static_cast<int64_t>(layers.size()) != hp.n_layers) {
      problems.push_back("metadata key '" + r.full_key(key) + "' has " +
                         std::to_string(layers.size()) + " values for " +
                         std::to_string(hp.n_layers) + " layers");
      return;
    }
    for (int32_t l = 0; l < hp.n_layers; ++l) {
      const auto b = layers[l].as_bool();
      const auto i = layers[l].as_int();
      if (!b && !i) {
        problems.push_back("metadata key '" + r.full_key(key) +
                           "' must hold booleans or integers, got " +
                           std::string(gguf::value_type_name(layers[l].type)));
        return;
      }
      hp.swa_layer[l] = (b ? *b : *i != 0) ? 1 : 0;
    }
    return;
  }
  int32_t n = default_period;
  r.read_int(key, n, false, 0, 1 << 20);
  for (int32_t l = 0; l < hp.n_layers; ++l) hp.swa_layer[l] = n == 0 || l % n < n - 1 ? 1 : 0;
}

}  // namespace

int32_t ModelHParams::n_windowed_layers() const {
  int32_t n = 0;
  for (uint8_t w : swa_layer) n += w;
  return n;
}

bool ModelHParams::from_gguf(const gguf::GgufFile& f, ModelHParams& hp,
                             std::vector<std::string>& problems) {
  const size_t problems_before = problems.size();
  const gguf::Value* arch_value = f.find("general.architecture");
  if (!arch_value || !arch_value->as_string()) {
    problems.push_back("missing metadata key 'general.architecture' (string)");
    return false;
  }
  const std::string name = *arch_value->as_string();
  hp.arch = find_architecture(name);
  if (!hp.arch) {
    problems.push_back("architecture '" + name + "' is not supported (kvchat runs " +
                       architecture_names() + ")");
    return false;
  }
  const ArchitectureDesc& a = *hp.arch;
  MetadataReader r(f, name + ".", problems);
  constexpr int64_t kBig = 1 << 20;
  r.read_int("block_count", hp.n_layers, true, 1, 1024);
  r.read_int("embedding_length", hp.n_embd, true, 1, kBig);
  r.read_int("feed_forward_length", hp.n_ff, true, 1, kBig);
  r.read_int("attention.head_count", hp.n_heads, true, 1, 4096);
  hp.n_kv_heads = hp.n_heads;
  r.read_int("attention.head_count_kv", hp.n_kv_heads, false, 1, 4096);
  hp.n_ctx_train = 2048;
  r.read_int("context_length", hp.n_ctx_train, false, 1, 1 << 24);
  r.read_float("attention.layer_norm_rms_epsilon", hp.rms_eps, 0, 1);
  r.read_float("rope.freq_base", hp.rope_freq_base, 1, 1e12);
  r.read_float("rope.freq_base_swa", hp.rope_freq_base_swa, 1, 1e12);
  int32_t key_length = 0, value_length = 0;
  r.read_int("attention.key_length", key_length, false, 1, 65536);
  r.read_int("attention.value_length", value_length, false, 1, 65536);
  if (problems.size() != problems_before) return false;  // the shape is unknown

  if (hp.n_heads % hp.n_kv_heads != 0) {
    problems.push_back("head_count " + std::to_string(hp.n_heads) +
                       " is not a multiple of head_count_kv " + std::to_string(hp.n_kv_heads));
  }
  if (key_length > 0) {
    hp.head_dim = key_length;
  } else if (hp.n_embd % hp.n_heads != 0) {
    problems.push_back("embedding_length " + std::to_string(hp.n_embd) +
                       " is not divisible by head_count " + std::to_string(hp.n_heads));
  } else {
    hp.head_dim = hp.n_embd / hp.n_heads;
  }
  if (value_length > 0 && value_length != hp.head_dim) {
    problems.push_back("attention.value_length " + std::to_string(value_length) +
                       " differs from the key length " + std::to_string(hp.head_dim) +
                       " (K and V rows of different widths are not supported)");
  }
  if (hp.head_dim % 2 != 0) {
    problems.push_back("head dimension " + std::to_string(hp.head_dim) + " must be even for RoPE");
  }
  hp.n_rot = hp.head_dim;
  r.read_int("rope.dimension_count", hp.n_rot, false, 2, std::max(2, hp.head_dim));
  if (hp.n_rot % 2 != 0) problems.push_back("rope.dimension_count must be even");
  read_rope_scaling(r, hp, problems);

  // What the description makes of the numbers.
  hp.embed_scale = a.embed_scale_sqrt_dim ? std::sqrt(static_cast<float>(hp.n_embd)) : 1.0f;
  float query_pre_attn = static_cast<float>(hp.head_dim);
  if (a.query_scale_embd_per_head_layers == hp.n_layers) {
    query_pre_attn = static_cast<float>(hp.n_embd / hp.n_heads);
  }
  hp.query_scale = 1.0f / std::sqrt(query_pre_attn);
  r.read_float("attention.scale", hp.query_scale, 1e-6, 1e3);
  if (a.softcap) {
    hp.attn_softcap = a.default_attn_softcap;
    hp.final_softcap = a.default_final_softcap;
    r.read_float("attn_logit_softcapping", hp.attn_softcap, 0, 1e6);
    r.read_float("final_logit_softcapping", hp.final_softcap, 0, 1e6);
  }
  hp.swa_layer.assign(hp.n_layers, 0);
  if (a.swa_pattern > 0) {
    hp.sliding_window = a.default_sliding_window;
    r.read_int("attention.sliding_window", hp.sliding_window, false, 0, 1 << 24);
  }
  if (hp.sliding_window > 0) read_swa_layers(r, a.swa_pattern, hp, problems);
  return problems.size() == problems_before;
}

}  // namespace kvchat
