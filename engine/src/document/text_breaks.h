// Where a chunk of text may end: after a paragraph break, a sentence end, a line break or
// space, or any character boundary. Positions are byte offsets; a break at p means the
// chunk is text[0, p). Pure functions on UTF-8 text (no tokenizer).
#pragma once

#include <cstddef>
#include <string_view>

namespace kvchat::document {

enum class BreakKind { Paragraph, Sentence, Space, Character };

// Whether a chunk may end at p (0 < p <= text.size()) with a break of this kind:
// Paragraph: after a blank line ("\n\n"); Sentence: after whitespace that follows . ! ?
// (with an optional closing quote or bracket); Space: after a space, tab or newline;
// Character: at a character boundary.
bool is_break(std::string_view text, size_t p, BreakKind kind);

// The last p in [lo, hi] (hi <= text.size()) that is a break of `kind`, or 0 if none.
size_t last_break(std::string_view text, size_t lo, size_t hi, BreakKind kind);
// The first p in [lo, hi] (hi <= text.size()) that is a break of `kind`, or 0 if none.
size_t first_break(std::string_view text, size_t lo, size_t hi, BreakKind kind);

// The best place to end a chunk at or before `limit`: the last paragraph break in the
// second half of [0, limit], else the last sentence end there, else the last paragraph
// break, sentence end, space (in that order) anywhere before it, else `limit` itself
// moved back to a character boundary (at least one whole character).
struct Break {
  size_t pos = 0;
  BreakKind kind = BreakKind::Character;
};
Break best_break(std::string_view text, size_t limit);

// p moved back to the start of the character it falls in.
size_t char_floor(std::string_view text, size_t p);

}  // namespace kvchat::document
