#include "server/request_log.h"

#include <algorithm>
#include <utility>

namespace kvchat::server {
namespace {

// The length of the UTF-8 sequence that starts with `lead` (1 for a stray byte).
size_t sequence_length(unsigned char lead) {
  if (lead >= 0xF0 && lead < 0xF8) return 4;
  if (lead >= 0xE0) return lead < 0xF0 ? 3 : 1;
  if (lead >= 0xC0) return 2;
  return 1;
}

// Up to `max_bytes` bytes and `max_chars` characters of `text`, whole characters only.
std::string cut(std::string_view text, size_t max_bytes, size_t max_chars) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < text.size() && chars < max_chars;) {
    const auto c = static_cast<unsigned char>(text[i]);
    const size_t n = std::min(sequence_length(c), text.size() - i);
    if (out.size() + n > max_bytes) break;
    if (n == 1 && (c < 0x20 || c == 0x7F)) {
      out += ' ';
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
    ++chars;
  }
  return out;
}

}  // namespace

std::string shown_text(std::string_view text, size_t max_bytes) {
  return cut(text, max_bytes, max_bytes);
}

std::string first_characters(std::string_view text, size_t max_chars) {
  return cut(text, 4 * max_chars, max_chars);
}

void RequestLog::set_capacity(size_t capacity) {
  std::lock_guard lock(mu_);
  capacity_ = capacity;
  ring_.clear();
  next_ = 0;
}

void RequestLog::add(ServerRequestRecord record) {
  std::lock_guard lock(mu_);
  if (capacity_ == 0) return;
  if (ring_.size() < capacity_) {
    ring_.push_back(std::move(record));
    return;
  }
  ring_[next_] = std::move(record);
  next_ = (next_ + 1) % capacity_;
}

std::vector<ServerRequestRecord> RequestLog::recent(size_t max) const {
  std::lock_guard lock(mu_);
  std::vector<ServerRequestRecord> out;
  const size_t n = std::min(max, ring_.size());
  out.reserve(n);
  // The newest is just before next_ (a ring not yet full: next_ is 0, the newest last).
  for (size_t k = 1; k <= n; ++k) {
    out.push_back(ring_[(next_ + ring_.size() - k) % ring_.size()]);
  }
  return out;
}

void RequestLog::drop_message_texts() {
  std::lock_guard lock(mu_);
  for (ServerRequestRecord& r : ring_) r.message_text.clear();
}

void RequestLog::set_session_client(int32_t index, SessionClient client) {
  if (index < 0) return;
  std::lock_guard lock(mu_);
  if (sessions_.size() <= static_cast<size_t>(index)) sessions_.resize(index + 1);
  sessions_[index] = std::move(client);
}

SessionClient RequestLog::session_client(int32_t index) const {
  std::lock_guard lock(mu_);
  if (index < 0 || static_cast<size_t>(index) >= sessions_.size()) return {};
  return sessions_[index];
}

}  // namespace kvchat::server
