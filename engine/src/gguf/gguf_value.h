// A GGUF metadata value: a scalar, a string, or a (possibly nested) array.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvchat::gguf {

// Values are the GGUF on-disk type ids.
enum class ValueType : uint32_t {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
};

std::string_view value_type_name(ValueType t);

struct Value {
  ValueType type = ValueType::UINT8;
  // Exactly one of these is meaningful, chosen by `type`:
  uint64_t u = 0;                           // UINT8..UINT64, BOOL
  int64_t i = 0;                            // INT8..INT64
  double f = 0;                             // FLOAT32, FLOAT64
  std::string s;                            // STRING
  ValueType array_type = ValueType::UINT8;  // ARRAY: element type
  std::vector<Value> array;                 // ARRAY: elements

  bool is_unsigned() const;
  bool is_signed() const;
  bool is_float() const;

  // Conversions that succeed only when the value fits the requested type.
  std::optional<uint64_t> as_uint() const;
  std::optional<int64_t> as_int() const;
  std::optional<double> as_float() const;
  std::optional<bool> as_bool() const;
  const std::string* as_string() const;
  const std::vector<Value>* as_array() const;

  // Short human-readable rendering (arrays abbreviated), for `info`.
  std::string to_display_string(size_t max_items = 8) const;
};

}  // namespace kvchat::gguf
