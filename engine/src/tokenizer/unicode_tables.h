// Unicode character data for the BPE pre-tokenizer: the general category of
// every code point, grouped the way the splitting regexes use them (\p{L} and
// its Lu/Ll/Lt/Lm/Lo parts, \p{M}, \p{N}, \p{P}, \p{S}), and the White_Space
// property (\s). The ranges are generated from Debian's unicode-data by
// scripts/gen_unicode_tables.py into unicode_tables.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kvchat::unicode {

// Flags of a code point (one category bit, plus kWhitespace). Unassigned code
// points (Cn) have none.
enum : uint16_t {
  kUppercase = 1 << 0,    // Lu
  kLowercase = 1 << 1,    // Ll
  kTitlecase = 1 << 2,    // Lt
  kModifier = 1 << 3,     // Lm
  kOtherLetter = 1 << 4,  // Lo
  kMark = 1 << 5,         // Mn Mc Me
  kNumber = 1 << 6,       // Nd Nl No
  kPunctuation = 1 << 7,  // Pc Pd Ps Pe Pi Pf Po
  kSymbol = 1 << 8,       // Sm Sc Sk So
  kSeparator = 1 << 9,    // Zs Zl Zp
  kControl = 1 << 10,     // Cc Cf Cs Co
  kWhitespace = 1 << 11,  // White_Space (PropList.txt)
  kLetter = kUppercase | kLowercase | kTitlecase | kModifier | kOtherLetter,
};

struct CodepointRange {
  uint32_t first;  // the run lasts up to the next entry's first - 1
  uint16_t flags;
};
extern const CodepointRange kCodepointRanges[];  // sorted; first entry starts at 0
extern const size_t kCodepointRangeCount;

// Flags of `cp` (0 above U+10FFFF).
uint16_t flags(uint32_t cp);

// One decoded character of well-formed UTF-8 text.
struct Char {
  uint32_t cp = 0;
  uint32_t len = 0;  // bytes; 0 past the end of the text
  uint16_t flags = 0;
};

// The character at byte `pos` of `text`, which must be well-formed UTF-8; len 0
// when pos is at or past the end.
inline Char char_at(std::string_view text, size_t pos) {
  if (pos >= text.size()) return {};
  const auto b0 = static_cast<uint8_t>(text[pos]);
  if (b0 < 0x80) return {b0, 1, flags(b0)};
  auto cont = [&](size_t i) {
    return static_cast<uint32_t>(static_cast<uint8_t>(text[pos + i]) & 0x3F);
  };
  uint32_t cp;
  uint32_t len;
  if (b0 < 0xE0) {
    cp = ((b0 & 0x1Fu) << 6) | cont(1);
    len = 2;
  } else if (b0 < 0xF0) {
    cp = ((b0 & 0x0Fu) << 12) | (cont(1) << 6) | cont(2);
    len = 3;
  } else {
    cp = ((b0 & 0x07u) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3);
    len = 4;
  }
  return {cp, len, flags(cp)};
}

}  // namespace kvchat::unicode
