// BpeVocab::from_gguf: reads the tokenizer.ggml.* metadata of a GGUF file
// ("gpt2" vocab) into BpeVocabData, with llama.cpp's defaults for absent keys:
// bos and eos 11 (when in range), no unk/eot/eom, add_bos as the pre-tokenizer
// name implies (true for the llama3 family and tekken), add_eos false.
#include <optional>
#include <string>

#include "gguf/gguf_file.h"
#include "tokenizer/bpe_vocab.h"
#include "tokenizer/gguf_vocab_keys.h"
#include "util/printable.h"

namespace kvchat {
namespace {

using namespace vocab_keys;

constexpr const char* kPreKey = "tokenizer.ggml.pre";
constexpr const char* kMergesKey = "tokenizer.ggml.merges";
constexpr const char* kAddEosKey = "tokenizer.ggml.add_eos_token";

constexpr TokenId kDefaultBosEos = 11;  // llama.cpp's BPE default

Status check_model(const GgufFile& file) {
  auto model = read_string(file, kModelKey, "");
  if (!model.ok()) return Error{model.message()};
  if (*model != "gpt2") {
    return key_error(file, kModelKey,
                     "is \"" + printable(*model) + "\", not \"gpt2\" (byte-level BPE)");
  }
  return Status::Ok();
}

// A special token id: the key's value when present and in range (llama.cpp
// ignores an out-of-range one and keeps the default), else `fallback` when in range, else -1.
Result<TokenId> read_special(const GgufFile& file, const char* key, TokenId fallback,
                             size_t n_tokens) {
  auto id = read_id(file, key, -1);
  if (!id.ok()) return id.error();
  if (*id >= 0 && static_cast<size_t>(*id) < n_tokens) return *id;
  return fallback >= 0 && static_cast<size_t>(fallback) < n_tokens ? fallback : -1;
}

}  // namespace

Result<std::unique_ptr<BpeVocab>> BpeVocab::from_gguf(const gguf::GgufFile& file) {
  if (Status s = check_model(file); !s.ok()) return Error{s.message()};
  BpeVocabData data;

  auto tokens = read_tokens(file);
  if (!tokens.ok()) return tokens.error();
  data.tokens = std::move(tokens).value();
  const size_t n = data.tokens.size();
  auto types = read_types(file, n);
  if (!types.ok()) return types.error();
  data.types = std::move(types).value();
  auto merges = read_strings(file, kMergesKey);
  if (!merges.ok()) return merges.error();
  data.merges = std::move(merges).value();
  auto pre = read_string(file, kPreKey, "");
  if (!pre.ok()) return pre.error();
  data.pre = *pre;

  const std::optional<PreTokenizerSpec> spec = pre_tokenizer_spec(data.pre);
  const TokenId default_bos = spec && !spec->has_bos ? -1 : kDefaultBosEos;
  const struct {
    const char* key;
    TokenId fallback;
    TokenId* out;
  } specials[] = {{kBosKey, default_bos, &data.bos},
                  {kEosKey, kDefaultBosEos, &data.eos},
                  {kUnkKey, -1, &data.unk},
                  {kEotKey, -1, &data.eot},
                  {kEomKey, -1, &data.eom}};
  for (const auto& s : specials) {
    auto id = read_special(file, s.key, s.fallback, n);
    if (!id.ok()) return id.error();
    *s.out = *id;
  }
  auto add_bos = read_bool(file, kAddBosKey, spec && spec->add_bos);
  if (!add_bos.ok()) return add_bos.error();
  auto add_eos = read_bool(file, kAddEosKey, false);
  if (!add_eos.ok()) return add_eos.error();
  data.add_bos = *add_bos;
  data.add_eos = *add_eos;
  if (data.add_bos && data.bos < 0) {
    return key_error(file, kAddBosKey, "is true, but the vocab has no BOS token");
  }

  auto vocab = create(std::move(data));
  if (!vocab.ok()) return Error{file.name() + ": " + vocab.message()};
  return vocab;
}

}  // namespace kvchat
