// A reply that calls tools (kvchat/tool_loop.h) on the demo model: its constrained call
// parsed and kept on the message, run only with consent, the result read back through the
// tool role and the reply going on; a denial, the limit, Esc, a result cut at its limit and
// to the context; and the same through real MCP processes (kvchat/mcp_toolbox.h with
// tests/mcp/fake_mcp_server.py): the sum the model asked for computed by the server.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kvchat/conversation.h"
#include "kvchat/mcp_toolbox.h"
#include "kvchat/tool_loop.h"
#include "support/demo_model.h"

using namespace kvchat;
using namespace kvchat::test;

namespace {

ToolDefinition add_tool() {
  // Small numbers (an enum: the grammar has no minimum/maximum) so the sum is exact.
  const std::string small = R"({"type": "integer", "enum": [0, 1, 2, 3, 5, 8, 13, 21, 34, 40]})";
  return {"add", "Adds two integers",
          R"({"type": "object", "properties": {"a": )" + small + R"(, "b": )" + small +
              R"(}, "required": ["a", "b"], "additionalProperties": false})",
          true};
}

Conversation demo_conversation(ToolChoice choice, int32_t n_ctx = 2048) {
  SessionOptions so;
  so.n_ctx = n_ctx;
  auto session = Session::create(demo_model(), so);
  EXPECT_TRUE(session) << session.message();
  auto format = ChatFormat::for_model(*demo_model());
  EXPECT_TRUE(format) << format.message();
  Conversation c(std::move(*session), *format);
  c.set_tools({{add_tool()}, choice, false});
  c.add_user("What is two and forty?");
  return c;
}

GenerateOptions greedy(int n = 200) {
  GenerateOptions o;
  o.max_tokens = n;
  o.sampling.temperature = 0;
  return o;
}

// The sum of a call's arguments, computed here (the independent truth).
std::string sum_of(const ToolCall& call) {
  const auto args = nlohmann::json::parse(call.arguments);
  return std::to_string(args.at("a").get<int>() + args.at("b").get<int>());
}

ToolRunner adder(int* runs) {
  return [runs](const ToolCall& call, const std::function<bool()>&) -> Result<ToolOutput> {
    ++*runs;
    return ToolOutput{sum_of(call), false};
  };
}

}  // namespace

TEST(ToolLoop, ACallIsRunWithConsentAndTheReplyGoesOn) {
  Conversation c = demo_conversation({ToolChoiceMode::Required, ""});
  EXPECT_GT(c.tool_definition_tokens(), 20);
  int runs = 0, asked = 0;
  ToolLoopCallbacks cb;
  cb.consent = [&](const ToolCall& call) {
    ++asked;
    EXPECT_EQ(call.name, "add");
    return ToolConsent::AllowOnce;
  };
  cb.on_limit = [](int) { return false; };
  auto r = reply_with_tools(c, greedy(), {}, adder(&runs), cb);
  ASSERT_TRUE(r) << r.message();
  ASSERT_GE(r->replies.size(), 2u);
  ASSERT_EQ(r->replies[0].tool_calls.size(), 1u);
  const ToolCall& call = r->replies[0].tool_calls[0];
  EXPECT_EQ(call.id.rfind("call_", 0), 0u);
  EXPECT_EQ(runs, asked);
  ASSERT_GE(r->runs.size(), 1u);
  EXPECT_EQ(r->runs[0].result, sum_of(call));
  EXPECT_FALSE(r->runs[0].denied);
  EXPECT_EQ(
      r->runs[0].result_tokens,
      static_cast<int32_t>(demo_model()->tokenizer().encode_continuation(sum_of(call)).size()));
  // The history: user, assistant with the call, the tool's result, and on.
  const auto& m = c.messages();
  ASSERT_GE(m.size(), 4u);
  EXPECT_EQ(m[1].role, "assistant");
  ASSERT_EQ(m[1].tool_calls.size(), 1u);
  EXPECT_EQ(m[1].tool_calls[0].arguments, call.arguments);
  EXPECT_EQ(m[2].role, "tool");
  EXPECT_EQ(m[2].tool_call_id, call.id);
  EXPECT_EQ(m[2].content, sum_of(call));
  // The tool choice was required for the first reply only, and is back as it was.
  EXPECT_EQ(c.tools().choice.mode, ToolChoiceMode::Required);
  // The reply after the result read it from the cache: only the result and what follows
  // it were evaluated.
  EXPECT_GT(r->replies[1].prompt.reused_tokens, r->replies[0].prompt.prompt_tokens / 2);
}

