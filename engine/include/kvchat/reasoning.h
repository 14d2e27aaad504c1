// Reasoning apart from the answer: a reply of a "thinking" model opens with its reasoning
// between two markers (`<think>` ... `</think>` for Qwen 3, DeepSeek-R1, SmolLM 3,
// Granite), or its template's generation prompt already opened the marker (DeepSeek-R1's
// ends `<think>\n`) so the reply starts inside it. ReasoningSplitter splits the streamed
// text into the two parts as it arrives; split_reasoning() does the same for a stored text.
//
// The rules (those of llama.cpp's `--reasoning-format deepseek` and the OpenAI-compatible
// servers that return `reasoning_content`):
//  - reasoning opens only at the start of the reply: whitespace, then the open marker (the
//    whitespace belongs to neither part); elsewhere the marker is answer text;
//  - a reply that starts inside the reasoning (prompt_opens_reasoning) may still repeat
//    the open marker first: it is swallowed;
//  - whitespace at the start and the end of a reasoning block is not part of the
//    reasoning, and whitespace right after the close marker is not part of the answer;
//  - after a close marker, whitespace and another open marker open a further block
//    (its text is appended to the reasoning);
//  - reasoning never closed (a reply cut at the length limit) stays reasoning; a marker
//    cut short at the very end is text of the part it is in.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kvchat {

struct ReasoningMarkers {
  std::string open = "<think>";
  std::string close = "</think>";
};

// What the reply's text holds of each part (a delta from feed(), or a whole text).
struct ReasoningParts {
  std::string thinking;
  std::string answer;
};

// A byte range [begin, end) of the raw reply that belongs to reasoning, its markers (and
// the whitespace before a block at the reply's start) included: the bytes whose tokens
// count as reasoning. `end` is the text's size for a block never closed.
struct ReasoningSpan {
  size_t begin = 0, end = 0;
};

class ReasoningSplitter {
 public:
  // `starts_in_thinking`: the prompt opened the reasoning (prompt_opens_reasoning()).
  explicit ReasoningSplitter(ReasoningMarkers markers = {}, bool starts_in_thinking = false);

  // The next piece of the raw reply; returns what became certain of each part. Only a
  // possible partial marker (and whitespace that may turn out to end a part) is held back.
  ReasoningParts feed(std::string_view text);
  // The end of the reply: what was held back, in the part it belongs to.
  ReasoningParts finish();

  bool in_thinking() const { return state_ == State::Thinking; }
  // Reasoning was opened (by the reply, or by the prompt).
  bool saw_thinking() const { return saw_thinking_; }
  // The last reasoning block was closed by the close marker.
  bool thinking_closed() const { return closed_; }
  // The reasoning's byte ranges in the raw text fed so far (the last one, still open,
  // ends at the bytes fed so far).
  std::vector<ReasoningSpan> spans() const;
  // Bytes of held-back text appended, scanned, moved or emitted so far: what feed() costs
  // beyond a marker's length per piece. Every byte is looked at a bounded number of times
  // (held-back whitespace is not rescanned as pieces arrive), so this stays within a small
  // multiple of the bytes fed; tests check that instead of timing.
  size_t work() const { return work_; }

 private:
  enum class State {
    Start,       // the reply's start: whitespace, then perhaps the open marker
    Thinking,    // inside a reasoning block
    AfterClose,  // after a close marker: whitespace, then perhaps another block
    Answer,      // the answer: everything passes
  };
  void run(ReasoningParts& out, bool at_end);
  // Emits reasoning text, holding back (or, at a close, dropping) its trailing whitespace.
  void emit_thinking(ReasoningParts& out, std::string_view text);
  // The raw bytes not yet assigned to a part: buf_ from head_ on.
  std::string_view pending() const { return std::string_view(buf_).substr(head_); }
  // Drops the first n pending bytes (buf_ is compacted once the dropped half outweighs it).
  void consume(size_t n);
  // How many of the pending bytes are whitespace from the start (scanning only past what
  // is known already).
  size_t leading_space();
  // The size of pending()[0, n) without its trailing whitespace (scanning only down to
  // what is known already).
  size_t trimmed_size(size_t n);

  ReasoningMarkers m_;
  State state_ = State::Start;
  std::string buf_;  // pending bytes from head_ on; those before it are assigned
  size_t head_ = 0;
  size_t pending_start_ = 0;  // the raw offset of pending()[0]
  // Facts about the pending bytes that stay true as more are appended, so that whitespace
  // held back piece after piece is scanned once, not once per piece:
  size_t space_prefix_ = 0;   // pending()[0, space_prefix_) is all whitespace
  size_t close_checked_ = 0;  // no close marker starts before pending()[close_checked_]
  size_t work_ = 0;           // see work()
  bool block_start_ = false;  // Thinking: nothing but whitespace of this block seen yet
  bool saw_thinking_ = false;
  bool closed_ = false;
  std::vector<ReasoningSpan> spans_;  // closed blocks; an open one has end = npos
};

// The whole text split at once (a stored reply): the same as feed(text) + finish().
ReasoningParts split_reasoning(std::string_view text, const ReasoningMarkers& markers = {},
                               bool starts_in_thinking = false);
// The reasoning's byte ranges in `text` (see ReasoningSpan).
std::vector<ReasoningSpan> reasoning_spans(std::string_view text,
                                           const ReasoningMarkers& markers = {},
                                           bool starts_in_thinking = false);

// Whether a rendered prompt leaves the reply inside reasoning: it ends with the open
// marker (and whitespace after it). DeepSeek-R1's generation prompt ends "<think>\n": true.
// Qwen 3's with enable_thinking=false ends "<think>\n\n</think>\n\n": false (the close
// marker comes last; the reply is all answer).
bool prompt_opens_reasoning(std::string_view rendered_prompt, const ReasoningMarkers& markers = {});

}  // namespace kvchat
