#include "session/text_stream.h"

#include "tokenizer/utf8.h"

#include <algorithm>

namespace kvchat {

namespace {

// Length of the longest prefix of s that does not end inside an incomplete UTF-8
// character (a lead byte still waiting for its continuation bytes).
size_t complete_utf8_prefix(const std::string& s) {
  const size_t n = s.size();
  size_t i = n;
  while (i > 0 && n - i < 3 && (static_cast<unsigned char>(s[i - 1]) & 0xC0) == 0x80) --i;
  if (i == 0) return n;  // no lead byte in reach: nothing to wait for
  const auto lead = static_cast<uint8_t>(s[i - 1]);
  const size_t need = lead >= 0xF8 ? 1 : utf8::lead_length(lead);  // 0xF8+ never starts one
  return n - (i - 1) < need ? i - 1 : n;
}

}  // namespace

std::string TextStream::take_safe(bool final) {
  size_t safe = final ? pending_.size() : complete_utf8_prefix(pending_);
  // Hold back a tail that could be the beginning of a stop string.
  if (!final) {
    for (const std::string& stop : stops_) {
      if (stop.empty()) continue;
      for (size_t len = std::min(stop.size() - 1, pending_.size()); len > 0; --len) {
        if (pending_.compare(pending_.size() - len, len, stop, 0, len) == 0) {
          safe = std::min(safe, pending_.size() - len);
          break;
        }
      }
    }
  }
  std::string out = pending_.substr(0, safe);
  pending_.erase(0, safe);
  text_ += out;
  return out;
}

std::string TextStream::push(const std::string& bytes) {
  if (stopped_) return {};
  pending_ += bytes;
  // A stop string can only begin in pending_: any possible beginning was held back.
  size_t first = std::string::npos;
  for (const std::string& stop : stops_) {
    if (!stop.empty()) first = std::min(first, pending_.find(stop));
  }
  if (first != std::string::npos) {
    pending_.resize(first);
    stopped_ = true;
    std::string out = std::move(pending_);
    pending_.clear();
    text_ += out;
    return out;
  }
  return take_safe(false);
}

std::string TextStream::finish() {
  if (stopped_) return {};
  // Drop an incomplete UTF-8 tail rather than show a broken character.
  pending_.resize(complete_utf8_prefix(pending_));
  return take_safe(true);
}

}  // namespace kvchat
