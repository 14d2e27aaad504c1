// Follows a compiled Grammar (grammar.h) byte by byte: which texts can still become a
// sentence of the grammar. The state is the set of parse stacks a pushdown automaton can
// be in (each a list of grammar positions, the next element to match on top, a Chars
// element after expansion) plus a partly read UTF-8 sequence. Constrained decoding asks
// it, for each candidate token's bytes, whether they continue the text (token_mask.h).
//
// A grammar whose state space explodes (ambiguity that multiplies the stacks, nesting
// without bound) is cut off by MatcherLimits: advancing then fails with an error rather
// than using unbounded memory or time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/grammar.h"
#include "kvchat/result.h"

namespace kvchat::grammar {

struct MatcherLimits {
  size_t max_stacks = 4096;  // stacks in one state
  size_t max_depth = 2048;   // positions in one stack
};

// One state of the automaton: copyable, compared by value.
struct MatchState {
  std::vector<std::vector<uint32_t>> stacks;  // sorted, distinct; an empty stack: complete
  uint32_t partial = 0;                       // the bits of a partly read code point
  uint8_t partial_left = 0;                   // its continuation bytes still to come
  uint8_t partial_len = 0;                    // its length in bytes
  bool operator==(const MatchState&) const = default;
};

class GrammarMatcher {
 public:
  // The start state (root expanded); an error if that already exceeds the limits.
  static Result<GrammarMatcher> create(std::shared_ptr<const Grammar> grammar,
                                       const MatcherLimits& limits = {});

  const Grammar& grammar() const { return *grammar_; }
  const MatchState& state() const { return state_; }

  // Feeds bytes: true and the state advanced if they can continue the text, else false
  // and the state unchanged. An exceeded limit is an error (the state unchanged).
  Result<bool> accept(std::string_view bytes);
  // Whether the text so far is a whole sentence of the grammar (no partial code point).
  bool can_end() const { return can_end(state_); }

  // The same on a given state (the token mask walks many from one).
  Result<bool> advance(MatchState& s, uint8_t byte) const;
  static bool can_end(const MatchState& s);

 private:
  GrammarMatcher(std::shared_ptr<const Grammar> g, const MatcherLimits& limits)
      : grammar_(std::move(g)), limits_(limits) {}
  // Expands `stack` until every result has a Chars element on top (or is empty) and adds
  // them to out. False when a limit is exceeded.
  bool expand(std::vector<uint32_t> stack, std::vector<std::vector<uint32_t>>& out) const;
  // The stacks after matching code point cp; false when a limit is exceeded.
  bool step(const std::vector<std::vector<uint32_t>>& in, uint32_t cp,
            std::vector<std::vector<uint32_t>>& out) const;
  Error limit_error() const;

  std::shared_ptr<const Grammar> grammar_;
  MatcherLimits limits_;
  MatchState state_;
};

}  // namespace kvchat::grammar
