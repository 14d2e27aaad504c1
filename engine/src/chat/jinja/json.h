// JSON in and out of template values: reading a message list, and the tojson filter
// as transformers defines it (Python's json.dumps with ensure_ascii=False).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "chat/jinja/value.h"

namespace kvchat::jinja {

// Parses JSON text into values (objects keep their key order; integers stay ints).
// Throws RenderError with the byte offset on malformed input.
Value parse_json(std::string_view text);

struct JsonDumpOptions {
  std::optional<std::string> indent;  // json.dumps(indent=...): nullopt = one line
  std::string item_separator = ", ";  // separators=(item, key)
  std::string key_separator = ": ";
  bool sort_keys = false;
};

// json.dumps(value, ensure_ascii=False, ...). Throws RenderError for values JSON cannot
// hold (undefined, functions).
std::string dump_json(const Value& value, const JsonDumpOptions& options);

}  // namespace kvchat::jinja
