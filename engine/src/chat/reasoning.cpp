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

std::string_view trim_end(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && is_space(s[n - 1])) --n;
  return s.substr(0, n);
}

// How many bytes `a` and `b` share from the start; `work` counts the bytes compared.
size_t common_prefix(std::string_view a, std::string_view b, size_t& work) {
  const size_t most = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < most && a[i] == b[i]) ++i;
  work += std::min(i + 1, most);
  return i;
}

bool starts_with(std::string_view s, std::string_view marker, size_t& work) {
  return !marker.empty() && common_prefix(s, marker, work) == marker.size();
}

// `s` could still become `marker` (it is a proper prefix of it).
bool could_become(std::string_view s, std::string_view marker, size_t& work) {
  return s.size() < marker.size() && common_prefix(s, marker, work) == s.size();
}

// The longest proper prefix of `marker` that `s` ends with (0: none), starting at `from` or
// later. At most the marker's length of positions are tried, each mostly refused at its
// first byte.
size_t partial_marker_at_end(std::string_view s, std::string_view marker, size_t from,
                             size_t& work) {
  const size_t most =
      std::min(s.size() - std::min(from, s.size()), marker.empty() ? 0 : marker.size() - 1);
  for (size_t k = most; k > 0; --k) {
    if (common_prefix(s.substr(s.size() - k), marker.substr(0, k), work) == k) return k;
  }
  return 0;
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
  buf_.append(text);
  work_ += text.size();
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
    if (s.end == kOpen) s.end = pending_start_ + pending().size();
  }
  return out;
}

void ReasoningSplitter::consume(size_t n) {
  head_ += n;
  pending_start_ += n;
  space_prefix_ = n < space_prefix_ ? space_prefix_ - n : 0;
  close_checked_ = n < close_checked_ ? close_checked_ - n : 0;
  if (head_ == buf_.size()) {
    buf_.clear();
    head_ = 0;
  } else if (head_ > buf_.size() - head_) {  // each byte moved here was preceded by one dropped
    work_ += buf_.size() - head_;
    buf_.erase(0, head_);
    head_ = 0;
  }
}

size_t ReasoningSplitter::leading_space() {
  const std::string_view p = pending();
  size_t i = space_prefix_;
  while (i < p.size() && is_space(p[i])) ++i;
  work_ += i - space_prefix_ + (i < p.size() ? 1 : 0);
  space_prefix_ = i;
  return i;
}

size_t ReasoningSplitter::trimmed_size(size_t n) {
  if (n <= space_prefix_) return 0;
  const std::string_view p = pending();
  size_t k = n;
  while (k > space_prefix_ && is_space(p[k - 1])) --k;
  work_ += n - k + 1;
  if (k == space_prefix_) {  // all of it whitespace
    space_prefix_ = n;
    return 0;
  }
  return k;
}

void ReasoningSplitter::emit_thinking(ReasoningParts& out, std::string_view text) {
  if (text.empty()) return;
  out.thinking.append(text);
  work_ += text.size();
  block_start_ = false;
}

void ReasoningSplitter::run(ReasoningParts& out, bool at_end) {
  auto open_block = [this](size_t span_begin) {
    state_ = State::Thinking;
    block_start_ = true;
    saw_thinking_ = true;
    closed_ = false;
    spans_.push_back({span_begin, kOpen});
  };
  auto to_answer = [&] {
    out.answer.append(pending());
    work_ += pending().size();
    consume(pending().size());
  };
  const std::string_view open = m_.open, close = m_.close;
  while (true) {
    switch (state_) {
      case State::Start:
      case State::AfterClose: {
        const bool reply_start = state_ == State::Start;
        const size_t ws = leading_space();
        // After a close marker the whitespace is nobody's; at the reply's start it is the
        // answer's unless reasoning follows, so it waits with the rest.
        if (!reply_start) consume(ws);
        const std::string_view rest = pending().substr(reply_start ? ws : 0);
        if (starts_with(rest, open, work_)) {
          open_block(pending_start_);  // at the reply's start, its whitespace included
          consume((reply_start ? ws : 0) + open.size());
          continue;
        }
        if (rest.empty() || could_become(rest, open, work_)) {
          if (!at_end) return;  // not known yet
          to_answer();
          state_ = State::Answer;
          return;
        }
        state_ = State::Answer;
        continue;
      }
      case State::Answer: to_answer(); return;
      case State::Thinking: {
        if (block_start_) {
          consume(leading_space());
          if (pending().empty()) return;
          // The prompt opened the block and the reply opens it again: once is enough.
          if (starts_with(pending(), open, work_)) {
            consume(open.size());
            continue;
          }
          if (!at_end && could_become(pending(), open, work_)) return;
        }
        const std::string_view p = pending();
        // A close marker starts neither where one was looked for before nor (when it does
        // not start with whitespace) inside the whitespace known to lead the pending bytes.
        size_t from = close_checked_;
        if (!close.empty() && !is_space(close[0])) from = std::max(from, space_prefix_);
        const size_t at =
            close.empty() || from > p.size() ? std::string_view::npos : p.find(close, from);
        if (at != std::string_view::npos) {
          work_ += at + close.size() - from;
          emit_thinking(out, p.substr(0, trimmed_size(at)));
          spans_.back().end = pending_start_ + at + close.size();
          consume(at + close.size());
          closed_ = true;
          state_ = State::AfterClose;
          continue;
        }
        if (!close.empty()) {
          work_ += p.size() > from ? p.size() - from : 0;
          if (p.size() + 1 > close.size()) {
            close_checked_ = std::max(close_checked_, p.size() + 1 - close.size());
          }
        }
        if (at_end) {  // never closed: what is left is reasoning
          emit_thinking(out, p.substr(0, trimmed_size(p.size())));
          consume(p.size());
          return;
        }
        // Hold back a close marker's possible beginning and the whitespace before it (it
        // ends the block if the marker follows).
        const size_t sure = p.size() - partial_marker_at_end(p, close, from, work_);
        const size_t n = trimmed_size(sure);
        emit_thinking(out, p.substr(0, n));
        consume(n);
        space_prefix_ = std::max(space_prefix_, sure - n);  // what is left of `sure`: whitespace
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
