// ByteCursor: reads little-endian values from a byte span; every read is bounds-checked.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>

namespace kvchat::gguf {

class ByteCursor {
 public:
  explicit ByteCursor(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  uint64_t offset() const { return pos_; }
  uint64_t remaining() const { return bytes_.size() - pos_; }

  template <class T>
  bool read(T& out) {
    if (remaining() < sizeof(T)) return false;
    std::memcpy(&out, bytes_.data() + pos_, sizeof(T));  // GGUF is little-endian, as is x86/ARM
    pos_ += sizeof(T);
    return true;
  }

  bool read_bytes(uint64_t n, std::string& out) {
    if (remaining() < n) return false;
    out.assign(reinterpret_cast<const char*>(bytes_.data() + pos_), n);
    pos_ += n;
    return true;
  }

 private:
  std::span<const uint8_t> bytes_;
  uint64_t pos_ = 0;
};

}  // namespace kvchat::gguf
