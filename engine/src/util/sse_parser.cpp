// Server-sent events as the WHATWG standard reads them (sse_parser.h).
#include "util/sse_parser.h"

#include <algorithm>

namespace kvchat {

void SseParser::feed(std::string_view bytes) {
  if (!started_) {  // a UTF-8 BOM before the first line is not part of it
    pending_.append(bytes);
    if (pending_.size() < 3 &&
        std::string_view("\xEF\xBB\xBF").substr(0, pending_.size()) == pending_)
      return;
    started_ = true;
    if (pending_.rfind("\xEF\xBB\xBF", 0) == 0) pending_.erase(0, 3);
    bytes = {};
  }
  pending_.append(bytes);
  size_t at = 0;
  for (size_t i = 0; i < pending_.size(); ++i) {
    const char c = pending_[i];
    if (c != '\n' && c != '\r') continue;
    // The LF of a CRLF split across two feeds ends nothing.
    if (c == '\n' && i == 0 && after_cr_ && at == 0) {
      at = 1;
      after_cr_ = false;
      continue;
    }
    line(std::string_view(pending_).substr(at, i - at));
    const bool crlf = c == '\r' && i + 1 < pending_.size() && pending_[i + 1] == '\n';
    after_cr_ = c == '\r' && !crlf && i + 1 == pending_.size();  // its LF may come next
    if (crlf) ++i;
    at = i + 1;
  }
  pending_.erase(0, at);
  if (pending_.size() > max_) {  // one line longer than any event may be
    if (!dropping_) on_oversized_(pending_.size());
    dropping_ = true;
    pending_.clear();
  }
}

void SseParser::dispatch() {
  if (has_data_ && !dropping_) {
    SseEvent e;
    if (!type_.empty()) e.type = std::move(type_);
    e.data = std::move(data_);
    e.last_event_id = last_id_;
    on_event_(std::move(e));
  }
  type_.clear();
  data_.clear();
  has_data_ = dropping_ = false;
}

void SseParser::line(std::string_view l) {
  if (l.empty()) return dispatch();
  if (l.front() == ':') return;  // a comment
  const size_t colon = l.find(':');
  const std::string_view field = l.substr(0, colon);
  std::string_view value =
      colon == std::string_view::npos ? std::string_view() : l.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "data") {
    if (dropping_) return;
    if (has_data_) data_ += '\n';
    data_.append(value);
    has_data_ = true;
    if (data_.size() > max_) {
      dropping_ = true;
      on_oversized_(data_.size());
      data_.clear();
    }
  } else if (field == "event") {
    type_ = std::string(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) last_id_ = std::string(value);
  } else if (field == "retry") {
    if (!value.empty() && value.size() <= 15 &&
        std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
      retry_ms_ = std::stoll(std::string(value));
  }
}

}  // namespace kvchat
