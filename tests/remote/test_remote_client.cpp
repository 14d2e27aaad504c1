// RemoteClient (kvchat/remote_client.h) over the network: against kvchat-cli serve, a real
// OpenAI-compatible server (models, a streamed reply, continue, its /health in the memory
// figures, a wrong key), and against tests/remote/fake_openai_server.py for what a slow,
// dropping, lying or hostile endpoint does (each costs a sentence, never the key).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "kvchat/remote_client.h"

namespace kvchat {
namespace {

using Clock = std::chrono::steady_clock;

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A child process whose first stdout lines are read until `ready` says so; killed with
// the object.
struct Child {
  pid_t pid = -1;
  std::vector<std::string> lines;
  Child(std::vector<std::string> argv, const std::function<bool(const std::string&)>& ready) {
    int out[2];
    if (pipe(out) != 0) return;
    pid = fork();
    if (pid == 0) {
      dup2(out[1], 1);
      close(out[0]);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
    close(out[1]);
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1) {
      if (c != '\n') {
        line += c;
        continue;
      }
      lines.push_back(line);
      if (ready(line)) break;
      line.clear();
    }
    close(out[0]);
  }
  ~Child() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

struct FakeEndpoint {
  std::string log = "/tmp/kvchat-remote-fake-" + std::to_string(getpid()) + ".log";
  Child child;
  explicit FakeEndpoint(const std::string& mode)
      : child({"python3", KVCHAT_SOURCE_DIR "/tests/remote/fake_openai_server.py", mode, log},
              [](const std::string& l) { return l.rfind("other", 0) == 0; }) {}
  ~FakeEndpoint() { unlink(log.c_str()); }
  std::string port() const { return child.lines.empty() ? "" : child.lines[0]; }
  std::string url(const std::string& scheme = "http") const {
    return scheme + "://127.0.0.1:" + port() + "/v1";
  }
  std::string logged() const { return read_text(log); }
};

std::unique_ptr<RemoteClient> client_for(const std::string& url, const std::string& key = "",
                                         RemoteLimits limits = {}) {
  auto c = RemoteClient::open({url, key}, limits);
  EXPECT_TRUE(c) << c.message();
  return c ? std::move(*c) : nullptr;
}

RemoteChatRequest hello(const std::string& model = "fake-model", int max_tokens = 16) {
  RemoteChatRequest r;
  r.model = model;
  r.messages = remote_messages("Be brief.", {{"user", "Hello"}});
  r.max_tokens = max_tokens;
  r.sampling.temperature = 0;
  return r;
}

struct Collected {
  std::string text, thinking;
  RemoteStreamCallbacks callbacks() {
    RemoteStreamCallbacks cb;
    cb.on_text = [this](std::string_view t) {
      text += t;
      return true;
    };
    cb.on_thinking = [this](std::string_view t) {
      thinking += t;
      return true;
    };
    return cb;
  }
};

std::string chat_error(const std::string& mode, const std::string& key = "sk-secret-42",
                       RemoteLimits limits = {}) {
  FakeEndpoint fake(mode);
  auto c = client_for(fake.url(), key, limits);
  Collected got;
  auto r = c->chat(hello(), got.callbacks());
  EXPECT_FALSE(r) << mode << " was taken as a reply: " << got.text;
  const std::string message = r ? std::string() : r.message();
  EXPECT_EQ(message.find(key), std::string::npos) << message;
  return message;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(RemoteClientFake, ModelsAndAStreamedReplyWithReasoning) {
  FakeEndpoint fake("ok");
  ASSERT_FALSE(fake.port().empty());
  auto c = client_for(fake.url(), "sk-secret-42");
  auto models = c->list_models();
  ASSERT_TRUE(models) << models.message();
  ASSERT_EQ(models->size(), 2u);
  EXPECT_EQ((*models)[0].id, "fake-model");
  EXPECT_EQ((*models)[0].context_length, 32768);
  Collected got;
  auto r = c->chat(hello(), got.callbacks());
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(got.thinking, "Let me think.");
  EXPECT_EQ(got.text, "Hello, world");
  EXPECT_EQ(r->finish_reason, "stop");
  EXPECT_EQ(r->prompt_tokens, 12);
  EXPECT_EQ(r->cached_tokens, 8);
  EXPECT_EQ(r->attempts, 1);
  // What was sent: the key in its header, the stream with usage asked for, greedy.
  const std::string log = fake.logged();
  EXPECT_TRUE(has(log, "\"authorization\": \"Bearer sk-secret-42\"")) << log;
  EXPECT_TRUE(has(log, "\\\"stream\\\":true")) << log;
  EXPECT_TRUE(has(log, "\\\"include_usage\\\":true")) << log;
  EXPECT_TRUE(has(log, "{\\\"content\\\":\\\"Be brief.\\\",\\\"role\\\":\\\"system\\\"}")) << log;
  // vLLM's /metrics read for the model asked about (tests/data/metrics/vllm-v1.prom).
  const RemoteMemory m = c->memory("meta-llama/Llama-3.1-70B-Instruct");
  EXPECT_EQ(m.source, "vllm");
  ASSERT_TRUE(m.kv_usage);
  EXPECT_DOUBLE_EQ(*m.kv_usage, 0.4321);
}

TEST(RemoteClientFake, LlamaCppSlotsAndMetrics) {
  FakeEndpoint fake("llamacpp");
  const RemoteMemory m = client_for(fake.url())->memory("any");
  EXPECT_EQ(m.source, "llama.cpp");
  ASSERT_EQ(m.server_slots.size(), 2u);
  EXPECT_TRUE(m.server_slots[0].busy);
  EXPECT_EQ(m.server_slots[0].decoded, 12);
  EXPECT_EQ(m.server_slots[1].n_ctx, 4096);
  ASSERT_TRUE(m.kv_usage && m.running);
  EXPECT_DOUBLE_EQ(*m.kv_usage, 0.125);  // tests/data/metrics/llamacpp-server.prom
  EXPECT_EQ(*m.running, 1);
  // An endpoint that publishes nothing: every page noted, no figures.
  FakeEndpoint quiet("think");
  const RemoteMemory none = client_for(quiet.url())->memory("any");
  EXPECT_EQ(none.source, "none");
  EXPECT_EQ(none.notes.size(), 3u);  // /metrics, /slots, /health
}

TEST(RemoteClientFake, ThinkInContentAndAnAnswerThatIsNotAStream) {
  {
    FakeEndpoint fake("think");
    Collected got;
    auto r = client_for(fake.url())->chat(hello(), got.callbacks());
    ASSERT_TRUE(r) << r.message();
    EXPECT_EQ(got.thinking, "Reasoning here");
    EXPECT_EQ(got.text, "The answer.");
    EXPECT_EQ(stored_reply_text(*r), "<think>\nReasoning here\n</think>\n\nThe answer.");
  }
  FakeEndpoint fake("json");
  Collected got;
  auto r = client_for(fake.url())->chat(hello(), got.callbacks());
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(got.text, "Whole answer.");
  EXPECT_EQ(r->finish_reason, "stop");
}

TEST(RemoteClientFake, ARedirectIsNotFollowedAndTheKeyStaysHome) {
  FakeEndpoint fake("redirect");
  auto c = client_for(fake.url(), "sk-secret-42");
  auto models = c->list_models();
  ASSERT_FALSE(models);
  EXPECT_TRUE(has(models.message(), "redirect (HTTP 307)")) << models.message();
  EXPECT_TRUE(has(models.message(), "goes only to http://127.0.0.1:" + fake.port()));
  const std::string message = chat_error("redirect");
  EXPECT_TRUE(has(message, "does not follow redirects")) << message;
  EXPECT_FALSE(has(fake.logged(), "\"server\": \"other\"")) << fake.logged();
}

TEST(RemoteClientFake, HostileBodiesAreCut) {
  std::string m = chat_error("endless");
  EXPECT_TRUE(has(m, "past the length asked for")) << m;
  RemoteLimits small;
  small.max_stream_bytes = 4 << 20;
  const auto start = Clock::now();
  m = chat_error("huge-event", "sk-secret-42", small);
  EXPECT_TRUE(has(m, "MiB")) << m;
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(30));  // a bound, not a timing target
  m = chat_error("invalid");
  EXPECT_TRUE(has(m, "not a JSON object: {this is not json")) << m;
  EXPECT_TRUE(has(m, "after 1 pieces of the reply")) << m;
  FakeEndpoint fake("huge-models");
  auto models = client_for(fake.url())->list_models();
  ASSERT_FALSE(models);
  EXPECT_TRUE(has(models.message(), "over 8 MiB")) << models.message();
}

TEST(RemoteClientFake, RefusalsInWordsWithoutTheKey) {
  std::string m = chat_error("echo-key-401");
  EXPECT_TRUE(has(m, "refused the API key (HTTP 401): Incorrect API key provided: [API key]."))
      << m;
  m = chat_error("ollama-404");
  EXPECT_TRUE(has(m, "HTTP 404): model \"llama9\" not found")) << m;
  m = chat_error("html-502");
  EXPECT_TRUE(has(m, "HTTP 502): <html><head><title>502 Bad Gateway</title></head>")) << m;
}

TEST(RemoteClientFake, ARetryAfterA503ThenTheReply) {
  FakeEndpoint fake("busy-then-ok");
  Collected got;
  const auto start = Clock::now();
  auto r = client_for(fake.url())->chat(hello(), got.callbacks());
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->attempts, 2);
  EXPECT_EQ(got.text, "Hello, world");
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(900));  // Retry-After: 1 honoured
}

TEST(RemoteClientFake, SlowDroppedAndStopped) {
  RemoteLimits quick;
  quick.read_timeout_ms = 500;
  std::string m = chat_error("slow-head", "k", quick);
  EXPECT_TRUE(has(m, "sent no answer within 0 s")) << m;
  m = chat_error("drop");
  EXPECT_TRUE(has(m, "ended its stream before the reply ended") || has(m, "dropped the connection"))
      << m;
  // Stop while it streams: what came so far, finish "cancelled", promptly.
  FakeEndpoint fake("slow-stream");
  Collected got;
  auto cb = got.callbacks();
  cb.cancelled = [&got] { return got.text.size() >= 6; };
  const auto start = Clock::now();
  auto r = client_for(fake.url())->chat(hello(), cb);
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->finish_reason, "cancelled");
  EXPECT_TRUE(has(got.text, "w0 w1 ")) << got.text;
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3));  // 50 pieces would take 10 s
}

