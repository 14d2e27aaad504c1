// Encoding detection and block-by-block conversion to UTF-8 (see text_decoder.h).
#include "document/text_decoder.h"

#include <algorithm>

#include "tokenizer/utf8.h"

namespace kvchat::document {
namespace {

bool is_continuation(uint8_t b) { return (b & 0xC0) == 0x80; }

// True when s (shorter than its lead byte says) could still become a well-formed
// character once more bytes arrive.
bool is_truncated_char(std::string_view s) {
  const auto lead = static_cast<uint8_t>(s[0]);
  if (lead < 0xC2 || lead > 0xF4 || s.size() >= utf8::lead_length(lead)) return false;
  return std::all_of(s.begin() + 1, s.end(),
                     [](char c) { return is_continuation(static_cast<uint8_t>(c)); });
}

// Offset of the first ill-formed UTF-8 byte in `s`, or npos (a character cut by the
// end of `s` counts as ill-formed only when `at_end`).
size_t first_invalid_utf8(std::string_view s, bool at_end) {
  size_t i = 0;
  while (i < s.size()) {
    if (static_cast<uint8_t>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = utf8::valid_char_length(s.substr(i));
    if (n == 0) return !at_end && is_truncated_char(s.substr(i)) ? std::string_view::npos : i;
    i += n;
  }
  return std::string_view::npos;
}

bool is_text_control(uint8_t c) {
  return c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == 0x1B;
}

// Why `block` is not text (outside UTF-16), or empty when it may be.
std::string binary_reason(std::string_view block) {
  size_t controls = 0;
  for (const char ch : block) {
    const auto c = static_cast<uint8_t>(ch);
    if (c == 0) {
      return "it looks like a binary file (it has NUL bytes), not text; if it is UTF-16 text "
             "without a byte-order mark, save it as UTF-8";
    }
    if ((c < 0x20 && !is_text_control(c)) || c == 0x7F) ++controls;
  }
  if (controls * 10 > block.size()) {
    return "it looks like a binary file (" + std::to_string(controls * 100 / block.size()) +
           "% control characters in its first " + std::to_string(block.size()) +
           " bytes), not text";
  }
  return {};
}

}  // namespace

Result<DetectedEncoding> detect_encoding(std::string_view first_block, bool at_end,
                                         const std::string& name) {
  if (first_block.empty()) return Error{name + ": the file is empty; there is no text to read"};
  DetectedEncoding d;
  if (first_block.starts_with("\xEF\xBB\xBF")) {
    d = {Encoding::Utf8, 3, {"utf-8", ""}};
  } else if (first_block.starts_with("\xFF\xFE")) {
    d = {Encoding::Utf16Le, 2, {"utf-16le", ""}};
  } else if (first_block.starts_with("\xFE\xFF")) {
    d = {Encoding::Utf16Be, 2, {"utf-16be", ""}};
  } else if (first_block.starts_with("%PDF-")) {
    return Error{name +
                 ": a PDF document, not plain text: its text has to be extracted first "
                 "(the desktop app reads PDFs with Qt PDF; on the command line, convert it "
                 "with pdftotext)"};
  }
  const std::string_view body = first_block.substr(d.bom_bytes);
  if (body.empty() && at_end)
    return Error{name + ": the file holds only a byte-order mark; there is no text"};
  if (d.kind == Encoding::Utf16Le || d.kind == Encoding::Utf16Be) return d;
  if (std::string why = binary_reason(body); !why.empty()) return Error{name + ": " + why};
  if (d.bom_bytes == 0) {
    const size_t bad = first_invalid_utf8(body, at_end);
    if (bad == std::string_view::npos) {
      d.info = {"utf-8", ""};
    } else {
      d.kind = Encoding::Latin1;
      d.info = {"latin-1", "not valid UTF-8 (byte " + std::to_string(bad) +
                               " is not): read as Latin-1 (ISO-8859-1)"};
    }
  }
  return d;
}

void TextDecoder::reset() {
  carry_.clear();
  consumed_ = 0;
  after_cr_ = false;
  invalid_ = 0;
  first_invalid_ = 0;
}

void TextDecoder::put_ascii(char c, std::string& out) {
  if (c == '\n' && after_cr_) {
    after_cr_ = false;
    return;
  }
  after_cr_ = c == '\r';
  out.push_back(after_cr_ ? '\n' : c);
}

void TextDecoder::put_code_point(uint32_t cp, std::string& out) {
  if (cp < 0x80) return put_ascii(static_cast<char>(cp), out);
  after_cr_ = false;
  if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
  }
  out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
}

void TextDecoder::put_invalid(uint64_t offset, std::string& out) {
  if (invalid_++ == 0) first_invalid_ = offset;
  after_cr_ = false;
  out.append(utf8::kReplacement);
}

void TextDecoder::decode(std::string_view bytes, bool last, std::string& out) {
  std::string joined;
  std::string_view data = bytes;
  if (!carry_.empty()) {
    joined = carry_ + std::string(bytes);
    data = joined;
  }
  carry_.clear();
  if (kind_ == Encoding::Utf16Le || kind_ == Encoding::Utf16Be) {
    decode_utf16(data, last, out);
  } else {
    decode_utf8(data, last, out);
  }
}

void TextDecoder::decode_utf8(std::string_view data, bool last, std::string& out) {
  out.reserve(out.size() + data.size() + (kind_ == Encoding::Latin1 ? data.size() / 8 : 0));
  size_t i = 0;
  while (i < data.size()) {
    const auto c = static_cast<uint8_t>(data[i]);
    if (c < 0x80) {
      put_ascii(static_cast<char>(c), out);
      ++i;
    } else if (kind_ == Encoding::Latin1) {
      put_code_point(c, out);
      ++i;
    } else if (const size_t n = utf8::valid_char_length(data.substr(i)); n > 0) {
      after_cr_ = false;
      out.append(data.substr(i, n));
      i += n;
    } else if (!last && is_truncated_char(data.substr(i))) {
      break;
    } else {
      put_invalid(consumed_ + i, out);
      ++i;
    }
  }
  carry_.assign(data.substr(i));
  consumed_ += i;
}

void TextDecoder::decode_utf16(std::string_view data, bool last, std::string& out) {
  const bool le = kind_ == Encoding::Utf16Le;
  auto unit = [&](size_t i) {
    const auto a = static_cast<uint8_t>(data[i]), b = static_cast<uint8_t>(data[i + 1]);
    return static_cast<uint32_t>(le ? (b << 8 | a) : (a << 8 | b));
  };
  size_t i = 0;
  while (i + 2 <= data.size()) {
    const uint32_t u = unit(i);
    if (u < 0xD800 || u > 0xDFFF) {
      put_code_point(u, out);
      i += 2;
      continue;
    }
    if (u <= 0xDBFF && i + 4 > data.size() && !last) break;  // its pair is in the next block
    const uint32_t low = u <= 0xDBFF && i + 4 <= data.size() ? unit(i + 2) : 0;
    if (low >= 0xDC00 && low <= 0xDFFF) {
      put_code_point(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00), out);
      i += 4;
    } else {
      put_invalid(consumed_ + i, out);  // an unpaired surrogate
      i += 2;
    }
  }
  if (last && i < data.size()) {  // an odd byte at the end
    put_invalid(consumed_ + i, out);
    i = data.size();
  }
  carry_.assign(data.substr(i));
  consumed_ += i;
}

}  // namespace kvchat::document
