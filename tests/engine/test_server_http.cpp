// kvchat serve end to end: a Server on port 0 over the demo model, driven by httplib's
// client: chat (streamed and not), completions, cached prompt tokens of a follow-up,
// stop strings, max_tokens, every error status, disconnect cancels, seeded sampling.
#include <httplib.h>

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "kvchat/server.h"
#include "support/demo_server.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using nlohmann::json;

std::shared_ptr<const Model> demo() { return test::demo_model(); }
std::unique_ptr<Server> start(ServerOptions o = {}) { return test::start_demo_server(o, 512); }

json user(const std::string& text) { return {{"role", "user"}, {"content", text}}; }

json chat_body(json messages, json extra = json::object()) {
  json b = {{"model", "kjv-demo-f16"}, {"messages", std::move(messages)}};
  b.update(extra);
  return b;
}

struct Reply {
  int status = 0;
  json body;
  std::string raw;
  httplib::Headers headers;
};

Reply post(Server& s, const std::string& path, const std::string& body,
           httplib::Headers headers = {}) {
  httplib::Client c("127.0.0.1", s.port());
  c.set_read_timeout(60);
  auto r = c.Post(path.c_str(), headers, body, "application/json");
  Reply out;
  if (!r) return out;
  out.status = r->status;
  out.raw = r->body;
  out.headers = r->headers;
  out.body = json::parse(r->body, nullptr, false);
  return out;
}

std::string header(const Reply& r, const std::string& name) {
  auto it = r.headers.find(name);
  return it == r.headers.end() ? std::string() : it->second;
}

Reply post(Server& s, const std::string& path, const json& body) {
  return post(s, path, body.dump());
}

// The "data: " events of an SSE body, [DONE] as the string "[DONE]".
std::vector<json> sse_events(const std::string& raw) {
  std::vector<json> events;
  size_t pos = 0;
  while ((pos = raw.find("data: ", pos)) != std::string::npos) {
    const size_t end = raw.find("\n\n", pos);
    const std::string data = raw.substr(pos + 6, end - pos - 6);
    events.push_back(data == "[DONE]" ? json("[DONE]") : json::parse(data, nullptr, false));
    pos = end;
  }
  return events;
}

std::string streamed_text(const std::vector<json>& events) {
  std::string text;
  for (const json& e : events) {
    if (!e.is_object() || !e.contains("choices") || e["choices"].empty()) continue;
    const json& delta = e["choices"][0]["delta"];
    if (delta.contains("content")) text += delta["content"].get<std::string>();
  }
  return text;
}

void expect_error(const Reply& r, int status, const std::string& param = "") {
  EXPECT_EQ(r.status, status) << r.raw;
  ASSERT_TRUE(r.body.is_object()) << r.raw;
  ASSERT_TRUE(r.body.contains("error")) << r.raw;
  const json& e = r.body["error"];
  EXPECT_TRUE(e["message"].is_string());
  EXPECT_TRUE(e["type"].is_string());
  EXPECT_TRUE(e.contains("param") && e.contains("code")) << r.raw;
  if (!param.empty()) {
    EXPECT_EQ(e["param"], param) << r.raw;
  }
}