TEST(ToolLoop, ADeniedCallIsNotRunAndTheModelReadsTheRefusal) {
  Conversation c = demo_conversation({ToolChoiceMode::Named, "add"});
  int runs = 0;
  ToolLoopCallbacks cb;
  cb.consent = [](const ToolCall&) { return ToolConsent::Deny; };
  cb.on_limit = [](int) { return false; };
  auto r = reply_with_tools(c, greedy(), {}, adder(&runs), cb);
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(runs, 0);
  ASSERT_GE(r->runs.size(), 1u);
  EXPECT_TRUE(r->runs[0].denied);
  EXPECT_EQ(c.messages()[2].content, "The user did not allow this call of add; it was not run.");
}

TEST(ToolLoop, StopsAtTheLimitUnlessTheUserGoesOn) {
  Conversation c = demo_conversation({ToolChoiceMode::Required, ""});
  int runs = 0, asked_at = 0;
  ToolLoopOptions loop;
  loop.max_calls = 2;
  loop.keep_choice = true;  // every reply must call: the limit is reached for sure
  ToolLoopCallbacks cb;
  cb.consent = [](const ToolCall&) { return ToolConsent::AllowAlways; };
  cb.on_limit = [&](int calls) {
    asked_at = calls;
    return false;
  };
  auto r = reply_with_tools(c, greedy(), loop, adder(&runs), cb);
  ASSERT_TRUE(r) << r.message();
  EXPECT_TRUE(r->stopped);
  EXPECT_EQ(asked_at, 2);
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(c.messages().back().role, "tool");  // the results stay
}

TEST(ToolLoop, EscDuringACallStopsTheLoop) {
  Conversation c = demo_conversation({ToolChoiceMode::Required, ""});
  bool esc = false;
  ToolLoopCallbacks cb;
  cb.reply.cancelled = [&] { return esc; };
  cb.consent = [](const ToolCall&) { return ToolConsent::AllowOnce; };
  ToolRunner slow = [&](const ToolCall&,
                        const std::function<bool()>& cancelled) -> Result<ToolOutput> {
    esc = true;  // the user presses Esc while it runs
    EXPECT_TRUE(cancelled());
    return Error{"cancelled"};
  };
  auto r = reply_with_tools(c, greedy(), {}, slow, cb);
  ASSERT_TRUE(r) << r.message();
  EXPECT_TRUE(r->stopped);
  ASSERT_EQ(r->runs.size(), 1u);
  EXPECT_TRUE(r->runs[0].failed);
  EXPECT_EQ(c.messages().back().content, "The call failed: cancelled");
}

