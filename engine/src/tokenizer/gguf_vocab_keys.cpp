// Reading tokenizer.ggml.* keys (see gguf_vocab_keys.h).
#include "tokenizer/gguf_vocab_keys.h"

namespace kvchat::vocab_keys {

std::string describe(const Value& v) {
  std::string s(gguf::value_type_name(v.type));
  if (v.type == ValueType::ARRAY) s += " of " + std::string(gguf::value_type_name(v.array_type));
  return s;
}

Error key_error(const GgufFile& file, const char* key, const std::string& what) {
  return Error{file.name() + ": " + key + " " + what};
}

Error wrong_type(const GgufFile& file, const char* key, const char* expected, const Value& v) {
  return key_error(file, key, std::string("must be ") + expected + ", found " + describe(v));
}

Status check_length(const GgufFile& file, const char* key, size_t n, size_t n_tokens) {
  if (n == n_tokens) return Status::Ok();
  return key_error(
      file, key,
      "has " + std::to_string(n) + " entries for " + std::to_string(n_tokens) + " tokens");
}

Result<std::vector<std::string>> read_tokens(const GgufFile& file) {
  const Value* v = file.find(kTokensKey);
  if (v == nullptr) return key_error(file, kTokensKey, "is missing");
  auto items = get_array(file, kTokensKey, "an array of string", *v,
                         [](ValueType t) { return t == ValueType::STRING; });
  if (!items.ok()) return items.error();
  std::vector<std::string> tokens;
  tokens.reserve((*items)->size());
  for (const Value& item : **items) tokens.push_back(item.s);
  return tokens;
}

// Optional: every piece NORMAL when absent.
Result<std::vector<PieceType>> read_types(const GgufFile& file, size_t n_tokens) {
  const Value* v = file.find(kTypesKey);
  if (v == nullptr) return std::vector<PieceType>(n_tokens, PieceType::NORMAL);
  auto items = get_array(file, kTypesKey, "an array of int32", *v, [](ValueType t) {
    return t == ValueType::INT32 || t == ValueType::UINT32 || t == ValueType::INT8 ||
           t == ValueType::UINT8 || t == ValueType::INT16 || t == ValueType::UINT16;
  });
  if (!items.ok()) return items.error();
  if (Status s = check_length(file, kTypesKey, (*items)->size(), n_tokens); !s.ok()) {
    return Error{s.message()};
  }
  std::vector<PieceType> types;
  types.reserve(n_tokens);
  for (size_t i = 0; i < n_tokens; ++i) {
    const std::optional<int64_t> t = (**items)[i].as_int();
    if (!t || *t < static_cast<int64_t>(PieceType::NORMAL) ||
        *t > static_cast<int64_t>(PieceType::BYTE)) {
      std::string what = "[";
      what += std::to_string(i);
      what += "] = ";
      what += (**items)[i].to_display_string();
      what += " is not a SentencePiece piece type (1..6)";
      return key_error(file, kTypesKey, what);
    }
    types.push_back(static_cast<PieceType>(*t));
  }
  return types;
}

// A token id key: required unless `fallback` is given.
Result<TokenId> read_id(const GgufFile& file, const char* key, std::optional<TokenId> fallback) {
  const Value* v = file.find(key);
  if (v == nullptr) {
    if (fallback) return *fallback;
    return key_error(file, key, "is missing");
  }
  const std::optional<uint64_t> id = v->as_uint();
  if (!id) return wrong_type(file, key, "uint32", *v);
  if (*id > static_cast<uint64_t>(INT32_MAX)) {
    return key_error(file, key, "= " + std::to_string(*id) + " is not a token id");
  }
  return static_cast<TokenId>(*id);
}

Result<bool> read_bool(const GgufFile& file, const char* key, bool fallback) {
  const Value* v = file.find(key);
  if (v == nullptr) return fallback;
  const std::optional<bool> b = v->as_bool();
  if (!b) return wrong_type(file, key, "bool", *v);
  return *b;
}

Result<std::string> read_string(const GgufFile& file, const char* key,
                                const std::string& fallback) {
  const Value* v = file.find(key);
  if (v == nullptr) return fallback;
  const std::string* s = v->as_string();
  if (s == nullptr) return wrong_type(file, key, "string", *v);
  return *s;
}

Result<std::vector<std::string>> read_strings(const GgufFile& file, const char* key) {
  const Value* v = file.find(key);
  if (v == nullptr) return key_error(file, key, "is missing");
  auto items = get_array(file, key, "an array of string", *v,
                         [](ValueType t) { return t == ValueType::STRING; });
  if (!items.ok()) return items.error();
  std::vector<std::string> out;
  out.reserve((*items)->size());
  for (const Value& item : **items) out.push_back(item.s);
  return out;
}

}  // namespace kvchat::vocab_keys
