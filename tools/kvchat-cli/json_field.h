// JSON read from a file or a peer (a chat save, a summarize resume line) with its types
// checked: every access names the value's place in its document ("messages[3].content")
// and what was found there, instead of nlohmann's type_error escaping as an abort. And
// JSON written out: invalid UTF-8 replaced, never thrown.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/result.h"

namespace kvchat::cli {

// A value and the path that names it in its document ("" for the document itself).
// Errors read "PATH: expected a string, found a number" (the caller adds the file).
class JsonField {
 public:
  JsonField(const nlohmann::json& value, std::string path) : v_(&value), path_(std::move(path)) {}

  const nlohmann::json& value() const { return *v_; }
  const std::string& path() const { return path_; }

  // Member `key` of this object; an error when this is not an object or has no `key`.
  Result<JsonField> member(std::string_view key) const;
  // Whether this is an object with member `key`.
  bool has(std::string_view key) const;
  // The elements of this array ("PATH[i]" each).
  Result<std::vector<JsonField>> elements() const;
  Result<std::string> string() const;
  // An integer in [min, max] (a fraction, or a number outside the range, is an error).
  Result<int64_t> integer(int64_t min, int64_t max) const;
  Status expect_object() const;

 private:
  Error wrong_type(std::string_view expected) const;
  std::string child(std::string_view key) const;

  const nlohmann::json* v_;
  std::string path_;
};

// "a string", "a number", "an object", ... (what a message says was found).
std::string json_type_name(const nlohmann::json& v);

// Parses `text` as one JSON value; a syntax error says at which byte (no exception).
Result<nlohmann::json> parse_json(std::string_view text);

// `j` as text; strings that are not UTF-8 get U+FFFD instead of an exception.
std::string json_text(const nlohmann::json& j, int indent = -1);

}  // namespace kvchat::cli
