// The remote client's pure pieces: the endpoint URL (remote/remote_url.h), error bodies in
// words and the key kept out of them (remote/openai_error.h), the chat stream read event by
// event (remote/chat_stream.h: reasoning_content, <think> in content, usage, [DONE], an
// error event, a lying stream cut), and the memory pages of vLLM V0/V1, llama.cpp and
// kvchat (kvchat/remote_memory.h) on the recorded fixtures of tests/data/metrics.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kvchat/remote_memory.h"
#include "remote/chat_stream.h"
#include "remote/openai_error.h"
#include "remote/remote_url.h"

namespace kvchat::remote {
namespace {

std::string refused(std::string_view url) {
  auto u = parse_endpoint_url(url);
  return u ? std::string("accepted") : u.message();
}

TEST(RemoteUrl, TakesTheUrlApart) {
  auto u = parse_endpoint_url("http://gpu-box.lan:8000");
  ASSERT_TRUE(u) << u.message();
  EXPECT_EQ(u->host, "gpu-box.lan");
  EXPECT_EQ(u->port, 8000);
  EXPECT_EQ(u->api_root, "/v1");  // no path: OpenAI's SDKs' /v1
  EXPECT_EQ(u->origin(), "http://gpu-box.lan:8000");
  EXPECT_FALSE(u->loopback());
  u = parse_endpoint_url("HTTPS://api.example.com/openai/v1/");
  ASSERT_TRUE(u) << u.message();
  EXPECT_TRUE(u->https);
  EXPECT_EQ(u->port, 443);
  EXPECT_EQ(u->api_root, "/openai/v1");
  EXPECT_EQ(u->origin(), "https://api.example.com:443");
  u = parse_endpoint_url("http://[::1]:11434/v1");
  ASSERT_TRUE(u) << u.message();
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->origin(), "http://[::1]:11434");
  EXPECT_TRUE(u->loopback());
  EXPECT_TRUE(parse_endpoint_url("http://127.0.0.9:1/")->loopback());
  EXPECT_TRUE(parse_endpoint_url("http://LocalHost:1/")->loopback());
  EXPECT_FALSE(parse_endpoint_url("http://127.0.0.1.evil.com/")->loopback());
}

TEST(RemoteUrl, RefusesWhatIsNotAnEndpoint) {
  EXPECT_NE(refused("gpu-box:8000").find("not a URL"), std::string::npos);
  EXPECT_NE(refused("ftp://h/").find("only http:// and https://"), std::string::npos);
  EXPECT_NE(refused("http://user:pw@h/v1").find("never in the URL"), std::string::npos);
  EXPECT_NE(refused("http://h/v1?key=1").find("no query"), std::string::npos);
  EXPECT_NE(refused("http://h:0/").find("1 to 65535"), std::string::npos);
  EXPECT_NE(refused("http://h:99999/").find("1 to 65535"), std::string::npos);
  EXPECT_NE(refused("http://h:/").find("1 to 65535"), std::string::npos);
  EXPECT_NE(refused("http:///v1").find("names no host"), std::string::npos);
  EXPECT_NE(refused("http://h st/").find("holds ' '"), std::string::npos);
  EXPECT_NE(refused("http://[::1/").find("unclosed"), std::string::npos);
}

TEST(OpenAiError, EveryShapeOfErrorBodyInWords) {
  // OpenAI's own
  EXPECT_EQ(
      http_error_in_words(401,
                          R"({"error":{"message":"Incorrect API key provided","type":)"
                          R"("invalid_request_error","param":null,"code":"invalid_api_key"}})",
                          true),
      "the endpoint refused the API key (HTTP 401): Incorrect API key provided "
      "(invalid_api_key)");
  EXPECT_NE(http_error_in_words(401, "", false).find("wants an API key"), std::string::npos);
  // llama.cpp's: a numeric code, the type kept
  EXPECT_EQ(error_body_message(R"({"error":{"code":400,"message":"the request exceeds the )"
                               R"(available context size","type":"exceed_context_size_error"}})"),
            "the request exceeds the available context size (exceed_context_size_error)");
  // vLLM's older body
  EXPECT_EQ(error_body_message(R"({"object":"error","message":"The model `x` does not exist.",)"
                               R"("type":"NotFoundError","param":null,"code":404})"),
            "The model `x` does not exist. (NotFoundError)");
  // Ollama's string
  EXPECT_EQ(error_body_message(R"({"error":"model \"llama9\" not found"})"),
            "model \"llama9\" not found");
  // FastAPI's detail; an HTML page's first line; control bytes escaped
  EXPECT_EQ(error_body_message(R"({"detail":"Not authenticated"})"), "Not authenticated");
  EXPECT_EQ(error_body_message("<html><title>502 Bad Gateway</title>\n<body>"),
            "<html><title>502 Bad Gateway</title>");
  EXPECT_EQ(error_body_message("bad\x1b[31m"), "bad\\e[31m");
  EXPECT_NE(http_error_in_words(503, "", true).find("unavailable"), std::string::npos);
  EXPECT_NE(http_error_in_words(429, "", true).find("rate limit"), std::string::npos);
}

