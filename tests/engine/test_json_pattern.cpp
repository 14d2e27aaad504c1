// JSON Schema `pattern` to grammar (grammar/json_pattern.h), against std::regex's ECMAScript
// engine as the independent truth: for each pattern, the grammar admits the JSON text of a
// string exactly when std::regex_search finds the pattern in its value, over hand-picked
// and random values; the JSON text is what nlohmann writes (its escapes are the ones the
// grammar writes). Unsupported constructs are refused by name.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "grammar/grammar.h"
#include "grammar/grammar_matcher.h"
#include "grammar/json_schema.h"

namespace kvchat::grammar {
namespace {

std::shared_ptr<const Grammar> string_grammar(const std::string& pattern) {
  const std::string schema = nlohmann::json{{"type", "string"}, {"pattern", pattern}}.dump();
  auto gbnf = json_schema_to_gbnf(schema);
  EXPECT_TRUE(gbnf) << pattern << ": " << gbnf.message();
  if (!gbnf) return nullptr;
  auto g = parse_gbnf(*gbnf);
  EXPECT_TRUE(g) << pattern << ": " << g.message() << "\n" << *gbnf;
  return g ? std::make_shared<const Grammar>(std::move(*g)) : nullptr;
}

// std::regex knows no named groups: (?<name>...) as (...) for it, the same language.
std::regex truth(const std::string& pattern) {
  return std::regex(std::regex_replace(pattern, std::regex("\\(\\?<[a-z]+>"), "("),
                    std::regex::ECMAScript);
}

bool admits(const std::shared_ptr<const Grammar>& g, const std::string& value) {
  auto m = GrammarMatcher::create(g);
  auto ok = m->accept(nlohmann::json(value).dump());
  return ok && *ok && m->can_end();
}

const std::vector<std::string> kPatterns = {
    "^[0-9]{5}$",
    "^[A-Z][a-z]+( [A-Z][a-z]+)*$",
    "^\\d{3}-\\d{4}$",
    "ab+c",
    "^(cat|dog)s?$",
    "^[^\"\\\\]*$",
    "^\\w+@\\w+\\.(com|org)$",
    "^.{2,4}$",
    "^\\s*\\S+\\s*$",
    "^(?:x|y){2}z?$",
    "^[a-c-]+$",
    "^\\x41\\u0042[\\t\\n]?$",
    "^[^a-z]$",
    "q$",
    "^\\(\\d+\\)\\.\\*$",
    "^(?<year>\\d{4})-(?<m>0[1-9]|1[0-2])$",
    "^a{2,}$",
    "^\"quoted\"$",
    "^(a|b{0})(c?d?){2}$",
    "^x{0}y()$",
};

TEST(JsonPattern, AgreesWithStdRegexOnHandPickedValues) {
  const std::vector<std::string> values = {
      "",         "12345",     "1234",     "123456",    "New York",    "new york",    "New  York",
      "555-1234", "abbbc",     "xxabcxx",  "ac",        "cat",         "cats",        "dogs",
      "cow",      "no quotes", "a\"b",     "a\\b",      "me@host.com", "me@host.net", "ab",
      "abcd",     "abcde",     "  word  ", "two words", "xy",          "yxz",         "xyzz",
      "a-b-c",    "abd",       "AB",       "AB\t",      "AB\n",        "A",           "(12).*",
      "(12)x*",   "2026-07",   "2026-13",  "aa",        "aaaa",        "a",           "\"quoted\"",
      "quoted",   "Q",         "q",        "endq",      "line\nq",     "tab\tq"};
  for (const std::string& p : kPatterns) {
    SCOPED_TRACE(p);
    const auto g = string_grammar(p);
    ASSERT_TRUE(g);
    const std::regex re = truth(p);
    for (const std::string& v : values) {
      EXPECT_EQ(admits(g, v), std::regex_search(v, re)) << nlohmann::json(v).dump();
    }
  }
}

TEST(JsonPattern, AgreesWithStdRegexOnRandomValues) {
  std::mt19937 rng(11);
  const std::string alphabet = "abcxyzACQ0159 -_.@()*\"\\\t\n";
  for (const std::string& p : kPatterns) {
    SCOPED_TRACE(p);
    const auto g = string_grammar(p);
    ASSERT_TRUE(g);
    const std::regex re = truth(p);
    for (int n = 0; n < 3000; ++n) {
      std::string v;
      const int len = static_cast<int>(rng() % 8);
      for (int k = 0; k < len; ++k) v += alphabet[rng() % alphabet.size()];
      const bool want = std::regex_search(v, re);
      ASSERT_EQ(admits(g, v), want) << nlohmann::json(v).dump();
    }
  }
}

TEST(JsonPattern, NonAsciiCharactersAreCodePoints) {
  const auto g = string_grammar("^.\u00e9[\u4e00-\u9fff]$");
  ASSERT_TRUE(g);
  EXPECT_TRUE(admits(g, "x\u00e9\u4e2d"));
  EXPECT_TRUE(admits(g, "\u00e9\u00e9\u9fff"));
  EXPECT_FALSE(admits(g, "x\u00e9a"));
  EXPECT_FALSE(admits(g, "\u00e9\u4e2d"));
}

std::string error_of(const std::string& pattern) {
  auto gbnf = json_schema_to_gbnf(nlohmann::json{{"type", "string"}, {"pattern", pattern}}.dump());
  EXPECT_FALSE(gbnf) << pattern;
  return gbnf ? std::string() : gbnf.message();
}

std::string error_of_schema(const std::string& schema) {
  auto gbnf = json_schema_to_gbnf(schema);
  EXPECT_FALSE(gbnf) << schema;
  return gbnf ? std::string() : gbnf.message();
}

TEST(JsonPattern, UnsupportedConstructsAreNamed) {
  EXPECT_EQ(
      error_of("^(?=a)a$"),
      "schema at /pattern: 'pattern' at offset 2: lookaround (?=, ?!, ?<=, ?<!) is not supported");
  EXPECT_NE(error_of("(a)\\1").find("a backreference is not supported"), std::string::npos);
  EXPECT_NE(error_of("\\bword").find("a word boundary \\b is not supported"), std::string::npos);
  EXPECT_NE(error_of("\\p{L}").find("\\p{...} is not supported"), std::string::npos);
  EXPECT_NE(error_of("a^b").find("an anchor '^' inside the pattern"), std::string::npos);
  EXPECT_NE(error_of("^a$|^b$").find("an anchor"), std::string::npos);
  EXPECT_NE(error_of("a{2000}").find("a count above 1000"), std::string::npos);
  EXPECT_NE(error_of("(ab").find("an unclosed group"), std::string::npos);
  EXPECT_NE(error_of("[ab").find("an unclosed class"), std::string::npos);
  EXPECT_NE(error_of("*a").find("nothing to repeat"), std::string::npos);
  EXPECT_NE(error_of("a**").find("a quantifier after a quantifier"), std::string::npos);
  EXPECT_NE(error_of("[z-a]").find("a range out of order"), std::string::npos);
  EXPECT_NE(error_of("^(a|)*$").find("an unbounded repetition of something that can match"),
            std::string::npos);
  EXPECT_NE(error_of("^(?:b{0}d?)+$").find("an unbounded repetition"), std::string::npos);
  EXPECT_EQ(error_of_schema(R"({"type": "string", "pattern": "a", "maxLength": 3})"),
            "schema: 'pattern' together with minLength or maxLength is not supported");
}

}  // namespace
}  // namespace kvchat::grammar
