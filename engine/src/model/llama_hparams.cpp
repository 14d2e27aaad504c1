#include "model/llama_hparams.h"

#include <string>

#include "gguf/gguf_file.h"

namespace kvchat {

namespace {

Status read_int(const gguf::GgufFile& f, const std::string& key, int32_t& out, bool required,
                int64_t min_value, int64_t max_value) {
  const gguf::Value* v = f.find(key);
  if (!v) {
    if (required) return Error{f.name() + ": missing metadata key '" + key + "'"};
    return {};
  }
  auto x = v->as_int();
  if (!x) {
    return Error{f.name() + ": metadata key '" + key + "' must be an integer, got " +
                 std::string(gguf::value_type_name(v->type))};
  }
  if (*x < min_value || *x > max_value) {
    return Error{f.name() + ": metadata key '" + key + "' = " + std::to_string(*x) +
                 " is outside [" + std::to_string(min_value) + ", " + std::to_string(max_value) +
                 "]"};
  }
  out = static_cast<int32_t>(*x);
  return {};
}

Status read_float(const gguf::GgufFile& f, const std::string& key, float& out, double min_value,
                  double max_value) {
  const gguf::Value* v = f.find(key);
  if (!v) return {};  // optional: the default stays
  auto x = v->as_float();
  if (!x || !(*x >= min_value && *x <= max_value)) {
    return Error{f.name() + ": metadata key '" + key + "' must be a number in [" +
                 std::to_string(min_value) + ", " + std::to_string(max_value) + "], got " +
                 v->to_display_string()};
  }
  out = static_cast<float>(*x);
  return {};
}

}  // namespace

Result<LlamaHParams> LlamaHParams::from_gguf(const gguf::GgufFile& f) {
  const gguf::Value* arch = f.find("general.architecture");
  if (!arch || !arch->as_string()) {
    return Error{f.name() + ": missing metadata key 'general.architecture' (string)"};
  }
  if (*arch->as_string() != "llama") {
    return Error{f.name() + ": architecture '" + *arch->as_string() +
                 "' is not supported (kvchat runs 'llama')"};
  }
  LlamaHParams hp;
  const std::string p = "llama.";
  constexpr int64_t kBig = 1 << 20;
  if (auto s = read_int(f, p + "block_count", hp.n_layers, true, 1, 1024); !s) return Error{s.message()};
  if (auto s = read_int(f, p + "embedding_length", hp.n_embd, true, 1, kBig); !s) return Error{s.message()};
  if (auto s = read_int(f, p + "feed_forward_length", hp.n_ff, true, 1, kBig); !s) return Error{s.message()};
  if (auto s = read_int(f, p + "attention.head_count", hp.n_heads, true, 1, 4096); !s) return Error{s.message()};
  hp.n_kv_heads = hp.n_heads;
  if (auto s = read_int(f, p + "attention.head_count_kv", hp.n_kv_heads, false, 1, 4096); !s) return Error{s.message()};
  hp.n_ctx_train = 2048;
  if (auto s = read_int(f, p + "context_length", hp.n_ctx_train, false, 1, 1 << 24); !s) return Error{s.message()};
  if (auto s = read_float(f, p + "attention.layer_norm_rms_epsilon", hp.rms_eps, 0, 1); !s) return Error{s.message()};
  if (auto s = read_float(f, p + "rope.freq_base", hp.rope_freq_base, 1, 1e12); !s) return Error{s.message()};

  if (hp.n_embd % hp.n_heads != 0) {
    return Error{f.name() + ": embedding_length " + std::to_string(hp.n_embd) +
                 " is not divisible by head_count " + std::to_string(hp.n_heads)};
  }
  if (hp.n_heads % hp.n_kv_heads != 0) {
    return Error{f.name() + ": head_count " + std::to_string(hp.n_heads) +
                 " is not a multiple of head_count_kv " + std::to_string(hp.n_kv_heads)};
  }
  hp.head_dim = hp.n_embd / hp.n_heads;
  if (hp.head_dim % 2 != 0) {
    return Error{f.name() + ": head dimension " + std::to_string(hp.head_dim) + " must be even for RoPE"};
  }
  hp.n_rot = hp.head_dim;
  if (auto s = read_int(f, p + "rope.dimension_count", hp.n_rot, false, 2, hp.head_dim); !s) return Error{s.message()};
  if (hp.n_rot % 2 != 0) return Error{f.name() + ": rope.dimension_count must be even"};
  return hp;
}

}  // namespace kvchat
