#include "model/synthetic_model.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
#include <algorithm>

#include "gguf/gguf_writer.h"
#include "model/model_presets.h"
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
    const int64_t n_threads = n_bytes < (8u << 20) ? 1 : std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> threads;
    for (int64_t t = 1; t < n_threads; ++t) {
      threads.emplace_back(fill_rows, n_rows * t / n_threads, n_rows * (t + 1) / n_threads);
    }
    fill_rows(0, n_rows / n_threads);
    for (std::thread& t : threads) t.join();
  };
}

gguf::GgufWriter::Filler ones(int64_t n) {
  return [n](uint8_t* dst, uint64_t) {
    std::vector<float> v(n, 1.0f);
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

}  // namespace

std::vector<std::string> synthetic_preset_names() {
  return model_preset_names();
}

Result<SyntheticModelSpec> synthetic_preset(const std::string& name) {
  auto p = find_model_preset(name);
  if (!p) return p.error();
  // A synthetic model derives head_dim as n_embd / n_heads (true of every preset).
  if (p->n_embd != p->n_heads * p->head_dim) {
    return Error{"preset '" + name + "': head_dim is not n_embd / n_heads"};
  }
  SyntheticModelSpec s;
  s.name = p->name;
  s.n_layers = p->n_layers;
  s.n_embd = p->n_embd;
  s.n_heads = p->n_heads;
  s.n_kv_heads = p->n_kv_heads;
  s.n_ff = p->n_ff;
  s.n_vocab = p->n_vocab;
  s.n_ctx = p->n_ctx_train;
  s.rope_base = p->rope_base;
  s.tied = p->tied_embeddings;
  return s;
}

Status write_synthetic_model(const std::string& path, const SyntheticModelSpec& spec) {
  if (spec.n_embd % spec.n_heads != 0 || spec.n_heads % spec.n_kv_heads != 0 ||
      spec.n_embd % 32 != 0 || spec.n_ff % 32 != 0 || spec.n_vocab < 300) {
    return Error{"synthetic model: inconsistent shape"};
  }
  const int64_t dim = spec.n_embd, hd = dim / spec.n_heads, kv = hd * spec.n_kv_heads,
                ff = spec.n_ff, nv = spec.n_vocab;
  const gguf::TensorType type = spec.type;
  gguf::GgufWriter w;
  w.set_string("general.architecture", "llama");
  w.set_string("general.name", spec.name + "-random-" + std::string(gguf::tensor_type_name(type)));
  w.set_u32("llama.block_count", static_cast<uint32_t>(spec.n_layers));
  w.set_u32("llama.context_length", static_cast<uint32_t>(spec.n_ctx));
  w.set_u32("llama.embedding_length", static_cast<uint32_t>(spec.n_embd));
  w.set_u32("llama.feed_forward_length", static_cast<uint32_t>(spec.n_ff));
  w.set_u32("llama.attention.head_count", static_cast<uint32_t>(spec.n_heads));
  w.set_u32("llama.attention.head_count_kv", static_cast<uint32_t>(spec.n_kv_heads));
  w.set_f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  w.set_f32("llama.rope.freq_base", spec.rope_base);
  w.set_u32("llama.rope.dimension_count", static_cast<uint32_t>(hd));
  write_vocab(w, spec.n_vocab);

  uint64_t s = spec.seed * 1000003;
  auto mat = [&](const std::string& name, int64_t rows, int64_t cols) {
    w.add_tensor(name, {uint64_t(cols), uint64_t(rows)}, type,
                 random_matrix(type, cols, 1.0f / std::sqrt(static_cast<float>(cols)), ++s));
  };
  auto vec = [&](const std::string& name, int64_t n) {
    w.add_tensor(name, {uint64_t(n)}, gguf::TensorType::F32, ones(n));
  };
  mat("token_embd.weight", nv, dim);
  for (int l = 0; l < spec.n_layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    vec(p + "attn_norm.weight", dim);
    mat(p + "attn_q.weight", dim, dim);
    mat(p + "attn_k.weight", kv, dim);
    mat(p + "attn_v.weight", kv, dim);
    mat(p + "attn_output.weight", dim, dim);
    vec(p + "ffn_norm.weight", dim);
    mat(p + "ffn_gate.weight", ff, dim);
    mat(p + "ffn_up.weight", ff, dim);
    mat(p + "ffn_down.weight", dim, ff);
  }
  vec("output_norm.weight", dim);
  if (!spec.tied) mat("output.weight", nv, dim);
  return w.write_file(path);
}

}  // namespace kvchat
