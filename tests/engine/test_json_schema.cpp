// JSON Schema to grammar (grammar/json_schema.h): instances written by hand are accepted
// and non-instances refused; unsupported keywords are named; and generation from random
// logits under a schema always ends in JSON that nlohmann parses and a validator written
// here for the schema accepts.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "grammar/grammar.h"
#include "grammar/grammar_matcher.h"
#include "grammar/json_schema.h"
#include "grammar/token_mask.h"
#include "kvchat/grammar.h"
#include "support/test_paths.h"
#include "support/vocab_vectors.h"

namespace kvchat::grammar {
namespace {

std::shared_ptr<const Grammar> compile_schema(const std::string& schema) {
  auto g = compile_json_schema(schema);
  EXPECT_TRUE(g) << g.message() << "\n" << schema;
  return g ? *g : nullptr;
}

bool instance(const std::shared_ptr<const Grammar>& g, const std::string& text) {
  auto m = GrammarMatcher::create(g);
  auto ok = m->accept(text);
  return ok && *ok && m->can_end();
}

std::string error_of(const std::string& schema) {
  auto gbnf = json_schema_to_gbnf(schema);
  EXPECT_FALSE(gbnf) << "accepted: " << schema;
  return gbnf ? std::string() : gbnf.message();
}

const char* const kPerson = R"({
  "type": "object",
  "properties": {
    "name": {"type": "string"},
    "age": {"type": "integer"},
    "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
    "role": {"enum": ["admin", "user", null]},
    "score": {"type": ["number", "null"]}
  },
  "required": ["name", "age"],
  "additionalProperties": false
})";

TEST(JsonSchema, ObjectsWithRequiredAndOptionalProperties) {
  const auto g = compile_schema(kPerson);
  EXPECT_TRUE(instance(g, R"({"name": "Ada", "age": 36})"));
  EXPECT_TRUE(instance(g, R"({"name":"Ada","age":-3,"tags":["a","b"],"role":null,"score":1.5e3})"));
  EXPECT_TRUE(instance(g, R"({"name": "Ada", "age": 36, "score": null})"));
  EXPECT_FALSE(instance(g, R"({"age": 36})"));                        // name required
  EXPECT_FALSE(instance(g, R"({"name": "Ada", "age": 3.5})"));        // integer
  EXPECT_FALSE(instance(g, R"({"name": "Ada", "age": 1, "x": 2})"));  // no other property
  EXPECT_FALSE(instance(g, R"({"name": "Ada", "age": 1, "tags": ["a", "b", "c"]})"));
  EXPECT_FALSE(instance(g, R"({"name": "Ada", "age": 1, "role": "root"})"));
  EXPECT_FALSE(instance(g, R"({"name": "Ada", "age": 1,})"));  // trailing comma
  EXPECT_FALSE(instance(g, R"({"name": "Ada", "age": 01})"));  // leading zero
}

