// Where a document's bytes come from: a file read block by block, checked against being
// shrunk, deleted or replaced while it is read, or bytes already in memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kvchat/result.h"

namespace kvchat::document {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Replaces `out` with the next bytes, at most `max`; empty at the end (size()).
  virtual Status read(size_t max, std::string& out) = 0;
  // Fails when the source is no longer the one opened (a file deleted, replaced, shrunk).
  virtual Status check() const = 0;
  virtual Status rewind() = 0;
  virtual uint64_t size() const = 0;    // as opened; bytes appended later are ignored
  virtual uint64_t offset() const = 0;  // bytes read so far
};

// A regular file; directories, missing files and other kinds are refused, naming `path`.
Result<std::unique_ptr<ByteSource>> open_file_source(const std::string& path);
std::unique_ptr<ByteSource> memory_source(std::string bytes);

}  // namespace kvchat::document
