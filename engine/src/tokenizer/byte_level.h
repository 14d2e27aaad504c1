// GPT-2's byte-level alphabet: every byte 0..255 is written as one printable
// Unicode character, so BPE vocabularies can hold arbitrary bytes as text. The
// printable bytes '!'..'~', U+00A1..U+00AC and U+00AE..U+00FF stand for
// themselves; the other 68 bytes, in order, become U+0100, U+0101, ...
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kvchat::byte_level {

// UTF-8 of the character that stands for byte `b` (1 or 2 bytes).
std::string_view encode_byte(uint8_t b);

// Appends the byte-level form of `bytes` (each byte as its character).
void encode(std::string_view bytes, std::string& out);

// The byte that character `cp` stands for, or -1 when it stands for none.
int decode_codepoint(uint32_t cp);

// Appends the bytes that byte-level `text` (well-formed UTF-8) stands for; a
// character outside the alphabet is appended unchanged.
void decode(std::string_view text, std::string& out);

}  // namespace kvchat::byte_level
