// Token types as stored in GGUF `tokenizer.ggml.token_type` (SentencePiece's
// piece types, which llama.cpp uses for every vocab kind).
#pragma once

#include <cstdint>

namespace kvchat {

enum class PieceType : int32_t {
  NORMAL = 1,
  UNKNOWN = 2,
  CONTROL = 3,
  USER_DEFINED = 4,
  UNUSED = 5,
  BYTE = 6,
};

}  // namespace kvchat
