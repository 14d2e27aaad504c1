// Splits a byte stream into lines with a bound: a line longer than `max_line` is dropped
// (its bytes are skipped up to its newline) and reported once, so a server that writes an
// endless line costs neither memory nor a hang. Bytes in, complete lines out.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace kvchat::mcp {

class LineReader {
 public:
  explicit LineReader(size_t max_line) : max_(max_line) {}
  // on_line gets each complete line without its "\n" (and a trailing "\r");
  // on_oversized(bytes_so_far) once for each line dropped.
  void feed(std::string_view bytes, const std::function<void(std::string&&)>& on_line,
            const std::function<void(size_t)>& on_oversized);
  size_t buffered() const { return line_.size(); }

 private:
  size_t max_;
  std::string line_;
  bool skipping_ = false;  // inside a dropped line, until its newline
  size_t skipped_ = 0;
};

}  // namespace kvchat::mcp
