// The type each 2-D weight of a written model gets: one type for every matrix, or a mix in
// the manner of llama.cpp's Q3_K_M / Q4_K_M / Q5_K_M files, with a fallback for matrices
// whose rows are not whole blocks of the chosen type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gguf/tensor_type.h"

namespace kvchat {

enum class WeightMix { Uniform, Q3_K_M, Q4_K_M, Q5_K_M };

// "q3_k_m" / "q4_k_m" / "q5_k_m" (any case); nullopt for anything else.
std::optional<WeightMix> parse_weight_mix(std::string_view name);
std::string_view weight_mix_name(WeightMix mix);  // "Q4_K_M"; "" for Uniform

// What `--type` names: one stored type for every matrix, or a mix (type = its base type).
struct WeightTypeSpec {
  gguf::TensorType type = gguf::TensorType::F16;
  WeightMix mix = WeightMix::Uniform;
};
// A supported type by its GGML name ("q4_k", "IQ4_XS"; any case) or a mix ("q4_k_m").
std::optional<WeightTypeSpec> parse_weight_type_spec(std::string_view name);
// The accepted names, lower-case, comma-separated: "f32, f16, ..., q5_k_m".
std::string weight_type_spec_names();

// The mixes' rules. "Sensitive" layers are the first and last eighth of the layers and every
// third layer between them (about half of all).
//   Q4_K_M: Q4_K; Q6_K for the output matrix (token_embd when the output is tied to it) and
//           for attn_v and ffn_down of the sensitive layers; Q5_K for a fused attn_qkv.
//   Q5_K_M: Q5_K; Q6_K for the output, sensitive attn_v / ffn_down and a fused attn_qkv.
//   Q3_K_M: Q3_K; Q6_K for the output; Q5_K for attn_v of layers 0-1 and ffn_down of the
//           first sixteenth of the layers, Q4_K for the other attn_v / ffn_down and for
//           attn_output and a fused attn_qkv.
// `tensor` is the GGUF name ("blk.3.attn_v.weight"); `tied`: token_embd is also the output.
gguf::TensorType mix_weight_type(WeightMix mix, gguf::TensorType uniform, std::string_view tensor,
                                 int32_t n_layers, bool tied);

// `wanted` when rows of `cols` values are whole blocks of it; else the 32-value type
// closest in size and fidelity: Q2_K, Q3_K, IQ4_XS -> IQ4_NL; Q4_K -> Q5_0; Q5_K -> Q5_1;
// Q6_K -> Q8_0; and F16 when rows are not even whole 32-value blocks.
gguf::TensorType fallback_weight_type(gguf::TensorType wanted, int64_t cols);

}  // namespace kvchat
