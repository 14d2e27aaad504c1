#include "gguf/gguf_value.h"

#include <cstdio>
#include <limits>

namespace kvchat::gguf {

std::string_view value_type_name(ValueType t) {
  switch (t) {
    case ValueType::UINT8: return "uint8";
    case ValueType::INT8: return "int8";
    case ValueType::UINT16: return "uint16";
    case ValueType::INT16: return "int16";
    case ValueType::UINT32: return "uint32";
    case ValueType::INT32: return "int32";
    case ValueType::FLOAT32: return "float32";
    case ValueType::BOOL: return "bool";
    case ValueType::STRING: return "string";
    case ValueType::ARRAY: return "array";
    case ValueType::UINT64: return "uint64";
    case ValueType::INT64: return "int64";
    case ValueType::FLOAT64: return "float64";
  }
  return "invalid";
}

bool Value::is_unsigned() const {
  return type == ValueType::UINT8 || type == ValueType::UINT16 || type == ValueType::UINT32 ||
         type == ValueType::UINT64;
}
bool Value::is_signed() const {
  return type == ValueType::INT8 || type == ValueType::INT16 || type == ValueType::INT32 ||
         type == ValueType::INT64;
}
bool Value::is_float() const { return type == ValueType::FLOAT32 || type == ValueType::FLOAT64; }

std::optional<uint64_t> Value::as_uint() const {
  if (is_unsigned()) return u;
  if (is_signed() && i >= 0) return static_cast<uint64_t>(i);
  return std::nullopt;
}

std::optional<int64_t> Value::as_int() const {
  if (is_signed()) return i;
  if (is_unsigned() && u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return static_cast<int64_t>(u);
  }
  return std::nullopt;
}

std::optional<double> Value::as_float() const {
  if (is_float()) return f;
  if (is_unsigned()) return static_cast<double>(u);
  if (is_signed()) return static_cast<double>(i);
  return std::nullopt;
}

std::optional<bool> Value::as_bool() const {
  if (type == ValueType::BOOL) return u != 0;
  return std::nullopt;
}

const std::string* Value::as_string() const { return type == ValueType::STRING ? &s : nullptr; }

const std::vector<Value>* Value::as_array() const {
  return type == ValueType::ARRAY ? &array : nullptr;
}

std::string Value::to_display_string(size_t max_items) const {
  switch (type) {
    case ValueType::STRING: return "\"" + s + "\"";
    case ValueType::BOOL: return u ? "true" : "false";
    case ValueType::FLOAT32:
    case ValueType::FLOAT64: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.9g", f);
      return buf;
    }
    case ValueType::ARRAY: {
      std::string out = "[";
      for (size_t k = 0; k < array.size() && k < max_items; ++k) {
        if (k) out += ", ";
        out += array[k].to_display_string(max_items);
      }
      if (array.size() > max_items) out += ", ... (" + std::to_string(array.size()) + " items)";
      return out + "]";
    }
    default: return is_signed() ? std::to_string(i) : std::to_string(u);
  }
}

}  // namespace kvchat::gguf
