// load_tokenizer (see tokenizer_factory.h).
#include "tokenizer/tokenizer_factory.h"

#include "gguf/gguf_file.h"
#include "tokenizer/bpe_vocab.h"
#include "tokenizer/gguf_vocab_keys.h"
#include "tokenizer/sentencepiece_vocab.h"
#include "util/printable.h"

namespace kvchat {

Result<std::unique_ptr<Tokenizer>> load_tokenizer(const gguf::GgufFile& file) {
  auto model = vocab_keys::read_string(file, vocab_keys::kModelKey, "");
  if (!model.ok()) return model.error();
  if (file.find(vocab_keys::kModelKey) == nullptr) {
    return vocab_keys::key_error(file, vocab_keys::kModelKey, "is missing");
  }
  if (*model == "llama") {
    auto vocab = SentencePieceVocab::from_gguf(file);
    if (!vocab.ok()) return vocab.error();
    return std::unique_ptr<Tokenizer>(std::move(vocab).value());
  }
  if (*model == "gpt2") {
    auto vocab = BpeVocab::from_gguf(file);
    if (!vocab.ok()) return vocab.error();
    return std::unique_ptr<Tokenizer>(std::move(vocab).value());
  }
  return Error{file.name() + ": tokenizer.ggml.model '" + printable(*model) +
               "' is not supported (kvchat reads llama (SentencePiece) and gpt2 (BPE))"};
}

}  // namespace kvchat
