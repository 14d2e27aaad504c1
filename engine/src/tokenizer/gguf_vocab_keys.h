// Reading the tokenizer.ggml.* keys of a GGUF file, shared by the vocab
// loaders. Every error names the file and the key.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "kvchat/result.h"
#include "kvchat/tokenizer.h"
#include "tokenizer/token_type.h"

namespace kvchat::vocab_keys {

using gguf::GgufFile;
using gguf::Value;
using gguf::ValueType;

inline constexpr const char* kModelKey = "tokenizer.ggml.model";
inline constexpr const char* kTokensKey = "tokenizer.ggml.tokens";
inline constexpr const char* kTypesKey = "tokenizer.ggml.token_type";
inline constexpr const char* kBosKey = "tokenizer.ggml.bos_token_id";
inline constexpr const char* kEosKey = "tokenizer.ggml.eos_token_id";
inline constexpr const char* kUnkKey = "tokenizer.ggml.unknown_token_id";
inline constexpr const char* kEotKey = "tokenizer.ggml.eot_token_id";
inline constexpr const char* kEomKey = "tokenizer.ggml.eom_token_id";
inline constexpr const char* kAddBosKey = "tokenizer.ggml.add_bos_token";

// "string", "array of uint32", ...
std::string describe(const Value& v);
Error key_error(const GgufFile& file, const char* key, const std::string& what);
Error wrong_type(const GgufFile& file, const char* key, const char* expected, const Value& v);
// OK when an array under `key` has n entries for n_tokens tokens.
Status check_length(const GgufFile& file, const char* key, size_t n, size_t n_tokens);

// An array value whose elements all pass `accepts`, or an error.
template <class Accepts>
Result<const std::vector<Value>*> get_array(const GgufFile& file, const char* key,
                                            const char* expected, const Value& v, Accepts accepts) {
  const std::vector<Value>* items = v.as_array();
  if (items == nullptr || !accepts(v.array_type)) return wrong_type(file, key, expected, v);
  return items;
}

// tokenizer.ggml.tokens (required).
Result<std::vector<std::string>> read_tokens(const GgufFile& file);
// tokenizer.ggml.token_type: every token NORMAL when absent.
Result<std::vector<PieceType>> read_types(const GgufFile& file, size_t n_tokens);
// A token id key: required unless `fallback` is given.
Result<TokenId> read_id(const GgufFile& file, const char* key, std::optional<TokenId> fallback);
Result<bool> read_bool(const GgufFile& file, const char* key, bool fallback);
// An optional string key: `fallback` when absent.
Result<std::string> read_string(const GgufFile& file, const char* key, const std::string& fallback);
// A required array of strings.
Result<std::vector<std::string>> read_strings(const GgufFile& file, const char* key);

}  // namespace kvchat::vocab_keys