TEST(RemoteClientFake, TlsIsVerified) {
  FakeEndpoint fake("tls");
  ASSERT_FALSE(fake.port().empty());
  auto c = client_for(fake.url("https"), "sk-secret-42");
  auto models = c->list_models();
  ASSERT_FALSE(models);
  EXPECT_TRUE(has(models.message(), "TLS certificate could not be verified")) << models.message();
  EXPECT_FALSE(has(fake.logged(), "sk-secret-42"));  // nothing went through
  // https to a plain http port: the handshake fails, said.
  FakeEndpoint plain("ok");
  auto p = client_for(plain.url("https"))->list_models();
  ASSERT_FALSE(p);
  EXPECT_TRUE(has(p.message(), "TLS handshake")) << p.message();
  // Nothing listening.
  auto none = client_for("http://127.0.0.1:1/v1")->list_models();
  ASSERT_FALSE(none);
  EXPECT_TRUE(has(none.message(), "cannot connect to http://127.0.0.1:1")) << none.message();
}

// kvchat-cli serve on the demo model, with a key: a real OpenAI-compatible endpoint.
struct RealServer {
  std::string key_file = "/tmp/kvchat-remote-key-" + std::to_string(getpid());
  std::unique_ptr<Child> child;
  std::string port;
  RealServer() {
    std::ofstream(key_file) << "sk-real-key-7\n";
    chmod(key_file.c_str(), 0600);
    child = std::make_unique<Child>(
        std::vector<std::string>{KVCHAT_BIN_DIR "/kvchat-cli", "serve", "--model",
                                 KVCHAT_SHARED_DIR "/models/kjv-demo-f32.gguf", "--port", "0",
                                 "--api-key-file", key_file, "--parallel", "2"},
        [](const std::string& l) { return l.rfind("port ", 0) == 0; });
    for (const auto& l : child->lines) {
      if (l.rfind("port ", 0) == 0) port = l.substr(5);
    }
  }
  ~RealServer() { unlink(key_file.c_str()); }
  std::string url() const { return "http://127.0.0.1:" + port; }  // no path: /v1
};

