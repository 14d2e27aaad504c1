// JSON Schema to GBNF: the subset OpenAI's strict structured outputs accept, so that a
// constrained reply always parses and validates against the schema.
//
// Supported: type (one or a list) object / string / number / integer / boolean / null /
// array; properties (emitted in their order), required (the others optional),
// additionalProperties false or absent (nothing beyond the listed properties is written);
// items, minItems, maxItems; enum; const; anyOf; minLength, maxLength; pattern
// (grammar/json_pattern.h); $ref to "#", "#/$defs/..." or
// "#/definitions/..." (recursion allowed); nested schemas; the annotations title,
// description, $schema, $id, $comment, examples and default. An empty schema (or
// {"type": "object"} without properties) admits any JSON value (object).
// Anything else (format, minimum, oneOf, allOf, not, ...) is refused
// with its name and where it is, never silently dropped.
#pragma once

#include <string>
#include <string_view>

#include "kvchat/result.h"

namespace kvchat::grammar {

// GBNF text whose root is the schema's instances (JSON text without surrounding space).
// With another root_name the root rule is called so and every rule the schema needs is
// prefixed with "<root_name>-" (the JSON primitives ws, string, number, ... excepted: their
// bodies are the same in every conversion), so that several schemas share one grammar.
// A GBNF literal of `text` (UTF-8 passes through; quotes, backslashes and controls escaped).
std::string gbnf_literal(std::string_view text);

Result<std::string> json_schema_to_gbnf(std::string_view schema_json,
                                        const std::string& root_name = "root");

}  // namespace kvchat::grammar
