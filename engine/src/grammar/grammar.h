// A context-free grammar over Unicode code points, compiled from llama.cpp's GBNF syntax
// (parse_gbnf): what constrained decoding (grammar_matcher.h, token_mask.h) follows.
//
// Compiled form: every rule is a list of alternatives, each a sequence of elements
// ending in an End element; an element matches one code point from a set of ranges
// (possibly negated) or refers to a rule. Groups and repetitions become rules of their
// own ("name-1", "name-2", ...), so the matcher knows only sequences, alternatives and
// references. The elements live in one array (Grammar::elements) so that a position in
// the grammar is one index.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/result.h"

namespace kvchat::grammar {

struct CodeRange {
  uint32_t lo, hi;  // inclusive
};

struct Element {
  enum class Kind : uint8_t { End, Chars, Rule };
  Kind kind = Kind::End;
  bool negated = false;      // Chars: matches what is in none of the ranges
  uint32_t first_range = 0;  // Chars: ranges[first_range, first_range + n_ranges)
  uint32_t n_ranges = 0;
  uint32_t rule = 0;  // Rule: the index in Grammar::rules
};

struct Rule {
  std::string name;
  std::vector<uint32_t> alternatives;  // the index in Grammar::elements of each one's start
};

struct Grammar {
  std::vector<Rule> rules;
  std::vector<Element> elements;  // every alternative's elements, each followed by an End
  std::vector<CodeRange> ranges;  // the Chars elements' ranges
  uint32_t root = 0;              // the rule named "root"

  // Whether the Chars element at `pos` matches code point cp.
  bool matches(uint32_t pos, uint32_t cp) const;
  // Whether it matches some code point in [lo, hi] (a partly decoded UTF-8 sequence).
  bool matches_any(uint32_t pos, uint32_t lo, uint32_t hi) const;
};

// Limits that keep a hostile grammar from costing unbounded memory or time.
struct GrammarLimits {
  size_t max_text_bytes = 1 << 20;  // the grammar's source
  size_t max_elements = 200000;     // after expanding repetitions
  uint32_t max_repeat = 1000;       // the m and n of x{m,n}
};

// Compiles GBNF text. Errors name the line and column ("line 3, column 12: ..."), an
// undefined rule, a missing root, or left recursion (which the matcher could not follow).
Result<Grammar> parse_gbnf(std::string_view text, const GrammarLimits& limits = {});

}  // namespace kvchat::grammar
