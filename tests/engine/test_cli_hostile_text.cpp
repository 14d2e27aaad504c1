// What kvchat-cli prints from a file it did not write (issue 24 points 7 and 10): a
// model's general.name of 1 MB with a terminal escape in it, an architecture name with
// control characters, a 1 MB tokenizer piece quoted in an error, invalid UTF-8 in --json
// output, and a summarize --resume log with fields of the wrong type. Each must come
// out with no ESC or BEL byte, no line longer than a terminal line (kvchat::printable
// cuts at 200 bytes, the CLI's error lines at 1000), and a normal exit, not a signal.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gguf/gguf_writer.h"
#include "model/synthetic_model.h"
#include "support/run_command.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using test::run_cli;
using test::sh_quote;

const std::string kEscape = "\x1b]0;pwned\x07\x1b[31m";  // sets the window title, turns red

// The longest line of `text`, and whether it holds ESC or BEL.
size_t longest_line(const std::string& text) {
  size_t longest = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) longest = std::max(longest, line.size());
  return longest;
}
bool has_control(const std::string& text) {
  return text.find('\x1b') != std::string::npos || text.find('\x07') != std::string::npos;
}

// Output meant for a terminal: no escape, short lines, a normal exit with `code`.
void expect_safe(const test::CommandResult& r, int code, const std::string& what) {
  EXPECT_EQ(r.exit_code, code) << what << ": " << r.err.substr(0, 2000);
  EXPECT_FALSE(has_control(r.out)) << what;
  EXPECT_FALSE(has_control(r.err)) << what;
  EXPECT_LE(longest_line(r.out), 1200u) << what;
  EXPECT_LE(longest_line(r.err), 1200u) << what;
}

std::string hostile_model(const test::TempDir& dir, const std::string& name) {
  SyntheticModelSpec spec;
  spec.name = name;
  const std::string path = dir.file("hostile.gguf");
  auto st = write_synthetic_model(path, spec);
  EXPECT_TRUE(st) << st.message();
  return path;
}

TEST(CliHostileText, AModelNameOfAMegabyteWithEscapesIsEscapedAndCut) {
  test::TempDir dir;
  const std::string name = std::string(1 << 20, 'N') + kEscape + "end";
  const std::string model = sh_quote(hostile_model(dir, name));
  for (const std::string& cmd :
       {"info --model " + model, "memory --model " + model + " --ctx 64"}) {
    auto r = run_cli(cmd);
    expect_safe(r, 0, cmd);
    EXPECT_NE(r.out.find("NNNN"), std::string::npos) << cmd;  // the name is shown, cut
    EXPECT_NE(r.out.find(" bytes)"), std::string::npos) << cmd << ": " << r.out.substr(0, 500);
  }
}

TEST(CliHostileText, JsonOutputOfANameThatIsNotUtf8IsWrittenNotThrown) {
  test::TempDir dir;
  const std::string model = sh_quote(hostile_model(dir, "bad \xff\xfe name" + kEscape));
  for (const std::string& cmd :
       {"info --json --model " + model, "memory --json --ctx 64 --model " + model}) {
    auto r = run_cli(cmd);
    ASSERT_EQ(r.exit_code, 0) << cmd << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const std::string shown = j.contains("name") ? j["name"].get<std::string>() : j.dump();
    EXPECT_NE(shown.find("bad"), std::string::npos) << cmd;
    EXPECT_FALSE(has_control(r.out)) << cmd;  // JSON escapes the controls (\u001b)
  }
}

// An architecture the loader refuses, named with control characters and 1 MB long: the
// error names it escaped and cut.
TEST(CliHostileText, AnArchitectureNameWithControlsIsEscapedInTheError) {
  test::TempDir dir;
  gguf::GgufWriter w;
  w.set_string("general.architecture", "llama" + kEscape + std::string(1 << 20, 'A'));
  const std::vector<uint8_t> weights(64 * 4, 0);
  w.add_tensor("token_embd.weight", {64, 1}, gguf::TensorType::F32, weights);
  const std::string path = dir.file("arch.gguf");
  ASSERT_TRUE(w.write_file(path));
  for (const std::string& cmd :
       {"info --model " + sh_quote(path), "generate --prompt x --model " + sh_quote(path)}) {
    auto r = run_cli(cmd);
    expect_safe(r, 1, cmd);
    EXPECT_NE(r.err.find("llama\\e]0;pwned\\x07\\e[31mAAA"), std::string::npos)
        << cmd << ": " << r.err;
  }
}

