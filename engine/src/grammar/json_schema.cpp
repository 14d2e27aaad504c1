#include "grammar/json_schema.h"

#include "grammar/grammar.h"
#include "grammar/json_pattern.h"

#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvchat::grammar {
namespace {

using Json = nlohmann::ordered_json;

// The JSON pieces every schema shares (RFC 8259), written once when first used.
const std::map<std::string, std::string>& primitives() {
  static const std::map<std::string, std::string> p = {
      // One space, or a line break and an indent (pretty-printed JSON): no more, so that a
      // small model cannot spend its tokens on blanks.
      {"ws", "( \" \" | \"\\n\" [ \\t]{0,20} )?"},
      {"string", "\"\\\"\" char* \"\\\"\""},
      {"char",  // one character of a JSON string: a code point or an escape
       "[^\"\\\\\\x00-\\x1F] | \"\\\\\" ( [\"\\\\/bfnrt] | \"u\" [0-9a-fA-F]{4} )"},
      {"integer", "\"-\"? ( \"0\" | [1-9] [0-9]{0,15} )"},
      {"number", "integer ( \".\" [0-9]{1,16} )? ( [eE] [-+]? [0-9]{1,3} )?"},
      {"boolean", "\"true\" | \"false\""},
      {"null", "\"null\""},
      {"value", "object | array | string | number | boolean | null"},
      {"object", "\"{\" ws ( member ( \",\" ws member )* )? \"}\""},
      {"member", "string ws \":\" ws value ws"},
      {"array", "\"[\" ws ( value ws ( \",\" ws value ws )* )? \"]\""},
  };
  return p;
}
// What each primitive refers to (so that using one brings in the others).
const std::map<std::string, std::vector<std::string>>& primitive_uses() {
  static const std::map<std::string, std::vector<std::string>> u = {
      {"string", {"char"}},
      {"number", {"integer"}},
      {"value", {"object", "array", "string", "number", "boolean", "null"}},
      {"object", {"ws", "member"}},
      {"member", {"string", "ws", "value"}},
      {"array", {"ws", "value"}},
  };
  return u;
}

}  // namespace

