// Grammar-constrained generation. A grammar in llama.cpp's GBNF syntax is compiled once
// and handed to generate() (GenerateOptions::grammar): at every step the tokens whose
// bytes cannot continue a sentence of the grammar are masked before sampling, and the
// reply can end (an end-of-generation token) only where a sentence is complete. Works
// with every tokenizer the engine reads (SentencePiece with byte fallback, byte-level BPE).
#pragma once

#include <memory>
#include <string_view>

#include "kvchat/result.h"

namespace kvchat {

namespace grammar {
struct Grammar;
}

// Compiles GBNF text: rules `name ::= ...`, alternation, groups, * + ? {m,n}, "literals",
// [character classes] with ranges and negation, UTF-8 and \x \u \U escapes, # comments.
// Errors name the line and column, an undefined rule, a missing root or left recursion.
Result<std::shared_ptr<const grammar::Grammar>> compile_grammar(std::string_view gbnf);

// A JSON Schema (the subset OpenAI's strict structured outputs accept: see
// engine/src/grammar/json_schema.h) as a grammar whose sentences are its valid instances.
// What the schema uses that is not supported is named in the error.
Result<std::shared_ptr<const grammar::Grammar>> compile_json_schema(std::string_view schema);

// The schema that asks for one JSON object, any members (what `--json-object` and
// response_format json_object mean): compile_json_schema(kJsonObjectSchema).
inline constexpr std::string_view kJsonObjectSchema = R"({"type": "object"})";

}  // namespace kvchat
