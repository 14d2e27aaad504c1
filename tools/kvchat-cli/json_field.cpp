// Typed access to JSON from a file or a peer (see json_field.h).
#include "json_field.h"

namespace kvchat::cli {

using nlohmann::json;

std::string json_type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    case json::value_t::binary: return "binary data";
    case json::value_t::discarded: return "nothing";
  }
  return "an unknown value";
}

Result<json> parse_json(std::string_view text) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    return Error{"not JSON (a syntax error at byte " + std::to_string(e.byte) + ")"};
  } catch (const json::exception&) {
    return Error{"not JSON"};
  }
}

std::string json_text(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

Error JsonField::wrong_type(std::string_view expected) const {
  return Error{(path_.empty() ? std::string() : path_ + ": ") + "expected " +
               std::string(expected) + ", found " + json_type_name(*v_)};
}

std::string JsonField::child(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

Status JsonField::expect_object() const {
  if (!v_->is_object()) return wrong_type("an object");
  return {};
}

bool JsonField::has(std::string_view key) const {
  return v_->is_object() && v_->find(key) != v_->end();
}

Result<JsonField> JsonField::member(std::string_view key) const {
  if (!v_->is_object()) return wrong_type("an object");
  const auto it = v_->find(key);
  if (it == v_->end()) return Error{child(key) + ": missing"};
  return JsonField(*it, child(key));
}

Result<std::vector<JsonField>> JsonField::elements() const {
  if (!v_->is_array()) return wrong_type("an array");
  std::vector<JsonField> out;
  out.reserve(v_->size());
  for (size_t i = 0; i < v_->size(); ++i) {
    out.emplace_back((*v_)[i], path_ + "[" + std::to_string(i) + "]");
  }
  return out;
}

Result<std::string> JsonField::string() const {
  if (!v_->is_string()) return wrong_type("a string");
  return v_->get<std::string>();
}

Result<int64_t> JsonField::integer(int64_t min, int64_t max) const {
  const std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
  // Checked before any conversion: a huge or fractional number is refused, not cut.
  bool in_range = false;
  int64_t v = 0;
  if (v_->is_number_unsigned()) {
    const uint64_t u = v_->get<uint64_t>();
    in_range = max >= 0 && u <= static_cast<uint64_t>(max);
    v = in_range ? static_cast<int64_t>(u) : 0;
    in_range = in_range && v >= min;
  } else if (v_->is_number_integer()) {
    v = v_->get<int64_t>();
    in_range = v >= min && v <= max;
  } else {
    return wrong_type("an integer in " + range);
  }
  if (!in_range) {
    return Error{(path_.empty() ? std::string() : path_ + ": ") + v_->dump() + " is outside " +
                 range};
  }
  return v;
}

}  // namespace kvchat::cli
