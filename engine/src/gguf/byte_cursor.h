// ByteCursor: reads little-endian values from a byte span; every read is bounds-checked.
//
// A cursor may hold only a prefix of the bytes it reads (the start of a remote file):
// `logical_size` is then the whole file's size. remaining() counts to the logical end
// (so size checks judge the file, not the prefix), and a read that runs past the prefix
// but not past the logical end fails and records in wanted() the offset it needed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

namespace kvchat::gguf {

class ByteCursor {
 public:
  explicit ByteCursor(std::span<const uint8_t> bytes)
      : bytes_(bytes), logical_size_(bytes.size()) {}
  ByteCursor(std::span<const uint8_t> prefix, uint64_t logical_size)
      : bytes_(prefix), logical_size_(std::max<uint64_t>(logical_size, prefix.size())) {}

  uint64_t offset() const { return pos_; }
  uint64_t remaining() const { return logical_size_ - pos_; }
  // The end offset of the first read that needed bytes beyond the prefix (within the
  // logical size); 0 when none did.
  uint64_t wanted() const { return wanted_; }

  template <class T>
  bool read(T& out) {
    if (!available(sizeof(T))) return false;
    std::memcpy(&out, bytes_.data() + pos_, sizeof(T));  // GGUF is little-endian, as is x86/ARM
    pos_ += sizeof(T);
    return true;
  }

  bool read_bytes(uint64_t n, std::string& out) {
    if (!available(n)) return false;
    out.assign(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return true;
  }

 private:
  bool available(uint64_t n) {
    if (bytes_.size() - pos_ >= n) return true;
    if (wanted_ == 0 && n <= remaining()) wanted_ = pos_ + n;
    return false;
  }

  std::span<const uint8_t> bytes_;
  uint64_t logical_size_;
  uint64_t pos_ = 0;
  uint64_t wanted_ = 0;
};

}  // namespace kvchat::gguf