// A SentencePiece byte piece of 1 MB that is not <0xXX>: the error quotes it cut.
TEST(CliHostileText, AMegabyteTokenInAnErrorIsCut) {
  test::TempDir dir;
  gguf::GgufWriter w;
  w.set_string("tokenizer.ggml.model", "llama");
  w.set_strings("tokenizer.ggml.tokens",
                {"<unk>", "<s>", "</s>", kEscape + std::string(1 << 20, 'T')});
  w.set_f32s("tokenizer.ggml.scores", {0, 0, 0, 0});
  w.set_i32s("tokenizer.ggml.token_type", {2, 3, 3, 6});
  w.set_u32("tokenizer.ggml.bos_token_id", 1);
  w.set_u32("tokenizer.ggml.eos_token_id", 2);
  const std::string path = dir.file("vocab.gguf");
  ASSERT_TRUE(w.write_file(path));
  auto r = run_cli("tokenize --text x --model " + sh_quote(path));
  expect_safe(r, 1, "tokenize");
  EXPECT_NE(r.err.find("byte piece 3 is \"\\e]0;pwned"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(1048591 bytes)\", not of the form <0xXX>"), std::string::npos) << r.err;
  EXPECT_LE(r.err.size(), 600u) << r.err;
}

// summarize --resume R with a log whose fields have the wrong type, or are out of range:
// an error that names the line and the field, exit 1, not an abort.
TEST(CliHostileText, ASummarizeResumeLogWithWrongTypesNamesTheField) {
  test::TempDir dir;
  const std::string doc = dir.file("doc.txt");
  std::ofstream(doc) << "In the beginning God created the heaven and the earth.\n";
  const std::string log = dir.file("run.resume");
  const std::string args =
      "summarize --model " + sh_quote(test::shared_path("models/kjv-demo-f16.gguf")) + " --file " +
      sh_quote(doc) + " --ctx 512 --threads 1 --summary-tokens 8 --resume " + sh_quote(log);
  // The header of this run, as a first run (one short chunk) writes it.
  std::string header;
  {
    auto first = run_cli(args + " --json");
    ASSERT_EQ(first.exit_code, 0) << first.err;
    std::ifstream in(log);
    std::getline(in, header);
    ASSERT_FALSE(header.empty());
  }
  const std::string good =
      R"({"level":0,"index":0,"token_begin":0,"token_end":10,"source_begin":0,"source_end":0,"summary":"s"})";
  struct Case {
    std::string line, expect;
  };
  const std::vector<Case> cases = {
      {R"({"level":"0","index":0,"token_begin":0,"token_end":10,"source_begin":0,"source_end":0,"summary":"s"})",
       "line 2: level: expected an integer in [0, 2147483647], found a string"},
      {R"({"level":0,"index":0,"token_begin":0,"token_end":10,"source_begin":0,"source_end":0,"summary":7})",
       "line 2: summary: expected a string, found an integer"},
      {R"({"level":0,"index":99999999999,"token_begin":0,"token_end":10,"source_begin":0,"source_end":0,"summary":"s"})",
       "line 2: index: 99999999999 is outside [0, 2147483647]"},
      {R"({"level":0,"index":0,"token_begin":0,"token_end":1e300,"source_begin":0,"source_end":0,"summary":"s"})",
       "line 2: token_end: expected an integer"},
      {R"({"level":0,"index":0,"token_begin":0,"source_begin":0,"source_end":0,"summary":"s"})",
       "line 2: token_end: missing"},
      {"[1, 2]", "line 2: expected an object, found an array"},
  };
  for (const Case& c : cases) {
    std::ofstream(log, std::ios::trunc) << header << "\n" << c.line << "\n" << good << "\n";
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << c.line << ": " << r.err;
    EXPECT_NE(r.err.find(log + ": " + c.expect), std::string::npos) << c.line << " -> " << r.err;
  }
}

}  // namespace
}  // namespace kvchat
