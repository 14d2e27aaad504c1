// UTF-8 helpers for the tokenizers (see utf8.h).
#include "tokenizer/utf8.h"

namespace kvchat::utf8 {
namespace {

bool is_continuation(uint8_t b) { return (b & 0xC0) == 0x80; }

}  // namespace

size_t valid_char_length(std::string_view s) {
  if (s.empty()) return 0;
  const auto b = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  const uint8_t b0 = b(0);
  if (b0 < 0x80) return 1;
  if (b0 < 0xC2) return 0;  // continuation byte, or overlong 2-byte lead C0/C1
  if (b0 < 0xE0) return s.size() >= 2 && is_continuation(b(1)) ? 2 : 0;
  if (b0 < 0xF0) {
    if (s.size() < 3 || !is_continuation(b(1)) || !is_continuation(b(2))) return 0;
    if (b0 == 0xE0 && b(1) < 0xA0) return 0;   // overlong
    if (b0 == 0xED && b(1) >= 0xA0) return 0;  // UTF-16 surrogate
    return 3;
  }
  if (b0 < 0xF5) {
    if (s.size() < 4 || !is_continuation(b(1)) || !is_continuation(b(2)) ||
        !is_continuation(b(3))) {
      return 0;
    }
    if (b0 == 0xF0 && b(1) < 0x90) return 0;   // overlong
    if (b0 == 0xF4 && b(1) >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;  // F5..FF never start a character
}

bool is_well_formed(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<uint8_t>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = valid_char_length(s.substr(i));
    if (n == 0) return false;
    i += n;
  }
  return true;
}

void append_replacing_invalid(std::string_view bytes, std::string& out) {
  size_t i = 0;
  while (i < bytes.size()) {
    const size_t n = valid_char_length(bytes.substr(i));
    if (n == 0) {
      out.append(kReplacement);
      ++i;
    } else {
      out.append(bytes.substr(i, n));
      i += n;
    }
  }
}

}  // namespace kvchat::utf8
