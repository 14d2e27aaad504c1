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
