#include "model/model_presets.h"

#include "model/architecture.h"

namespace kvchat {

namespace {

// Values from each model's published config.json (num_hidden_layers, hidden_size,
// num_attention_heads, num_key_value_heads, head_dim = hidden_size / heads,
// intermediate_size, vocab_size, max_position_embeddings, rope_theta,
// tie_word_embeddings; gemma2: head_dim and sliding_window). Mistral-7B is v0.2/v0.3's
// 32k context (v0.1 trained 8k with a 4k sliding window); the vocab is v0.1/v0.2's 32000.
// kjv-demo-shape is the shape of
// ../shared/models/kjv-demo-*.gguf. tiny-256 is no real model: the smallest llama whose
// every matrix row is a whole number of 256-weight K-quant blocks (reference tests,
// llama.cpp-quantized fixtures).
// clang-format off
constexpr ModelPreset kPresets[] = {
    // name              layers  embd heads kv  hd    ff     vocab    ctx     rope       tied   bias   arch    window
    {"llama-3-8b",         32,  4096,  32,  8, 128, 14336, 128256,   8192,  500000.0f, false, false, "llama", 0},
    {"llama-3.2-1b",       16,  2048,  32,  8,  64,  8192, 128256, 131072,  500000.0f, true,  false, "llama", 0},
    {"tinyllama-1.1b",     22,  2048,  32,  4,  64,  5632,  32000,   2048,   10000.0f, false, false, "llama", 0},
    {"mistral-7b",         32,  4096,  32,  8, 128, 14336,  32000,  32768, 1000000.0f, false, false, "llama", 0},
    {"qwen2.5-0.5b",       24,   896,  14,  2,  64,  4864, 151936,  32768, 1000000.0f, true,  true, "qwen2", 0},
    {"gemma2-2b",          26,  2304,   8,  4, 256,  9216, 256000,   8192,   10000.0f, true,  false, "gemma2", 4096},
    {"kjv-demo-shape",      6,   192,   6,  2,  32,   512,   2048,    512,   10000.0f, true,  false, "llama", 0},
    {"tiny-256",            2,   256,   4,  2,  64,   512,    512,   2048,   10000.0f, false, false, "llama", 0},
};

// One matrix of `rows` x `cols` values (GGUF stores it as `rows` rows of `cols`).
struct MatrixShape {
  std::string name;  // the GGUF tensor name
  uint64_t rows, cols;
};

// Every 2-D weight of the model, in the order mkmodel writes them.
std::vector<MatrixShape> matrices(const ModelPreset& p) {
  const uint64_t d = static_cast<uint64_t>(p.n_embd);
  const uint64_t q_dim = static_cast<uint64_t>(p.n_heads) * static_cast<uint64_t>(p.head_dim);
  const uint64_t kv_dim = static_cast<uint64_t>(p.n_kv_heads) * static_cast<uint64_t>(p.head_dim);
  const uint64_t ff = static_cast<uint64_t>(p.n_ff), nv = static_cast<uint64_t>(p.n_vocab);
  std::vector<MatrixShape> m = {{"token_embd.weight", nv, d}};
  for (int32_t l = 0; l < p.n_layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    m.push_back({b + "attn_q.weight", q_dim, d});
    m.push_back({b + "attn_k.weight", kv_dim, d});
    m.push_back({b + "attn_v.weight", kv_dim, d});
    m.push_back({b + "attn_output.weight", d, q_dim});
    m.push_back({b + "ffn_gate.weight", ff, d});
    m.push_back({b + "ffn_up.weight", ff, d});
    m.push_back({b + "ffn_down.weight", d, ff});
  }
  if (!p.tied_embeddings) m.push_back({"output.weight", nv, d});
  return m;
}

}  // namespace

std::span<const ModelPreset> model_presets() { return kPresets; }

std::vector<std::string> model_preset_names() {
  std::vector<std::string> names;
  for (const ModelPreset& p : kPresets) names.push_back(p.name);
  return names;
}

Result<ModelPreset> find_model_preset(std::string_view name) {
  for (const ModelPreset& p : kPresets) {
    if (name == p.name) return p;
  }
  std::string all;
  for (const ModelPreset& p : kPresets) all += std::string(all.empty() ? "" : ", ") + p.name;
  return Error{"unknown preset '" + std::string(name) + "' (" + all + ")"};
}

int32_t preset_windowed_layers(const ModelPreset& p) {
  const ArchitectureDesc* a = find_architecture(p.arch);
  if (!a || a->swa_pattern == 0 || p.sliding_window == 0) return 0;
  int32_t n = 0;
  for (int32_t l = 0; l < p.n_layers; ++l) n += l % a->swa_pattern < a->swa_pattern - 1 ? 1 : 0;
  return n;
}

ParamCount preset_param_count(const ModelPreset& p) {
  ParamCount c;
  for (const MatrixShape& m : matrices(p)) c.matrix += m.rows * m.cols;
  const uint64_t L = static_cast<uint64_t>(p.n_layers), d = static_cast<uint64_t>(p.n_embd);
  const ArchitectureDesc* a = find_architecture(p.arch);
  // attn_norm and ffn_norm per layer (and post_attention_norm, post_ffw_norm), output_norm
  c.vector = L * (a && a->post_norms ? 4 : 2) * d + d;
  if (p.qkv_bias) {
    // q, k and v biases: one value per output row.
    c.vector += L * static_cast<uint64_t>(p.n_heads + 2 * p.n_kv_heads) *
                static_cast<uint64_t>(p.head_dim);
  }
  if (a && a->qk_norm) c.vector += L * 2 * static_cast<uint64_t>(p.head_dim);
  return c;
}

Result<uint64_t> preset_weight_bytes(const ModelPreset& p, gguf::TensorType matrix_type, WeightMix mix) {
  if (!gguf::tensor_type_traits(static_cast<uint32_t>(matrix_type))) return Error{"unsupported weight type"};
  uint64_t bytes = 0;
  for (const MatrixShape& m : matrices(p)) {
    const gguf::TensorType t = fallback_weight_type(
        mix_weight_type(mix, matrix_type, m.name, p.n_layers, p.tied_embeddings), static_cast<int64_t>(m.cols));
    const auto traits = *gguf::tensor_type_traits(static_cast<uint32_t>(t));
    bytes += m.rows * (m.cols / traits.block_elements * traits.block_bytes);
  }
  return bytes + preset_param_count(p).vector * sizeof(float);
}

}  // namespace kvchat
