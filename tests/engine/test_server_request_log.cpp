// The server's request log and its sessions' clients (issue 43): every answer recorded
// (route without its query, status, tokens, duration, the client's address, User-Agent and
// model), newest first, bounded; never the key nor the message text unless the user turned
// the text on (and turned off, the texts go); each session names the client that used it.
#include <httplib.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "kvchat/server.h"
#include "support/demo_server.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using nlohmann::json;

std::unique_ptr<Server> start(ServerOptions o = {}) { return test::start_demo_server(o, 512); }

std::string chat(const std::string& text, bool stream = false) {
  json b = {{"model", "kjv-demo-f16"},
            {"max_tokens", 4},
            {"stream", stream},
            {"messages", json::array({{{"role", "user"}, {"content", text}}})}};
  return b.dump();
}

int post(Server& s, const std::string& path, const std::string& body, httplib::Headers h = {}) {
  httplib::Client c("127.0.0.1", s.port());
  c.set_read_timeout(60);
  auto r = c.Post(path.c_str(), h, body, "application/json");
  return r ? r->status : 0;
}

// The log is written once an answer's last byte is out, so just after the client has it:
// waits (10 s at most) until `done` holds.
void wait_until(const std::function<bool()>& done) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// The log once it holds `n` records.
std::vector<ServerRequestRecord> records(const Server& s, size_t n) {
  wait_until([&] { return s.recent_requests(1000).size() >= n; });
  return s.recent_requests(1000);
}

// Every text a record holds, to look for what must never be there.
std::vector<std::string> texts_of(const ServerRequestRecord& r) {
  return {r.method, r.route, r.client_address, r.user_agent, r.model, r.message_text};
}

int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST(ServerRequestLog, RecordsRouteStatusTokensDurationAndClient) {
  auto s = start();
  ASSERT_TRUE(s);
  const int64_t before = unix_ms_now();
  httplib::Client c("127.0.0.1", s->port());
  ASSERT_TRUE(c.Get("/v1/models?limit=5"));
  const httplib::Headers agent = {{"User-Agent", "log-test-agent/1.0"}};
  ASSERT_EQ(post(*s, "/v1/chat/completions", chat("In the beginning"), agent), 200);
  records(*s, 2);  // each logged before the next is sent: the order below is theirs
  ASSERT_EQ(post(*s, "/v1/chat/completions", chat("And the earth", true), agent), 200);
  records(*s, 3);
  ASSERT_TRUE(c.Get("/v1/nowhere"));

  const auto log = records(*s, 4);
  ASSERT_EQ(log.size(), 4u);
  // Newest first.
  EXPECT_EQ(log[0].route, "/v1/nowhere");
  EXPECT_EQ(log[0].status, 404);
  EXPECT_EQ(log[3].method, "GET");
  EXPECT_EQ(log[3].route, "/v1/models") << "the query string is not recorded";
  EXPECT_EQ(log[3].status, 200);
  EXPECT_EQ(log[3].completion_tokens, 0);
  for (int i : {1, 2}) {  // the streamed one, then the whole one
    const ServerRequestRecord& r = log[i];
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.route, "/v1/chat/completions");
    EXPECT_EQ(r.status, 200);
    EXPECT_GT(r.prompt_tokens, 2);
    EXPECT_EQ(r.completion_tokens, 4) << i;
    EXPECT_GE(r.duration_ms, 0);
    EXPECT_EQ(r.client_address, "127.0.0.1");
    EXPECT_EQ(r.user_agent, "log-test-agent/1.0");
    EXPECT_EQ(r.model, "kjv-demo-f16");
    EXPECT_GE(r.session, 0);
    EXPECT_TRUE(r.message_text.empty());
  }
  for (const ServerRequestRecord& r : log) {
    EXPECT_GE(r.time_unix_ms, before - 1000);
    EXPECT_LE(r.time_unix_ms, unix_ms_now() + 1000);
  }
  EXPECT_GE(log[0].time_unix_ms, log[3].time_unix_ms);
  EXPECT_EQ(s->recent_requests(2).size(), 2u);
  EXPECT_EQ(s->recent_requests(2)[0].route, "/v1/nowhere");
}

