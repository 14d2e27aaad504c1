// The OpenAI request parsing and validation of kvchat serve (server/openai_request.h):
// every field read, every error naming its field in message and param.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "kvchat/server.h"
#include "server/auth.h"
#include "server/openai_request.h"
#include "server/openai_response.h"

namespace kvchat::server {
namespace {

ParsedRequest chat(const std::string& body) {
  return parse_completion_request(body, Endpoint::ChatCompletions);
}

// Expects a 400 whose param is `param` and whose message names it.
void expect_error(const std::string& body, const std::string& param,
                  Endpoint endpoint = Endpoint::ChatCompletions) {
  ParsedRequest p = parse_completion_request(body, endpoint);
  ASSERT_FALSE(p.request) << body;
  EXPECT_EQ(p.error.status, 400) << body;
  EXPECT_EQ(p.error.type, "invalid_request_error");
  EXPECT_EQ(p.error.param, param) << body << " -> " << p.error.message;
  if (!param.empty()) {
    EXPECT_NE(p.error.message.find("'" + param + "'"), std::string::npos)
        << body << " -> " << p.error.message;
  }
}

const std::string kHead = R"({"model":"m","messages":[{"role":"user","content":"hi"}])";
std::string with(const std::string& field) { return kHead + "," + field + "}"; }

TEST(ServerRequest, ReadsEveryField) {
  ParsedRequest p =
      chat(R"({"model":"m","messages":[{"role":"system","content":"be brief"},)"
           R"({"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},)"
           R"({"role":"assistant","content":null},{"role":"developer","content":"d"}],)"
           R"("stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":7,)"
           R"("temperature":0.5,"top_p":0.9,"top_k":12,"min_p":0.1,"frequency_penalty":0.25,)"
           R"("presence_penalty":-0.5,"seed":42,"stop":["x","yz"],"n":1,"user":"ignored"})");
  ASSERT_TRUE(p.request) << p.error.message;
  const CompletionRequest& r = *p.request;
  EXPECT_EQ(r.model, "m");
  ASSERT_EQ(r.messages.size(), 4u);
  EXPECT_EQ(r.messages[0].role, "system");
  EXPECT_EQ(r.messages[1].content, "ab");
  EXPECT_EQ(r.messages[2].role, "assistant");
  EXPECT_EQ(r.messages[2].content, "");
  EXPECT_EQ(r.messages[3].role, "system");  // developer = system
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
  EXPECT_EQ(r.max_tokens, 7);
  EXPECT_FLOAT_EQ(r.sampling.temperature, 0.5f);
  EXPECT_FLOAT_EQ(r.sampling.top_p, 0.9f);
  EXPECT_EQ(r.sampling.top_k, 12);
  EXPECT_FLOAT_EQ(r.sampling.min_p, 0.1f);
  EXPECT_FLOAT_EQ(r.sampling.frequency_penalty, 0.25f);
  EXPECT_FLOAT_EQ(r.sampling.presence_penalty, -0.5f);
  ASSERT_TRUE(r.seed);
  EXPECT_EQ(*r.seed, 42u);
  EXPECT_EQ(r.stop, (std::vector<std::string>{"x", "yz"}));
}

TEST(ServerRequest, DefaultsAndNulls) {
  ParsedRequest p = chat(with(R"("temperature":null,"stop":"END","max_tokens":null)"));
  ASSERT_TRUE(p.request) << p.error.message;
  EXPECT_FLOAT_EQ(p.request->sampling.temperature, 1.0f);  // OpenAI's default
  EXPECT_EQ(p.request->max_tokens, 0);
  EXPECT_FALSE(p.request->stream);
  EXPECT_FALSE(p.request->seed);
  EXPECT_EQ(p.request->stop, std::vector<std::string>{"END"});
}

TEST(ServerRequest, CompletionsPrompt) {
  auto p = parse_completion_request(R"({"model":"m","prompt":"In the beginning"})",
                                    Endpoint::Completions);
  ASSERT_TRUE(p.request) << p.error.message;
  EXPECT_EQ(p.request->prompt, "In the beginning");
  expect_error(R"({"model":"m"})", "prompt", Endpoint::Completions);
  expect_error(R"({"model":"m","prompt":["a"]})", "prompt", Endpoint::Completions);
}