TEST(OpenAiError, TheKeyNeverShown) {
  EXPECT_EQ(without_key("Incorrect API key provided: sk-abc. sk-abc!", "sk-abc"),
            "Incorrect API key provided: [API key]. [API key]!");
  EXPECT_EQ(without_key("nothing here", ""), "nothing here");
}

std::string chunk(const std::string& delta_json, const std::string& finish = "null") {
  return "data: {\"choices\":[{\"index\":0,\"delta\":" + delta_json +
         ",\"finish_reason\":" + finish + "}],\"model\":\"m\"}\n\n";
}

struct Streamed {
  std::string text, thinking;
};

ChatStreamReader reader_into(Streamed& s, size_t max_bytes = 1 << 20, int64_t max_events = 100) {
  RemoteStreamCallbacks cb;
  cb.on_text = [&s](std::string_view t) {
    s.text += t;
    return true;
  };
  cb.on_thinking = [&s](std::string_view t) {
    s.thinking += t;
    return true;
  };
  return ChatStreamReader(max_bytes, max_events, cb);
}

TEST(ChatStream, ReasoningContentAnswerUsageAndDone) {
  Streamed s;
  auto r = reader_into(s);
  const std::string body = chunk(R"({"role":"assistant","content":""})") + ": keep-alive\n\n" +
                           chunk(R"({"reasoning_content":"Step one."})") +
                           chunk(R"({"reasoning":" Step two."})") + chunk(R"({"content":"Yes"})") +
                           chunk(R"({"content":"."})", "\"stop\"") +
                           "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,"
                           "\"completion_tokens\":4,\"prompt_tokens_details\":"
                           "{\"cached_tokens\":6}}}\n\ndata: [DONE]\n\n";
  // A byte at a time: nothing depends on how the reads fall.
  for (char c : body) r.feed(std::string_view(&c, 1));
  r.finish();
  EXPECT_TRUE(r.done());
  EXPECT_EQ(s.thinking, "Step one. Step two.");
  EXPECT_EQ(s.text, "Yes.");
  EXPECT_EQ(r.reply().answer, "Yes.");
  EXPECT_EQ(r.reply().reasoning, "Step one. Step two.");
  EXPECT_TRUE(r.reply().reasoning_closed);
  EXPECT_EQ(r.reply().finish_reason, "stop");
  EXPECT_EQ(r.reply().prompt_tokens, 9);
  EXPECT_EQ(r.reply().completion_tokens, 4);
  EXPECT_EQ(r.reply().cached_tokens, 6);
  EXPECT_EQ(r.reply().content_events, 4);
  EXPECT_EQ(r.reply().model, "m");
  RemoteReply stored = r.reply();
  EXPECT_EQ(stored_reply_text(stored), "<think>\nStep one. Step two.\n</think>\n\nYes.");
}

