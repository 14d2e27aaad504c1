// UTF-8 helpers for the tokenizers: character lengths the way SentencePiece
// splits text, and strict well-formedness checks (Unicode Table 3-7).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kvchat::utf8 {

// U+FFFD REPLACEMENT CHARACTER, encoded.
inline constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the character whose first byte is `lead`, judged by the lead byte
// alone: 1 for ASCII and stray continuation bytes, else 2/3/4 by the high bits.
// (SentencePiece splits normalized text into characters this way.)
inline size_t lead_length(uint8_t lead) {
  static constexpr uint8_t kLen[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
  return kLen[lead >> 4];
}

// Length (1..4) of the well-formed character at the start of `s`, or 0 when the
// bytes there are not well-formed: a stray continuation byte, a truncated
// sequence, an overlong form, a surrogate, or a code point above U+10FFFF.
size_t valid_char_length(std::string_view s);

// True when all of `s` is well-formed UTF-8.
bool is_well_formed(std::string_view s);

// Appends the UTF-8 encoding of code point `cp` (<= U+10FFFF) to `out`.
inline void append_code_point(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Appends `bytes` to `out`, each ill-formed byte replaced by U+FFFD.
void append_replacing_invalid(std::string_view bytes, std::string& out);

}  // namespace kvchat::utf8