TEST(ServerRequest, MalformedBodies) {
  expect_error("", "");
  expect_error("{", "");
  expect_error("[1,2]", "");
  expect_error("\"text\"", "");
  expect_error(R"({"model":"m","messages":[{"role":"user","content":"a)"
               "\xff"
               R"("}]})",
               "");
  // Deep nesting is refused before the parse.
  expect_error(std::string(10000, '[') + std::string(10000, ']'), "");
  EXPECT_EQ(json_nesting_depth(R"({"a":[{"b":"[[[["}]})", 100), 3);
}

TEST(ServerRequest, WrongTypesNameTheField) {
  expect_error(R"({"messages":[]})", "model");
  expect_error(R"({"model":3,"messages":[]})", "model");
  expect_error(R"({"model":"m"})", "messages");
  expect_error(R"({"model":"m","messages":{}})", "messages");
  expect_error(R"({"model":"m","messages":[]})", "messages");
  expect_error(R"({"model":"m","messages":[3]})", "messages[0]");
  expect_error(R"({"model":"m","messages":[{"content":"x"}]})", "messages[0].role");
  expect_error(R"({"model":"m","messages":[{"role":"robot","content":"x"}]})", "messages[0].role");
  expect_error(R"({"model":"m","messages":[{"role":"user","content":5}]})", "messages[0].content");
  expect_error(R"({"model":"m","messages":[{"role":"user","content":[{"type":"image_url"}]}]})",
               "messages[0].content[0].type");
  expect_error(with(R"("temperature":"hot")"), "temperature");
  expect_error(with(R"("stream":"yes")"), "stream");
  expect_error(with(R"("stream_options":{"include_usage":1})"), "stream_options.include_usage");
  expect_error(with(R"("max_tokens":1.5)"), "max_tokens");
  expect_error(with(R"("max_completion_tokens":"9")"), "max_completion_tokens");
  expect_error(with(R"("seed":"1")"), "seed");
  expect_error(with(R"("stop":5)"), "stop");
  expect_error(with(R"("stop":["a",3])"), "stop[1]");
  expect_error(with(R"("top_k":-1)"), "top_k");
}

TEST(ServerRequest, BadValuesNameTheField) {
  expect_error(with(R"("temperature":2.5)"), "temperature");
  expect_error(with(R"("temperature":-0.1)"), "temperature");
  expect_error(with(R"("top_p":0)"), "top_p");
  expect_error(with(R"("top_p":1.1)"), "top_p");
  expect_error(with(R"("min_p":2)"), "min_p");
  expect_error(with(R"("max_tokens":0)"), "max_tokens");
  expect_error(with(R"("frequency_penalty":3)"), "frequency_penalty");
  expect_error(with(R"("presence_penalty":-2.5)"), "presence_penalty");
  expect_error(with(R"("stop":"")"), "stop");
  expect_error(with(R"("stop":[)" + std::string(17 * 4, ' ') +
                    R"("a","a","a","a","a","a","a","a","a","a","a","a","a","a","a","a","a"])"),
               "stop");
  expect_error(with(R"("n":2)"), "n");
  expect_error(R"({"model":"m","messages":[{"role":"user","content":"a\u0000b"}]})",
               "messages[0].content");
}

TEST(ServerAuth, BearerKeyInConstantTime) {
  EXPECT_TRUE(authorized("", ""));  // no key set: every request
  EXPECT_TRUE(authorized("Bearer s3cret", "s3cret"));
  EXPECT_FALSE(authorized("", "s3cret"));
  EXPECT_FALSE(authorized("Bearer s3cre", "s3cret"));
  EXPECT_FALSE(authorized("Bearer s3cretX", "s3cret"));
  EXPECT_FALSE(authorized("Basic s3cret", "s3cret"));
  EXPECT_FALSE(authorized("s3cret", "s3cret"));
  EXPECT_TRUE(constant_time_equal("abc", "abc"));
  EXPECT_FALSE(constant_time_equal("abc", "abd"));
  EXPECT_FALSE(constant_time_equal("abc", "ab"));
  EXPECT_FALSE(constant_time_equal("", "a"));
}

TEST(ServerRequest, ChatTemplateKwargsEnableThinking) {
  EXPECT_FALSE(chat(kHead + "}").request->enable_thinking.has_value());
  ParsedRequest p = chat(with(R"("chat_template_kwargs":{"enable_thinking":false,"x":[1]})"));
  ASSERT_TRUE(p.request) << p.error.message;
  EXPECT_EQ(p.request->enable_thinking, std::optional<bool>(false));
  p = chat(with(R"("chat_template_kwargs":{"enable_thinking":true})"));
  ASSERT_TRUE(p.request) << p.error.message;
  EXPECT_EQ(p.request->enable_thinking, std::optional<bool>(true));
  p = chat(with(R"("chat_template_kwargs":{})"));
  ASSERT_TRUE(p.request) << p.error.message;
  EXPECT_FALSE(p.request->enable_thinking.has_value());
  p = chat(with(R"("chat_template_kwargs":null)"));
  ASSERT_TRUE(p.request) << p.error.message;
  expect_error(with(R"("chat_template_kwargs":{"enable_thinking":"false"})"),
               "chat_template_kwargs.enable_thinking");
  expect_error(with(R"("chat_template_kwargs":{"enable_thinking":0})"),
               "chat_template_kwargs.enable_thinking");
  expect_error(with(R"("chat_template_kwargs":[true])"), "chat_template_kwargs");
  expect_error(with(R"("chat_template_kwargs":"enable_thinking")"), "chat_template_kwargs");
}

// The response bodies: reasoning_content beside content (absent when empty), and the
// stream's reasoning_content deltas.
TEST(ServerResponse, ReasoningContent) {
  const ResponseHead head{"chatcmpl-x", 1, "m", Endpoint::ChatCompletions};
  auto body = nlohmann::json::parse(
      completion_body(head, "The answer.", FinishReason::Stop, Usage{3, 5, 0}, "Let me see."));
  EXPECT_EQ(body["choices"][0]["message"]["content"], "The answer.");
  EXPECT_EQ(body["choices"][0]["message"]["reasoning_content"], "Let me see.");
  body = nlohmann::json::parse(completion_body(head, "Hi", FinishReason::Stop, Usage{}));
  EXPECT_FALSE(body["choices"][0]["message"].contains("reasoning_content"));

  ChunkFields f;
  f.reasoning = "step";
  auto chunk = nlohmann::json::parse(chunk_body(head, f));
  EXPECT_EQ(chunk["choices"][0]["delta"]["reasoning_content"], "step");
  EXPECT_FALSE(chunk["choices"][0]["delta"].contains("content"));
  ChunkFields g;
  g.text = "answer";
  chunk = nlohmann::json::parse(chunk_body(head, g));
  EXPECT_EQ(chunk["choices"][0]["delta"]["content"], "answer");
  EXPECT_FALSE(chunk["choices"][0]["delta"].contains("reasoning_content"));
}

// The server's options checked in neutral words naming the field (ServerOptions' member),
// which kvchat-cli serve says as its flag and the window as its setting.
TEST(ServerRequest, OptionsAreCheckedByField) {
  EXPECT_FALSE(check_server_options(ServerOptions{}));
  auto field_of = [](auto set) {
    ServerOptions o;
    set(o);
    auto e = check_server_options(o);
    return e ? e->field + " " + e->problem : std::string();
  };
  EXPECT_EQ(field_of([](ServerOptions& o) { o.parallel = 0; }),
            "parallel must be between 1 and 256, got 0");
  EXPECT_EQ(field_of([](ServerOptions& o) { o.parallel = 257; }),
            "parallel must be between 1 and 256, got 257");
  EXPECT_EQ(field_of([](ServerOptions& o) { o.port = 65536; }),
            "port must be between 0 and 65535, got 65536");
  EXPECT_EQ(field_of([](ServerOptions& o) { o.max_connections = 769; }),
            "max_connections must be between 1 and 768, got 769");
  EXPECT_EQ(field_of([](ServerOptions& o) { o.body_timeout_ms = 0; }),
            "body_timeout_ms must be positive, got 0");
  EXPECT_EQ(field_of([](ServerOptions& o) { o.max_body_bytes = 0; }),
            "max_body_bytes must be at least 1");
}

// A negative seed asks for a fresh random one (kvchat::resolve_seed), like no seed.
TEST(ServerRequest, ANegativeSeedIsRandom) {
  ParsedRequest p = parse_completion_request(
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"seed":-5})",
      Endpoint::ChatCompletions);
  ASSERT_TRUE(p.request) << p.error.message;
  EXPECT_FALSE(p.request->seed);
}

}  // namespace
}  // namespace kvchat::server

