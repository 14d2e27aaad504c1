// GPT-2 byte <-> character tables (see byte_level.h).
#include "tokenizer/byte_level.h"

#include <array>

#include "tokenizer/unicode_tables.h"
#include "tokenizer/utf8.h"

namespace kvchat::byte_level {
namespace {

bool stands_for_itself(int b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

struct Tables {
  std::array<uint32_t, 256> byte_to_cp{};
  std::array<std::string, 256> byte_to_utf8;
  std::array<int16_t, 0x144> cp_to_byte{};  // every mapped code point is below U+0144
};

const Tables& tables() {
  static const Tables t = [] {
    Tables t;
    t.cp_to_byte.fill(-1);
    uint32_t next = 0x100;
    for (int b = 0; b < 256; ++b) {
      const uint32_t cp = stands_for_itself(b) ? static_cast<uint32_t>(b) : next++;
      t.byte_to_cp[b] = cp;
      utf8::append_code_point(t.byte_to_utf8[b], cp);
      t.cp_to_byte[cp] = static_cast<int16_t>(b);
    }
    return t;
  }();
  return t;
}

}  // namespace

std::string_view encode_byte(uint8_t b) { return tables().byte_to_utf8[b]; }

void encode(std::string_view bytes, std::string& out) {
  const Tables& t = tables();
  for (const char c : bytes) out.append(t.byte_to_utf8[static_cast<uint8_t>(c)]);
}

int decode_codepoint(uint32_t cp) {
  const Tables& t = tables();
  return cp < t.cp_to_byte.size() ? t.cp_to_byte[cp] : -1;
}

void decode(std::string_view text, std::string& out) {
  size_t pos = 0;
  while (pos < text.size()) {
    if (utf8::valid_char_length(text.substr(pos)) == 0) {  // not UTF-8: kept as it is
      out.push_back(text[pos++]);
      continue;
    }
    const unicode::Char c = unicode::char_at(text, pos);
    const int b = decode_codepoint(c.cp);
    if (b >= 0) {
      out.push_back(static_cast<char>(b));
    } else {
      out.append(text.substr(pos, c.len));
    }
    pos += c.len;
  }
}

}  // namespace kvchat::byte_level
