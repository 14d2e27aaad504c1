// The MCP client (kvchat/mcp_client.h) against tests/mcp/fake_mcp_server.py: the protocol
// (handshake, version negotiation, pagination, calls, errors, cancellation, the server's
// requests, list_changed) and every hostile behaviour of the issue (a crash, a hang, a
// flood, invalid JSON-RPC, a 100 MB result, 10,000 tools, a server that ignores SIGTERM),
// each a clear error with the client and the process table clean afterwards.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "kvchat/mcp_client.h"

using namespace kvchat;
using namespace std::chrono_literals;

namespace {

McpServerConfig fake(const std::string& mode) {
  McpServerConfig c;
  c.name = "fake";
  c.command = "python3";
  c.args = {KVCHAT_SOURCE_DIR "/tests/mcp/fake_mcp_server.py", mode};
  return c;
}

std::unique_ptr<McpClient> started(const std::string& mode, McpClientOptions o = {}) {
  auto c = McpClient::start(fake(mode), o);
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.message());
  return c.ok() ? std::move(*c) : nullptr;
}

// No child of this process is left, not even a zombie.
bool no_children() { return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD; }

// A process that is gone or a zombie (a reparented grandchild nobody reaps here).
bool process_gone(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const size_t close = line.rfind(')');
  return close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'Z';
}

template <class F>
bool eventually(F f, std::chrono::milliseconds within = 5000ms) {
  const auto until = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < until) {
    if (f()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return f();
}

}  // namespace

TEST(McpClient, HandshakeToolsAndCalls) {
  auto c = started("ok");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->state(), McpServerState::Ready);
  EXPECT_EQ(c->protocol_version(), mcp_protocol_versions().front());
  EXPECT_EQ(c->server_info(), "fake 0.1");
  EXPECT_EQ(c->instructions(), "Be kind.");
  const auto tools = c->tools();
  ASSERT_EQ(tools.size(), 7u);
  EXPECT_EQ(tools[0].name, "add");
  EXPECT_EQ(tools[0].description, "Adds two integers");
  EXPECT_NE(tools[0].input_schema_json.find("\"required\":[\"a\",\"b\"]"), std::string::npos);
  auto sum = c->call_tool("add", R"({"a": 2, "b": 40})");
  ASSERT_TRUE(sum.ok()) << sum.message();
  EXPECT_EQ(sum->text, "42");
  EXPECT_FALSE(sum->is_error);
  auto failed = c->call_tool("fail", "{}");
  ASSERT_TRUE(failed.ok());
  EXPECT_TRUE(failed->is_error);
  EXPECT_EQ(failed->text, "the tool failed on purpose");
  auto unknown = c->call_tool("nope", "{}");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.message(), "tool server 'fake' answered with error -32602: Unknown tool: nope");
  EXPECT_FALSE(c->call_tool("add", "[1, 2]").ok());
  EXPECT_TRUE(c->ping().ok());
  c->stop();
  EXPECT_EQ(c->state(), McpServerState::Stopped);
  EXPECT_FALSE(c->call_tool("add", R"({"a": 1, "b": 1})").ok());
  EXPECT_TRUE(no_children());
}

TEST(McpClient, FollowsEveryPageOfTheToolList) {
  auto c = started("paged");
  ASSERT_TRUE(c);
  const auto tools = c->tools();
  ASSERT_EQ(tools.size(), 7u);
  EXPECT_EQ(tools[6].name, "huge");
  EXPECT_EQ(c->tools_note(), "");
}

TEST(McpClient, KeepsAThousandOfTenThousandToolsAndSaysSo) {
  auto c = started("many-tools");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->tools().size(), 1000u);
  EXPECT_EQ(c->tools_note(), "the server lists more than 1000 tools; kvchat keeps the first 1000");
}

TEST(McpClient, PassesOnlyTheConfiguredEnvironment) {
  ::setenv("KVCHAT_TEST_SECRET", "do-not-leak", 1);
  McpServerConfig cfg = fake("ok");
  cfg.env["GIVEN"] = "configured value";
  auto c = McpClient::start(cfg);
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ((*c)->call_tool("env", R"({"name": "KVCHAT_TEST_SECRET"})")->text, "<unset>");
  EXPECT_EQ((*c)->call_tool("env", R"({"name": "GIVEN"})")->text, "configured value");
  EXPECT_EQ((*c)->call_tool("env", R"({"name": "HOME"})")->text, std::getenv("HOME"));
}

TEST(McpClient, TimesOutAndCancelsACall) {
  auto c = started("ok");
  ASSERT_TRUE(c);
  auto late = c->call_tool("slow", R"({"seconds": 1})", {}, 200);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.message(), "tool server 'fake' did not answer tools/call within 200 ms");
  const auto t0 = std::chrono::steady_clock::now();
  auto stopped = c->call_tool("slow", R"({"seconds": 1})",
                              [&] { return std::chrono::steady_clock::now() - t0 > 100ms; });
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.message(), "cancelled");
  // The server heard both: notifications/cancelled for requests 3 and 4 (initialize was
  // 1, tools/list 2).
  EXPECT_TRUE(eventually([&] {
    const std::string log = c->stderr_log();
    return log.find("cancelled 3") != std::string::npos &&
           log.find("cancelled 4") != std::string::npos;
  }));
  EXPECT_EQ(c->call_tool("add", R"({"a": 1, "b": 2})")->text, "3");  // still usable
}

