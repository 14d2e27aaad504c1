// Shapes of real models by name: the one table that `kvchat-cli mkmodel` (synthetic
// weights) and `kvchat-cli memory` (predicted memory without a download) both use.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/tensor_type.h"
#include "kvchat/result.h"
#include "model/weight_mix.h"

namespace kvchat {

struct ModelPreset {
  const char* name;
  int32_t n_layers, n_embd, n_heads, n_kv_heads, head_dim, n_ff, n_vocab;
  int32_t n_ctx_train;  // the trained context length
  float rope_base;
  bool tied_embeddings;    // no output.weight: the embedding doubles as the output matrix
  bool qkv_bias;           // q, k and v projections carry biases (qwen2)
  const char* arch;        // general.architecture a synthetic model of this shape is written as
  int32_t sliding_window;  // window of the architecture's windowed layers; 0 = none
};

// Layers of the preset that attend to a sliding window only (the architecture's pattern).
int32_t preset_windowed_layers(const ModelPreset& p);

// Every preset, in table order.
std::span<const ModelPreset> model_presets();
std::vector<std::string> model_preset_names();
// The preset called `name`, or an error listing the known names.
Result<ModelPreset> find_model_preset(std::string_view name);

// Parameters of a model of this shape and architecture, split by how GGUF stores them:
// 2-D matrices (stored in the weight type) and 1-D vectors (norms, biases; stored f32).
struct ParamCount {
  uint64_t matrix = 0;
  uint64_t vector = 0;
  uint64_t total() const { return matrix + vector; }
};
ParamCount preset_param_count(const ModelPreset& p);

// Predicted weight bytes with every 2-D matrix in `matrix_type` (or in the type `mix` gives
// it) and every vector in f32 — how `mkmodel` writes a model and how llama.cpp stores norms
// and biases — matrices whose rows are not whole blocks counted in their fallback type
// (model/weight_mix.h), as mkmodel writes them. Real files often keep a few tensors at a
// higher precision, so without a mix this is the all-in-one-type figure.
Result<uint64_t> preset_weight_bytes(const ModelPreset& p, gguf::TensorType matrix_type,
                                     WeightMix mix = WeightMix::Uniform);

}  // namespace kvchat
