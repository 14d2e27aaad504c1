// Bytes -> UTF-8 text: the encoding decided from a document's first block (BOM, valid
// UTF-8, else Latin-1), refusal of binary files, and block-by-block conversion that emits
// whole characters only, with \r\n and \r turned into \n.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kvchat/document.h"
#include "kvchat/result.h"

namespace kvchat::document {

enum class Encoding { Utf8, Utf16Le, Utf16Be, Latin1 };

struct DetectedEncoding {
  Encoding kind = Encoding::Utf8;
  size_t bom_bytes = 0;  // to skip at the start
  TextEncoding info;     // name and notice for the user
};

// Decides how to read a document from its first block (`at_end`: the block is the whole
// document). Refuses empty input, PDFs and binary data (NUL bytes, or more than 10%
// control characters, outside UTF-16); errors start with `name`.
Result<DetectedEncoding> detect_encoding(std::string_view first_block, bool at_end,
                                         const std::string& name);

class TextDecoder {
 public:
  explicit TextDecoder(Encoding kind) : kind_(kind) {}
  // Appends the UTF-8 text of `bytes` (the next block) to `out`. A character cut by the
  // block's end is kept for the next call; with `last` it is ill-formed instead.
  // Ill-formed sequences become U+FFFD (counted).
  void decode(std::string_view bytes, bool last, std::string& out);
  void reset();
  uint64_t invalid_count() const { return invalid_; }
  uint64_t first_invalid_offset() const { return first_invalid_; }  // input byte offset

 private:
  void put_ascii(char c, std::string& out);
  void put_code_point(uint32_t cp, std::string& out);
  void put_invalid(uint64_t offset, std::string& out);
  void decode_utf8(std::string_view data, bool last, std::string& out);
  void decode_utf16(std::string_view data, bool last, std::string& out);

  Encoding kind_;
  std::string carry_;      // bytes of a character cut by the previous block's end
  uint64_t consumed_ = 0;  // input bytes before carry_
  bool after_cr_ = false;  // the last character written was a \r (as \n)
  uint64_t invalid_ = 0;
  uint64_t first_invalid_ = 0;
};

}  // namespace kvchat::document
