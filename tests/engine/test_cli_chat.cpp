// kvchat-cli chat, driven by commands piped on stdin (--json: one event per line): each
// reply against `generate` on the same text (greedy), prefix reuse across turns,
// /regenerate, /edit, /undo, /memory with the formula's numbers, /save and --resume.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/run_command.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using test::run_cli;
using test::run_command;
using test::sh_quote;
using test::shared_path;

std::string model() { return sh_quote(shared_path("models/kjv-demo-f16.gguf")); }

std::vector<nlohmann::json> events_of(const std::string& out) {
  std::vector<nlohmann::json> events;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) events.push_back(nlohmann::json::parse(line));
  }
  return events;
}

// The chat fed `input` on stdin.
test::CommandResult chat(const std::string& input, const std::string& extra = "") {
  test::TempDir dir;
  const std::string in = dir.file("in.txt");
  std::ofstream(in) << input;
  return run_command(sh_quote(test::bin_path("kvchat-cli")) + " chat --model " + model() +
                     " --temp 0 -n 8 --threads 1 --json " + extra + " < " + sh_quote(in));
}

std::string greedy_text(const std::string& prompt) {
  auto r = run_cli("generate --model " + model() + " --prompt " + sh_quote(prompt) +
                   " -n 8 --temp 0 --threads 1 --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out)["text"].get<std::string>();
}

TEST(CliChat, TurnsRegenerateEditUndoAndMemory) {
  auto r = chat("Genesis 1\\n1 In the beginning\n"
                "\\n2 And the earth\n"
                "/regenerate\n"
                "/edit 1 Genesis 1\\n3 And God said\n"
                "/undo\n"
                "/edit 1 x\n"
                "/memory\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto ev = events_of(r.out);
  ASSERT_EQ(ev.size(), 7u) << r.out;

  // 1. The first reply: everything evaluated; the text is what generate writes.
  EXPECT_EQ(ev[0]["event"], "reply");
  EXPECT_EQ(ev[0]["evaluated_tokens"], ev[0]["prompt_tokens"]);
  EXPECT_EQ(ev[0]["text"], greedy_text("Genesis 1\n1 In the beginning"));
  EXPECT_EQ(ev[0]["messages"], 2);

  // 2. The second: the first exchange comes from the cache.
  EXPECT_EQ(ev[1]["event"], "reply");
  const int first_held = ev[0]["n_past"].get<int>();
  EXPECT_EQ(ev[1]["reused_tokens"].get<int>(), first_held);
  EXPECT_EQ(ev[1]["evaluated_tokens"].get<int>() + first_held, ev[1]["prompt_tokens"].get<int>());
  EXPECT_EQ(ev[1]["messages"], 4);

  // 3. Regenerate: one token forwarded again, the same greedy reply.
  EXPECT_EQ(ev[2]["event"], "regenerate");
  EXPECT_EQ(ev[2]["evaluated_tokens"], 1);
  EXPECT_EQ(ev[2]["text"], ev[1]["text"]);
  EXPECT_EQ(ev[2]["messages"], 4);

  // 4. Editing the first message: the reply is the one a fresh prompt gets.
  EXPECT_EQ(ev[3]["event"], "edit");
  EXPECT_EQ(ev[3]["messages"], 2);
  EXPECT_EQ(ev[3]["text"], greedy_text("Genesis 1\n3 And God said"));

  // 5. Undo: nothing left. 6. Nothing to edit any more: an error, the chat goes on.
  EXPECT_EQ(ev[4]["event"], "undo");
  EXPECT_EQ(ev[4]["messages"], 0);
  EXPECT_EQ(ev[5]["event"], "error");

  // 7. /memory: the panel's numbers (2 x 6 layers x n x 2 KV heads x 32 dims x 2 bytes).
  EXPECT_EQ(ev[6]["event"], "memory");
  const int n = ev[6]["kv_tokens"].get<int>();
  EXPECT_EQ(ev[6]["kv_used_bytes"].get<long long>(), 1536LL * n);
  const std::string text = ev[6]["text"].get<std::string>();
  EXPECT_NE(text.find("formula: 2 x 6 layers x " + std::to_string(n) +
                      " tokens x 2 KV heads x 32 head dim x 2 bytes = " +
                      std::to_string(1536 * n) + " bytes"),
            std::string::npos)
      << text;
}

TEST(CliChat, SaveAndResumeContinueWithoutReevaluating) {
  test::TempDir dir;
  const std::string saved = dir.file("chat.json");
  auto first = chat("Genesis 1\\n1 In the beginning\n/save " + saved + "\n");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const auto ev = events_of(first.out);
  ASSERT_EQ(ev.size(), 2u) << first.out;
  EXPECT_EQ(ev[1]["event"], "saved");
  ASSERT_TRUE(std::filesystem::exists(saved + ".kvsnap"));
  const auto json = test::load_json(saved);
  ASSERT_EQ(json["messages"].size(), 2u);
  EXPECT_EQ(json["messages"][1]["content"], ev[0]["text"]);

  auto resumed = chat("\\n2 And the earth\n/messages\n", "--resume " + sh_quote(saved));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const auto ev2 = events_of(resumed.out);
  ASSERT_EQ(ev2.size(), 2u) << resumed.out;
  // The restored cache holds the first exchange: at least its prompt is reused (the
  // reply, re-tokenized from its text, need not give back its sampled ids).
  EXPECT_GE(ev2[0]["reused_tokens"].get<int>(), ev[0]["prompt_tokens"].get<int>());
  EXPECT_LT(ev2[0]["evaluated_tokens"].get<int>(), ev2[0]["prompt_tokens"].get<int>());
  EXPECT_EQ(ev2[1]["messages"].size(), 4u);
}

// /summarize FILE: the summary `kvchat-cli summarize` writes for the file, added as an
// exchange the next message continues from.
TEST(CliChat, SummarizeAddsTheDocumentsSummaryAsAnExchange) {
  const std::string file = std::string(KVCHAT_SOURCE_DIR) + "/tests/data/kjv-revelation-21-22.txt";
  auto r = chat("/summarize " + file + "\nAnd then?\n/messages\n", "--ctx 512");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto ev = events_of(r.out);
  ASSERT_EQ(ev.size(), 3u) << r.out;
  EXPECT_EQ(ev[0]["event"], "summary");
  EXPECT_GT(ev[0]["chunks"].get<int>(), 1);
  EXPECT_EQ(ev[0]["messages"], 2);
  auto alone = run_cli("summarize --model " + model() + " --file " + sh_quote(file) +
                       " --ctx 512 --threads 1 --json");
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(ev[0]["text"], nlohmann::json::parse(alone.out)["summary"]);
  EXPECT_EQ(ev[1]["event"], "reply");
  EXPECT_EQ(ev[1]["evaluated_tokens"], ev[1]["prompt_tokens"]);  // the cache was the scratch
  const auto& messages = ev[2]["messages"];
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[0]["content"], "Summarize kjv-revelation-21-22.txt");
  EXPECT_EQ(messages[1]["content"], ev[0]["text"]);
  EXPECT_EQ(r.err.find("context-warning"), std::string::npos) << r.err;
}

TEST(CliChat, UnknownCommandsAndBadOptionsAreReported) {
  auto r = chat("/frobnicate\n/quit\nnever read\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto ev = events_of(r.out);
  ASSERT_EQ(ev.size(), 1u) << r.out;
  EXPECT_EQ(ev[0]["event"], "error");
  EXPECT_NE(r.err.find("unknown command /frobnicate"), std::string::npos) << r.err;
  auto bad = run_cli("chat --model " + model() + " --template 'builtin:nope' < /dev/null");
  EXPECT_NE(bad.exit_code, 0);
}

}  // namespace
}  // namespace kvchat