TEST(ToolLoop, ALongResultIsCutAtTheLimitAndToTheContext) {
  const std::string word = " beginning";
  std::string big;
  for (int i = 0; i < 3000; ++i) big += word;
  const Tokenizer& tok = demo_model()->tokenizer();
  const auto whole = static_cast<int32_t>(tok.encode_continuation(big).size());
  ToolRunner verbose = [&](const ToolCall&, const std::function<bool()>&) -> Result<ToolOutput> {
    return ToolOutput{big, false};
  };
  ToolLoopCallbacks cb;
  cb.consent = [](const ToolCall&) { return ToolConsent::AllowOnce; };
  cb.on_limit = [](int) { return false; };
  {
    Conversation c = demo_conversation({ToolChoiceMode::Required, ""}, 4096);
    ToolLoopOptions loop;
    loop.max_result_tokens = 100;
    loop.keep_choice = true;
    loop.max_calls = 1;
    auto r = reply_with_tools(c, greedy(), loop, verbose, cb);
    ASSERT_TRUE(r) << r.message();
    ASSERT_EQ(r->runs.size(), 1u);
    const ToolRun& run = r->runs[0];
    EXPECT_EQ(run.original_tokens, whole);
    EXPECT_EQ(run.cut_note, "100 of " + std::to_string(whole / 1000) + "," +
                                std::to_string(whole % 1000 + 1000).substr(1) +
                                " tokens kept (the limit is 100)");
    EXPECT_EQ(run.result.rfind(big.substr(0, 100), 0), 0u);
    EXPECT_NE(run.result.find("[kvchat: the tool's output was cut here; 100 of "),
              std::string::npos);
    EXPECT_EQ(run.kv_bytes, static_cast<uint64_t>(run.result_tokens) *
                                c.session().memory_report().kv_bytes_per_token);
  }
  {  // the default limit (8,000) is more than a 1,024-token context can hold
    Conversation c = demo_conversation({ToolChoiceMode::Required, ""}, 1024);
    ToolLoopOptions loop;
    loop.keep_choice = true;
    loop.max_calls = 1;
    auto r = reply_with_tools(c, greedy(), loop, verbose, cb);
    ASSERT_TRUE(r) << r.message();
    const ToolRun& run = r->runs.at(0);
    EXPECT_NE(run.cut_note.find("to fit the context"), std::string::npos) << run.cut_note;
    auto held = c.tokens();
    ASSERT_TRUE(held);
    // What the next reply reads leaves the reserve free (a token of slack: the tool's
    // text joined to the note may tokenize one token apart from its pieces).
    EXPECT_LE(static_cast<int32_t>(held->size()) + loop.reply_reserve_tokens, 1024 + 1);
    EXPECT_GT(static_cast<int32_t>(held->size()) + loop.reply_reserve_tokens, 1024 - 16);
  }
}

TEST(ToolLoop, ThroughRealMcpProcesses) {
  McpConfig config;
  for (const char* name : {"math", "spare"}) {
    McpServerConfig s;
    s.name = name;
    s.command = "python3";
    s.args = {KVCHAT_SOURCE_DIR "/tests/mcp/fake_mcp_server.py", "ok"};
    config.servers.push_back(s);
  }
  McpToolbox box;
  box.start(config);
  const auto servers = box.servers();
  ASSERT_EQ(servers.size(), 2u);
  EXPECT_EQ(servers[0].state, McpServerState::Ready) << servers[0].message;
  // Both offer "add": the file's first keeps the name, the second's is prefixed.
  EXPECT_EQ(box.find("add")->server, "math");
  EXPECT_EQ(box.find("spare_add")->server, "spare");
  EXPECT_EQ(box.definitions({}).size(), 0u);  // none offered unless picked
  std::vector<ToolDefinition> offered = box.definitions({"math"});
  ASSERT_EQ(offered.size(), 7u);
  offered.erase(offered.begin() + 1, offered.end());        // add only
  offered[0].parameters_json = add_tool().parameters_json;  // small numbers for the demo model
  Conversation c = demo_conversation({ToolChoiceMode::Required, ""});
  c.set_tools({offered, {ToolChoiceMode::Required, ""}, false});
  ToolLoopCallbacks cb;
  cb.consent = [](const ToolCall&) { return ToolConsent::AllowOnce; };
  cb.on_limit = [](int) { return false; };
  auto r = reply_with_tools(c, greedy(), {}, box.runner(), cb);
  ASSERT_TRUE(r) << r.message();
  ASSERT_GE(r->runs.size(), 1u);
  EXPECT_FALSE(r->runs[0].failed) << r->runs[0].result;
  EXPECT_EQ(r->runs[0].result, sum_of(r->runs[0].call));  // computed by the server process
  box.stop();
  EXPECT_EQ(box.servers().size(), 0u);
}