TEST(ServerRequestLog, IsBounded) {
  auto s = start();  // the default: the last 200
  ASSERT_TRUE(s);
  httplib::Client c("127.0.0.1", s->port());
  for (int i = 0; i < 210; ++i) ASSERT_TRUE(c.Get(i == 209 ? "/v1/models" : "/health"));
  wait_until([&] {
    const auto newest = s->recent_requests(1);
    return !newest.empty() && newest[0].route == "/v1/models";
  });
  const auto log = s->recent_requests(1000);
  EXPECT_EQ(log.size(), 200u);
  EXPECT_EQ(log[0].route, "/v1/models") << "the newest kept, the oldest dropped";

  ServerOptions small;
  small.request_log_size = 5;
  auto t = start(small);
  ASSERT_TRUE(t);
  httplib::Client d("127.0.0.1", t->port());
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(d.Get(i == 7 ? "/v1/models" : "/health"));
  wait_until([&] {
    const auto newest = t->recent_requests(1);
    return !newest.empty() && newest[0].route == "/v1/models";
  });
  EXPECT_EQ(t->recent_requests(1000).size(), 5u);
}

TEST(ServerRequestLog, NeverTheKeyNorTheMessageUnlessAskedFor) {
  const std::string key = "sk-log-test-KEY-31337";
  const std::string message = "zebra quokka marmalade";
  ServerOptions o;
  o.api_key = key;
  auto s = start(o);
  ASSERT_TRUE(s);
  const httplib::Headers auth = {{"Authorization", "Bearer " + key}};
  ASSERT_EQ(post(*s, "/v1/chat/completions", chat(message), auth), 200);
  records(*s, 1);  // each logged before the next is sent: the order below is theirs
  ASSERT_EQ(post(*s, "/v1/chat/completions", chat(message, true), auth), 200);
  records(*s, 2);
  ASSERT_EQ(post(*s, "/v1/chat/completions", chat(message),
                 {{"Authorization", "Bearer " + key + "-wrong"}}),
            401);
  records(*s, 3);
  httplib::Client c("127.0.0.1", s->port());
  ASSERT_TRUE(c.Get(("/v1/models?api_key=" + key).c_str(), auth));
  const auto log = records(*s, 4);
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[1].status, 401);
  for (const ServerRequestRecord& r : log) {
    for (const std::string& text : texts_of(r)) {
      EXPECT_EQ(text.find("log-test-KEY"), std::string::npos) << text;
      EXPECT_EQ(text.find("quokka"), std::string::npos) << text;
    }
  }

  // Turned on: the last user message's first characters; turned off: dropped again.
  s->set_log_message_text(true);
  ASSERT_EQ(post(*s, "/v1/chat/completions", chat(message), auth), 200);
  auto on = records(*s, 5);
  ASSERT_EQ(on.size(), 5u);
  EXPECT_EQ(on[0].message_text, message);
  for (const std::string& text : texts_of(on[0])) {
    EXPECT_EQ(text.find("log-test-KEY"), std::string::npos) << text;
  }
  s->set_log_message_text(false);
  for (const ServerRequestRecord& r : s->recent_requests(10)) EXPECT_TRUE(r.message_text.empty());
}

TEST(ServerRequestLog, SessionsNameTheirLastClient) {
  ServerOptions o;
  o.parallel = 2;
  auto s = start(o);
  ASSERT_TRUE(s);
  for (const ServerSessionStats& st : s->stats().sessions) EXPECT_TRUE(st.user_agent.empty());
  ASSERT_EQ(post(*s, "/v1/chat/completions", chat("In the beginning"),
                 {{"User-Agent", "editor-plugin/2.3"}}),
            200);
  int used = 0;
  for (const ServerSessionStats& st : s->stats().sessions) {
    if (st.requests == 0) continue;
    ++used;
    EXPECT_EQ(st.user_agent, "editor-plugin/2.3");
    EXPECT_EQ(st.client_address, "127.0.0.1");
    EXPECT_EQ(st.model, "kjv-demo-f16");
  }
  EXPECT_EQ(used, 1);
}

TEST(ServerRequestLog, EndpointsAreTheRoutes) {
  const std::vector<std::string> endpoints = server_endpoints();
  auto has = [&](const char* e) {
    return std::find(endpoints.begin(), endpoints.end(), e) != endpoints.end();
  };
  EXPECT_TRUE(has("GET /v1/models"));
  EXPECT_TRUE(has("POST /v1/chat/completions"));
  EXPECT_TRUE(has("POST /v1/completions"));
  EXPECT_TRUE(has("GET /health"));
}

}  // namespace
}  // namespace kvchat