TEST(ChatStream, ThinkMarkersInContentAndMultiLineData) {
  Streamed s;
  auto r = reader_into(s);
  // The markers split across chunks; one event's data on two lines (joined with \n).
  r.feed(chunk(R"({"content":"<thi"})") + chunk(R"({"content":"nk>Why</think>"})"));
  r.feed(
      "data: {\"choices\":[{\"delta\":{\"content\":\"\\n\\nBecause\"},\n"
      "data: \"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
  r.finish();
  EXPECT_TRUE(r.failure().empty()) << r.failure();
  EXPECT_EQ(s.thinking, "Why");
  EXPECT_EQ(s.text, "Because");
  EXPECT_EQ(r.reply().finish_reason, "stop");
  // What goes back to the server: the answer only.
  const auto sent = remote_messages(
      "Be brief.", {{"user", "Q"}, {"assistant", stored_reply_text(r.reply())}, {"user", "Q2"}});
  ASSERT_EQ(sent.size(), 4u);
  EXPECT_EQ(sent[0].role, "system");
  EXPECT_EQ(sent[2].content, "Because");
}

TEST(ChatStream, ErrorsAndLiesEndTheStreamInWords) {
  Streamed s;
  auto bad = reader_into(s);
  EXPECT_FALSE(bad.feed(chunk(R"({"content":"ok"})") + "data: {nope\n\n"));
  EXPECT_NE(bad.failure().find("not a JSON object: {nope"), std::string::npos) << bad.failure();
  auto err = reader_into(s);
  err.feed("data: {\"error\":{\"message\":\"CUDA out of memory\",\"type\":\"server_error\"}}\n\n");
  EXPECT_NE(err.failure().find("CUDA out of memory"), std::string::npos) << err.failure();
  // A server that never stops: cut at the events a reply may take.
  auto endless = reader_into(s, 1 << 20, 10);
  int fed = 0;
  while (endless.feed(chunk(R"({"content":"x"})"))) ++fed;
  EXPECT_EQ(fed, 10);
  EXPECT_NE(endless.failure().find("past the length asked for"), std::string::npos);
  // One endless event: cut at the byte bound.
  auto huge = reader_into(s, 4096);
  huge.feed("data: {\"choices\":[{\"delta\":{\"content\":\"");
  bool more = true;
  for (int i = 0; i < 100 && more; ++i) more = huge.feed(std::string(100, 'a'));
  EXPECT_FALSE(more);
  EXPECT_FALSE(huge.failure().empty());
}

TEST(ChatStream, AStopFromTheCallbackEndsIt) {
  int pieces = 0;
  RemoteStreamCallbacks cb;
  cb.on_text = [&](std::string_view) { return ++pieces < 2; };
  ChatStreamReader r(1 << 20, 100, cb);
  EXPECT_TRUE(r.feed(chunk(R"({"content":"a"})")));
  EXPECT_FALSE(r.feed(chunk(R"({"content":"b"})") + chunk(R"({"content":"c"})")));
  EXPECT_TRUE(r.stopped());
  EXPECT_EQ(r.reply().answer, "ab");
}

std::string fixture(const std::string& name) {
  std::ifstream f(std::string(KVCHAT_SOURCE_DIR) + "/tests/data/metrics/" + name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

PromMetrics metrics(const std::string& name) {
  auto m = parse_prometheus_text(fixture(name));
  EXPECT_TRUE(m) << m.message();
  return m ? *m : PromMetrics{};
}

// The fixtures' values (tests/data/metrics/*.prom), worked out by hand.
TEST(RemoteMemory, VllmV1PerModel) {
  const PromMetrics m = metrics("vllm-v1.prom");
  RemoteMemory out;
  ASSERT_TRUE(read_vllm_metrics(m, "meta-llama/Llama-3.1-70B-Instruct", out));
  EXPECT_EQ(out.source, "vllm");
  EXPECT_EQ(out.engine_version, "vLLM V1");
  ASSERT_TRUE(out.kv_usage && out.running && out.waiting && out.prefix_hit_rate);
  EXPECT_DOUBLE_EQ(*out.kv_usage, 0.4321);
  EXPECT_EQ(*out.running, 2);
  EXPECT_EQ(*out.waiting, 1);
  EXPECT_DOUBLE_EQ(*out.prefix_hit_rate, 6000.0 / 8000.0);
  EXPECT_EQ(*out.prompt_tokens_total, 12345);
  const std::string text = describe_remote_memory(out, -1);
  EXPECT_NE(text.find("KV cache in use: 43.2%"), std::string::npos) << text;
  EXPECT_NE(text.find("prefix cache hit rate: 75.0%"), std::string::npos) << text;
  EXPECT_FALSE(read_llamacpp_metrics(m, out));
}

TEST(RemoteMemory, VllmV0AndLlamaCpp) {
  RemoteMemory v0;
  const PromMetrics m0 = metrics("vllm-v0.prom");
  ASSERT_TRUE(read_vllm_metrics(m0, "", v0));
  EXPECT_EQ(v0.engine_version, "vLLM V0");
  EXPECT_DOUBLE_EQ(*v0.kv_usage, 0.875);
  EXPECT_DOUBLE_EQ(*v0.prefix_hit_rate, 0.25);
  EXPECT_EQ(*v0.running, 3);
  RemoteMemory l;
  ASSERT_TRUE(read_llamacpp_metrics(metrics("llamacpp-server.prom"), l));
  EXPECT_DOUBLE_EQ(*l.kv_usage, 0.125);
  EXPECT_EQ(*l.kv_tokens, 1024);
  EXPECT_EQ(*l.running, 1);
  EXPECT_EQ(*l.waiting, 0);
  EXPECT_EQ(*l.prompt_tokens_total, 4096);
  EXPECT_EQ(*l.generated_tokens_total, 512);
  EXPECT_FALSE(read_vllm_metrics(metrics("llamacpp-server.prom"), "", l));
}

TEST(RemoteMemory, LlamaCppSlotsAndKvchatHealth) {
  auto slots = parse_llamacpp_slots(
      R"([{"id":0,"id_task":3,"n_ctx":8192,"is_processing":true,"next_token":{"n_decoded":42}},)"
      R"({"id":1,"n_ctx":8192,"state":0,"next_token":[{"n_decoded":0}]}])");
  ASSERT_TRUE(slots) << slots.message();
  ASSERT_EQ(slots->size(), 2u);
  EXPECT_TRUE((*slots)[0].busy);
  EXPECT_EQ((*slots)[0].decoded, 42);
  EXPECT_FALSE((*slots)[1].busy);
  EXPECT_FALSE(parse_llamacpp_slots("{}"));
  EXPECT_FALSE(parse_llamacpp_slots("[1]"));
  RemoteMemory k;
  EXPECT_FALSE(read_kvchat_health(R"({"status":"ok","model":"m"})", k));  // liveness only
  ASSERT_TRUE(read_kvchat_health(
      R"({"status":"ok","sessions":{"busy":1,"idle":3,"total":4},"kv_type":"q8_0",)"
      R"("kv_allocated_bytes":3145728,"kv_shared_bytes":1048576,"kv_budget_bytes":0,)"
      R"("kv_ram_tier":{"budget_bytes":8589934592,"used_bytes":0}})",
      k));
  EXPECT_EQ(*k.kv_allocated_bytes, 3145728);
  EXPECT_EQ(*k.sessions_busy, 1);
  EXPECT_FALSE(k.kv_budget_bytes);  // 0: none
  const std::string text = describe_remote_memory(k, 100, {6, 2, 32});
  EXPECT_NE(text.find("KV allocated: 3.0 MiB, shared 1.0 MiB (q8_0)"), std::string::npos) << text;
  EXPECT_NE(text.find("1 busy, 3 idle"), std::string::npos) << text;
  // 2 x 6 layers x 100 tokens x 2 heads x 32 x 2 bytes = 153,600 B = 150.0 KiB
  EXPECT_NE(text.find("about 150.0 KiB of KV (an estimate"), std::string::npos) << text;
}

}  // namespace
}  // namespace kvchat::remote
