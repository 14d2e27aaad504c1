// kvchat-cli chat, driven by commands piped on stdin (--json: one event per line): each
// reply against `generate` on the same text (greedy), prefix reuse across turns,
// /regenerate, /edit, /undo, /memory with the formula's numbers, /save and --resume.
#include <gtest/gtest.h>
#include <sys/stat.h>

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
  auto r = chat(
      "Genesis 1\\n1 In the beginning\n"
      "\\n2 And the earth\n"
      "/regenerate\n"
      "/edit 1 Genesis 1\\n3 And God said\n"
      "/undo\n"
      "/edit 1 x\n"
      "/memory\n");
  ASSERT_EQ(r.exit_code, 1) << r.err;  // the /edit of nothing failed (the chat went on)
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
                      " tokens x 2 KV heads x 32 head dim x 2 bytes = " + std::to_string(1536 * n) +
                      " bytes"),
            std::string::npos)
      << text;
}

// /continue: the reply cut at -n 8 tokens goes on from its own ids (one token evaluated)
// and, greedy, the two parts are what generate writes in 16 tokens.
TEST(CliChat, ContinueExtendsTheCutReplyAsOneLongerReply) {
  auto r = chat("Genesis 1\\n1 In the beginning\n/continue\n/messages\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto ev = events_of(r.out);
  ASSERT_EQ(ev.size(), 3u) << r.out;
  EXPECT_EQ(ev[0]["stop_reason"], "max-tokens");
  EXPECT_EQ(ev[1]["event"], "continue");
  EXPECT_EQ(ev[1]["evaluated_tokens"], 1);
  EXPECT_EQ(ev[1]["messages"], 2);
  auto g =
      run_cli("generate --model " + model() + " --prompt " +
              sh_quote("Genesis 1\n1 In the beginning") + " -n 16 --temp 0 --threads 1 --json");
  ASSERT_EQ(g.exit_code, 0) << g.err;
  const std::string whole = nlohmann::json::parse(g.out)["text"].get<std::string>();
  EXPECT_EQ(ev[0]["text"].get<std::string>() + ev[1]["text"].get<std::string>(), whole);
  EXPECT_EQ(ev[2]["messages"][1]["content"], whole);
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
  ASSERT_EQ(r.exit_code, 1) << r.err;  // a command failed
  const auto ev = events_of(r.out);
  ASSERT_EQ(ev.size(), 1u) << r.out;
  EXPECT_EQ(ev[0]["event"], "error");
  EXPECT_NE(r.err.find("unknown command /frobnicate"), std::string::npos) << r.err;
  auto bad = run_cli("chat --model " + model() + " --template 'builtin:nope' < /dev/null");
  EXPECT_NE(bad.exit_code, 0);
}

// A message the context cannot hold under any policy is refused and not kept: the next
// message is answered from the cache as it was (the first exchange reused), /undo then
// removes that exchange, and the exit status says a message failed.
TEST(CliChat, ARefusedMessageLeavesTheConversationAsItWas) {
  std::string huge;
  for (int i = 0; i < 120; ++i) huge += "and the evening and the morning were the first day ";
  for (const char* policy : {"stop", "drop-oldest", "shift"}) {
    SCOPED_TRACE(policy);
    auto r = chat("Genesis 1\\n1 In the beginning\n" + huge + "\nAnd God said\n/undo\n/messages\n",
                  std::string("--ctx 128 --context-policy ") + policy);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    const auto ev = events_of(r.out);
    ASSERT_EQ(ev.size(), 5u) << r.out;
    EXPECT_EQ(ev[0]["event"], "reply");
    EXPECT_EQ(ev[1]["event"], "error");
    EXPECT_NE(ev[1]["message"].get<std::string>().find("the context is full"), std::string::npos)
        << ev[1];
    ASSERT_EQ(ev[2]["event"], "reply") << ev[2];
    EXPECT_EQ(ev[2]["messages"], 4);
    EXPECT_EQ(ev[2]["reused_tokens"], ev[0]["n_past"]);  // the cache as the first reply left it
    EXPECT_EQ(ev[3]["event"], "undo");
    EXPECT_EQ(ev[3]["messages"], 2);
    ASSERT_EQ(ev[4]["messages"].size(), 2u);
    EXPECT_EQ(ev[4]["messages"][0]["content"], "Genesis 1\n1 In the beginning");
    EXPECT_EQ(ev[4]["messages"][1]["content"], ev[0]["text"]);
  }
}

// A template that refuses every message: each is reported, none is kept, exit 1.
TEST(CliChat, ATemplateThatRefusesEveryMessageExitsNonZero) {
  auto r = chat("first\nsecond\n/messages\n",
                "--template " + sh_quote("{{ raise_exception('no messages today') }}"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto ev = events_of(r.out);
  ASSERT_EQ(ev.size(), 3u) << r.out;
  EXPECT_EQ(ev[0]["event"], "error");
  EXPECT_EQ(ev[1]["event"], "error");
  EXPECT_NE(r.err.find("no messages today"), std::string::npos) << r.err;
  EXPECT_EQ(ev[2]["messages"].size(), 0u);
  // Every message answered: 0.
  auto ok = chat("Genesis 1\n/messages\n");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

// --resume FILE whose fields have the wrong type, or that is not a save at all: an error
// naming the file and the field, exit 1 (a normal exit, not SIGABRT's 134).
TEST(CliChat, ResumeOfAMalformedSaveNamesTheFieldAndExits) {
  struct Case {
    std::string file, expect;
  };
  const std::string three =
      R"({"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"},)";
  const std::vector<Case> cases = {
      {R"({"messages":[)" + three + R"({"role":"assistant","content":5}]})",
       "messages[3].content: expected a string, found an integer"},
      {R"({"messages":[{"role":7,"content":"a"}]})",
       "messages[0].role: expected a string, found an integer"},
      {R"({"messages":[{"role":"user","content":null}]})",
       "messages[0].content: expected a string, found null"},
      {R"({"messages":[{"role":"user"}]})", "messages[0].content: missing"},
      {R"({"messages":[{"role":"wizard","content":"a"}]})",
       "messages[0].role: \"wizard\" is not a role"},
      {R"({"messages":["hello"]})", "messages[0]: expected an object, found a string"},
      {R"({"system":["a"],"messages":[]})", "system: expected a string, found an array"},
      {R"({"system":"s"})", "messages: missing"},
      {R"({"messages":{"role":"user","content":"a"}})",
       "messages: expected an array, found an object"},
      {R"([{"role":"user","content":"a"}])", "expected an object, found an array"},
      {R"({"messages":[{"role":"user","content":123456789012345678901234567890}]})",
       "messages[0].content: expected a string, found a number"},
      {R"({"system":1e999,"messages":[]})", "not JSON"},
      {R"({"system":"s","messages":[{"role":"user","con)", "not JSON (a syntax error at byte"},
      {"", "not JSON"},
  };
  for (const Case& c : cases) {
    test::TempDir dir;
    const std::string saved = dir.file("chat.json");
    std::ofstream(saved, std::ios::binary) << c.file;
    auto r = chat("hello\n", "--resume " + sh_quote(saved));
    EXPECT_EQ(r.exit_code, 1) << c.file << ": " << r.err;
    EXPECT_NE(r.err.find(saved + ": not a conversation saved by /save: " + c.expect),
              std::string::npos)
        << c.file << " -> " << r.err;
    EXPECT_EQ(r.out, "") << c.file;  // refused before any message
  }
  // A FIFO (nothing will ever write it) or a directory: refused at once, not a hang.
  test::TempDir dir;
  const std::string fifo = dir.file("chat.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {fifo, dir.path()}) {
    auto r = run_command("timeout 20 " + sh_quote(test::bin_path("kvchat-cli")) + " chat --model " +
                         model() + " --resume " + sh_quote(path) + " < /dev/null");
    EXPECT_EQ(r.exit_code, 1) << path << ": " << r.err;
    EXPECT_NE(r.err.find(path + ": not a regular file"), std::string::npos) << r.err;
  }
}

// ---- reasoning ------------------------------------------------------------------------

std::string real_template(const std::string& name) {
  static const nlohmann::json doc = test::load_json(shared_path("templates/cases.json"));
  return doc["templates"][name].get<std::string>();
}

// DeepSeek-R1's template opens <think> in its prompt: the reply (cut at -n 8) is all
// reasoning, streamed as "thinking" delta events, reported apart from the (empty) text
// with its tokens and KV bytes (2 x 6 layers x 2 KV heads x 32 dims x 2 bytes per token).
TEST(CliChat, JsonReportsThinkingApartFromText) {
  auto r = chat(
      "Genesis 1\n",
      "--template " + sh_quote(real_template("deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto ev = events_of(r.out);
  ASSERT_GE(ev.size(), 2u) << r.out;
  std::string streamed;
  for (size_t i = 0; i + 1 < ev.size(); ++i) {
    EXPECT_EQ(ev[i]["event"], "thinking") << ev[i];
    streamed += ev[i]["delta"].get<std::string>();
  }
  const auto& reply = ev.back();
  EXPECT_EQ(reply["event"], "reply");
  EXPECT_EQ(reply["text"], "");
  EXPECT_FALSE(reply["thinking"].get<std::string>().empty());
  EXPECT_EQ(reply["thinking"], streamed);
  EXPECT_EQ(reply["thinking_closed"], false);
  EXPECT_EQ(reply["thinking_tokens"], reply["generated_tokens"]);
  EXPECT_EQ(reply["thinking_tokens"], 8);
  EXPECT_EQ(reply["thinking_kv_bytes"].get<long long>(), 8LL * 1536);
  EXPECT_TRUE(reply["raw_text"].is_string());
  EXPECT_EQ(reply["released_tokens"], 0);
}

TEST(CliChat, EnableThinkingSwitch) {
  const std::string qwen = sh_quote(real_template("Qwen-Qwen3-0.6B.jinja"));
  auto on = chat("x\n", "--template " + qwen);
  auto off = chat("x\n", "--template " + qwen + " --enable-thinking off");
  ASSERT_EQ(on.exit_code, 0) << on.err;
  ASSERT_EQ(off.exit_code, 0) << off.err;
  const auto a = events_of(on.out), b = events_of(off.out);
  ASSERT_EQ(a.size(), 1u) << on.out;  // no reasoning: no thinking events
  ASSERT_EQ(b.size(), 1u) << off.out;
  EXPECT_EQ(b[0]["thinking"], "");
  EXPECT_EQ(b[0]["thinking_tokens"], 0);
  EXPECT_FALSE(b[0].contains("raw_text"));
  // Off renders the closed empty block: more prompt tokens.
  EXPECT_GT(b[0]["prompt_tokens"].get<int>(), a[0]["prompt_tokens"].get<int>());
  auto bad = chat("x\n", "--template " + qwen + " --enable-thinking maybe");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--enable-thinking must be on or off"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace kvchat