TEST(ServerHttp, ChatCompletionShapeAndLength) {
  auto s = start();
  ASSERT_TRUE(s);
  Reply r = post(*s, "/v1/chat/completions",
                 chat_body({user("In the beginning")}, {{"max_tokens", 8}, {"seed", 3}}));
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_EQ(r.body["object"], "chat.completion");
  EXPECT_EQ(r.body["id"].get<std::string>().rfind("chatcmpl-", 0), 0u);
  EXPECT_EQ(r.body["model"], "kjv-demo-f16");
  EXPECT_TRUE(r.body["created"].is_number_integer());
  const json& choice = r.body["choices"][0];
  EXPECT_EQ(choice["index"], 0);
  EXPECT_EQ(choice["message"]["role"], "assistant");
  EXPECT_FALSE(choice["message"]["content"].get<std::string>().empty());
  EXPECT_EQ(choice["finish_reason"], "length");
  EXPECT_EQ(r.body["usage"]["completion_tokens"], 8);
  EXPECT_GT(r.body["usage"]["prompt_tokens"].get<int>(), 2);
  EXPECT_EQ(r.body["usage"]["total_tokens"].get<int>(),
            r.body["usage"]["prompt_tokens"].get<int>() + 8);
  EXPECT_EQ(r.body["usage"]["prompt_tokens_details"]["cached_tokens"], 0);

  httplib::Client c("127.0.0.1", s->port());
  auto models = c.Get("/v1/models");
  ASSERT_TRUE(models);
  json m = json::parse(models->body);
  EXPECT_EQ(m["object"], "list");
  EXPECT_EQ(m["data"][0]["id"], "kjv-demo-f16");
  auto health = c.Get("/health");
  ASSERT_TRUE(health);
  json h = json::parse(health->body);
  EXPECT_EQ(h["status"], "ok");
  EXPECT_FALSE(h.contains("session_stats")) << "without a key /health is liveness only";
  const ServerStats stats = s->stats();
  EXPECT_EQ(stats.busy, 0);
  EXPECT_EQ(stats.idle, 4);
  EXPECT_GT(stats.kv_allocated_bytes, 0u);

  Reply comp = post(*s, "/v1/completions",
                    json{{"model", "kjv-demo-f16"}, {"prompt", "And God said"}, {"max_tokens", 4}});
  ASSERT_EQ(comp.status, 200) << comp.raw;
  EXPECT_EQ(comp.body["object"], "text_completion");
  EXPECT_TRUE(comp.body["choices"][0]["text"].is_string());
  EXPECT_EQ(comp.body["usage"]["completion_tokens"], 4);
}

