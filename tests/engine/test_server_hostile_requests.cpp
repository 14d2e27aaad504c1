// kvchat serve against hostile clients (issue 40): another client's cached prompt is no
// oracle (cached_tokens, /health, the work done), foreign Host and Origin headers and
// non-JSON bodies are refused, an open address needs a key or consent, logit_bias works.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kvchat/chat_format.h"
#include "kvchat/sampler.h"
#include "kvchat/server.h"
#include "server/openai_request.h"
#include "server/request_origin.h"
#include "support/demo_server.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using nlohmann::json;

std::shared_ptr<const Model> demo() { return test::demo_model(); }
std::unique_ptr<Server> start(ServerOptions o = {}) { return test::start_demo_server(o, 1024); }

struct Reply {
  int status = 0;  // 0: no answer
  std::string head, raw;
  json body;
  std::string header(const std::string& name) const {
    const std::string key = "\r\n" + name + ": ";
    const size_t at = head.find(key);
    if (at == std::string::npos) return {};
    const size_t from = at + key.size();
    return head.substr(from, head.find("\r\n", from) - from);
  }
};

// One raw HTTP/1.1 request from `source` (a loopback address: the client identity
// without a key) with exactly the headers given; Connection: close, read to the end.
Reply raw(int port, const std::string& method, const std::string& path, const std::string& headers,
          const std::string& body = {}, const std::string& source = "127.0.0.1") {
  Reply out;
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return out;
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source.c_str(), &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0) {
    close(fd);
    return out;
  }
  timeval tv{60, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  std::string req = method + " " + path + " HTTP/1.1\r\n" + headers +
                    "Content-Length: " + std::to_string(body.size()) +
                    "\r\nConnection: close\r\n\r\n" + body;
  if (send(fd, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) {
    close(fd);
    return out;
  }
  std::string all;
  char buf[4096];
  for (ssize_t n; (n = recv(fd, buf, sizeof(buf), 0)) > 0;) all.append(buf, static_cast<size_t>(n));
  close(fd);
  const size_t split = all.find("\r\n\r\n");
  if (all.rfind("HTTP/1.1 ", 0) != 0 || split == std::string::npos) return out;
  out.status = std::stoi(all.substr(9, 3));
  out.head = all.substr(0, split + 2);
  out.raw = all.substr(split + 4);
  out.body = json::parse(out.raw, nullptr, false);
  return out;
}

std::string host_of(const Server& s) {
  return "Host: 127.0.0.1:" + std::to_string(s.port()) + "\r\n";
}
const std::string kJson = "Content-Type: application/json\r\n";

Reply complete(const Server& s, const std::string& prompt, const std::string& source,
               json extra = json::object()) {
  json b = {{"model", "kjv-demo-f16"}, {"prompt", prompt}, {"max_tokens", 1}, {"temperature", 0}};
  b.update(extra);
  return raw(s.port(), "POST", "/v1/completions", host_of(s) + kJson, b.dump(), source);
}

const std::string kVerses =
    "In the beginning God created the heaven and the earth. And the earth was without form, "
    "and void; and darkness was upon the face of the deep. And the Spirit of God moved upon "
    "the face of the waters. And God said, Let there be light: and there was light. ";

std::string secret_prompt(const std::string& word) {
  return kVerses + "The secret word is " + word + ". " + kVerses + kVerses;
}

// ---- point 2: the prompt cache is no oracle across clients ----------------------------

TEST(ServerHostile, AnotherClientLearnsNothingFromTheCache) {
  ServerOptions o;
  o.parallel = 4;  // room for A's session and each guess's: A's KV stays while B guesses
  auto s = start(o);
  ASSERT_TRUE(s);
  // A (127.0.0.1): the secret, then a follow-up that reuses its own KV.
  Reply a = complete(*s, secret_prompt("Jerusalem"), "127.0.0.1");
  ASSERT_EQ(a.status, 200) << a.raw;
  Reply again = complete(*s, secret_prompt("Jerusalem") + "And God saw the light", "127.0.0.1");
  ASSERT_EQ(again.status, 200) << again.raw;
  const int a_cached = again.body["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>();
  EXPECT_GT(a_cached, 100) << again.raw;  // A keeps its own reuse

  // B guesses from other loopback addresses (one each, so that no guess reuses another's
  // KV either): the right guess gets what the wrong ones get, and costs the same work.
  struct Guess {
    std::string word, source;
  };
  const Guess guesses[] = {
      {"Babylon", "127.0.0.2"}, {"Jerusalem", "127.0.0.3"}, {"Damascus", "127.0.0.4"}};
  std::vector<json> usages;
  std::vector<uint64_t> evaluated;
  for (const Guess& g : guesses) {
    const uint64_t before = s->stats().prompt_tokens_evaluated;
    Reply b = complete(*s, secret_prompt(g.word), g.source);
    ASSERT_EQ(b.status, 200) << b.raw;
    usages.push_back(b.body["usage"]);
    evaluated.push_back(s->stats().prompt_tokens_evaluated - before);
    EXPECT_EQ(b.body["usage"]["prompt_tokens_details"]["cached_tokens"], 0) << g.word << b.raw;
  }
  // Each guess (right or wrong) evaluated its whole prompt and was told nothing cached.
  for (size_t i = 0; i < usages.size(); ++i) {
    EXPECT_EQ(usages[i]["prompt_tokens_details"], usages[1]["prompt_tokens_details"])
        << guesses[i].word;
    EXPECT_EQ(evaluated[i], usages[i]["prompt_tokens"].get<uint64_t>()) << guesses[i].word;
  }
  // A's session was left alone: A still reuses its KV.
  Reply third =
      complete(*s, secret_prompt("Jerusalem") + "And God saw the light, that", "127.0.0.1");
  ASSERT_EQ(third.status, 200) << third.raw;
  EXPECT_GE(third.body["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>(), a_cached);
}

// A session another identity used last is taken over only emptied (nothing cached).
TEST(ServerHostile, ASessionTakenOverFromAnotherClientIsEmptied) {
  ServerOptions o;
  o.parallel = 1;
  auto s = start(o);
  ASSERT_TRUE(s);
  ASSERT_EQ(complete(*s, secret_prompt("Jerusalem"), "127.0.0.1").status, 200);
  Reply b = complete(*s, secret_prompt("Jerusalem"), "127.0.0.2");
  ASSERT_EQ(b.status, 200) << b.raw;
  EXPECT_EQ(b.body["usage"]["prompt_tokens_details"]["cached_tokens"], 0) << b.raw;
  // B's own follow-up reuses B's KV.
  Reply b2 = complete(*s, secret_prompt("Jerusalem") + "And", "127.0.0.2");
  EXPECT_GT(b2.body["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>(), 100) << b2.raw;
}

TEST(ServerHostile, HealthWithoutTheKeyIsLivenessOnly) {
  auto open = start();
  ASSERT_TRUE(open);
  ASSERT_EQ(complete(*open, secret_prompt("Jerusalem"), "127.0.0.1").status, 200);
  Reply h = raw(open->port(), "GET", "/health", host_of(*open), {}, "127.0.0.2");
  ASSERT_EQ(h.status, 200) << h.raw;
  EXPECT_EQ(h.body, json({{"status", "ok"}, {"model", "kjv-demo-f16"}})) << h.raw;

  ServerOptions keyed;
  keyed.api_key = "s3cret";
  auto k = start(keyed);
  ASSERT_TRUE(k);
  const std::string auth = "Authorization: Bearer s3cret\r\n";
  json b = {{"model", "kjv-demo-f16"}, {"prompt", "In the beginning"}, {"max_tokens", 1}};
  ASSERT_EQ(raw(k->port(), "POST", "/v1/completions", host_of(*k) + kJson + auth, b.dump()).status,
            200);
  Reply anon = raw(k->port(), "GET", "/health", host_of(*k));
  ASSERT_EQ(anon.status, 200) << anon.raw;
  EXPECT_EQ(anon.body, json({{"status", "ok"}, {"model", "kjv-demo-f16"}})) << anon.raw;
  EXPECT_EQ(raw(k->port(), "GET", "/health", host_of(*k) + "Authorization: Bearer nope\r\n").status,
            401);
  Reply detail = raw(k->port(), "GET", "/health", host_of(*k) + auth);
  ASSERT_EQ(detail.status, 200) << detail.raw;
  ASSERT_EQ(detail.body["session_stats"].size(), 1u) << detail.raw;  // the one it used
  EXPECT_GT(detail.body["session_stats"][0]["tokens"].get<int>(), 0);
}

// ---- point 4: Host, Origin, Content-Type --------------------------------------------------

TEST(ServerHostile, ForeignHostIsRefusedOnALoopbackBind) {
  auto s = start();
  ASSERT_TRUE(s);
  const std::string body =
      json{{"model", "kjv-demo-f16"}, {"prompt", "In the"}, {"max_tokens", 1}}.dump();
  const std::string port = std::to_string(s->port());
  auto with_host = [&](const std::string& host) {
    return raw(s->port(), "POST", "/v1/completions", "Host: " + host + "\r\n" + kJson, body);
  };
  // DNS rebinding: a name of the attacker's, even as a "simple" text/plain request.
  Reply rebinding = raw(s->port(), "POST", "/v1/completions",
                        "Host: attacker.example\r\nContent-Type: text/plain\r\n", body);
  EXPECT_EQ(rebinding.status, 421) << rebinding.raw;
  EXPECT_EQ(rebinding.body["error"]["code"], "host_not_allowed");
  for (const std::string& bad : std::vector<std::string>{
           "attacker.example", "attacker.example:" + port, "localhost.attacker.example:" + port,
           "127.0.0.1:1", "127.0.0.1.nip.io", "[::2]:" + port, "0.0.0.0:" + port}) {
    EXPECT_EQ(with_host(bad).status, 421) << bad;
  }
  for (const std::string& good :
       std::vector<std::string>{"127.0.0.1:" + port, "127.0.0.1", "localhost:" + port, "LOCALHOST",
                                "[::1]:" + port, "127.1.2.3:" + port}) {
    EXPECT_EQ(with_host(good).status, 200) << good;
  }
  EXPECT_EQ(raw(s->port(), "GET", "/v1/models", "Host: evil.example\r\n").status, 421);
}

TEST(ServerHostile, ForeignOriginIsRefusedUnlessAllowed) {
  auto s = start();
  ASSERT_TRUE(s);
  const std::string body =
      json{{"model", "kjv-demo-f16"}, {"prompt", "In the"}, {"max_tokens", 1}}.dump();
  for (const std::string origin : {"https://attacker.example", "null", "http://localhost:3000"}) {
    Reply r = raw(s->port(), "POST", "/v1/completions",
                  host_of(*s) + kJson + "Origin: " + origin + "\r\n", body);
    EXPECT_EQ(r.status, 403) << origin << r.raw;
    EXPECT_EQ(r.body["error"]["code"], "origin_not_allowed") << r.raw;
  }
  ServerOptions listed;
  listed.allowed_origins = {"http://localhost:3000"};
  auto l = start(listed);
  ASSERT_TRUE(l);
  Reply ok = raw(l->port(), "POST", "/v1/completions",
                 host_of(*l) + kJson + "Origin: http://localhost:3000\r\n", body);
  EXPECT_EQ(ok.status, 200) << ok.raw;
  EXPECT_EQ(ok.header("Access-Control-Allow-Origin"), "http://localhost:3000") << ok.head;
  Reply preflight = raw(l->port(), "OPTIONS", "/v1/completions",
                        host_of(*l) + "Origin: http://localhost:3000\r\n");
  EXPECT_EQ(preflight.status, 204);
  EXPECT_EQ(raw(l->port(), "POST", "/v1/completions",
                host_of(*l) + kJson + "Origin: http://localhost:3001\r\n", body)
                .status,
            403);
  ServerOptions cors;
  cors.cors = true;  // any origin, as before
  auto c = start(cors);
  ASSERT_TRUE(c);
  EXPECT_EQ(raw(c->port(), "POST", "/v1/completions",
                host_of(*c) + kJson + "Origin: https://attacker.example\r\n", body)
                .status,
            200);
}

TEST(ServerHostile, NonJsonBodiesGet415) {
  auto s = start();
  ASSERT_TRUE(s);
  const std::string body =
      json{{"model", "kjv-demo-f16"}, {"prompt", "In the"}, {"max_tokens", 1}}.dump();
  for (const std::string type : {"text/plain", "application/x-www-form-urlencoded",
                                 "multipart/form-data; boundary=x", "application/jsonp"}) {
    Reply r = raw(s->port(), "POST", "/v1/completions",
                  host_of(*s) + "Content-Type: " + type + "\r\n", body);
    EXPECT_EQ(r.status, 415) << type << r.raw;
  }
  EXPECT_EQ(raw(s->port(), "POST", "/v1/chat/completions", host_of(*s), body).status, 415);
  EXPECT_EQ(raw(s->port(), "POST", "/v1/completions",
                host_of(*s) + "Content-Type: Application/JSON; charset=utf-8\r\n", body)
                .status,
            200);
}

TEST(ServerHostile, RequestOriginRules) {
  using server::client_identity;
  using server::json_content_type;
  using server::loopback_host_header;
  EXPECT_TRUE(loopback_host_header("127.0.0.1:8080", 8080));
  EXPECT_FALSE(loopback_host_header("127.0.0.1:8081", 8080));
  EXPECT_FALSE(loopback_host_header("127.0.0.1:", 8080));
  EXPECT_FALSE(loopback_host_header("127.0.0.256", 8080));
  EXPECT_FALSE(loopback_host_header("", 8080));
  EXPECT_FALSE(loopback_host_header("[::1", 8080));
  EXPECT_TRUE(json_content_type(" application/json ;charset=utf-8"));
  EXPECT_FALSE(json_content_type(""));
  EXPECT_EQ(client_identity("", "::ffff:127.0.0.2"), "addr:127.0.0.2");
  EXPECT_EQ(client_identity("k", "10.0.0.1"), client_identity("k", "10.0.0.2"));
  EXPECT_NE(client_identity("", "10.0.0.1"), client_identity("", "10.0.0.2"));
  EXPECT_TRUE(server_host_is_loopback("127.0.0.1"));
  EXPECT_TRUE(server_host_is_loopback("::1"));
  EXPECT_TRUE(server_host_is_loopback("localhost"));
  EXPECT_FALSE(server_host_is_loopback("0.0.0.0"));
  EXPECT_FALSE(server_host_is_loopback(""));
  EXPECT_FALSE(server_host_is_loopback("192.168.1.2"));
}

// ---- point 5: an open address needs a key, or the user's consent ------------------------

TEST(ServerHostile, AnOpenAddressWithoutAKeyIsRefused) {
  ServerOptions o;
  o.host = "0.0.0.0";
  o.port = 0;
  o.session.n_ctx = 256;
  auto refused = Server::start(demo(), o);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.message().find("without an API key"), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find("--allow-no-key"), std::string::npos) << refused.message();
  o.allow_no_key = true;
  auto consented = Server::start(demo(), o);
  EXPECT_TRUE(consented) << consented.message();
  o.allow_no_key = false;
  o.api_key = "k";
  auto keyed = Server::start(demo(), o);
  EXPECT_TRUE(keyed) << keyed.message();
}

// ---- point 10: logit_bias -------------------------------------------------------------

TEST(ServerHostile, LogitBiasBansAndForcesTokens) {
  auto s = start();
  ASSERT_TRUE(s);
  const std::string prompt = "In the beginning God created the heaven and the";
  // The greedy first token, computed apart from the server.
  auto format = ChatFormat::for_model(*demo());
  ASSERT_TRUE(format) << format.message();
  SessionOptions so;
  so.n_ctx = 1024;
  auto session = Session::create(demo(), so);
  ASSERT_TRUE(session) << session.message();
  ASSERT_TRUE((*session)->eval(format->tokenize(prompt)));
  const TokenId greedy = argmax((*session)->last_logits());
  const Tokenizer& tok = demo()->tokenizer();

  Reply plain = complete(*s, prompt, "127.0.0.1");
  ASSERT_EQ(plain.status, 200) << plain.raw;
  EXPECT_EQ(plain.body["choices"][0]["text"], tok.token_bytes(greedy)) << plain.raw;
  Reply banned =
      complete(*s, prompt, "127.0.0.1", {{"logit_bias", {{std::to_string(greedy), -100}}}});
  ASSERT_EQ(banned.status, 200) << banned.raw;
  EXPECT_NE(banned.body["choices"][0]["text"], plain.body["choices"][0]["text"]) << banned.raw;
  const TokenId forced = tok.encode("Jerusalem", false).front();
  Reply pushed =
      complete(*s, prompt, "127.0.0.1", {{"logit_bias", {{std::to_string(forced), 100}}}});
  ASSERT_EQ(pushed.status, 200) << pushed.raw;
  EXPECT_EQ(pushed.body["choices"][0]["text"], tok.token_bytes(forced)) << pushed.raw;

  for (const json& bad : {json{{"abc", 1}}, json{{"-1", 1}}, json{{"5", 101}}, json{{"5", "x"}},
                          json{{"99999999", 1}}, json::array({1})}) {
    Reply r = complete(*s, prompt, "127.0.0.1", {{"logit_bias", bad}});
    EXPECT_EQ(r.status, 400) << bad.dump() << r.raw;
    EXPECT_EQ(r.body["error"]["param"], "logit_bias") << bad.dump() << r.raw;
  }
}

// The sampler's part alone: -100 bans even the largest logit, +b adds b.
TEST(ServerHostile, SamplerAppliesLogitBias) {
  SamplingParams p;
  p.temperature = 0;
  p.logit_bias = {{2, -100}, {0, 1.5f}};
  Sampler sampler(p);
  std::vector<float> logits = {1.0f, 2.0f, 9.0f};
  EXPECT_EQ(sampler.sample(logits, {}), 0);  // 2 banned; 1.0 + 1.5 > 2.0
}

TEST(ServerHostile, LogitBiasParses) {
  auto parsed = server::parse_completion_request(
      R"({"model":"m","prompt":"x","logit_bias":{"12":-100,"7":2.5}})",
      server::Endpoint::Completions);
  ASSERT_TRUE(parsed.request) << parsed.error.message;
  ASSERT_EQ(parsed.request->logit_bias.size(), 2u);
}

}  // namespace
}  // namespace kvchat
