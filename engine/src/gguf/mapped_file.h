// A read-only memory mapping of a whole file (POSIX mmap).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "kvchat/result.h"

namespace kvchat::gguf {

class MappedFile {
 public:
  static Result<std::unique_ptr<MappedFile>> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  MappedFile(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  const uint8_t* data_;
  size_t size_;
};

}  // namespace kvchat::gguf