TEST(ServerHttp, StreamedEqualsNonStreamedWithTheSameSeed) {
  auto s = start();
  ASSERT_TRUE(s);
  json extra = {{"max_tokens", 24}, {"seed", 11}, {"temperature", 0.9}};
  Reply plain = post(*s, "/v1/chat/completions", chat_body({user("And the earth")}, extra));
  ASSERT_EQ(plain.status, 200) << plain.raw;
  extra["stream"] = true;
  extra["stream_options"] = {{"include_usage", true}};
  Reply streamed = post(*s, "/v1/chat/completions", chat_body({user("And the earth")}, extra));
  ASSERT_EQ(streamed.status, 200);
  EXPECT_EQ(header(streamed, "Content-Type"), "text/event-stream");
  auto events = sse_events(streamed.raw);
  ASSERT_GE(events.size(), 4u) << streamed.raw;
  EXPECT_EQ(events.back(), "[DONE]");
  EXPECT_EQ(events[0]["object"], "chat.completion.chunk");
  EXPECT_EQ(events[0]["choices"][0]["delta"]["role"], "assistant");
  const json& usage_chunk = events[events.size() - 2];
  EXPECT_TRUE(usage_chunk["choices"].empty());
  EXPECT_EQ(usage_chunk["usage"]["completion_tokens"], 24);
  EXPECT_EQ(events[events.size() - 3]["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(streamed_text(events), plain.body["choices"][0]["message"]["content"]);
  // The same seed again: the same text; another seed: another text.
  Reply again = post(
      *s, "/v1/chat/completions",
      chat_body({user("And the earth")}, {{"max_tokens", 24}, {"seed", 11}, {"temperature", 0.9}}));
  EXPECT_EQ(again.body["choices"][0]["message"]["content"],
            plain.body["choices"][0]["message"]["content"]);
  Reply other = post(
      *s, "/v1/chat/completions",
      chat_body({user("And the earth")}, {{"max_tokens", 24}, {"seed", 12}, {"temperature", 0.9}}));
  EXPECT_NE(other.body["choices"][0]["message"]["content"],
            plain.body["choices"][0]["message"]["content"]);
}

TEST(ServerHttp, FollowUpReusesTheConversationsKv) {
  auto s = start();
  ASSERT_TRUE(s);
  json first_messages = {user("In the beginning God created")};
  Reply first = post(*s, "/v1/chat/completions",
                     chat_body(first_messages, {{"max_tokens", 12}, {"temperature", 0}}));
  ASSERT_EQ(first.status, 200) << first.raw;
  const int first_prompt = first.body["usage"]["prompt_tokens"];
  json follow = first_messages;
  follow.push_back(
      {{"role", "assistant"}, {"content", first.body["choices"][0]["message"]["content"]}});
  follow.push_back(user("And the earth was"));
  Reply second =
      post(*s, "/v1/chat/completions", chat_body(follow, {{"max_tokens", 4}, {"temperature", 0}}));
  ASSERT_EQ(second.status, 200) << second.raw;
  const int cached = second.body["usage"]["prompt_tokens_details"]["cached_tokens"];
  EXPECT_GE(cached, first_prompt) << second.raw;  // at least the first prompt's tokens
  EXPECT_LT(cached, second.body["usage"]["prompt_tokens"].get<int>());
}

TEST(ServerHttp, StopStringsCutTheTextAndAreNotReturned) {
  auto s = start();
  ASSERT_TRUE(s);
  json extra = {{"max_tokens", 40}, {"temperature", 0}};
  Reply free_run = post(*s, "/v1/chat/completions", chat_body({user("And God said")}, extra));
  ASSERT_EQ(free_run.status, 200);
  const std::string text = free_run.body["choices"][0]["message"]["content"];
  ASSERT_GT(text.size(), 12u) << text;
  const std::string stop = text.substr(text.size() / 2, 3);
  const std::string expected = text.substr(0, text.find(stop));
  extra["stop"] = json::array({"@@never@@", stop});
  Reply cut = post(*s, "/v1/chat/completions", chat_body({user("And God said")}, extra));
  EXPECT_EQ(cut.body["choices"][0]["message"]["content"], expected) << "stop '" << stop << "'";
  EXPECT_EQ(cut.body["choices"][0]["finish_reason"], "stop");
  extra["stream"] = true;
  Reply streamed = post(*s, "/v1/chat/completions", chat_body({user("And God said")}, extra));
  EXPECT_EQ(streamed_text(sse_events(streamed.raw)), expected);
}

TEST(ServerHttp, ErrorStatuses) {
  ServerOptions o;
  o.max_body_bytes = 4096;
  auto s = start(o);
  ASSERT_TRUE(s);
  expect_error(post(*s, "/v1/chat/completions", std::string("{\"model\":")), 400);
  expect_error(post(*s, "/v1/chat/completions", chat_body({user("x")}, {{"max_tokens", "9"}})), 400,
               "max_tokens");
  expect_error(post(*s, "/v1/chat/completions", chat_body({user("x")}, {{"temperature", 7}})), 400,
               "temperature");
  expect_error(post(*s, "/v1/chat/completions", chat_body({user("x")}, {{"n", 2}})), 400, "n");
  Reply unknown_model = post(*s, "/v1/chat/completions",
                             json{{"model", "gpt-9"}, {"messages", json::array({user("x")})}});
  expect_error(unknown_model, 404, "model");
  expect_error(post(*s, "/v1/nothing", json::object()), 404);
  expect_error(post(*s, "/v1/chat/completions", chat_body({user(std::string(5000, 'a'))})), 413);

  ServerOptions keyed;
  keyed.api_key = "s3cret";
  keyed.ram_tier = std::make_shared<KvRamTier>(1ull << 30);  // idle sessions count in it
  keyed.session.kv_type = "q8_0/q4_0r";                      // K and V typed apart, said by /health
  auto k = start(keyed);
  ASSERT_TRUE(k);
  const json body = chat_body({user("x")}, {{"max_tokens", 1}});
  expect_error(post(*k, "/v1/chat/completions", body.dump()), 401);
  expect_error(post(*k, "/v1/chat/completions", body.dump(), {{"Authorization", "Bearer nope"}}),
               401);
  EXPECT_EQ(
      post(*k, "/v1/chat/completions", body.dump(), {{"Authorization", "Bearer s3cret"}}).status,
      200);
  httplib::Client c("127.0.0.1", k->port());
  auto health = c.Get("/health");  // without the key: liveness only
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_FALSE(json::parse(health->body).contains("session_stats")) << health->body;
  EXPECT_FALSE(health->has_header("Access-Control-Allow-Origin"));  // no CORS unless --cors
  auto keyed_health = c.Get("/health", {{"Authorization", "Bearer s3cret"}});
  ASSERT_TRUE(keyed_health);
  EXPECT_EQ(keyed_health->status, 200);
  const json kh = json::parse(keyed_health->body);
  EXPECT_TRUE(kh.contains("session_stats")) << keyed_health->body;
  EXPECT_EQ(kh["kv_type"], "q8_0/q4_0r") << keyed_health->body;
  // The RAM tier: the session of the one request that ran is idle, its KV counted there.
  EXPECT_EQ(kh["kv_ram_tier"]["budget_bytes"], 1ull << 30) << keyed_health->body;
  EXPECT_EQ(kh["kv_ram_tier"]["server_sessions"], 1) << keyed_health->body;
  EXPECT_EQ(kh["kv_ram_tier"]["used_bytes"], kh["kv_allocated_bytes"]) << keyed_health->body;
}

// Waits until done() holds (at most 5 s); the seconds that took.
template <class Done>
double seconds_until(Done done) {
  const auto t0 = std::chrono::steady_clock::now();
  while (!done() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A long streamed generation on the only session, read by a client that can hang up.
struct LongStream {
  std::thread thread;
  std::atomic<int> events{0};  // reads of the body (the first is the role, sent before the prompt)
  std::atomic<bool> hang_up{false};
  void run(int port, json messages = {user("In the beginning")}) {
    thread = std::thread([this, port, messages] {
      httplib::Client c("127.0.0.1", port);
      c.set_read_timeout(60);
      httplib::Request req;
      req.method = "POST";
      req.path = "/v1/chat/completions";
      req.body =
          chat_body(messages, {{"max_tokens", 30000}, {"stream", true}, {"stop", "@@none@@"}})
              .dump();
      req.set_header("Content-Type", "application/json");
      req.content_receiver = [this](const char*, size_t, uint64_t, uint64_t) {
        ++events;
        return !hang_up.load();
      };
      c.send(req);
    });
  }
  // Waits (at most 5 s) until the body has been read `n` times; whether it was.
  bool wait_events(int n = 1) {
    seconds_until([&] { return events >= n; });
    return events >= n;
  }
};

TEST(ServerHttp, BusyGets503WithRetryAfterAndDisconnectFreesTheSession) {
  ServerOptions o;
  o.parallel = 1;
  o.session.n_ctx = 32768;
  auto s = start(o);
  ASSERT_TRUE(s);
  LongStream stream;
  stream.run(s->port());
  ASSERT_TRUE(stream.wait_events());
  Reply busy = post(*s, "/v1/chat/completions", chat_body({user("x")}, {{"max_tokens", 1}}));
  expect_error(busy, 503);
  EXPECT_EQ(header(busy, "Retry-After"), "1");
  EXPECT_EQ(s->stats().busy, 1);

  stream.hang_up = true;
  stream.thread.join();
  const double seconds = seconds_until([&] { return s->stats().busy == 0; });
  ServerStats stats = s->stats();
  EXPECT_EQ(stats.busy, 0);
  EXPECT_LT(seconds, 1.0);
  // Cancelled long before its 30000 tokens.
  EXPECT_LT(stats.sessions[0].tokens, 20000) << stats.sessions[0].tokens;
  EXPECT_EQ(post(*s, "/v1/chat/completions", chat_body({user("x")}, {{"max_tokens", 1}})).status,
            200);
}

TEST(ServerHttp, StopCancelsGenerationsInFlight) {
  ServerOptions o;
  o.parallel = 1;
  o.session.n_ctx = 32768;
  auto s = start(o);
  ASSERT_TRUE(s);
  LongStream stream;
  stream.run(s->port());
  ASSERT_TRUE(stream.wait_events());
  const auto t0 = std::chrono::steady_clock::now();
  s->stop();
  stream.thread.join();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 3.0);
}

// A non-streamed request whose client hangs up: its generation stops at once (not after its
// 30000 tokens), the generated tokens' KV is given back and the hang-up is counted.
TEST(ServerHttp, NonStreamedClientHangUpCancelsItsGeneration) {
  ServerOptions o;
  o.parallel = 1;
  o.session.n_ctx = 32768;
  auto s = start(o);
  ASSERT_TRUE(s);
  std::thread client([port = s->port()] {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(0, 300000);  // gives up (closes the socket) after 0.3 s
    c.Post(
        "/v1/chat/completions",
        chat_body({user("In the beginning")}, {{"max_tokens", 30000}, {"stop", "@@none@@"}}).dump(),
        "application/json");
  });
  client.join();
  const double seconds = seconds_until([&] { return s->stats().client_hang_ups > 0; });
  const ServerStats stats = s->stats();
  EXPECT_EQ(stats.client_hang_ups, 1u);
  EXPECT_EQ(stats.busy, 0);
  EXPECT_LT(seconds, 1.0);
  // What it generated was given back: the session holds only the prompt.
  EXPECT_LT(stats.sessions[0].tokens, 64) << stats.sessions[0].tokens;
  EXPECT_EQ(post(*s, "/v1/chat/completions", chat_body({user("x")}, {{"max_tokens", 1}})).status,
            200);
}

// Four clients at once: every one answered completely, their decode steps computed in
// shared forward passes (the stats say how many and how large).
TEST(ServerHttp, ConcurrentRequestsDecodeTogether) {
  ServerOptions o;
  o.parallel = 4;
  auto s = start(o);
  ASSERT_TRUE(s);
  std::vector<Reply> replies(4);
  std::vector<std::thread> clients;
  for (int i = 0; i < 4; ++i) {
    clients.emplace_back([&, i] {
      replies[static_cast<size_t>(i)] =
          post(*s, "/v1/chat/completions",
               chat_body(
                   {user("And God said " + std::to_string(i))},
                   {{"max_tokens", 200}, {"stop", "@@none@@"}, {"seed", i}, {"temperature", 0.8}}));
    });
  }
  for (auto& c : clients) c.join();
  for (const Reply& r : replies) {
    ASSERT_EQ(r.status, 200) << r.raw;
    EXPECT_TRUE(r.body["choices"][0]["finish_reason"].is_string()) << r.raw;
    EXPECT_GT(r.body["usage"]["completion_tokens"].get<int>(), 0) << r.raw;
  }
  const ServerStats stats = s->stats();
  EXPECT_GT(stats.decode_batches, 0u);
  EXPECT_GE(stats.max_decode_batch, 2) << "the requests overlapped but never shared a pass";
  EXPECT_LT(stats.decode_batches, stats.decode_steps);
}

// Two sessions whose prompts begin with the same system prompt hold its KV blocks once:
// the second adopts the first's blocks, and the pool reports the shared bytes.
TEST(ServerHttp, SessionsShareTheirCommonPrefixBlocks) {
  ServerOptions o;
  o.parallel = 2;
  o.session.n_ctx = 32768;
  auto s = start(o);
  ASSERT_TRUE(s);
  std::string system;
  for (int i = 0; i < 12; ++i) system += "In the beginning God created the heaven and the earth. ";
  const json messages = {{{"role", "system"}, {"content", system}}, user("And the earth")};
  // The first request streams (its session busy, its prompt's blocks published once text
  // arrives: the first event, the role, is sent before the prompt is evaluated) ...
  LongStream first;
  first.run(s->port(), messages);
  ASSERT_TRUE(first.wait_events(3));
  // ... while the second, on the other session, begins with the same system prompt.
  json second_messages = messages;
  second_messages[1] = user("And God said");
  Reply second = post(*s, "/v1/chat/completions", chat_body(second_messages, {{"max_tokens", 4}}));
  EXPECT_EQ(second.status, 200) << second.raw;
  const ServerStats stats = s->stats();
  first.hang_up = true;
  first.thread.join();
  EXPECT_GT(stats.kv_shared_bytes, 0u);
  uint64_t shared_in_sessions = 0;
  for (const auto& st : stats.sessions) shared_in_sessions += st.kv_shared_bytes;
  EXPECT_GT(shared_in_sessions, 0u);
  EXPECT_LE(stats.kv_shared_bytes, stats.kv_allocated_bytes);
}

// A second server on a port in use is refused with the port named (never sharing it).
TEST(ServerHttp, APortInUseIsRefused) {
  auto first = start();
  ASSERT_TRUE(first);
  ServerOptions o;
  o.port = first->port();
  o.session.n_ctx = 256;
  auto second = Server::start(demo(), o);
  ASSERT_FALSE(second);
  EXPECT_NE(second.message().find(std::to_string(first->port())), std::string::npos)
      << second.message();
}

TEST(ServerHttp, ModelFileCutShortGives503NotACrash) {
  // A copy of the demo model, cut to half its size while the server runs on it.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kvchat-serve-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path copy = dir / "kjv-demo-f16.gguf";
  std::filesystem::copy_file(test::shared_path("models/kjv-demo-f16.gguf"), copy,
                             std::filesystem::copy_options::overwrite_existing);
  auto model = Model::load(copy.string());
  ASSERT_TRUE(model) << model.message();
  ServerOptions o;
  o.port = 0;
  o.session.n_ctx = 256;
  auto s = Server::start(*model, o);
  ASSERT_TRUE(s) << s.message();
  const json body = chat_body({user("In the beginning")}, {{"max_tokens", 4}});
  EXPECT_EQ(post(**s, "/v1/chat/completions", body).status, 200);
  std::filesystem::resize_file(copy, std::filesystem::file_size(copy) / 2);
  Reply cut = post(**s, "/v1/chat/completions", body);
  expect_error(cut, 503);
  EXPECT_EQ(cut.body["error"]["code"], "model_unavailable") << cut.raw;
  json streamed_body = body;
  streamed_body["stream"] = true;
  expect_error(post(**s, "/v1/chat/completions", streamed_body), 503);
  httplib::Client c("127.0.0.1", (*s)->port());
  auto health = c.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 503);
  EXPECT_EQ(json::parse(health->body)["status"], "error");
  (*s)->stop();
  std::filesystem::remove_all(dir);
}

// ---- reasoning: message.reasoning_content / delta.reasoning_content ----------------------

std::string real_template(const std::string& name) {
  static const json doc = test::load_json(test::shared_path("templates/cases.json"));
  return doc["templates"][name].get<std::string>();
}

// DeepSeek-R1's template (as the server's override) opens <think> in its generation prompt:
// the demo model's greedy reply, cut at max_tokens, is all reasoning, returned apart from
// the (empty) content, streamed as reasoning_content deltas with the same text.
TEST(ServerHttp, ReasoningContentApartFromContent) {
  ServerOptions o;
  o.chat_template = real_template("deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja");
  auto s = start(o);
  ASSERT_TRUE(s);
  const json extra = {{"max_tokens", 10}, {"temperature", 0}};
  Reply plain = post(*s, "/v1/chat/completions", chat_body({user("In the beginning")}, extra));
  ASSERT_EQ(plain.status, 200) << plain.raw;
  const json& message = plain.body["choices"][0]["message"];
  ASSERT_TRUE(message.contains("reasoning_content")) << plain.raw;
  const std::string reasoning = message["reasoning_content"].get<std::string>();
  EXPECT_FALSE(reasoning.empty());
  EXPECT_EQ(reasoning.find("<think>"), std::string::npos);
  EXPECT_EQ(message["content"], "");
  EXPECT_EQ(plain.body["choices"][0]["finish_reason"], "length");

  json stream_extra = extra;
  stream_extra["stream"] = true;
  Reply streamed =
      post(*s, "/v1/chat/completions", chat_body({user("In the beginning")}, stream_extra));
  ASSERT_EQ(streamed.status, 200);
  std::string streamed_reasoning;
  for (const json& e : sse_events(streamed.raw)) {
    if (!e.is_object() || e["choices"].empty()) continue;
    const json& delta = e["choices"][0]["delta"];
    if (delta.contains("reasoning_content")) {
      streamed_reasoning += delta["reasoning_content"].get<std::string>();
    }
  }
  EXPECT_EQ(streamed_reasoning, reasoning);
  EXPECT_EQ(streamed_text(sse_events(streamed.raw)), "");  // no answer content

  // The completions endpoint is raw text: no reasoning is split off there.
  Reply comp = post(*s, "/v1/completions",
                    json{{"model", "kjv-demo-f16"}, {"prompt", "And God said"}, {"max_tokens", 4}});
  ASSERT_EQ(comp.status, 200) << comp.raw;
  EXPECT_FALSE(comp.body["choices"][0].contains("reasoning_content"));
}

// No reasoning: no reasoning_content key. Qwen 3's chat_template_kwargs.enable_thinking
// is accepted (its prompt then closes an empty block); a wrong type is a 400 naming it.
TEST(ServerHttp, ChatTemplateKwargsEnableThinking) {
  ServerOptions o;
  o.chat_template = real_template("Qwen-Qwen3-0.6B.jinja");
  auto s = start(o);
  ASSERT_TRUE(s);
  for (const json& kwargs : {json::object(), json{{"enable_thinking", false}},
                             json{{"enable_thinking", true}, {"other", 1}}}) {
    Reply r = post(*s, "/v1/chat/completions",
                   chat_body({user("In the beginning")},
                             {{"max_tokens", 4}, {"chat_template_kwargs", kwargs}}));
    ASSERT_EQ(r.status, 200) << r.raw;
    const json& message = r.body["choices"][0]["message"];
    EXPECT_FALSE(message.contains("reasoning_content")) << r.raw;
    EXPECT_FALSE(message["content"].get<std::string>().empty()) << r.raw;
  }
  // enable_thinking false renders the closed block: the prompt is longer by its tokens.
  Reply on = post(*s, "/v1/chat/completions", chat_body({user("x")}, {{"max_tokens", 1}}));
  Reply off =
      post(*s, "/v1/chat/completions",
           chat_body({user("x")},
                     {{"max_tokens", 1}, {"chat_template_kwargs", {{"enable_thinking", false}}}}));
  ASSERT_EQ(on.status, 200) << on.raw;
  ASSERT_EQ(off.status, 200) << off.raw;
  EXPECT_GT(off.body["usage"]["prompt_tokens"].get<int>(),
            on.body["usage"]["prompt_tokens"].get<int>());

  expect_error(
      post(*s, "/v1/chat/completions",
           chat_body({user("x")}, {{"chat_template_kwargs", {{"enable_thinking", "no"}}}})),
      400, "chat_template_kwargs.enable_thinking");
  expect_error(
      post(*s, "/v1/chat/completions", chat_body({user("x")}, {{"chat_template_kwargs", 3}})), 400,
      "chat_template_kwargs");
}

TEST(ServerHttp, NoReasoningContentWithoutReasoning) {
  auto s = start();
  ASSERT_TRUE(s);
  Reply r =
      post(*s, "/v1/chat/completions", chat_body({user("In the beginning")}, {{"max_tokens", 4}}));
  ASSERT_EQ(r.status, 200) << r.raw;
  EXPECT_FALSE(r.body["choices"][0]["message"].contains("reasoning_content")) << r.raw;
}

}  // namespace
}  // namespace kvchat
