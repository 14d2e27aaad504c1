#include "model/weight_mix.h"

#include <cctype>
#include <charconv>
#include <string>

namespace kvchat {

using gguf::TensorType;

namespace {

// The layer index of "blk.N.<rest>", with rest; -1 for any other name.
int layer_of(std::string_view tensor, std::string_view& rest) {
  if (!tensor.starts_with("blk.")) return -1;
  const size_t dot = tensor.find('.', 4);
  if (dot == std::string_view::npos) return -1;
  int layer = -1;
  const auto [p, ec] = std::from_chars(tensor.data() + 4, tensor.data() + dot, layer);
  if (ec != std::errc() || p != tensor.data() + dot) return -1;
  rest = tensor.substr(dot + 1);
  return layer;
}

bool sensitive_layer(int layer, int n_layers) {
  const int eighth = n_layers / 8;
  return layer < eighth || layer >= n_layers - eighth || (layer - eighth) % 3 == 2;
}

}  // namespace

std::optional<WeightMix> parse_weight_mix(std::string_view name) {
  std::string l;
  for (char c : name) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (l == "q3_k_m") return WeightMix::Q3_K_M;
  if (l == "q4_k_m") return WeightMix::Q4_K_M;
  if (l == "q5_k_m") return WeightMix::Q5_K_M;
  return std::nullopt;
}

namespace {
// Every type a weight matrix can be written in, in the order the help lists them.
constexpr TensorType kWritable[] = {
    TensorType::F32,  TensorType::F16,  TensorType::BF16, TensorType::Q8_0,   TensorType::Q4_0,
    TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1, TensorType::Q2_K,   TensorType::Q3_K,
    TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K, TensorType::IQ4_NL, TensorType::IQ4_XS};

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
}  // namespace

std::optional<WeightTypeSpec> parse_weight_type_spec(std::string_view name) {
  const std::string want = lower(name);
  for (TensorType t : kWritable) {
    if (lower(gguf::tensor_type_name(t)) == want) return WeightTypeSpec{t, WeightMix::Uniform};
  }
  const auto mix = parse_weight_mix(want);
  if (!mix) return std::nullopt;
  const TensorType base = *mix == WeightMix::Q3_K_M   ? TensorType::Q3_K
                          : *mix == WeightMix::Q4_K_M ? TensorType::Q4_K
                                                      : TensorType::Q5_K;
  return WeightTypeSpec{base, *mix};
}

std::string weight_type_spec_names() {
  std::string all;
  for (TensorType t : kWritable)
    all += (all.empty() ? "" : ", ") + lower(gguf::tensor_type_name(t));
  for (WeightMix m : {WeightMix::Q3_K_M, WeightMix::Q4_K_M, WeightMix::Q5_K_M})
    all += ", " + lower(weight_mix_name(m));
  return all;
}

std::string_view weight_mix_name(WeightMix mix) {
  switch (mix) {
    case WeightMix::Uniform: return "";
    case WeightMix::Q3_K_M: return "Q3_K_M";
    case WeightMix::Q4_K_M: return "Q4_K_M";
    case WeightMix::Q5_K_M: return "Q5_K_M";
  }
  return "";
}

TensorType mix_weight_type(WeightMix mix, TensorType uniform, std::string_view tensor,
                           int32_t n_layers, bool tied) {
  if (mix == WeightMix::Uniform) return uniform;
  const TensorType base = mix == WeightMix::Q3_K_M   ? TensorType::Q3_K
                          : mix == WeightMix::Q4_K_M ? TensorType::Q4_K
                                                     : TensorType::Q5_K;
  if (tensor == "output.weight" || (tied && tensor == "token_embd.weight")) return TensorType::Q6_K;
  std::string_view rest;
  const int layer = layer_of(tensor, rest);
  if (layer < 0) return base;
  const bool v_or_down = rest == "attn_v.weight" || rest == "ffn_down.weight";
  if (mix == WeightMix::Q3_K_M) {
    if (rest == "attn_v.weight") return layer < 2 ? TensorType::Q5_K : TensorType::Q4_K;
    if (rest == "ffn_down.weight")
      return layer < n_layers / 16 ? TensorType::Q5_K : TensorType::Q4_K;
    if (rest == "attn_output.weight" || rest == "attn_qkv.weight") return TensorType::Q4_K;
    return base;
  }
  if (v_or_down && sensitive_layer(layer, n_layers)) return TensorType::Q6_K;
  if (rest == "attn_qkv.weight")
    return mix == WeightMix::Q4_K_M ? TensorType::Q5_K : TensorType::Q6_K;
  return base;
}

TensorType fallback_weight_type(TensorType wanted, int64_t cols) {
  const auto traits = gguf::tensor_type_traits(static_cast<uint32_t>(wanted));
  if (traits && cols % traits->block_elements == 0) return wanted;
  if (cols % 32 != 0) return TensorType::F16;
  switch (wanted) {
    case TensorType::Q4_K: return TensorType::Q5_0;
    case TensorType::Q5_K: return TensorType::Q5_1;
    case TensorType::Q6_K: return TensorType::Q8_0;
    default: return TensorType::IQ4_NL;  // Q2_K, Q3_K, IQ4_XS
  }
}

}  // namespace kvchat
