// mkmodel: a GGUF "llama" model of a real shape with random weights and a synthetic
// SentencePiece vocab, for benchmarks and tests (no download needed).
#include <cmath>
#include <cstring>
#include <cstdio>
#include <string>
#include <vector>

#include "cli_common.h"
#include "commands.h"
#include "gguf/gguf_writer.h"
#include "numeric/convert.h"

namespace kvchat::cli {

namespace {

struct Shape {
  const char* name;
  int n_layers, n_embd, n_heads, n_kv_heads, n_ff, n_vocab, n_ctx;
  float rope_base;
  bool tied;
};

constexpr Shape kShapes[] = {
    {"kjv-demo-shape", 6, 192, 6, 2, 512, 2048, 512, 10000.0f, true},
    {"tinyllama-1.1b", 22, 2048, 32, 4, 5632, 32000, 2048, 10000.0f, false},
    {"llama-3.2-1b", 16, 2048, 32, 8, 8192, 128256, 131072, 500000.0f, true},
    {"llama-3-8b", 32, 4096, 32, 8, 14336, 128256, 8192, 500000.0f, false},
};

Result<gguf::TensorType> parse_type(const std::string& s) {
  if (s == "f32") return gguf::TensorType::F32;
  if (s == "f16") return gguf::TensorType::F16;
  if (s == "bf16") return gguf::TensorType::BF16;
  if (s == "q8_0") return gguf::TensorType::Q8_0;
  if (s == "q4_0") return gguf::TensorType::Q4_0;
  return Error{"unknown --type '" + s + "' (f32, f16, bf16, q8_0, q4_0)"};
}

uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform values in [-scale, scale], row by row, encoded as `type`.
gguf::GgufWriter::Filler random_matrix(gguf::TensorType type, int64_t cols, float scale,
                                       uint64_t seed) {
  return [=](uint8_t* dst, uint64_t n_bytes) {
    uint64_t state = seed;
    std::vector<float> row(cols);
    const auto traits = *gguf::tensor_type_traits(static_cast<uint32_t>(type));
    const uint64_t per_row = cols / traits.block_elements * traits.block_bytes;
    for (uint64_t off = 0; off + per_row <= n_bytes; off += per_row) {
      for (int64_t i = 0; i < cols; ++i) {
        const double u = (splitmix64(state) >> 11) * 0x1.0p-53;  // [0, 1)
        row[i] = static_cast<float>((2 * u - 1) * scale);
      }
      quantize_row(type, row.data(), dst + off, cols);
    }
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

int cmd_mkmodel(const Argv& argv) {
  auto args = Args::parse(argv, {"--preset", "--type", "--out", "--layers", "--seed"}, {});
  if (!args) return fail(args.message());
  auto preset = args->require("--preset");
  auto out = args->require("--out");
  if (!preset) return fail(preset.message());
  if (!out) return fail(out.message());
  auto type = parse_type(args->get("--type", "f16"));
  if (!type) return fail(type.message());
  const Shape* shape = nullptr;
  for (const Shape& s : kShapes) {
    if (*preset == s.name) shape = &s;
  }
  if (!shape) return fail("unknown --preset '" + *preset + "' (kjv-demo-shape, tinyllama-1.1b, llama-3.2-1b, llama-3-8b)");
  auto layers = args->get_int("--layers", shape->n_layers);
  auto seed = args->get_int("--seed", 1);
  if (!layers || *layers < 1 || *layers > 256) return fail("--layers must be between 1 and 256");
  if (!seed) return fail(seed.message());

  const int64_t dim = shape->n_embd, hd = dim / shape->n_heads, kv = hd * shape->n_kv_heads,
                ff = shape->n_ff, nv = shape->n_vocab;
  gguf::GgufWriter w;
  w.set_string("general.architecture", "llama");
  w.set_string("general.name", std::string(shape->name) + "-random-" + args->get("--type", "f16"));
  w.set_u32("llama.block_count", static_cast<uint32_t>(*layers));
  w.set_u32("llama.context_length", shape->n_ctx);
  w.set_u32("llama.embedding_length", shape->n_embd);
  w.set_u32("llama.feed_forward_length", shape->n_ff);
  w.set_u32("llama.attention.head_count", shape->n_heads);
  w.set_u32("llama.attention.head_count_kv", shape->n_kv_heads);
  w.set_f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  w.set_f32("llama.rope.freq_base", shape->rope_base);
  w.set_u32("llama.rope.dimension_count", static_cast<uint32_t>(hd));
  write_vocab(w, shape->n_vocab);

  uint64_t s = static_cast<uint64_t>(*seed) * 1000003;
  auto mat = [&](const std::string& name, int64_t rows, int64_t cols) {
    w.add_tensor(name, {uint64_t(cols), uint64_t(rows)}, *type,
                 random_matrix(*type, cols, 1.0f / std::sqrt(static_cast<float>(cols)), ++s));
  };
  auto vec = [&](const std::string& name, int64_t n) {
    w.add_tensor(name, {uint64_t(n)}, gguf::TensorType::F32, ones(n));
  };
  mat("token_embd.weight", nv, dim);
  for (int l = 0; l < *layers; ++l) {
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
  if (!shape->tied) mat("output.weight", nv, dim);
  if (auto st = w.write_file(*out); !st) return fail(st.message());
  std::printf("wrote %s\n", out->c_str());
  return 0;
}

}  // namespace kvchat::cli
