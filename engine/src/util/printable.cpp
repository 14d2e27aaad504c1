#include "util/printable.h"

#include <cstdint>
#include <cstdio>

namespace kvchat {
namespace {

// The length of the valid UTF-8 sequence at `s[i]` (overlong forms, surrogates and
// values past U+10FFFF are invalid), or 0.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i, char32_t& cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    cp = b0 & 0x0F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
  return n;
}

void append_hex_byte(std::string& out, unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", b);
  out += buf;
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_bytes) {
  std::string out;
  out.reserve(text.size() < max_bytes ? text.size() : max_bytes);
  bool cut = false;
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t n = utf8_sequence_length(text, i, cp);
    std::string piece;
    if (n == 0) {
      append_hex_byte(piece, static_cast<unsigned char>(text[i]));
    } else if (cp == '\n') {
      piece = "\\n";
    } else if (cp == '\t') {
      piece = "\\t";
    } else if (cp == '\r') {
      piece = "\\r";
    } else if (cp == 0x1B) {
      piece = "\\e";
    } else if (cp == '\\') {
      piece = "\\\\";
    } else if (cp < 0x20 || cp == 0x7F) {
      append_hex_byte(piece, static_cast<unsigned char>(cp));
    } else if (cp >= 0x80 && cp <= 0x9F) {
      char buf[12];
      std::snprintf(buf, sizeof buf, "\\u{%02X}", static_cast<unsigned>(cp));
      piece = buf;
    } else {
      piece.assign(text.substr(i, n));
    }
    if (out.size() + piece.size() > max_bytes) {
      cut = true;
      break;
    }
    out += piece;
    i += n == 0 ? 1 : n;
  }
  if (cut) out += "\xE2\x80\xA6 (" + std::to_string(text.size()) + " bytes)";
  return out;
}

std::string with_commas(long long n) {
  std::string s = std::to_string(n);
  const int first = n < 0 ? 1 : 0;
  for (int i = static_cast<int>(s.size()) - 3; i > first; i -= 3)
    s.insert(static_cast<size_t>(i), ",");
  return s;
}

}  // namespace kvchat
