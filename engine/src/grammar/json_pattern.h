// A JSON Schema `pattern` (an ECMA-262 regular expression, unanchored unless it says ^ and
// $) as a GBNF expression for the JSON string text whose value it matches, quotes left to
// the caller. Supported: literals and escapes (\t \n \r \f \v \0 \xHH \uHHHH, escaped
// syntax characters), classes with ranges and negation, . \d \D \w \W \s \S, groups ( )
// (?: ) (?<name> ), alternation, the quantifiers * + ? {n} {n,} {n,m} (lazy ones too: the
// language is the same), ^ at the start and $ at the end. Refused, by name: lookaround,
// backreferences, word boundaries, \p{...}, \cX, anchors elsewhere, counts above 1000
// (the grammar's repeat limit), an unbounded loop over what can match "".
//
// Each character the value may hold is written as JSON writes it: itself, or \" \\ and
// the control characters escaped (\b \t \n \f \r, else \u00XX), so that every sentence is a
// JSON string whose value the pattern matches.
#pragma once

#include <string>
#include <string_view>

#include "kvchat/result.h"

namespace kvchat::grammar {

Result<std::string> pattern_to_gbnf(std::string_view pattern);

}  // namespace kvchat::grammar
