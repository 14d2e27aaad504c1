// Synthetic GGUF models of every supported architecture: real or small shapes, random
// weights, a synthetic SentencePiece vocab. For benchmarks (`kvchat-cli mkmodel`), the
// architecture tests and the independent reference (tests/reference/) — no download.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gguf/tensor_type.h"
#include "kvchat/result.h"
#include "model/weight_mix.h"

namespace kvchat {

struct SyntheticModelSpec {
  std::string name;
  std::string arch = "llama";  // general.architecture; its optional tensors are all written
  int32_t n_layers = 1, n_embd = 64, n_heads = 2, n_kv_heads = 1, n_ff = 128, n_vocab = 320;
  int32_t head_dim = 0;  // 0: n_embd / n_heads; else written as attention.key_length/value_length
  int32_t n_ctx = 256;
  float rope_base = 10000.0f;
  // rope.scaling.*: "" (none), "linear", "yarn" or "llama3" (llama3 also writes
  // rope_freqs.weight computed from factor, low 1, high 4 and rope_orig_ctx); "longrope"
  // writes what the Phi-3 converter does: rope_factors_short/long.weight (short 1..1.1,
  // long 1..40 rising with the pair), original_context_length = rope_orig_ctx and
  // attn_factor sqrt(1 + ln(n_ctx / orig) / ln(orig)), no type or factor key.
  std::string rope_scaling;
  float rope_factor = 1;
  int32_t rope_orig_ctx = 0;
  int32_t sliding_window = 0;  // written for architectures with windowed layers
  // {arch}.attention.sliding_window_pattern: not written when empty; one value: the period
  // (written as an integer); else one per layer (written as booleans, nonzero = windowed).
  std::vector<int32_t> swa_pattern;
  float attn_softcap = 0, final_softcap = 0;  // written when > 0
  bool tied = true;  // no output.weight: the embedding doubles as the output matrix
  gguf::TensorType type = gguf::TensorType::F16;  // every 2-D weight; norms are F32
  // Uniform: `type` for every matrix; else the mix's type per matrix (model/weight_mix.h).
  // Either way a matrix whose rows are not whole blocks of its type falls back to a 32-value
  // type (fallback_weight_type).
  WeightMix mix = WeightMix::Uniform;
  // Per-tensor types over the above by GGUF name, e.g. {"output.weight", Q6_K} for the
  // Q4_0-with-a-Q6_K-output files llama.cpp writes.
  std::vector<std::pair<std::string, gguf::TensorType>> tensor_types;
  uint64_t seed = 1;
  // 0: norm weights 1 and biases 0 (the preset models); else norms uniform in
  // [1 - jitter, 1 + jitter] and biases in [-jitter, jitter].
  float norm_jitter = 0;
  float embd_scale = 1;  // token_embd/output values are uniform in +-embd_scale/sqrt(n_embd)
  // A GGUF whose tokenizer.* metadata (vocabulary, merges, special ids, chat template) is
  // copied in place of the synthetic SentencePiece vocab; n_vocab becomes its size. "" = none.
  std::string vocab_from;
};

// Shapes of real models by name: the presets of model/model_presets.h ("llama-3-8b",
// "llama-3.2-1b", "tinyllama-1.1b", "mistral-7b", "qwen2.5-0.5b" (qwen2, q/k/v biases),
// "kjv-demo-shape").
Result<SyntheticModelSpec> synthetic_preset(const std::string& name);
std::vector<std::string> synthetic_preset_names();

// A small model of architecture `arch` with every optional tensor of it: "llama",
// "llama3-rope" (llama + rope_freqs.weight and llama3 scaling keys), "qwen2", "qwen3",
// "gemma2", "gemma3", "phi3", "phi3-longrope" (phi3 + LongRoPE, context 512, original
// context 64). Dims 128, 4 heads, 2 KV heads, head_dim 32 (64 for
// qwen3/gemma, != n_embd/heads), n_ff 192, 384 tokens, window 8, soft-caps 50/30 (gemma2),
// norms random around 1, logits spread over several units.
Result<SyntheticModelSpec> synthetic_arch_spec(const std::string& arch);
std::vector<std::string> synthetic_arch_names();

// Writes the model atomically to `path`. `notes`, when given, receives one line per kind of
// matrix that fell back to another type than the one wanted.
Status write_synthetic_model(const std::string& path, const SyntheticModelSpec& spec,
                             std::vector<std::string>* notes = nullptr);

}  // namespace kvchat