namespace kvchat::server {
namespace {

const std::string kTool =
    R"({"type":"function","function":{"name":"get_weather","description":"d",)"
    R"("parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":true}})";

TEST(ServerRequest, ToolsAndToolChoice) {
  ParsedRequest p =
      chat(with(R"("tools":[)" + kTool +
                R"(],"tool_choice":{"type":"function","function":{"name":"get_weather"}},)"
                R"("parallel_tool_calls":false)"));
  ASSERT_TRUE(p.request) << p.error.message;
  const ToolRequest& t = p.request->tools;
  ASSERT_EQ(t.tools.size(), 1u);
  EXPECT_EQ(t.tools[0].name, "get_weather");
  EXPECT_EQ(t.tools[0].description, "d");
  EXPECT_TRUE(t.tools[0].strict);
  EXPECT_EQ(nlohmann::json::parse(t.tools[0].parameters_json)["required"][0], "city");
  EXPECT_EQ(t.choice.mode, ToolChoiceMode::Named);
  EXPECT_EQ(t.choice.name, "get_weather");
  EXPECT_FALSE(t.parallel);
  for (const auto& [choice, mode] :
       {std::pair{"\"auto\"", ToolChoiceMode::Auto}, std::pair{"\"none\"", ToolChoiceMode::None},
        std::pair{"\"required\"", ToolChoiceMode::Required}}) {
    ParsedRequest q = chat(with(R"("tools":[)" + kTool + R"(],"tool_choice":)" + choice));
    ASSERT_TRUE(q.request) << q.error.message;
    EXPECT_EQ(q.request->tools.choice.mode, mode);
  }
  // A function without parameters takes none.
  ParsedRequest bare = chat(with(R"("tools":[{"type":"function","function":{"name":"now"}}])"));
  ASSERT_TRUE(bare.request) << bare.error.message;
  EXPECT_EQ(nlohmann::json::parse(bare.request->tools.tools[0].parameters_json)["properties"],
            nlohmann::json::object());
}

TEST(ServerRequest, ToolErrorsNameTheField) {
  expect_error(with(R"("tools":{})"), "tools");
  expect_error(with(R"("tools":[{"type":"function","function":{"name":"f"},"extra":1}])"),
               "tools[0].extra");
  expect_error(with(R"("tools":[{"type":"function","function":{"name":"f","paramters":{}}}])"),
               "tools[0].function.paramters");
  expect_error(with(R"("tools":[{"type":"retrieval","function":{"name":"f"}}])"), "tools[0].type");
  expect_error(with(R"("tools":[{"type":"function","function":{"name":"bad name"}}])"),
               "tools[0].function.name");
  expect_error(with(R"("tools":[{"type":"function","function":{"name":"f","parameters":[]}}])"),
               "tools[0].function.parameters");
  expect_error(with(R"("tools":[)" + kTool + "," + kTool + "]"), "tools[1].function.name");
  expect_error(with(R"("tool_choice":"auto")"), "tool_choice");  // without tools
  expect_error(with(R"("tools":[)" + kTool + R"(],"tool_choice":"sometimes")"), "tool_choice");
  expect_error(with(R"("tools":[)" + kTool +
                    R"(],"tool_choice":{"type":"function","function":{"name":"other"}})"),
               "tool_choice.function.name");
  expect_error(with(R"("tools":[)" + kTool + R"(],"parallel_tool_calls":"yes")"),
               "parallel_tool_calls");
  expect_error(R"({"model":"m","prompt":"p","tools":[)" + kTool + "]}", "tools",
               Endpoint::Completions);
}

TEST(ServerRequest, ResponseFormat) {
  ParsedRequest text = chat(with(R"("response_format":{"type":"text"})"));
  ASSERT_TRUE(text.request);
  EXPECT_EQ(text.request->response_schema, "");
  ParsedRequest object = chat(with(R"("response_format":{"type":"json_object"})"));
  ASSERT_TRUE(object.request);
  EXPECT_EQ(object.request->response_schema, kJsonObjectSchema);
  ParsedRequest schema = chat(with(
      R"("response_format":{"type":"json_schema","json_schema":{"name":"answer","strict":true,)"
      R"("schema":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}}})"));
  ASSERT_TRUE(schema.request) << schema.error.message;
  EXPECT_EQ(nlohmann::json::parse(schema.request->response_schema)["properties"]["a"]["type"],
            "integer");
  expect_error(with(R"("response_format":{"type":"xml"})"), "response_format.type");
  expect_error(with(R"("response_format":{"type":"json_object","schema":{}})"),
               "response_format.schema");
  expect_error(with(R"("response_format":{"type":"json_schema"})"), "response_format.json_schema");
  expect_error(with(R"("response_format":{"type":"json_schema","json_schema":{"schema":{}}})"),
               "response_format.json_schema.name");
  expect_error(
      with(R"("response_format":{"type":"json_schema","json_schema":{"name":"a","shema":{}}})"),
      "response_format.json_schema.shema");
  expect_error(with(R"("tools":[)" + kTool + R"(],"response_format":{"type":"json_object"})"),
               "response_format");
}

TEST(ServerRequest, ToolMessagesAndCalls) {
  ParsedRequest p =
      chat(R"({"model":"m","messages":[{"role":"user","content":"weather?"},)"
           R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",)"
           R"("function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},)"
           R"({"role":"tool","tool_call_id":"call_1","content":"21 degrees"}]})");
  ASSERT_TRUE(p.request) << p.error.message;
  const auto& m = p.request->messages;
  ASSERT_EQ(m.size(), 3u);
  ASSERT_EQ(m[1].tool_calls.size(), 1u);
  EXPECT_EQ(m[1].content, "");
  EXPECT_EQ(m[1].tool_calls[0].id, "call_1");
  EXPECT_EQ(m[1].tool_calls[0].name, "get_weather");
  EXPECT_EQ(m[1].tool_calls[0].arguments, R"({"city":"Paris"})");
  EXPECT_EQ(m[2].role, "tool");
  EXPECT_EQ(m[2].tool_call_id, "call_1");
  EXPECT_EQ(m[2].content, "21 degrees");
  expect_error(R"({"model":"m","messages":[{"role":"tool","content":"x"}]})",
               "messages[0].tool_call_id");
  expect_error(R"({"model":"m","messages":[{"role":"user","content":"x","tool_calls":[]}]})",
               "messages[0].tool_calls");
  expect_error(
      R"({"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f"}}]}]})",
      "messages[0].tool_calls[0].function.arguments");
}

