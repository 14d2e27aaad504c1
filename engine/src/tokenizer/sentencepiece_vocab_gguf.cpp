// SentencePieceVocab::from_gguf: reads the tokenizer.ggml.* metadata of a GGUF
// file ("llama" vocab) into SentencePieceVocabData. Every error names the file
// and the key.
#include <optional>
#include <string>

#include "gguf/gguf_file.h"
#include "tokenizer/gguf_vocab_keys.h"
#include "tokenizer/sentencepiece_vocab.h"
#include "util/printable.h"

namespace kvchat {
namespace {

using namespace vocab_keys;

constexpr const char* kScoresKey = "tokenizer.ggml.scores";
constexpr const char* kAddSpacePrefixKey = "tokenizer.ggml.add_space_prefix";

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

Status check_model(const GgufFile& file) {
  const Value* v = file.find(kModelKey);
  if (v == nullptr) return key_error(file, kModelKey, "is missing");
  const std::string* model = v->as_string();
  if (model == nullptr) return wrong_type(file, kModelKey, "string", *v);
  if (*model != "llama") {
    return Error{file.name() + ": " + kModelKey + " is \"" + printable(*model) +
                 "\": " + printable(*model) +
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
  auto eot = read_id(file, kEotKey, -1);
  if (!eot.ok()) return eot.error();
  auto eom = read_id(file, kEomKey, -1);
  if (!eom.ok()) return eom.error();
  auto add_bos = read_bool(file, kAddBosKey, true);
  if (!add_bos.ok()) return add_bos.error();
  auto add_space_prefix = read_bool(file, kAddSpacePrefixKey, true);
  if (!add_space_prefix.ok()) return add_space_prefix.error();
  data.bos = *bos;
  data.eos = *eos;
  data.unk = *unk;
  data.eot = *eot < static_cast<TokenId>(n) ? *eot : -1;  // out of range: ignored, as llama.cpp
  data.eom = *eom < static_cast<TokenId>(n) ? *eom : -1;
  data.add_bos = *add_bos;
  data.add_space_prefix = *add_space_prefix;

  auto vocab = create(std::move(data));
  if (!vocab.ok()) return Error{file.name() + ": " + vocab.message()};
  return vocab;
}

}  // namespace kvchat
