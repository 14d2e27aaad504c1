// kvchat-cli generate with a grammar: the text always belongs to the grammar, whatever the
// model would have written (checked by std::regex and nlohmann::json, not by the grammar
// engine), and a malformed grammar file is refused with its line and column.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using test::run_cli;
using test::sh_quote;
using test::shared_path;

struct Generated {
  std::string text, stop_reason;
};

Generated generate_json(const std::string& extra, int seed) {
  auto r = run_cli("generate --model " + sh_quote(shared_path("models/kjv-demo-f32.gguf")) +
                   " --prompt " + sh_quote("And God said") + " --temp 0.9 --seed " +
                   std::to_string(seed) + " --json " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return {};
  const auto j = nlohmann::json::parse(r.out);
  return {j["text"].get<std::string>(), j["stop_reason"].get<std::string>()};
}

TEST(CliGrammar, TextMatchesTheGrammarWhateverTheSeed) {
  test::TempDir dir;
  const std::string path = dir.file("verse.gbnf");
  std::ofstream(path)
      << "# a chapter:verse reference, then words\n"
         "root ::= \" \" [1-9] [0-9]? \":\" [1-9] [0-9]? (\" \" [a-z]{1,8}){2,6} \".\"\n";
  // At most 61 bytes, so 80 tokens always reach the end: the reply ends there (eos).
  const std::regex verse(R"( [1-9][0-9]?:[1-9][0-9]?( [a-z]{1,8}){2,6}\.)");
  for (int seed = 1; seed <= 4; ++seed) {
    const Generated g = generate_json("-n 80 --grammar " + sh_quote(path), seed);
    EXPECT_TRUE(std::regex_match(g.text, verse)) << "seed " << seed << ": '" << g.text << "'";
    EXPECT_EQ(g.stop_reason, "eos") << g.text;
  }
}

// A reply that ends (eos) is one JSON object; one cut by -n is where the token limit left it.
TEST(CliGrammar, JsonObjectParses) {
  int finished = 0;
  for (int seed = 1; seed <= 4; ++seed) {
    const Generated g = generate_json("--json-object -n 300", seed);
    if (g.stop_reason != "eos") continue;
    ++finished;
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(g.text)) << "seed " << seed << ": '" << g.text << "'";
    EXPECT_TRUE(j.is_object()) << g.text;
  }
  std::printf("%d of 4 replies ended within 300 tokens\n", finished);
}

// A schema whose instances are bounded (enums, a bounded integer, at most 3 items): every
// reply ends, and is valid against it (checked on the parsed JSON here).
TEST(CliGrammar, JsonSchemaRepliesValidate) {
  test::TempDir dir;
  const std::string path = dir.file("verse.json");
  std::ofstream(path) << R"({"type": "object", "properties": {
      "book": {"enum": ["Genesis", "Exodus"]}, "chapter": {"type": "integer"},
      "words": {"type": "array", "items": {"enum": ["light", "day", "night"]}, "minItems": 1,
                "maxItems": 3}},
    "required": ["book", "chapter", "words"], "additionalProperties": false})";
  for (int seed = 1; seed <= 4; ++seed) {
    const Generated g = generate_json("-n 1000 --json-schema " + sh_quote(path), seed);
    ASSERT_EQ(g.stop_reason, "eos") << g.text;
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(g.text)) << g.text;
    EXPECT_EQ(j.size(), 3u) << g.text;
    EXPECT_TRUE(j["book"] == "Genesis" || j["book"] == "Exodus") << g.text;
    EXPECT_TRUE(j["chapter"].is_number_integer()) << g.text;
    ASSERT_TRUE(j["words"].is_array() && !j["words"].empty() && j["words"].size() <= 3) << g.text;
    for (const auto& w : j["words"])
      EXPECT_TRUE(w == "light" || w == "day" || w == "night") << g.text;
  }
  auto r = run_cli("generate --model " + sh_quote(shared_path("models/kjv-demo-f32.gguf")) +
                   " --prompt x --json-schema " + sh_quote(path) + " --json-object");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("give one of them"), std::string::npos) << r.err;
}

TEST(CliGrammar, MalformedGrammarIsRefusedWithItsPlace) {
  test::TempDir dir;
  const std::string path = dir.file("bad.gbnf");
  std::ofstream(path) << "root ::= item\nitem ::= [a-z\n";
  auto r = run_cli("generate --model " + sh_quote(shared_path("models/kjv-demo-f32.gguf")) +
                   " --prompt x --grammar " + sh_quote(path));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("bad.gbnf: line 2, column 10: unterminated character class"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace kvchat
