// DocumentReader: a ByteSource read block by block through a TextDecoder (see document.h).
#include <utility>

#include "document/byte_source.h"
#include "document/text_decoder.h"
#include "kvchat/document.h"

namespace kvchat {
namespace {

using document::ByteSource;
using document::DetectedEncoding;
using document::TextDecoder;

class BlockReader final : public DocumentReader {
 public:
  BlockReader(std::unique_ptr<ByteSource> source, std::string name, std::string first_block,
              DetectedEncoding detected)
      : source_(std::move(source)),
        name_(std::move(name)),
        block_(std::move(first_block)),
        detected_(std::move(detected)),
        encoding_(detected_.info),
        decoder_(detected_.kind) {}

  // Reads the first block and decides the encoding from it.
  static Result<std::unique_ptr<DocumentReader>> make(std::unique_ptr<ByteSource> source,
                                                      std::string name) {
    std::string first;
    if (auto s = source->read(kReadBlockBytes, first); !s) return Error{s.message()};
    auto detected = document::detect_encoding(first, source->offset() >= source->size(), name);
    if (!detected) return detected.error();
    return std::unique_ptr<DocumentReader>(new BlockReader(std::move(source), std::move(name),
                                                           std::move(first), std::move(*detected)));
  }

  Result<bool> next(std::string& out) override {
    while (!done_) {
      if (!have_block_) {
        if (auto s = source_->read(kReadBlockBytes, block_); !s) return Error{s.message()};
      }
      const size_t skip = first_ ? detected_.bom_bytes : 0;
      first_ = have_block_ = false;
      done_ = source_->offset() >= source_->size();
      if (done_) {
        if (auto s = source_->check(); !s) return Error{s.message()};
      }
      const size_t before = out.size();
      decoder_.decode(std::string_view(block_).substr(skip), done_, out);
      note_invalid();
      if (out.size() > before) return true;
    }
    return false;
  }

  Status rewind() override {
    if (auto s = source_->rewind(); !s) return s;
    decoder_.reset();
    encoding_ = detected_.info;
    noted_invalid_ = false;
    first_ = true;
    have_block_ = done_ = false;
    return {};
  }

  const TextEncoding& encoding() const override { return encoding_; }
  uint64_t size_bytes() const override { return source_->size(); }
  uint64_t bytes_read() const override { return source_->offset(); }
  const std::string& name() const override { return name_; }

 private:
  // Adds a line to the notice the first time ill-formed bytes were replaced.
  void note_invalid() {
    if (noted_invalid_ || decoder_.invalid_count() == 0) return;
    noted_invalid_ = true;
    if (!encoding_.notice.empty()) encoding_.notice += "; ";
    encoding_.notice += "ill-formed " + encoding_.name + " from byte " +
                        std::to_string(decoder_.first_invalid_offset() + detected_.bom_bytes) +
                        " replaced by U+FFFD";
  }

  std::unique_ptr<ByteSource> source_;
  std::string name_;
  std::string block_;
  DetectedEncoding detected_;
  TextEncoding encoding_;
  TextDecoder decoder_;
  bool first_ = true;       // block_ is the first block (its BOM to skip)
  bool have_block_ = true;  // block_ was read but not decoded yet
  bool done_ = false;
  bool noted_invalid_ = false;
};

}  // namespace

Result<std::unique_ptr<DocumentReader>> DocumentReader::open(const std::string& path) {
  auto source = document::open_file_source(path);
  if (!source) return source.error();
  return BlockReader::make(std::move(*source), path);
}

Result<std::unique_ptr<DocumentReader>> DocumentReader::from_bytes(std::string bytes,
                                                                   std::string name) {
  return BlockReader::make(document::memory_source(std::move(bytes)), std::move(name));
}

Result<std::string> read_document_text(const std::string& path, TextEncoding* encoding) {
  auto reader = DocumentReader::open(path);
  if (!reader) return reader.error();
  std::string text;
  while (true) {
    auto more = (*reader)->next(text);
    if (!more) return more.error();
    if (!*more) break;
  }
  if (encoding) *encoding = (*reader)->encoding();
  return text;
}

}  // namespace kvchat