TEST(ServerResponse, ToolCallsInTheBodyAndTheChunks) {
  ResponseHead head{"chatcmpl-1", 1, "m", Endpoint::ChatCompletions};
  const auto body = nlohmann::json::parse(completion_body(
      head, "", FinishReason::Stop, {}, {}, {{"call_1", "get_weather", R"({"city":"Oslo"})"}}));
  const auto& choice = body["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_TRUE(choice["message"]["content"].is_null());
  EXPECT_EQ(choice["message"]["tool_calls"][0]["id"], "call_1");
  EXPECT_EQ(choice["message"]["tool_calls"][0]["type"], "function");
  EXPECT_EQ(choice["message"]["tool_calls"][0]["function"]["name"], "get_weather");
  EXPECT_EQ(choice["message"]["tool_calls"][0]["function"]["arguments"], R"({"city":"Oslo"})");
  ChunkFields first;
  first.call = ToolCallDelta{0, "call_1", "get_weather", ""};
  const auto a =
      nlohmann::json::parse(chunk_body(head, first))["choices"][0]["delta"]["tool_calls"][0];
  EXPECT_EQ(a["index"], 0);
  EXPECT_EQ(a["id"], "call_1");
  EXPECT_EQ(a["type"], "function");
  EXPECT_EQ(a["function"]["name"], "get_weather");
  ChunkFields next;
  next.call = ToolCallDelta{0, std::nullopt, std::nullopt, R"({"city")"};
  const auto b =
      nlohmann::json::parse(chunk_body(head, next))["choices"][0]["delta"]["tool_calls"][0];
  EXPECT_FALSE(b.contains("id"));
  EXPECT_FALSE(b["function"].contains("name"));
  EXPECT_EQ(b["function"]["arguments"], R"({"city")");
  ChunkFields last;
  last.finish = FinishReason::Stop;
  last.finish_tool_calls = true;
  EXPECT_EQ(nlohmann::json::parse(chunk_body(head, last))["choices"][0]["finish_reason"],
            "tool_calls");
}

}  // namespace
}  // namespace kvchat::server
