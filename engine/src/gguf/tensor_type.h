// GGML tensor element types as stored in GGUF, and the ones kvchat computes with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kvchat::gguf {

// Values are the GGML type ids written in GGUF tensor infos.
enum class TensorType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  IQ4_NL = 20,
  IQ4_XS = 23,
  BF16 = 30,
};

struct TensorTypeTraits {
  TensorType type;
  std::string_view name;
  uint32_t block_elements;  // values per block (1 for plain floats)
  uint32_t block_bytes;     // bytes per block
};

// Traits of a supported type; nullopt for any other id.
// Block layouts: numeric/quant_blocks.h.
std::optional<TensorTypeTraits> tensor_type_traits(uint32_t ggml_type_id);
// The GGML name of any known id ("Q4_K"), or "unknown" — for error messages.
std::string_view ggml_type_name(uint32_t ggml_type_id);

std::string_view tensor_type_name(TensorType t);
// The supported types' names, comma-separated ("F32, F16, ..., IQ4_XS"), for messages.
std::string supported_tensor_type_names();

}  // namespace kvchat::gguf
