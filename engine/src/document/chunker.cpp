// Chunker: cuts streamed text into chunks of at most max_tokens tokens (see document.h).
//
// One cut: tokenize a window of the uncut text a little longer than the budget; the byte
// end of its first max_tokens tokens (summed token byte lengths) estimates how much text
// fits. The best break at or before that estimate (text_breaks.h) is then checked by
// tokenizing the chunk alone; if it has too many tokens the estimate is lowered and the
// break searched again. A cut that is not a sentence end is moved to the next sentence
// end when that still fits (the estimate was low). Each cut costs a few tokenizations of
// about one chunk, so the whole text is tokenized about twice, never quadratically.
#include <algorithm>

#include "document/text_breaks.h"
#include "kvchat/document.h"

namespace kvchat {

using document::BreakKind;

Chunker::Chunker(const Tokenizer& tokenizer, int32_t max_tokens)
    : tokenizer_(tokenizer), max_tokens_(std::max<int32_t>(1, max_tokens)) {}

std::vector<TextChunk> Chunker::feed(std::string_view text) {
  pending_.append(text);
  return cut(false);
}

std::vector<TextChunk> Chunker::finish() { return cut(true); }

// Cuts every chunk that is decided; keeps the rest (all of it when `final`).
std::vector<TextChunk> Chunker::cut(bool final) {
  std::vector<TextChunk> out;
  while (pos_ < pending_.size()) {
    if (!final && pending_.size() - pos_ < retry_bytes_) break;
    if (!cut_one(final, out)) break;
  }
  pending_.erase(0, pos_);
  pos_ = 0;
  return out;
}

// Appends one chunk from the start of the uncut text to `out`; false when the uncut
// text fits the budget and more may come (remembering how much to wait for).
bool Chunker::cut_one(bool final, std::vector<TextChunk>& out) {
  const std::string_view rest(pending_.data() + pos_, pending_.size() - pos_);
  const int32_t max = max_tokens_;
  auto count = [&](size_t n) {
    return static_cast<int32_t>(tokenizer_.encode(rest.substr(0, n), false).size());
  };
  auto emit = [&](size_t n, int32_t tokens) {
    out.push_back({pending_byte0_, pending_byte0_ + n, tokens_before_, tokens_before_ + tokens,
                   std::string(rest.substr(0, n))});
    pos_ += n;
    pending_byte0_ += n;
    tokens_before_ += tokens;
    retry_bytes_ = 0;
  };

  // A window holding more than max tokens, and the byte estimate of where they end.
  size_t want = static_cast<size_t>(max * bytes_per_token_ * 1.25) + 64;
  std::vector<TokenId> ids;
  size_t w = 0;
  while (true) {
    w = document::char_floor(rest, std::min(want, rest.size()));
    if (w == 0) w = document::first_break(rest, 1, rest.size(), BreakKind::Character);
    ids = tokenizer_.encode(rest.substr(0, w), false);
    if (static_cast<int32_t>(ids.size()) > max) break;
    if (w == rest.size()) {
      if (final) {
        emit(w, static_cast<int32_t>(ids.size()));
        return true;
      }
      // Wait until about enough text for a budget has come.
      const size_t need =
          rest.size() * static_cast<size_t>(max + 1) / std::max<size_t>(ids.size(), 1);
      retry_bytes_ = std::max(need, rest.size() + 64);
      return false;
    }
    want *= 2;
  }
  size_t sum = 0, fit = 0;
  for (size_t k = 0; k < ids.size(); ++k) {
    sum += tokenizer_.token_bytes(ids[k]).size();
    if (static_cast<int32_t>(k) + 1 == max) fit = sum;
  }
  const size_t extra = sum > w ? sum - w : 0;  // the dummy-prefix space, not in the text
  bytes_per_token_ =
      0.5 * bytes_per_token_ + 0.5 * static_cast<double>(w) / static_cast<double>(ids.size());
  size_t limit = fit > extra ? fit - extra : 0;

  // The best break within the estimate that really fits.
  document::Break brk;
  int32_t n = 0;
  while (true) {
    brk = document::best_break(rest, limit);
    n = count(brk.pos);
    if (n <= max || brk.pos <= document::first_break(rest, 1, rest.size(), BreakKind::Character))
      break;
    limit = std::min(brk.pos - 1, brk.pos * static_cast<size_t>(max) / static_cast<size_t>(n));
  }
  // The estimate may have been low: a sentence end just after it may still fit.
  if (brk.kind != BreakKind::Paragraph && brk.kind != BreakKind::Sentence) {
    if (const size_t p = document::first_break(rest, brk.pos + 1, w, BreakKind::Sentence)) {
      if (const int32_t np = count(p); np <= max) {
        brk.pos = p;
        n = np;
      }
    }
  }
  emit(brk.pos, n);
  return true;
}

}  // namespace kvchat
