// SentencePieceVocab::from_gguf: reads the tokenizer.ggml.* metadata of a GGUF
// file ("llama" vocab) into SentencePieceVocabData. Every error names the file
// and the key.
#include <optional>
#include <string>

#include "gguf/gguf_file.h"
#include "tokenizer/sentencepiece_vocab.h"

namespace kvchat {
namespace {

using gguf::GgufFile;
using gguf::Value;
using gguf::ValueType;

constexpr const char* kModelKey = "tokenizer.ggml.model";
constexpr const char* kTokensKey = "tokenizer.ggml.tokens";
constexpr const char* kScoresKey = "tokenizer.ggml.scores";
constexpr const char* kTypesKey = "tokenizer.ggml.token_type";
constexpr const char* kBosKey = "tokenizer.ggml.bos_token_id";
constexpr const char* kEosKey = "tokenizer.ggml.eos_token_id";
constexpr const char* kUnkKey = "tokenizer.ggml.unknown_token_id";
constexpr const char* kAddBosKey = "tokenizer.ggml.add_bos_token";
constexpr const char* kAddSpacePrefixKey = "tokenizer.ggml.add_space_prefix";

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

// An array value whose elements all pass `accepts`, or an error.
template <class Accepts>
Result<const std::vector<Value>*> get_array(const GgufFile& file, const char* key,
                                            const char* expected, const Value& v, Accepts accepts) {
  const std::vector<Value>* items = v.as_array();
  if (items == nullptr || !accepts(v.array_type)) return wrong_type(file, key, expected, v);
  return items;
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

// Optional: every score 0 when absent.
Result<std::vector<float>> read_scores(const GgufFile& file, size_t n_tokens) {
  const Value* v = file.find(kScoresKey);
  if (v == nullptr) return std::vector<float>(n_tokens, 0.0f);
  auto items = get_array(file, kScoresKey, "an array of float32", *v, [](ValueType t) {
    return t == ValueType::FLOAT32 || t == ValueType::FLOAT64;
  });
  if (!items.ok()) return items.error();
  if (Status s = check_length(file, kScoresKey, (*items)->size(), n_tokens); !s.ok()) {
    return Error{s.message()};
  }
  std::vector<float> scores;
  scores.reserve(n_tokens);
  for (const Value& item : **items) scores.push_back(static_cast<float>(item.f));
  return scores;
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

Status check_model(const GgufFile& file) {
  const Value* v = file.find(kModelKey);
  if (v == nullptr) return key_error(file, kModelKey, "is missing");
  const std::string* model = v->as_string();
  if (model == nullptr) return wrong_type(file, kModelKey, "string", *v);
  if (*model != "llama") {
    return Error{file.name() + ": " + kModelKey + " is \"" + *model + "\": " + *model +
                 " tokenizers are not supported yet (only \"llama\", SentencePiece)"};
  }
  return Status::Ok();
}

// The unk id when the key is absent: the first UNKNOWN piece, else 0.
TokenId default_unk(const std::vector<PieceType>& types) {
  for (size_t i = 0; i < types.size(); ++i) {
    if (types[i] == PieceType::UNKNOWN) return static_cast<TokenId>(i);
  }
  return 0;
}

}  // namespace

Result<std::unique_ptr<SentencePieceVocab>> SentencePieceVocab::from_gguf(
    const gguf::GgufFile& file) {
  if (Status s = check_model(file); !s.ok()) return Error{s.message()};
  SentencePieceVocabData data;

  auto tokens = read_tokens(file);
  if (!tokens.ok()) return tokens.error();
  data.pieces = std::move(tokens).value();
  const size_t n = data.pieces.size();
  auto scores = read_scores(file, n);
  if (!scores.ok()) return scores.error();
  data.scores = std::move(scores).value();
  auto types = read_types(file, n);
  if (!types.ok()) return types.error();
  data.types = std::move(types).value();

  auto bos = read_id(file, kBosKey, std::nullopt);
  if (!bos.ok()) return bos.error();
  auto eos = read_id(file, kEosKey, std::nullopt);
  if (!eos.ok()) return eos.error();
  auto unk = read_id(file, kUnkKey, default_unk(data.types));
  if (!unk.ok()) return unk.error();
  auto add_bos = read_bool(file, kAddBosKey, true);
  if (!add_bos.ok()) return add_bos.error();
  auto add_space_prefix = read_bool(file, kAddSpacePrefixKey, true);
  if (!add_space_prefix.ok()) return add_space_prefix.error();
  data.bos = *bos;
  data.eos = *eos;
  data.unk = *unk;
  data.add_bos = *add_bos;
  data.add_space_prefix = *add_space_prefix;

  auto vocab = create(std::move(data));
  if (!vocab.ok()) return Error{file.name() + ": " + vocab.message()};
  return vocab;
}

}  // namespace kvchat
