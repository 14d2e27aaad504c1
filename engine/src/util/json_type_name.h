// A JSON value's kind as an error message says it ("must be a string, not an array"), for
// nlohmann::json and nlohmann::ordered_json alike.
#pragma once

#include <nlohmann/json.hpp>

namespace kvchat {

template <class Json>
const char* json_type_name(const Json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::binary: return "binary";
    case nlohmann::json::value_t::discarded: return "invalid";
    default: return "a number";
  }
}

}  // namespace kvchat
