#include "gguf/tensor_type.h"

#include <array>

namespace kvchat::gguf {

namespace {
constexpr std::array<TensorTypeTraits, 15> kSupported = {{
    {TensorType::F32, "F32", 1, 4},
    {TensorType::F16, "F16", 1, 2},
    {TensorType::BF16, "BF16", 1, 2},
    {TensorType::Q8_0, "Q8_0", 32, 34},      // f16 scale + 32 x int8
    {TensorType::Q4_0, "Q4_0", 32, 18},      // f16 scale + 32 x 4-bit
    {TensorType::Q4_1, "Q4_1", 32, 20},      // f16 scale and min + 32 x 4-bit
    {TensorType::Q5_0, "Q5_0", 32, 22},      // f16 scale + 32 x 5-bit
    {TensorType::Q5_1, "Q5_1", 32, 24},      // f16 scale and min + 32 x 5-bit
    {TensorType::IQ4_NL, "IQ4_NL", 32, 18},  // f16 scale + 32 x 4-bit index into 16 levels
    {TensorType::Q2_K, "Q2_K", 256, 84},
    {TensorType::Q3_K, "Q3_K", 256, 110},
    {TensorType::Q4_K, "Q4_K", 256, 144},
    {TensorType::Q5_K, "Q5_K", 256, 176},
    {TensorType::Q6_K, "Q6_K", 256, 210},
    {TensorType::IQ4_XS, "IQ4_XS", 256, 136},
}};

// Every GGML type id known at the time of writing, so an unsupported one can be named.
constexpr std::array<std::string_view, 40> kGgmlNames = {
    "F32",     "F16",     "Q4_0",   "Q4_1",    "Q4_2",  "Q4_3",    "Q5_0",    "Q5_1",
    "Q8_0",    "Q8_1",    "Q2_K",   "Q3_K",    "Q4_K",  "Q5_K",    "Q6_K",    "Q8_K",
    "IQ2_XXS", "IQ2_XS",  "IQ3_XXS", "IQ1_S",  "IQ4_NL", "IQ3_S",  "IQ2_S",   "IQ4_XS",
    "I8",      "I16",     "I32",    "I64",     "F64",   "IQ1_M",   "BF16",    "Q4_0_4_4",
    "Q4_0_4_8", "Q4_0_8_8", "TQ1_0", "TQ2_0",  "IQ4_NL_4_4", "IQ4_NL_4_8", "IQ4_NL_8_8",
    "MXFP4"};
}  // namespace

std::optional<TensorTypeTraits> tensor_type_traits(uint32_t id) {
  for (const auto& t : kSupported) {
    if (static_cast<uint32_t>(t.type) == id) return t;
  }
  return std::nullopt;
}

std::string_view ggml_type_name(uint32_t id) {
  return id < kGgmlNames.size() ? kGgmlNames[id] : std::string_view("unknown");
}

std::string_view tensor_type_name(TensorType t) { return ggml_type_name(static_cast<uint32_t>(t)); }

std::string supported_tensor_type_names() {
  std::string all;
  for (const auto& t : kSupported) all += (all.empty() ? "" : ", ") + std::string(t.name);
  return all;
}

}  // namespace kvchat::gguf