TEST(JsonSchema, ArraysConstAnyOfAndRecursiveRefs) {
  const auto list = compile_schema(R"({"type": "array", "items": {"const": "x"}, "minItems": 2,
                                       "maxItems": 3})");
  EXPECT_FALSE(instance(list, R"(["x"])"));
  EXPECT_TRUE(instance(list, R"(["x", "x"])"));
  EXPECT_TRUE(instance(list, R"(["x","x","x"])"));
  EXPECT_FALSE(instance(list, R"(["x","x","x","x"])"));
  EXPECT_FALSE(instance(list, R"(["x","y"])"));
  const auto tree = compile_schema(R"({
    "$defs": {"node": {"type": "object",
                       "properties": {"v": {"type": "integer"},
                                      "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                       "required": ["v"], "additionalProperties": false}},
    "anyOf": [{"$ref": "#/$defs/node"}, {"type": "boolean"}]})");
  EXPECT_TRUE(instance(tree, R"({"v": 1, "kids": [{"v": 2}, {"v": 3, "kids": []}]})"));
  EXPECT_TRUE(instance(tree, "false"));
  EXPECT_FALSE(instance(tree, R"({"v": 1, "kids": [{"w": 2}]})"));
  const auto any = compile_schema("{}");
  EXPECT_TRUE(instance(any, R"([1, {"a": null}, "s"])"));
}

TEST(JsonSchema, StringLengthsAndTypeLists) {
  const auto code = compile_schema(R"({"type": "string", "minLength": 2, "maxLength": 3})");
  EXPECT_FALSE(instance(code, R"("a")"));
  EXPECT_TRUE(instance(code, R"("ab")"));
  EXPECT_TRUE(instance(code, R"("a\u00e9c")"));          // an escape is one character
  EXPECT_TRUE(instance(code, "\"\xC3\xA9t\xC3\xA9\""));  // and so is a code point
  EXPECT_FALSE(instance(code, R"("abcd")"));
  const auto at_least = compile_schema(R"({"type": "string", "minLength": 1})");
  EXPECT_FALSE(instance(at_least, R"("")"));
  EXPECT_TRUE(instance(at_least, R"("a long one")"));
  // A type's keywords apply to its instances only.
  const auto nullable = compile_schema(R"({"type": ["string", "null"], "maxLength": 2})");
  EXPECT_TRUE(instance(nullable, "null"));
  EXPECT_TRUE(instance(nullable, R"("ab")"));
  EXPECT_FALSE(instance(nullable, R"("abc")"));
  EXPECT_EQ(error_of(R"({"type": "string", "maxLength": 5000})"),
            "schema at /maxLength: above 1000 is not supported");
  EXPECT_EQ(error_of(R"({"type": "string", "minLength": 3, "maxLength": 2})"),
            "schema: minLength is greater than maxLength");
  EXPECT_EQ(error_of(R"({"type": "integer", "maxLength": 2})"), "schema: 'maxLength' on a integer");
}

TEST(JsonSchema, UnsupportedKeywordsAreNamedWithTheirPlace) {
  EXPECT_EQ(error_of(R"({"type": "string", "format": "date"})"),
            "schema: 'format' is not supported");
  EXPECT_EQ(
      error_of(R"({"type": "object", "properties": {"id": {"type": "string", "minimum": 1}}})"),
      "schema at /properties/id: 'minimum' is not supported");
  EXPECT_EQ(
      error_of(
          R"x({"type": "object", "properties": {"id": {"type": "string", "pattern": "(?!a)"}}})x"),
      "schema at /properties/id/pattern: 'pattern' at offset 1: lookaround (?=, ?!, ?<=, ?<!) "
      "is not supported");
  EXPECT_EQ(error_of(R"({"oneOf": [{"type": "string"}]})"), "schema: 'oneOf' is not supported");
  EXPECT_EQ(error_of(R"({"type": "object", "additionalProperties": true, "properties": {}})"),
            "schema: additionalProperties other than false is not supported");
  EXPECT_EQ(error_of(R"({"$ref": "#/$defs/missing"})"),
            "schema at /$ref: '#/$defs/missing' is not a definition of this schema");
  EXPECT_EQ(error_of(R"({"type": "strin"})"), "schema at /type: unknown type 'strin'");
  EXPECT_EQ(error_of(R"({"type": "object", "properties": {"a": {}}, "required": ["b"]})"),
            "schema at /required: '\"b\"' is not one of the properties");
  EXPECT_NE(error_of("{not json").find("schema: not JSON"), std::string::npos);
}

// The person schema's rules, checked on parsed JSON (not by the grammar engine).
bool valid_person(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("name") || !j.contains("age")) return false;
  for (const auto& [k, v] : j.items()) {
    if (k == "name" && !v.is_string()) return false;
    if (k == "age" && !v.is_number_integer()) return false;
    if (k == "tags" && (!v.is_array() || v.size() > 2)) return false;
    if (k == "tags")
      for (const auto& t : v)
        if (!t.is_string()) return false;
    if (k == "role" && !(v.is_null() || v == "admin" || v == "user")) return false;
    if (k == "score" && !(v.is_null() || v.is_number())) return false;
    if (k != "name" && k != "age" && k != "tags" && k != "role" && k != "score") return false;
  }
  return true;
}

TEST(JsonSchema, ConstrainedGenerationAlwaysValidates) {
  const auto g = compile_schema(kPerson);
  const auto tok = test::load_any_tokenizer(test::shared_path("models/kjv-demo-f32.gguf"));
  ASSERT_TRUE(tok);
  const auto trie = std::make_shared<const TokenTrie>(*tok);
  std::mt19937 rng(11);
  std::normal_distribution<float> noise(0.0f, 2.0f);
  int finished = 0;
  for (int run = 0; run < 8; ++run) {
    auto c = GrammarConstraint::create(g, trie, *tok);
    ASSERT_TRUE(c);
    std::string text;
    std::vector<float> logits(tok->n_vocab());
    for (int step = 0; step < 400; ++step) {
      for (float& l : logits) l = noise(rng);
      for (TokenId id : tok->eog_ids()) logits[id] += 30.0f;  // end as soon as allowed
      const Status masked = c->mask(logits);
      ASSERT_TRUE(masked) << masked.message() << " after '" << text << "'";
      const auto best =
          static_cast<TokenId>(std::max_element(logits.begin(), logits.end()) - logits.begin());
      ASSERT_TRUE(c->accept(best));
      if (tok->is_eog(best)) {
        ++finished;
        nlohmann::json j;
        ASSERT_NO_THROW(j = nlohmann::json::parse(text)) << text;
        EXPECT_TRUE(valid_person(j)) << text;
        break;
      }
      text += tok->token_bytes(best);
    }
  }
  EXPECT_GT(finished, 0);
}

}  // namespace
}  // namespace kvchat::grammar
