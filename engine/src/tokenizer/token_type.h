// Token types as stored in GGUF `tokenizer.ggml.token_type` (SentencePiece's
// piece types, which llama.cpp uses for every vocab kind).
#pragma once

#include <cstdint>
#include <string_view>

namespace kvchat {

enum class PieceType : int32_t {
  NORMAL = 1,
  UNKNOWN = 2,
  CONTROL = 3,
  USER_DEFINED = 4,
  UNUSED = 5,
  BYTE = 6,
};

// The byte a BYTE token's text "<0xXX>" stands for (0..255), else -1. SentencePiece
// writes uppercase hex; BPE vocabs that have byte tokens may use either case.
inline int parse_byte_token(std::string_view text, bool lowercase_ok) {
  auto digit = [lowercase_ok](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (lowercase_ok && c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  if (text.size() != 6 || text.substr(0, 3) != "<0x" || text[5] != '>') return -1;
  const int hi = digit(text[3]), lo = digit(text[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

}  // namespace kvchat