std::string gbnf_literal(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\', out += static_cast<char>(c);
    } else if (c < 0x20) {
      static const char* hex = "0123456789ABCDEF";
      out += "\\x", out += hex[c >> 4], out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

namespace {

const std::set<std::string> kAnnotations = {"title",    "description", "$schema", "$id",
                                            "$comment", "examples",    "default", "strict"};
const std::set<std::string> kUnderstood = {
    "type",        "properties", "required",  "additionalProperties",
    "items",       "minItems",   "maxItems",  "enum",
    "const",       "anyOf",      "$ref",      "$defs",
    "definitions", "minLength",  "maxLength", "pattern"};

class Converter {
 public:
  Converter(const Json& root, std::string root_name)
      : root_(root), root_name_(std::move(root_name)) {}

  Result<std::string> run() {
    const std::string root = rule_for(root_, "root-value", "");
    if (error_) return Error{*error_};
    std::string out = root_name_ + " ::= " + root + "\n";
    for (const auto& [name, body] : rules_) out += name + " ::= " + body + "\n";
    return out;
  }

 private:
  void fail(const std::string& at, const std::string& what) {
    if (!error_) error_ = "schema" + (at.empty() ? std::string() : " at " + at) + ": " + what;
  }

  void use_primitive(const std::string& name) {
    if (rules_.count(name)) return;
    rules_[name] = primitives().at(name);
    auto it = primitive_uses().find(name);
    if (it != primitive_uses().end())
      for (const auto& dep : it->second) use_primitive(dep);
  }

  std::string new_rule(const std::string& hint, std::string body) {
    std::string base = root_name_ == "root" ? "" : root_name_ + "-";
    for (char c : hint) base += (std::isalnum(static_cast<unsigned char>(c)) ? c : '-');
    if (base.empty()) base = "s";
    std::string name = base;
    for (int i = 2; rules_.count(name) || primitives().count(name) || name == root_name_; ++i)
      name = base + "-" + std::to_string(i);
    rules_[name] = std::move(body);
    return name;
  }

  // The rule (or GBNF expression in parentheses) for schema s at JSON pointer `at`.
  std::string rule_for(const Json& s, const std::string& hint, const std::string& at) {
    if (error_) return "null";
    if (s.is_boolean()) {
      if (s.get<bool>()) return use_primitive("value"), "value";
      fail(at, "the schema false admits nothing");
      return "null";
    }
    if (!s.is_object()) {
      fail(at, "a schema must be an object or a boolean");
      return "null";
    }
    for (const auto& [key, v] : s.items()) {
      if (!kUnderstood.count(key) && !kAnnotations.count(key)) {
        fail(at, "'" + key + "' is not supported");
        return "null";
      }
    }
    if (s.contains("$ref")) return ref_rule(s["$ref"], at);
    if (s.contains("const")) return gbnf_literal(s["const"].dump());
    if (s.contains("enum")) return enum_rule(s["enum"], hint, at);
    if (s.contains("anyOf")) return any_of_rule(s["anyOf"], hint, at);
    if (!s.contains("type")) return use_primitive("value"), "value";
    const Json& type = s["type"];
    if (type.is_array()) {
      std::string body;
      for (const auto& t : type) {
        Json one = s;
        one["type"] = t;
        // A type's own keywords say nothing of the others' instances.
        const std::string name = t.is_string() ? t.get<std::string>() : "";
        if (name != "object")
          for (const char* k : {"properties", "required", "additionalProperties"}) one.erase(k);
        if (name != "array")
          for (const char* k : {"items", "minItems", "maxItems"}) one.erase(k);
        if (name != "string")
          for (const char* k : {"minLength", "maxLength", "pattern"}) one.erase(k);
        body += (body.empty() ? "" : " | ") + rule_for(one, hint, at);
      }
      if (body.empty()) fail(at, "an empty list of types");
      return new_rule(hint, body);
    }
    if (!type.is_string()) {
      fail(at + "/type", "a type must be a string or a list of strings");
      return "null";
    }
    return typed_rule(s, type.get<std::string>(), hint, at);
  }

  std::string typed_rule(const Json& s, const std::string& type, const std::string& hint,
                         const std::string& at) {
    for (const char* key : {"properties", "required", "additionalProperties"}) {
      if (s.contains(key) && type != "object") fail(at, std::string("'") + key + "' on a " + type);
    }
    for (const char* key : {"items", "minItems", "maxItems"}) {
      if (s.contains(key) && type != "array") fail(at, std::string("'") + key + "' on a " + type);
    }
    for (const char* key : {"minLength", "maxLength", "pattern"}) {
      if (s.contains(key) && type != "string") fail(at, std::string("'") + key + "' on a " + type);
    }
    if (type == "object") return object_rule(s, hint, at);
    if (type == "array") return array_rule(s, hint, at);
    if (type == "string" && s.contains("pattern")) return pattern_rule(s, hint, at);
    if (type == "string" && (s.contains("minLength") || s.contains("maxLength")))
      return bounded_string_rule(s, hint, at);
    if (type == "string" || type == "integer" || type == "number" || type == "boolean" ||
        type == "null") {
      use_primitive(type);
      return type;
    }
    fail(at + "/type", "unknown type '" + type + "'");
    return "null";
  }

  // A string whose value the pattern matches (grammar/json_pattern.h).
  std::string pattern_rule(const Json& s, const std::string& hint, const std::string& at) {
    if (s.contains("minLength") || s.contains("maxLength")) {
      fail(at, "'pattern' together with minLength or maxLength is not supported");
      return "null";
    }
    if (!s.at("pattern").is_string()) {
      fail(at + "/pattern", "'pattern' must be a string");
      return "null";
    }
    auto body = pattern_to_gbnf(s.at("pattern").get<std::string>());
    if (!body) {
      fail(at + "/pattern", body.message());
      return "null";
    }
    return new_rule(hint, "\"\\\"\" " + *body + " \"\\\"\"");
  }

  // A string of minLength to maxLength characters (code points or escapes).
  std::string bounded_string_rule(const Json& s, const std::string& hint, const std::string& at) {
    // A bound is written out as that many grammar elements: the grammar's repeat limit.
    const int64_t kMaxBound = GrammarLimits{}.max_repeat;
    int64_t lo = 0, hi = -1;
    for (const auto& [key, out] : {std::pair{"minLength", &lo}, std::pair{"maxLength", &hi}}) {
      if (!s.contains(key)) continue;
      const Json& v = s.at(key);
      if (!v.is_number_integer() || v.get<int64_t>() < 0) {
        fail(at + "/" + key, "must be a non-negative integer");
        return "null";
      }
      if (v.get<int64_t>() > kMaxBound) {
        fail(at + "/" + key, "above " + std::to_string(kMaxBound) + " is not supported");
        return "null";
      }
      *out = v.get<int64_t>();
    }
    if (hi >= 0 && lo > hi) {
      fail(at, "minLength is greater than maxLength");
      return "null";
    }
    use_primitive("char");
    const std::string bounds =
        "{" + std::to_string(lo) + "," + (hi >= 0 ? std::to_string(hi) : "") + "}";
    return new_rule(hint, "\"\\\"\" char" + bounds + " \"\\\"\"");
  }

  std::string object_rule(const Json& s, const std::string& hint, const std::string& at) {
    if (s.contains("additionalProperties") && s["additionalProperties"] != false) {
      fail(at, "additionalProperties other than false is not supported");
      return "null";
    }
    if (!s.contains("properties")) {
      use_primitive("object");
      return "object";
    }
    const Json& props = s["properties"];
    if (!props.is_object()) {
      fail(at + "/properties", "properties must be an object");
      return "null";
    }
    std::set<std::string> required;
    if (s.contains("required")) {
      for (const auto& r : s["required"]) {
        if (!r.is_string() || !props.contains(r.get<std::string>())) {
          fail(at + "/required", "'" + r.dump() + "' is not one of the properties");
          return "null";
        }
        required.insert(r.get<std::string>());
      }
    }
    use_primitive("ws");
    // Members in the properties' order, the optional ones skippable, commas only between:
    // first_i (nothing written yet) and after_i (something written), from property i on.
    std::vector<std::string> kv;
    std::vector<bool> req;
    for (const auto& [name, sub] : props.items()) {
      const std::string value = rule_for(sub, hint + "-" + name, at + "/properties/" + name);
      kv.push_back(gbnf_literal(Json(name).dump()) + " ws \":\" ws " + value + " ws");
      req.push_back(required.count(name) > 0);
    }
    std::string first_next = "", after_next = "";  // first_n and after_n: nothing
    for (size_t i = kv.size(); i-- > 0;) {
      const std::string rest = after_next.empty() ? "" : " " + after_next;
      std::string first = "( " + kv[i] + rest + " )";
      std::string after = "( \",\" ws " + kv[i] + rest + " )";
      if (!req[i]) {
        first += " | " + (first_next.empty() ? std::string("\"\"") : first_next);
        after += " | " + (after_next.empty() ? std::string("\"\"") : after_next);
      }
      first_next = new_rule(hint + "-first", first);
      after_next = new_rule(hint + "-after", after);
    }
    const std::string members = kv.empty() ? "" : " " + first_next;
    return new_rule(hint, "\"{\" ws" + members + " \"}\"");
  }

  std::string array_rule(const Json& s, const std::string& hint, const std::string& at) {
    const std::string item = s.contains("items")
                                 ? rule_for(s["items"], hint + "-item", at + "/items")
                                 : (use_primitive("value"), std::string("value"));
    const auto count = [&](const char* key) -> std::optional<int64_t> {
      if (!s.contains(key)) return std::nullopt;
      if (!s[key].is_number_integer() || s[key].get<int64_t>() < 0 ||
          s[key].get<int64_t>() > 1000) {
        fail(at + "/" + key, "must be an integer from 0 to 1000");
        return std::nullopt;
      }
      return s[key].get<int64_t>();
    };
    const int64_t min = count("minItems").value_or(0);
    const std::optional<int64_t> max = count("maxItems");
    if (max && *max < min) fail(at, "maxItems below minItems");
    use_primitive("ws");
    const std::string one = item + " ws";
    const std::string more_min = std::to_string(min > 0 ? min - 1 : 0);
    const std::string more =
        "( \",\" ws " + one + " )" +
        (max ? "{" + more_min + "," + std::to_string(*max > 0 ? *max - 1 : 0) + "}"
             : "{" + more_min + ",}");
    std::string body;
    if (max && *max == 0) {
      body = "\"[\" ws \"]\"";
    } else if (min == 0) {
      body = "\"[\" ws ( " + one + " " + more + " )? \"]\"";
    } else {
      body = "\"[\" ws " + one + " " + more + " \"]\"";
    }
    return new_rule(hint, body);
  }

  std::string enum_rule(const Json& values, const std::string& hint, const std::string& at) {
    if (!values.is_array() || values.empty()) {
      fail(at + "/enum", "enum must be a non-empty list");
      return "null";
    }
    std::string body;
    for (const auto& v : values) body += (body.empty() ? "" : " | ") + gbnf_literal(v.dump());
    return new_rule(hint, body);
  }

  std::string any_of_rule(const Json& list, const std::string& hint, const std::string& at) {
    if (!list.is_array() || list.empty()) {
      fail(at + "/anyOf", "anyOf must be a non-empty list");
      return "null";
    }
    std::string body;
    for (size_t i = 0; i < list.size(); ++i)
      body += (body.empty() ? "" : " | ") +
              rule_for(list[i], hint + "-" + std::to_string(i), at + "/anyOf/" + std::to_string(i));
    return new_rule(hint, body);
  }

  std::string ref_rule(const Json& ref, const std::string& at) {
    if (!ref.is_string()) {
      fail(at + "/$ref", "$ref must be a string");
      return "null";
    }
    const std::string path = ref.get<std::string>();
    auto it = refs_.find(path);
    if (it != refs_.end()) return it->second;
    const Json* target = nullptr;
    std::string name;
    if (path == "#") {
      target = &root_, name = "root-value";
    } else {
      for (const char* prefix : {"#/$defs/", "#/definitions/"}) {
        const std::string p = prefix;
        if (path.rfind(p, 0) != 0) continue;
        const std::string key = path.substr(p.size()), section = p.substr(2, p.size() - 3);
        if (!root_.contains(section) || !root_.at(section).is_object()) continue;
        const Json& defs = root_.at(section);
        if (defs.contains(key)) target = &defs.at(key), name = "def-" + key;
      }
    }
    if (!target) {
      fail(at + "/$ref", "'" + path + "' is not a definition of this schema");
      return "null";
    }
    // Named before it is expanded, so that a recursive reference finds it.
    const std::string rule = new_rule(name, "\"\"");
    refs_[path] = rule;
    rules_[rule] = rule_for(*target, name, path.substr(1));
    return rule;
  }

  const Json& root_;
  const std::string root_name_;
  std::map<std::string, std::string> rules_;  // name -> body
  std::map<std::string, std::string> refs_;   // $ref -> its rule
  std::optional<std::string> error_;
};

}  // namespace

Result<std::string> json_schema_to_gbnf(std::string_view schema_json,
                                        const std::string& root_name) {
  Json schema;
  try {
    schema = Json::parse(schema_json);
  } catch (const std::exception& e) {
    return Error{std::string("schema: not JSON: ") + e.what()};
  }
  try {
    return Converter(schema, root_name).run();
  } catch (const std::exception& e) {  // nlohmann's type errors on malformed schemas
    return Error{std::string("schema: ") + e.what()};
  }
}

}  // namespace kvchat::grammar
