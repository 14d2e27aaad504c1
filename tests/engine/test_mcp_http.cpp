// MCP's Streamable HTTP transport (engine/src/mcp/http_transport.h) and the client over it
// (kvchat/mcp_client.h, a "url" server) against tests/mcp/fake_mcp_http_server.py: JSON and
// server-sent event answers (chunked, in pieces, a notification first; the event parser
// on its own: test_sse_parser.cpp), the session and protocol version on every later
// message, the GET stream's list_changed, cancellation, a 20 MiB answer, a session the
// server forgot, the DELETE at stop; loopback URLs only.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "kvchat/mcp_client.h"
#include "mcp/http_transport.h"

namespace kvchat {
namespace {

// The fake server in `mode`, logging to a temporary file; stopped with the object.
struct FakeHttpServer {
  pid_t pid = -1;
  std::string port, log;
  explicit FakeHttpServer(const std::string& mode) {
    char tmpl[] = "/tmp/kvchat-mcp-http-XXXXXX";
    const int fd = mkstemp(tmpl);
    close(fd);
    log = tmpl;
    int out[2];
    if (pipe(out) != 0) return;
    pid = fork();
    if (pid == 0) {
      dup2(out[1], 1);
      close(out[0]);
      execlp("python3", "python3", KVCHAT_SOURCE_DIR "/tests/mcp/fake_mcp_http_server.py",
             mode.c_str(), log.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n') port += c;
    close(out[0]);
  }
  ~FakeHttpServer() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    unlink(log.c_str());
  }
  std::string url() const { return "http://127.0.0.1:" + port + "/mcp"; }
  std::string logged() const {
    std::ifstream f(log);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
};

McpServerConfig http_config(const FakeHttpServer& server) {
  McpServerConfig c;
  c.name = "web";
  c.url = server.url();
  return c;
}

bool wait_until(const std::function<bool()>& done, int ms) {
  for (int i = 0; i < ms / 20; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

TEST(McpHttp, LoopbackUrlsOnly) {
  auto u = mcp::parse_loopback_url("http://127.0.0.1:3001/mcp?x=1");
  ASSERT_TRUE(u) << u.message();
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, "3001");
  EXPECT_EQ(u->path, "/mcp?x=1");
  EXPECT_EQ(u->authority, "127.0.0.1:3001");
  u = mcp::parse_loopback_url("http://[::1]:8080");
  ASSERT_TRUE(u) << u.message();
  EXPECT_EQ(u->host, "[::1]");
  EXPECT_EQ(u->path, "/");
  u = mcp::parse_loopback_url("HTTP://LocalHost/mcp");
  ASSERT_TRUE(u) << u.message();
  EXPECT_EQ(u->port, "80");
  auto refused = [](const char* url) {
    auto r = mcp::parse_loopback_url(url);
    return r ? std::string("accepted") : r.message();
  };
  EXPECT_NE(refused("http://example.com/mcp").find("only a tool server on this machine"),
            std::string::npos);
  EXPECT_NE(refused("http://10.0.0.1:80/").find("10.0.0.1 is not"), std::string::npos);
  EXPECT_NE(refused("http://127.0.0.1.example.com/").find("is not"), std::string::npos);
  EXPECT_NE(refused("https://127.0.0.1/").find("https URLs are not supported"), std::string::npos);
  EXPECT_NE(refused("http://user:pw@127.0.0.1/").find("user name"), std::string::npos);
  EXPECT_NE(refused("http://127.0.0.1:99999/").find("not a port"), std::string::npos);
  EXPECT_NE(refused("127.0.0.1:3001").find("not a URL"), std::string::npos);
}

void exercise(const std::string& mode) {
  FakeHttpServer server(mode);
  ASSERT_FALSE(server.port.empty());
  auto c = McpClient::start(http_config(server));
  ASSERT_TRUE(c) << c.message();
  McpClient& client = **c;
  EXPECT_EQ(client.state(), McpServerState::Ready);
  EXPECT_EQ(client.protocol_version(), mcp_protocol_versions().front());
  EXPECT_EQ(client.server_info(), "fake-http 0.1");
  ASSERT_EQ(client.tools().size(), 3u);
  // The stream of the server's own messages is open (a notification sent before would go
  // nowhere: the protocol keeps none).
  EXPECT_TRUE(
      wait_until([&] { return server.logged().find("GET stream") != std::string::npos; }, 5000));
  auto r = client.call_tool("add", R"({"a": 2, "b": 3})");
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->text, "5");
  EXPECT_TRUE(client.ping(5000));
  // The first add changes the list; the GET stream says so and the client lists again.
  EXPECT_TRUE(wait_until([&] { return client.tools().size() == 4; }, 5000))
      << client.tools().size() << " tools; log: " << client.stderr_log();
  if (mode == "sse") {  // the notification before each answer
    EXPECT_NE(client.stderr_log().find("[info] \"working on tools/call\""), std::string::npos)
        << client.stderr_log();
  }
  // Cancelled after 200 ms: the server hears notifications/cancelled for it.
  auto t0 = std::chrono::steady_clock::now();
  auto slow = client.call_tool(
      "slow", "{}",
      [&] { return std::chrono::steady_clock::now() - t0 > std::chrono::milliseconds(200); },
      30000);
  EXPECT_FALSE(slow);
  EXPECT_TRUE(
      wait_until([&] { return server.logged().find("cancelled ") != std::string::npos; }, 5000))
      << server.logged();
  // 20 MiB: over the 16 MiB a message may be; the call fails saying so, the client goes on.
  auto huge = client.call_tool("huge", "{}", {}, 30000);
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.message().find("MiB"), std::string::npos) << huge.message();
  EXPECT_TRUE(client.ping(5000));
  client.stop();
  const std::string logged = server.logged();
  EXPECT_NE(logged.find("DELETE kvchat-test-session-1"), std::string::npos) << logged;
  EXPECT_EQ(logged.find("missing"), std::string::npos) << logged;  // every header was there
}

TEST(McpHttp, JsonAnswers) { exercise("json"); }
TEST(McpHttp, EventStreamAnswers) { exercise("sse"); }

TEST(McpHttp, ASessionTheServerForgot) {
  FakeHttpServer server("forget");
  auto c = McpClient::start(http_config(server));
  ASSERT_TRUE(c) << c.message();
  auto r = (*c)->call_tool("add", R"({"a": 1, "b": 1})", {}, 5000);
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find("404"), std::string::npos) << r.message();
  EXPECT_TRUE(wait_until([&] { return (*c)->state() == McpServerState::Failed; }, 5000));
  EXPECT_NE((*c)->state_message().find("HTTP 404, the server no longer knows it"),
            std::string::npos)
      << (*c)->state_message();
}

TEST(McpHttp, NoServerThere) {
  FakeHttpServer server("json");
  McpServerConfig c = http_config(server);
  c.url = "http://127.0.0.1:1/mcp";  // nothing listens on port 1
  McpClientOptions o;
  o.start_timeout_ms = 3000;
  auto r = McpClient::start(c, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find("cannot connect to 127.0.0.1:1"), std::string::npos) << r.message();
}

}  // namespace
}  // namespace kvchat
