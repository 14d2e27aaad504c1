#include "mcp/line_reader.h"

namespace kvchat::mcp {

void LineReader::feed(std::string_view bytes, const std::function<void(std::string&&)>& on_line,
                      const std::function<void(size_t)>& on_oversized) {
  while (!bytes.empty()) {
    const size_t nl = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, nl);
    if (skipping_) {
      skipped_ += piece.size();
    } else if (line_.size() + piece.size() > max_) {
      skipping_ = true;
      skipped_ = line_.size() + piece.size();
      line_.clear();
      line_.shrink_to_fit();
      on_oversized(skipped_);
    } else {
      line_.append(piece);
    }
    if (nl == std::string_view::npos) return;
    bytes.remove_prefix(nl + 1);
    if (skipping_) {
      skipping_ = false;
      skipped_ = 0;
      continue;
    }
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    std::string line = std::move(line_);
    line_.clear();
    if (!line.empty()) on_line(std::move(line));
  }
}

}  // namespace kvchat::mcp
