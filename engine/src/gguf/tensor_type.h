// GGML tensor element types as stored in GGUF, and the ones kvchat computes with.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kvchat::gguf {

// Values are the GGML type ids written in GGUF tensor infos.
enum class TensorType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q8_0 = 8,
  BF16 = 30,
};

struct TensorTypeTraits {
  TensorType type;
  std::string_view name;
  uint32_t block_elements;  // values per block (1 for plain floats)
  uint32_t block_bytes;     // bytes per block
};

// Traits of a supported type; nullopt for any other id.
std::optional<TensorTypeTraits> tensor_type_traits(uint32_t ggml_type_id);
// The GGML name of any known id ("Q4_K"), or "unknown" — for error messages.
std::string_view ggml_type_name(uint32_t ggml_type_id);

std::string_view tensor_type_name(TensorType t);

}  // namespace kvchat::gguf
