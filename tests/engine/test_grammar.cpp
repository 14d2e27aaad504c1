// GBNF grammars (grammar/grammar.h) and the matcher that follows them byte by byte
// (grammar/grammar_matcher.h): what each construct accepts and rejects, checked against
// strings whose membership is worked out by hand; errors with their line and column;
// the limits that stop a hostile grammar.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "grammar/grammar.h"
#include "grammar/grammar_matcher.h"

namespace kvchat::grammar {
namespace {

std::shared_ptr<const Grammar> compile(const std::string& text) {
  auto g = parse_gbnf(text);
  EXPECT_TRUE(g) << g.message() << "\n" << text;
  if (!g) return nullptr;
  return std::make_shared<const Grammar>(std::move(*g));
}

// Whether `text` is a whole sentence of the grammar (fed in one piece and byte by byte).
bool sentence(const std::shared_ptr<const Grammar>& g, const std::string& text) {
  auto whole = GrammarMatcher::create(g);
  EXPECT_TRUE(whole) << whole.message();
  auto ok = whole->accept(text);
  EXPECT_TRUE(ok) << ok.message();
  const bool in_one = *ok && whole->can_end();
  auto bytes = GrammarMatcher::create(g);
  bool all = true;
  for (char c : text) {
    auto b = bytes->accept(std::string(1, c));
    EXPECT_TRUE(b) << b.message();
    if (!*b) {
      all = false;
      break;
    }
  }
  EXPECT_EQ(in_one, all && bytes->can_end()) << "byte by byte differs for '" << text << "'";
  return in_one;
}

// Whether `text` can still be continued into a sentence.
bool prefix(const std::shared_ptr<const Grammar>& g, const std::string& text) {
  auto m = GrammarMatcher::create(g);
  auto ok = m->accept(text);
  return ok && *ok;
}

std::string error_of(const std::string& text) {
  auto g = parse_gbnf(text);
  EXPECT_FALSE(g) << "accepted: " << text;
  return g ? std::string() : g.message();
}

TEST(Grammar, LiteralsAlternativesAndGroups) {
  const auto g = compile("root ::= \"yes\" | \"no\" | (\"may\" \"be\")\n");
  EXPECT_TRUE(sentence(g, "yes"));
  EXPECT_TRUE(sentence(g, "no"));
  EXPECT_TRUE(sentence(g, "maybe"));
  EXPECT_FALSE(sentence(g, "ye"));
  EXPECT_TRUE(prefix(g, "ye"));
  EXPECT_FALSE(prefix(g, "yes!"));
  EXPECT_FALSE(sentence(g, ""));
}

TEST(Grammar, RepetitionOperators) {
  const auto g = compile("root ::= \"a\"* \"b\"+ \"c\"? \"d\"{2} \"e\"{1,3} \"f\"{2,}\n");
  // a* b+ c? dd e{1,3} f{2,}
  EXPECT_TRUE(sentence(g, "bddeff"));
  EXPECT_TRUE(sentence(g, "aaabbbcddeeeffff"));
  EXPECT_FALSE(sentence(g, "ddeff"));      // b+ needs one b
  EXPECT_FALSE(sentence(g, "bcceff"));     // c? at most one, and dd missing
  EXPECT_FALSE(sentence(g, "bdeff"));      // d{2}
  EXPECT_FALSE(sentence(g, "bddeeeeff"));  // e{1,3}
  EXPECT_FALSE(sentence(g, "bddef"));      // f{2,}
  // A literal's repetition repeats the whole literal, as llama.cpp reads it.
  const auto h = compile("root ::= \"ab\"{2,3}\n");
  EXPECT_TRUE(sentence(h, "abab"));
  EXPECT_TRUE(sentence(h, "ababab"));
  EXPECT_FALSE(sentence(h, "abb"));
  EXPECT_FALSE(sentence(h, "abababab"));
  const auto u = compile("root ::= [0-9]{,2} \"x\"\n");
  EXPECT_TRUE(sentence(u, "x"));
  EXPECT_TRUE(sentence(u, "42x"));
  EXPECT_FALSE(sentence(u, "123x"));
}

TEST(Grammar, CharacterClassesRangesNegationAndAny) {
  const auto g = compile("root ::= [a-cx] [^0-9\\n] . [\\-\\]]\n");
  EXPECT_TRUE(sentence(g, "bQ!-"));
  EXPECT_TRUE(sentence(g, "xé]]"));   // é: not a digit; ']' for '.'
  EXPECT_FALSE(sentence(g, "d..-"));  // d not in [a-cx]
  EXPECT_FALSE(sentence(g, "a5.-"));  // 5 is a digit
  EXPECT_FALSE(sentence(g, "a\n.-"));
  EXPECT_FALSE(sentence(g, "ab.x"));  // x not in [-\]]
}

TEST(Grammar, Utf8LiteralsEscapesAndSplitCodePoints) {
  const auto g = compile("root ::= \"héllo \\u00e9\\x41\\U0001F600\" [α-ω]+\n");
  EXPECT_TRUE(sentence(g, "héllo éA😀αβγ"));
  EXPECT_FALSE(sentence(g, "hello éA😀α"));
  // Every prefix of a multi-byte character is viable only if some code point it can
  // become is: "é" is C3 A9; C3 alone can continue, C3 then 41 cannot.
  EXPECT_TRUE(prefix(g, "h\xC3"));
  EXPECT_FALSE(prefix(g, "h\xC3\x41"));
  EXPECT_FALSE(prefix(g, "h\xC4"));  // C4 xx is U+0100..U+013F: never é
  auto m = GrammarMatcher::create(g);
  ASSERT_TRUE(*m->accept("h\xC3"));
  EXPECT_FALSE(m->can_end());
  EXPECT_FALSE(prefix(g, "\xFF"));
  EXPECT_FALSE(prefix(g, "\x80"));
  // ED A0..BF can only become a surrogate (U+D800..U+DFFF): not a prefix, even where any
  // character is allowed; ED 9F can (U+D7C0..U+D7FF).
  const auto any = compile("root ::= .*\n");
  EXPECT_FALSE(prefix(any, "\xED\xA0"));
  EXPECT_TRUE(prefix(any, "\xED\x9F"));
  EXPECT_TRUE(prefix(any, "\xED"));
  EXPECT_FALSE(prefix(any, "\xE0\x80"));  // overlong
  EXPECT_FALSE(prefix(any, "\xF4\x90"));  // beyond U+10FFFF
}

TEST(Grammar, RulesRecursionCommentsAndLineContinuation) {
  const auto g = compile(R"G(# balanced parentheses and a list
root ::= list   # trailing comment
list ::= item ("," ws item)*
item ::= "(" item ")" | digits
digits ::= [0-9]+
ws ::= [ \t]*
)G");
  EXPECT_TRUE(sentence(g, "1"));
  EXPECT_TRUE(sentence(g, "((12)),  3,(4)"));
  EXPECT_FALSE(sentence(g, "((12),3"));
  EXPECT_FALSE(sentence(g, "1,"));
  const auto nested = compile("root ::= (\n  \"a\" |\n  \"b\"\n)+\n");
  EXPECT_TRUE(sentence(nested, "abba"));
}

// json.gbnf as users bring it from llama.cpp's grammars/ folder (written out here).
TEST(Grammar, JsonGrammarAcceptsJsonAndRejectsTheRest) {
  const auto g = compile(R"(root   ::= object
value  ::= object | array | string | number | ("true" | "false" | "null") ws
object ::=
  "{" ws (
            string ":" ws value
    ("," ws string ":" ws value)*
  )? "}" ws
array  ::=
  "[" ws (
            value
    ("," ws value)*
  )? "]" ws
string ::=
  "\"" (
    [^"\\\x7F\x00-\x1F] |
    "\\" (["\\bfnrt] | "u" [0-9a-fA-F]{4})
  )* "\"" ws
number ::= ("-"? ([0-9] | [1-9] [0-9]{0,15})) ("." [0-9]+)? ([eE] [-+]? [0-9] [1-9]{0,15})? ws
ws ::= | " " | "\n" [ \t]{0,20}
)");
  EXPECT_TRUE(sentence(g, R"({"a": [1, -2.5, true, null], "b": {"c": "x\ny\u00e9"}})"));
  EXPECT_TRUE(sentence(g, "{}"));
  EXPECT_FALSE(sentence(g, R"({"a": [1, 2,]})"));
  EXPECT_FALSE(sentence(g, R"({"a" 1})"));
  EXPECT_FALSE(sentence(g, "[1]"));  // root is an object
  EXPECT_FALSE(prefix(g, R"({"a": tru )"));
  EXPECT_TRUE(prefix(g, R"({"a": tru)"));
}

// The rules the parser makes for groups and repetitions never take a name the text
// defines later (the JSON Schema converter names its rules "x-2", "x-3", ...).
TEST(Grammar, GroupRulesDoNotClashWithRulesDefinedLater) {
  const auto g = compile("root ::= (\"a\" | \"b\") root-1 [0-9]{1,2}\nroot-1 ::= \"c\"\n");
  EXPECT_TRUE(sentence(g, "ac7"));
  EXPECT_TRUE(sentence(g, "bc42"));
  EXPECT_FALSE(sentence(g, "a7"));
}

TEST(Grammar, ErrorsNameTheLineAndColumn) {
  EXPECT_EQ(error_of("root ::= \"a\"\nfoo ::= [a-z\n"),
            "line 2, column 9: unterminated character class");
  EXPECT_EQ(error_of("root ::= \"abc\n"), "line 1, column 10: unterminated string literal");
  EXPECT_EQ(error_of("root ::= item\n"), "line 1, column 10: undefined rule 'item'");
  EXPECT_EQ(error_of("item ::= \"a\"\n"), "line 2, column 1: no rule named 'root'");
  EXPECT_EQ(error_of("root \"a\"\n"), "line 1, column 6: expected '::=' after rule name 'root'");
  EXPECT_EQ(error_of("root ::= (\"a\" | \"b\"\n"), "line 1, column 10: '(' without its ')'");
  EXPECT_EQ(error_of("root ::= \"a\"{3,1}\n"), "line 1, column 13: repetition {m,n} with n < m");
  EXPECT_EQ(error_of("root ::= \"\\q\"\n"), "line 1, column 11: unknown escape '\\q'");
  EXPECT_EQ(error_of("root ::= [z-a]\n"),
            "line 1, column 12: character range from a higher to a lower code point");
  EXPECT_EQ(error_of("root ::= \"a\"\nroot ::= \"b\"\n"),
            "line 2, column 1: rule 'root' is defined twice");
  EXPECT_EQ(error_of("root ::= \"é\" ]\n"),
            "line 1, column 14: unexpected ']' (expected the end of the line)");
}

TEST(Grammar, LeftRecursionIsRefusedByName) {
  EXPECT_NE(error_of("root ::= expr\nexpr ::= expr \"+\" term | term\nterm ::= [0-9]\n")
                .find("rule 'expr' is left-recursive"),
            std::string::npos);
  // A repetition of something that can match nothing would loop the same way.
  EXPECT_NE(error_of("root ::= (\"a\"?)*\n").find("left-recursive"), std::string::npos);
  // Right recursion is fine.
  const auto g = compile("root ::= term (\"+\" root)?\nterm ::= [0-9]\n");
  EXPECT_TRUE(sentence(g, "1+2+3"));
}

// Whether feeding "x" up to n times ends in an error containing `what`.
bool refused_within(const std::shared_ptr<const Grammar>& g, const MatcherLimits& limits, int n,
                    const std::string& what) {
  auto m = GrammarMatcher::create(g, limits);
  if (!m) return m.message().find(what) != std::string::npos;
  for (int i = 0; i < n; ++i) {
    auto ok = m->accept("x");
    if (!ok) return ok.message().find(what) != std::string::npos;
    if (!*ok) return false;
  }
  return false;
}

TEST(Grammar, HostileGrammarsAreRefusedWithinLimits) {
  EXPECT_NE(error_of("root ::= \"a\"{1001}\n").find("repetition count above 1000"),
            std::string::npos);
  // Nested repetitions refer to one another rather than copy: accepted and small.
  EXPECT_TRUE(parse_gbnf("root ::= ((((\"a\"{1000}){1000}){1000}){1000})\n"));
  GrammarLimits small;
  small.max_elements = 100;
  auto big = parse_gbnf("root ::= \"a\"{200}\n", small);
  ASSERT_FALSE(big);
  EXPECT_NE(big.message().find("more than 100 elements"), std::string::npos) << big.message();
  small.max_text_bytes = 10;
  EXPECT_FALSE(parse_gbnf("root ::= \"abcdef\"\n", small));
  // Ambiguity that doubles the distinct stacks with every character (x^n leaves 2^n
  // orders of pending b's and c's): refused at the limit with an error, not a hang.
  auto g = compile("root ::= a\na ::= \"x\" a b | \"x\" a c | \"\"\nb ::= \"y\"\nc ::= \"z\"\n");
  EXPECT_TRUE(sentence(g, "xxyz"));
  MatcherLimits limits;
  limits.max_stacks = 64;
  EXPECT_TRUE(refused_within(g, limits, 200, "beyond 64 stacks"));
  // Nesting without bound: each x leaves one more pending y.
  auto deep = compile("root ::= a\na ::= \"x\" a \"y\" | \"\"\n");
  EXPECT_TRUE(sentence(deep, "xxxyyy"));
  limits = MatcherLimits{};
  limits.max_depth = 64;
  EXPECT_TRUE(refused_within(deep, limits, 200, "64 nested rules"));
}

}  // namespace
}  // namespace kvchat::grammar