TEST(McpClient, AnswersTheServersRequests) {
  auto c = started("server-ping");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->call_tool("echo", R"({"text": "hi"})")->text, "hi");
  EXPECT_TRUE(eventually([&] {
    const std::string log = c->stderr_log();
    return log.find("answer srv-1 result") != std::string::npos &&
           log.find("answer srv-2 error") != std::string::npos;
  }));
}

TEST(McpClient, RelistsToolsWhenTheServerSaysTheyChanged) {
  auto c = started("list-changed");
  ASSERT_TRUE(c);
  const uint64_t before = c->tools_generation();
  EXPECT_EQ(c->call_tool("add", R"({"a": 1, "b": 1})")->text, "2");
  EXPECT_TRUE(eventually([&] { return c->tools_generation() > before; }));
  const auto tools = c->tools();
  ASSERT_EQ(tools.size(), 8u);
  EXPECT_EQ(tools.back().name, "added_later");
}

TEST(McpClient, ACrashIsAClearErrorWithItsLastWords) {
  auto c = started("ok");
  ASSERT_TRUE(c);
  auto r = c->call_tool("crash", "{}");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "tool server 'fake' exited with code 3");
  EXPECT_EQ(c->state(), McpServerState::Failed);
  EXPECT_NE(c->stderr_log().find("crashing on purpose"), std::string::npos);
  EXPECT_EQ(c->call_tool("add", R"({"a": 1, "b": 1})").message(),
            "tool server 'fake' exited with code 3");
  c.reset();
  EXPECT_TRUE(no_children());
}

TEST(McpClient, StartFailuresSayWhy) {
  auto missing = McpClient::start({"gone", "kvchat-no-such-command", {}, {}, "", "", true, ""});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.message(),
            "tool server 'gone': cannot start 'kvchat-no-such-command': No such file or directory");
  auto exits = McpClient::start(fake("exit-at-once"));
  ASSERT_FALSE(exits.ok());
  EXPECT_NE(exits.message().find("tool server 'fake' exited with code 2"), std::string::npos);
  EXPECT_NE(exits.message().find("missing API key"), std::string::npos) << exits.message();
  McpClientOptions quick;
  quick.start_timeout_ms = 500;
  auto hangs = McpClient::start(fake("hang"), quick);
  ASSERT_FALSE(hangs.ok());
  EXPECT_EQ(hangs.message(), "tool server 'fake' did not answer initialize within 500 ms");
  auto old = McpClient::start(fake("old-version"));
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.message().rfind("tool server 'fake' speaks MCP version '1999-01-01'; kvchat "
                                "speaks 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05",
                                0),
            0u)
      << old.message();
  McpServerConfig http;
  http.name = "web";
  http.url = "http://127.0.0.1:9/mcp";
  EXPECT_FALSE(McpClient::start(http).ok());
  EXPECT_TRUE(no_children());
}

TEST(McpClient, AFloodOfNoiseIsDroppedNotFollowed) {
  const auto t0 = std::chrono::steady_clock::now();
  auto c = McpClient::start(fake("flood"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.message().find("wrote 1000 lines that are not JSON-RPC on its output"),
            std::string::npos)
      << c.message();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
  EXPECT_TRUE(no_children());
}

TEST(McpClient, InvalidJsonIsLoggedAndTheCallTimesOut) {
  auto c = started("invalid-json");
  ASSERT_TRUE(c);
  auto r = c->call_tool("add", R"({"a": 1, "b": 1})", {}, 500);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(), "tool server 'fake' did not answer tools/call within 500 ms");
  EXPECT_NE(c->stderr_log().find("not JSON-RPC: {this is not json"), std::string::npos);
  EXPECT_EQ(c->state(), McpServerState::Ready);
}

TEST(McpClient, AHundredMegabyteResultIsRefusedAndTheServerStaysUsable) {
  auto c = started("ok");
  ASSERT_TRUE(c);
  auto r = c->call_tool("huge", R"({"mb": 100})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message().rfind("tool server 'fake' sent a message of over 16 MiB", 0), 0u)
      << r.message();
  EXPECT_EQ(c->call_tool("add", R"({"a": 20, "b": 22})")->text, "42");
  auto fits = c->call_tool("huge", R"({"mb": 1})");
  ASSERT_TRUE(fits.ok());
  EXPECT_EQ(fits->text.size(), 1u << 20);
}

TEST(McpClient, KeepsOnlyTheLastOfAFloodOfStderr) {
  McpClientOptions o;
  o.max_stderr_bytes = 4096;
  auto c = started("stderr-flood", o);
  ASSERT_TRUE(c);
  EXPECT_TRUE(
      eventually([&] { return c->stderr_log().find("log line 19999") != std::string::npos; }));
  EXPECT_LE(c->stderr_log().size(), 4096u);
}

TEST(McpClient, StopEscalatesToSigkillAndTakesTheGroup) {
  McpClientOptions o;
  o.stop_grace_ms = 300;
  auto stubborn = started("ignore-term", o);
  ASSERT_TRUE(stubborn);
  const auto t0 = std::chrono::steady_clock::now();
  stubborn->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  EXPECT_TRUE(no_children());

  auto parent = started("grandchild", o);
  ASSERT_TRUE(parent);
  std::string log;
  ASSERT_TRUE(eventually(
      [&] { return (log = parent->stderr_log()).find("grandchild ") != std::string::npos; }));
  const int grandchild = std::atoi(log.substr(log.find("grandchild ") + 11).c_str());
  ASSERT_GT(grandchild, 0);
  EXPECT_FALSE(process_gone(grandchild));
  parent->stop();
  EXPECT_TRUE(eventually([&] { return process_gone(grandchild); }, 2000ms));
  EXPECT_TRUE(no_children());
}
