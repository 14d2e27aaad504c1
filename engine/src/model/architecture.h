// What distinguishes one GGUF architecture from another, as data: one table entry per
// `general.architecture` value. The loaders (model_hparams, model_weights) and every
// forward pass read this description instead of asking "is this gemma?"; adding an
// architecture is one entry here plus its test.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kvchat {

// How RoPE pairs the values of a head (the first n_rot of head_dim are rotated).
enum class RopeStyle : uint8_t {
  Norm,  // adjacent pairs (x[2i], x[2i+1]): llama (the converter permuted Q/K for it)
  Neox,  // half split (x[i], x[i + n_rot/2]): qwen2, qwen3, gemma2, gemma3, phi3
};

// The gated FFN: down(act(gate . x) * (up . x)).
enum class FfnActivation : uint8_t {
  SiluGlu,      // act = silu (SwiGLU)
  GeluTanhGlu,  // act = GELU, tanh approximation (GeGLU): gemma
};

struct ArchitectureDesc {
  const char* name;  // general.architecture
  RopeStyle rope = RopeStyle::Norm;
  FfnActivation activation = FfnActivation::SiluGlu;
  // Tensors.
  bool fused_qkv = false;      // blk.N.attn_qkv.weight: rows q | k | v (phi3)
  bool fused_gate_up = false;  // blk.N.ffn_up.weight of 2*n_ff rows: gate | up (phi3)
  bool qkv_bias = false;       // blk.N.attn_{q,k,v}.bias added after the projection (qwen2)
  bool qk_norm = false;        // blk.N.attn_{q,k}_norm.weight: RMSNorm of each head before RoPE
  bool post_norms = false;     // blk.N.post_attention_norm / post_ffw_norm on each branch's output
  // Numbers.
  bool embed_scale_sqrt_dim = false;  // x = token_embd[t] * sqrt(n_embd) (gemma)
  bool softcap = false;             // reads {arch}.attn_logit_softcapping / final_logit_softcapping
  float default_attn_softcap = 0;   // when the key is absent (llama.cpp's gemma2 defaults: 50)
  float default_final_softcap = 0;  // (30)
  // Sliding-window attention: 0 = none; N = layer l is windowed when l % N < N - 1
  // (gemma2: 2, the even layers; gemma3: 6, five local then one global), with the window
  // {arch}.attention.sliding_window (the last `window` positions, the token's own included).
  // When the file has no sliding_window key: this window (gemma2: 4096, llama.cpp's
  // default), or 0 = no windowed layers at all (gemma3: every layer global, one base).
  int32_t swa_pattern = 0;
  int32_t default_sliding_window = 0;
  // Windowed layers' RoPE base when the file has no rope.freq_base_swa; 0 = rope.freq_base.
  float swa_rope_base = 0;
  bool swa_rope_unscaled = false;  // windowed layers ignore rope scaling (gemma3)
  // Query scale: {arch}.attention.scale when present, else 1/sqrt(key_length), except
  // at this block_count (the 27B model), where it is 1/sqrt(n_embd / n_heads): gemma
  // 27B's query_pre_attn_scalar, which GGUF files do not carry (llama.cpp does the same).
  int32_t query_scale_embd_per_head_layers = 0;
};

// Every supported architecture, in table order.
std::span<const ArchitectureDesc> architectures();
// The entry for `name`, or null.
const ArchitectureDesc* find_architecture(std::string_view name);
// "llama, qwen2, ..." for messages.
std::string architecture_names();

}  // namespace kvchat
