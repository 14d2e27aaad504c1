// Documents: a file's bytes turned into UTF-8 text, streamed in bounded memory, and cut
// into chunks on paragraph, then sentence boundaries (never inside a UTF-8 sequence).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/result.h"
#include "kvchat/tokenizer.h"

namespace kvchat {

// How a document's bytes were read.
struct TextEncoding {
  std::string name;    // "utf-8", "utf-16le", "utf-16be" (from a BOM), "latin-1"
  std::string notice;  // for the user when the guess may be wrong ("not valid UTF-8: read
                       // as Latin-1"); empty otherwise
};

// Reads a text file block by block (kReadBlockBytes at a time): at most one block plus
// one partial character is held, whatever the file size. The encoding is decided from the
// first block (BOM; else valid UTF-8; else Latin-1 with a notice). Binary files (NUL
// bytes or more than 10% control characters in the first block outside UTF-16), PDFs and
// empty files are refused with a clear message. A file that shrinks, vanishes, is
// replaced or fails to read midway is an error naming the file, never a silent
// truncation; bytes appended while it is read are ignored (size_bytes() is the end).
// Ill-formed UTF-8 after the first block (or in UTF-16) becomes U+FFFD, with a notice.
class DocumentReader {
 public:
  static constexpr size_t kReadBlockBytes = 1 << 20;

  static Result<std::unique_ptr<DocumentReader>> open(const std::string& path);
  // Same detection on bytes already in memory (pasted text, a PDF's extracted text).
  static Result<std::unique_ptr<DocumentReader>> from_bytes(std::string bytes, std::string name);
  virtual ~DocumentReader() = default;

  // Appends the next piece of UTF-8 text (whole characters, \r\n and \r turned into \n)
  // to `out`; false at the end of the document.
  virtual Result<bool> next(std::string& out) = 0;
  // Starts again from the first character (a second pass: count, then summarize).
  virtual Status rewind() = 0;

  // The notice may gain a line while reading (invalid bytes found past the first block).
  virtual const TextEncoding& encoding() const = 0;
  virtual uint64_t size_bytes() const = 0;  // of the file as opened
  virtual uint64_t bytes_read() const = 0;  // progress
  virtual const std::string& name() const = 0;
};

// Whole-document helpers for small inputs (tests, the app's paste): decode all of it.
Result<std::string> read_document_text(const std::string& path, TextEncoding* encoding = nullptr);

// A chunk of a document: bytes [byte_begin, byte_end) of its UTF-8 text, and its tokens
// [token_begin, token_end) counted as the chunks are: each chunk tokenized on its own
// without BOS (n_tokens() is exactly encode(text, false).size()), the ranges following
// one another from 0. The chunks' texts, concatenated, are the document's text.
struct TextChunk {
  uint64_t byte_begin = 0, byte_end = 0;
  int64_t token_begin = 0, token_end = 0;
  std::string text;
  int32_t n_tokens() const { return static_cast<int32_t>(token_end - token_begin); }
};

// Cuts text into chunks of at most max_tokens tokens each (as the tokenizer counts the
// chunk on its own, without BOS). Each cut is at the last paragraph break (blank line)
// within the budget; failing that the last sentence end (. ! ? followed by whitespace);
// failing that the last line break or space; failing that the last whole token. Breaks in
// the second half of the budget are preferred (a paragraph break there, else a sentence
// end there, before earlier ones), so a short first paragraph does not make a tiny
// chunk. A cut is never inside a UTF-8 sequence. Only a single character that alone
// exceeds the budget (max_tokens below ~6) makes a chunk over it.
// Feed text piece by piece; chunks come out as soon as they are decided. Memory: the text
// fed and not yet cut (the last piece plus less than a chunk), whatever the document's
// length; cost: the text is tokenized about twice.
class Chunker {
 public:
  Chunker(const Tokenizer& tokenizer, int32_t max_tokens);
  // Adds text (whole UTF-8 characters) and returns the chunks it completes.
  std::vector<TextChunk> feed(std::string_view text);
  // The rest, at the end of the document.
  std::vector<TextChunk> finish();

 private:
  const Tokenizer& tokenizer_;
  int32_t max_tokens_;
  std::string pending_;           // text not yet in a chunk, from pos_
  size_t pos_ = 0;                // where the uncut text starts in pending_
  uint64_t pending_byte0_ = 0;    // the document offset of pending_[pos_]
  int64_t tokens_before_ = 0;     // tokens in the chunks already returned
  size_t retry_bytes_ = 0;        // uncut bytes needed before trying to cut again
  double bytes_per_token_ = 4.0;  // measured on the text so far (sizes the window)
  std::vector<TextChunk> cut(bool final);
  bool cut_one(bool final, std::vector<TextChunk>& out);
};

}  // namespace kvchat
