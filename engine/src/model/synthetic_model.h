// Synthetic "llama" GGUF models: real shapes, random weights, a synthetic SentencePiece
// vocab. For benchmarks (`kvchat-cli mkmodel`) and tests that need models of a given
// shape or weight type without a download.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gguf/tensor_type.h"
#include "kvchat/result.h"

namespace kvchat {

struct SyntheticModelSpec {
  std::string name;
  int32_t n_layers = 1, n_embd = 64, n_heads = 2, n_kv_heads = 1, n_ff = 128, n_vocab = 320;
  int32_t n_ctx = 256;
  float rope_base = 10000.0f;
  bool tied = true;  // no output.weight: the embedding doubles as the output matrix
  gguf::TensorType type = gguf::TensorType::F16;  // every 2-D weight; norms are F32
  uint64_t seed = 1;
};

// Shapes of real models by name: the presets of model/model_presets.h ("llama-3-8b",
// "llama-3.2-1b", "tinyllama-1.1b", "mistral-7b", "qwen2.5-0.5b", "kjv-demo-shape").
// Always written as "llama" models: qwen2's q/k/v biases are not reproduced.
Result<SyntheticModelSpec> synthetic_preset(const std::string& name);
std::vector<std::string> synthetic_preset_names();

// Writes the model atomically to `path`.
Status write_synthetic_model(const std::string& path, const SyntheticModelSpec& spec);

}  // namespace kvchat