TEST(RemoteClientKvchat, ChatContinueAndHealthFromARealServer) {
  RealServer server;
  ASSERT_FALSE(server.port.empty());
  auto c = client_for(server.url(), "sk-real-key-7");
  auto models = c->list_models();
  ASSERT_TRUE(models) << models.message();
  ASSERT_EQ(models->size(), 1u);
  EXPECT_EQ((*models)[0].context_length, 512);  // max_model_len: the demo model's context
  const std::string model = (*models)[0].id;
  Collected got;
  RemoteChatRequest r = hello(model, 12);
  auto reply = c->chat(r, got.callbacks());
  ASSERT_TRUE(reply) << reply.message();
  EXPECT_FALSE(got.text.empty());
  EXPECT_EQ(reply->finish_reason, "length");
  EXPECT_EQ(reply->completion_tokens, 12);
  EXPECT_GT(reply->prompt_tokens, 0);
  // The same request again: greedy, the same text; its prompt now found in the cache.
  Collected again;
  auto second = c->chat(r, again.callbacks());
  ASSERT_TRUE(second) << second.message();
  EXPECT_EQ(again.text, got.text);
  // Continue the reply: the server goes on from it.
  r.messages.push_back({"assistant", got.text});
  r.continue_final = true;
  Collected more;
  auto cont = c->chat(r, more.callbacks());
  ASSERT_TRUE(cont) << cont.message();
  EXPECT_FALSE(more.text.empty());
  EXPECT_GT(cont->prompt_tokens, reply->prompt_tokens);
  // Its /health with the key: the sessions and their KV.
  const RemoteMemory m = c->memory(model);
  EXPECT_EQ(m.source, "kvchat");
  ASSERT_TRUE(m.sessions_busy && m.sessions_idle);
  EXPECT_EQ(*m.sessions_busy + *m.sessions_idle, 2);
  ASSERT_TRUE(m.kv_allocated_bytes);
  // A wrong key: refused in words.
  auto wrong = client_for(server.url(), "sk-wrong")->chat(r, more.callbacks());
  ASSERT_FALSE(wrong);
  EXPECT_TRUE(has(wrong.message(), "refused the API key (HTTP 401)")) << wrong.message();
  EXPECT_FALSE(has(wrong.message(), "sk-wrong"));
}

}  // namespace
}  // namespace kvchat
