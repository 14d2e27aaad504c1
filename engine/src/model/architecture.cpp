#include "model/architecture.h"

namespace kvchat {

namespace {

// The facts behind each entry are llama.cpp's GGUF conventions (see the README table).
constexpr ArchitectureDesc kArchitectures[] = {
    {.name = "llama"},
    {.name = "qwen2", .rope = RopeStyle::Neox, .qkv_bias = true},
    {.name = "qwen3", .rope = RopeStyle::Neox, .qk_norm = true},
    {.name = "gemma2",
     .rope = RopeStyle::Neox,
     .activation = FfnActivation::GeluTanhGlu,
     .post_norms = true,
     .embed_scale_sqrt_dim = true,
     .softcap = true,
     .default_attn_softcap = 50.0f,
     .default_final_softcap = 30.0f,
     .swa_pattern = 2,
     .default_sliding_window = 4096,
     .query_scale_embd_per_head_layers = 46},
    {.name = "gemma3",
     .rope = RopeStyle::Neox,
     .activation = FfnActivation::GeluTanhGlu,
     .qk_norm = true,
     .post_norms = true,
     .embed_scale_sqrt_dim = true,
     .softcap = true,  // no default cap: only a file's final_logit_softcapping key
     .swa_pattern = 6,
     .swa_rope_base = 10000.0f,
     .swa_rope_unscaled = true,
     .query_scale_embd_per_head_layers = 62},
    // phi3's sliding_window key is ignored, as llama.cpp does (its converter fills it
    // inconsistently); LongRoPE files (rope_factors_long.weight) are refused.
    {.name = "phi3", .rope = RopeStyle::Neox, .fused_qkv = true, .fused_gate_up = true},
};

}  // namespace

std::span<const ArchitectureDesc> architectures() { return kArchitectures; }

const ArchitectureDesc* find_architecture(std::string_view name) {
  for (const ArchitectureDesc& a : kArchitectures) {
    if (name == a.name) return &a;
  }
  return nullptr;
}

std::string architecture_names() {
  std::string s;
  for (const ArchitectureDesc& a : kArchitectures) s += std::string(s.empty() ? "" : ", ") + a.name;
  return s;
}

}  // namespace kvchat
