// Chunk break positions in UTF-8 text (see text_breaks.h).
#include "document/text_breaks.h"

#include <algorithm>

namespace kvchat::document {
namespace {

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n'; }
bool is_closer(char c) { return c == '"' || c == '\'' || c == ')' || c == ']'; }
bool is_terminal(char c) { return c == '.' || c == '!' || c == '?'; }

}  // namespace

bool is_break(std::string_view text, size_t p, BreakKind kind) {
  if (p == 0 || p > text.size()) return false;
  switch (kind) {
    case BreakKind::Paragraph: return p >= 2 && text[p - 1] == '\n' && text[p - 2] == '\n';
    case BreakKind::Sentence: {
      if (p < 2 || !is_space(text[p - 1])) return false;
      size_t q = p - 1;  // the whitespace
      if (q >= 2 && is_closer(text[q - 1])) --q;
      return is_terminal(text[q - 1]);
    }
    case BreakKind::Space: return is_space(text[p - 1]);
    case BreakKind::Character: return p == text.size() || !is_continuation(text[p]);
  }
  return false;
}

size_t last_break(std::string_view text, size_t lo, size_t hi, BreakKind kind) {
  for (size_t p = std::min(hi, text.size()); p >= std::max<size_t>(lo, 1); --p) {
    if (is_break(text, p, kind)) return p;
  }
  return 0;
}

size_t first_break(std::string_view text, size_t lo, size_t hi, BreakKind kind) {
  for (size_t p = std::max<size_t>(lo, 1); p <= std::min(hi, text.size()); ++p) {
    if (is_break(text, p, kind)) return p;
  }
  return 0;
}

size_t char_floor(std::string_view text, size_t p) {
  p = std::min(p, text.size());
  while (p > 0 && p < text.size() && is_continuation(text[p])) --p;
  return p;
}

Break best_break(std::string_view text, size_t limit) {
  limit = std::min(limit, text.size());
  const std::pair<BreakKind, size_t> order[] = {
      {BreakKind::Paragraph, limit / 2},
      {BreakKind::Sentence, limit / 2},
      {BreakKind::Paragraph, 1},
      {BreakKind::Sentence, 1},
      {BreakKind::Space, 1},
  };
  for (const auto& [kind, lo] : order) {
    if (const size_t p = last_break(text, lo, limit, kind)) return {p, kind};
  }
  size_t p = char_floor(text, limit);
  if (p == 0) p = first_break(text, 1, text.size(), BreakKind::Character);  // one whole character
  return {p, BreakKind::Character};
}

}  // namespace kvchat::document
