// Picks the tokenizer a GGUF file's tokenizer.ggml.model names: "llama"
// (SentencePiece) or "gpt2" (byte-level BPE).
#pragma once

#include <memory>

#include "kvchat/result.h"
#include "kvchat/tokenizer.h"

namespace kvchat::gguf {
class GgufFile;
}

namespace kvchat {

Result<std::unique_ptr<Tokenizer>> load_tokenizer(const gguf::GgufFile& file);

}  // namespace kvchat
