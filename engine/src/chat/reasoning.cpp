// ReasoningSplitter: a reply's reasoning apart from its answer. See kvchat/reasoning.h.
#include "kvchat/reasoning.h"

#include <algorithm>
#include <utility>

namespace kvchat {

namespace {

constexpr size_t kOpen = std::string_view::npos;  // a span's end while its block is open

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

size_t leading_space(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  return i;
}

std::string_view trim_end(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && is_space(s[n - 1])) --n;
  return s.substr(0, n);
}

// The longest proper prefix of `marker` that `s` ends with (0: none).
size_t partial_marker_at_end(std::string_view s, std::string_view marker) {
  const size_t most = std::min(s.size(), marker.empty() ? 0 : marker.size() - 1);
  for (size_t k = most; k > 0; --k) {
    if (s.substr(s.size() - k) == marker.substr(0, k)) return k;
  }
  return 0;
}

// `s` could still become `marker` (it is a proper prefix of it).
bool could_become(std::string_view s, std::string_view marker) {
  return s.size() < marker.size() && marker.starts_with(s);
}

}  // namespace

ReasoningSplitter::ReasoningSplitter(ReasoningMarkers markers, bool starts_in_thinking)
    : m_(std::move(markers)) {
  if (starts_in_thinking) {
    state_ = State::Thinking;
    block_start_ = true;
    saw_thinking_ = true;
    spans_.push_back({0, kOpen});
  }
}

ReasoningParts ReasoningSplitter::feed(std::string_view text) {
  ReasoningParts out;
  pending_.append(text);
  run(out, /*at_end=*/false);
  return out;
}

ReasoningParts ReasoningSplitter::finish() {
  ReasoningParts out;
  run(out, /*at_end=*/true);
  return out;
}

std::vector<ReasoningSpan> ReasoningSplitter::spans() const {
  std::vector<ReasoningSpan> out = spans_;
  for (ReasoningSpan& s : out) {
    if (s.end == kOpen) s.end = pending_start_ + pending_.size();
  }
  return out;
}

void ReasoningSplitter::emit_thinking(ReasoningParts& out, std::string_view text) {
  if (text.empty()) return;
  out.thinking.append(text);
  block_start_ = false;
}

void ReasoningSplitter::run(ReasoningParts& out, bool at_end) {
  auto consume = [this](size_t n) {
    pending_.erase(0, n);
    pending_start_ += n;
  };
  auto open_block = [this](size_t span_begin) {
    state_ = State::Thinking;
    block_start_ = true;
    saw_thinking_ = true;
    closed_ = false;
    spans_.push_back({span_begin, kOpen});
  };
  const std::string_view open = m_.open, close = m_.close;
  while (true) {
    switch (state_) {
      case State::Start:
      case State::AfterClose: {
        const bool reply_start = state_ == State::Start;
        const size_t ws = leading_space(pending_);
        // After a close marker the whitespace is nobody's; at the reply's start it is the
        // answer's unless reasoning follows, so it waits with the rest.
        if (!reply_start) consume(ws);
        const std::string_view rest = std::string_view(pending_).substr(reply_start ? ws : 0);
        if (!open.empty() && rest.starts_with(open)) {
          open_block(pending_start_);  // at the reply's start, its whitespace included
          consume((reply_start ? ws : 0) + open.size());
          continue;
        }
        if (rest.empty() || could_become(rest, open)) {
          if (!at_end) return;  // not known yet
          out.answer.append(pending_);
          consume(pending_.size());
          state_ = State::Answer;
          return;
        }
        state_ = State::Answer;
        continue;
      }
      case State::Answer:
        out.answer.append(pending_);
        consume(pending_.size());
        return;
      case State::Thinking: {
        if (block_start_) {
          consume(leading_space(pending_));
          if (pending_.empty()) return;
          // The prompt opened the block and the reply opens it again: once is enough.
          if (!open.empty() && std::string_view(pending_).starts_with(open)) {
            consume(open.size());
            continue;
          }
          if (!at_end && could_become(pending_, open)) return;
        }
        const size_t at = close.empty() ? std::string::npos : pending_.find(close);
        if (at != std::string::npos) {
          emit_thinking(out, trim_end(std::string_view(pending_).substr(0, at)));
          spans_.back().end = pending_start_ + at + close.size();
          consume(at + close.size());
          closed_ = true;
          state_ = State::AfterClose;
          continue;
        }
        if (at_end) {  // never closed: what is left is reasoning
          emit_thinking(out, trim_end(pending_));
          consume(pending_.size());
          return;
        }
        // Hold back a close marker's possible beginning and the whitespace before it (it
        // ends the block if the marker follows).
        const std::string_view sure = std::string_view(pending_).substr(
            0, pending_.size() - partial_marker_at_end(pending_, close));
        const size_t n = trim_end(sure).size();
        emit_thinking(out, std::string_view(pending_).substr(0, n));
        consume(n);
        return;
      }
    }
  }
}

ReasoningParts split_reasoning(std::string_view text, const ReasoningMarkers& markers,
                               bool starts_in_thinking) {
  ReasoningSplitter s(markers, starts_in_thinking);
  ReasoningParts out = s.feed(text);
  ReasoningParts rest = s.finish();
  out.thinking += rest.thinking;
  out.answer += rest.answer;
  return out;
}

std::vector<ReasoningSpan> reasoning_spans(std::string_view text, const ReasoningMarkers& markers,
                                           bool starts_in_thinking) {
  ReasoningSplitter s(markers, starts_in_thinking);
  s.feed(text);
  s.finish();
  return s.spans();
}

bool prompt_opens_reasoning(std::string_view rendered_prompt, const ReasoningMarkers& markers) {
  return !markers.open.empty() && trim_end(rendered_prompt).ends_with(markers.open);
}

}  // namespace kvchat
