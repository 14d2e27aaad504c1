#include "gguf/tensor_type.h"

#include <array>

#include "numeric/weight_type_traits.h"

namespace kvchat::gguf {

namespace {
// Every GGML type id known at the time of writing, so an unsupported one can be named.
constexpr std::array<std::string_view, 40> kGgmlNames = {
    "F32",   "F16",        "Q4_0",       "Q4_1",       "Q4_2",     "Q4_3",     "Q5_0",
    "Q5_1",  "Q8_0",       "Q8_1",       "Q2_K",       "Q3_K",     "Q4_K",     "Q5_K",
    "Q6_K",  "Q8_K",       "IQ2_XXS",    "IQ2_XS",     "IQ3_XXS",  "IQ1_S",    "IQ4_NL",
    "IQ3_S", "IQ2_S",      "IQ4_XS",     "I8",         "I16",      "I32",      "I64",
    "F64",   "IQ1_M",      "BF16",       "Q4_0_4_4",   "Q4_0_4_8", "Q4_0_8_8", "TQ1_0",
    "TQ2_0", "IQ4_NL_4_4", "IQ4_NL_4_8", "IQ4_NL_8_8", "MXFP4"};
}  // namespace

// The supported types and their blocks: the weight type table (numeric/weight_type_traits.h).
std::optional<TensorTypeTraits> tensor_type_traits(uint32_t id) {
  const WeightTypeTraits* t = weight_type_traits(static_cast<TensorType>(id));
  if (!t) return std::nullopt;
  return TensorTypeTraits{t->type, t->name, static_cast<uint32_t>(t->block_values),
                          static_cast<uint32_t>(t->block_bytes)};
}

std::string_view ggml_type_name(uint32_t id) {
  return id < kGgmlNames.size() ? kGgmlNames[id] : std::string_view("unknown");
}

std::string_view tensor_type_name(TensorType t) { return ggml_type_name(static_cast<uint32_t>(t)); }

std::string supported_tensor_type_names() {
  std::string all;
  for (const auto& t : weight_types()) all += (all.empty() ? "" : ", ") + std::string(t.name);
  return all;
}

}  // namespace kvchat::gguf
