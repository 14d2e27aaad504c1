// Tool calls (kvchat/tool_calls.h): the call format of published templates, the tools and
// earlier calls rendered as jinja2 renders them (tests/data/templates/tool_cases.json), the
// parser on hand-written replies of each format, the streaming split against the whole
// parse, the call grammar against hand-written sentences, and replies the demo model writes
// under it: every call parses and its arguments validate, whichever format.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "grammar/grammar_matcher.h"
#include "kvchat/chat_format.h"
#include "kvchat/generate.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "kvchat/tool_calls.h"
#include "support/demo_model.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using Json = nlohmann::ordered_json;

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string template_path(const std::string& name) {
  return std::string(KVCHAT_SOURCE_DIR) + "/tests/data/templates/" + name;
}

using test::demo_model;

ChatFormat format_of(const std::string& template_name) {
  auto f = ChatFormat::create(read_text(template_path(template_name)), demo_model()->tokenizer());
  EXPECT_TRUE(f) << f.message();
  return std::move(f).value();
}

const char* const kWeatherSchema =
    R"({"type": "object", "properties": {"location": {"type": "string", "maxLength": 12},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "required": ["location", "unit"], "additionalProperties": false})";

std::vector<ToolDefinition> weather_tools() {
  return {{"get_weather", "The weather in a city", kWeatherSchema, true},
          {"get_time", "The time now", R"({"type": "object", "properties": {}})", false}};
}

// Whether `arguments` is an instance of kWeatherSchema (checked by hand, not by grammar).
bool valid_weather_arguments(const std::string& arguments, std::string& why) {
  const Json a = Json::parse(arguments, nullptr, false);
  if (!a.is_object()) return why = "not an object: " + arguments, false;
  for (const auto& [k, v] : a.items()) {
    if (k != "location" && k != "unit") return why = "extra member " + k, false;
  }
  if (!a.contains("location") || !a["location"].is_string()) return why = "no location", false;
  // maxLength counts code points.
  size_t points = 0;
  for (unsigned char c : a["location"].get<std::string>()) points += (c & 0xC0) != 0x80;
  if (points > 12) return why = "location longer than 12", false;
  if (!a.contains("unit") || !a["unit"].is_string()) return why = "no unit", false;
  const std::string unit = a["unit"].get<std::string>();
  if (unit != "celsius" && unit != "fahrenheit") return why = "unit " + unit, false;
  return true;
}

TEST(ToolCalls, FormatOfPublishedTemplates) {
  const std::map<std::string, ToolCallFormat> expected = {
      {"Qwen-Qwen2.5-7B-Instruct.jinja", ToolCallFormat::Hermes},
      {"Qwen-Qwen3-0.6B.jinja", ToolCallFormat::Hermes},
      {"NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", ToolCallFormat::Hermes},
      {"meta-llama-Llama-3.1-8B-Instruct.jinja", ToolCallFormat::Llama3},
      {"meta-llama-Llama-3.2-3B-Instruct.jinja", ToolCallFormat::Llama3},
      {"mistralai-Mistral-Nemo-Instruct-2407.jinja", ToolCallFormat::Mistral},
      {"ibm-granite-granite-3.3-2B-Instruct.jinja", ToolCallFormat::Generic},
      {"CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja", ToolCallFormat::Generic},
      {"meetkai-functionary-medium-v3.1.jinja", ToolCallFormat::Generic},  // <function=...>
      {"llama-cpp-deepseek-r1.jinja", ToolCallFormat::Generic},
  };
  for (const auto& [name, format] : expected) {
    EXPECT_EQ(detect_tool_call_format(format_of(name)), format) << name;
  }
  EXPECT_EQ(detect_tool_call_format(
                ChatFormat::built_in(ChatTemplateKind::ChatML, demo_model()->tokenizer())),
            ToolCallFormat::Generic);
}

// The templates with a call format, given the tools and a conversation with a call and its
// result as kvchat holds them (arguments as JSON text, content "" beside calls), render
// what jinja2 rendered for the same conversation (arguments as objects).
TEST(ToolCalls, ToolsAndCallsRenderAsJinja2Does) {
  const Json doc = Json::parse(read_text(template_path("tool_cases.json")));
  int compared = 0;
  for (const Json& c : doc["cases"]) {
    if (c["setting"] != "one_tool" || c["conversation"] != "tool-round-object-args") continue;
    const std::string name = c["template"].get<std::string>();
    auto parsed = ChatTemplate::parse(read_text(template_path(name)));
    ASSERT_TRUE(parsed) << name;
    auto f = ChatFormat::create(read_text(template_path(name)), demo_model()->tokenizer());
    ASSERT_TRUE(f);
    if (detect_tool_call_format(*f) == ToolCallFormat::Generic || c["expected"].is_null()) continue;
    std::vector<ToolDefinition> tools;
    for (const Json& t : c["variables"]["tools"]) {
      tools.push_back({t["function"]["name"], t["function"]["description"],
                       t["function"]["parameters"].dump(), false});
    }
    std::vector<ChatMessage> messages;
    for (const Json& m : c["messages"]) {
      ChatMessage msg{m["role"], m["content"].is_null() ? "" : m["content"].get<std::string>()};
      if (m.contains("tool_calls")) {
        for (const Json& call : m["tool_calls"])
          msg.tool_calls.push_back(
              {call["id"], call["function"]["name"], call["function"]["arguments"].dump()});
      }
      if (m.contains("tool_call_id")) msg.tool_call_id = m["tool_call_id"];
      if (m.contains("name")) msg.name = m["name"];
      messages.push_back(std::move(msg));
    }
    ChatRenderOptions o;
    o.add_generation_prompt = c["add_generation_prompt"].get<bool>();
    o.bos_token = c["bos_token"].get<std::string>();
    o.eos_token = c["eos_token"].get<std::string>();
    o.now_unix_seconds = doc["now_unix_seconds"].get<int64_t>();
    o.extra_variables_json = R"({"tools": )" + tools_json(tools) + "}";
    auto text = parsed->render(messages, o);
    ASSERT_TRUE(text) << name << ": " << text.message();
    EXPECT_EQ(*text, c["expected"].get<std::string>()) << name;
    ++compared;
  }
  EXPECT_EQ(compared, 6);  // Qwen 2.5, Qwen 3, Hermes 2 Pro, Llama 3.1, 3.2, Mistral Nemo
}

// The generic format (no call format in the template) says the tools in the system prompt
// and writes earlier calls and results as its JSON.
TEST(ToolCalls, GenericPromptSaysTheToolsAndTheAnswerShape) {
  const ChatFormat f = ChatFormat::built_in(ChatTemplateKind::ChatML, demo_model()->tokenizer());
  ToolRequest r{weather_tools(), {ToolChoiceMode::Required, ""}, false};
  std::vector<ChatMessage> messages = {{"user", "Weather in Paris?"}};
  ChatMessage call{"assistant", ""};
  call.tool_calls = {{"call_1", "get_weather", R"({"location":"Paris","unit":"celsius"})"}};
  messages.push_back(call);
  ChatMessage result{"tool", "21 degrees"};
  result.tool_call_id = "call_1";
  result.name = "get_weather";
  messages.push_back(result);
  auto text = render_with_tools(f, "Be brief.", messages, r, ToolCallFormat::Generic);
  ASSERT_TRUE(text) << text.message();
  EXPECT_NE(text->find("<|im_start|>system\nBe brief.\n\nYou can call these tools"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find(R"("name":"get_weather")"), std::string::npos);
  EXPECT_EQ(text->find("to answer directly"), std::string::npos);  // required: calls only
  EXPECT_NE(text->find(R"(<|im_start|>assistant
{"tool_calls":[{"name":"get_weather","arguments":{"location":"Paris","unit":"celsius"}}]}<|im_end|>)"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find(R"(<|im_start|>user
{"tool_response":{"name":"get_weather","tool_call_id":"call_1","content":"21 degrees"}}<|im_end|>
<|im_start|>assistant
)"),
            std::string::npos)
      << *text;
}

TEST(ToolCalls, ParsesEachFormat) {
  struct Case {
    ToolCallFormat format;
    std::string text, content;
    std::vector<std::pair<std::string, std::string>> calls;  // name, arguments
  };
  const std::vector<Case> cases = {
      {ToolCallFormat::Hermes,
       "Let me look.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": "
       "\"Paris\"}}\n</tool_call>\n<tool_call>{\"name\":\"get_time\",\"arguments\":{}}</tool_call>",
       "Let me look.",
       {{"get_weather", R"({"location":"Paris"})"}, {"get_time", "{}"}}},
      // Cut short at the end: the call still parses; a block that is not JSON stays text.
      {ToolCallFormat::Hermes,
       "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}",
       "",
       {{"f", R"({"a":1})"}}},
      {ToolCallFormat::Hermes,
       "<tool_call>not json</tool_call>",
       "<tool_call>not json</tool_call>",
       {}},
      {ToolCallFormat::Llama3,
       R"({"name": "get_weather", "parameters": {"location": "Oslo"}})",
       "",
       {{"get_weather", R"({"location":"Oslo"})"}}},
      {ToolCallFormat::Llama3,
       R"(<|python_tag|>{"name": "a", "parameters": {"s": "x;y"}}; {"name": "b", "parameters": {}})",
       "",
       {{"a", R"({"s":"x;y"})"}, {"b", "{}"}}},
      {ToolCallFormat::Llama3, "It is {warm} today.", "It is {warm} today.", {}},
      {ToolCallFormat::Mistral,
       R"([TOOL_CALLS][{"name": "get_weather", "arguments": {"location": "Rome"}, "id": "abcDEF123"}])",
       "",
       {{"get_weather", R"({"location":"Rome"})"}}},
      {ToolCallFormat::Mistral,
       R"([{"name": "f", "arguments": "{\"a\": 2}"}])",
       "",
       {{"f", R"({"a": 2})"}}},
      {ToolCallFormat::Mistral, "[1, 2] are numbers", "[1, 2] are numbers", {}},
      {ToolCallFormat::Generic,
       R"({"tool_calls": [{"name": "f", "arguments": {"x": [1, 2]}}, {"name": "g", "arguments": {}}]})",
       "",
       {{"f", R"({"x":[1,2]})"}, {"g", "{}"}}},
      {ToolCallFormat::Generic, R"({"response": "Hello \"you\""})", "Hello \"you\"", {}},
      {ToolCallFormat::Generic, "plain words", "plain words", {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(tool_call_format_name(c.format)) + ": " + c.text);
    const ToolCallReply r = parse_tool_calls(c.text, c.format);
    EXPECT_EQ(r.content, c.content);
    ASSERT_EQ(r.calls.size(), c.calls.size());
    for (size_t i = 0; i < c.calls.size(); ++i) {
      EXPECT_EQ(r.calls[i].name, c.calls[i].first);
      EXPECT_EQ(r.calls[i].arguments, c.calls[i].second);
    }
  }
  EXPECT_EQ(parse_tool_calls(R"([TOOL_CALLS][{"name": "f", "arguments": {}, "id": "abcDEF123"}])",
                             ToolCallFormat::Mistral)
                .calls.at(0)
                .id,
            "abcDEF123");
}

// Fed in pieces of every size, the stream shows the text before a call as it comes and
// ends with what the whole parse gives.
TEST(ToolCalls, StreamShowsTheTextBeforeACallAndParsesTheRest) {
  const std::vector<std::pair<ToolCallFormat, std::string>> replies = {
      {ToolCallFormat::Hermes,
       "Checking <the> weather.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>"},
      {ToolCallFormat::Hermes, "No call here, only <tool and <tool_c text."},
      {ToolCallFormat::Llama3, "  {\"name\": \"f\", \"parameters\": {\"a\": 1}}"},
      {ToolCallFormat::Llama3, "Words first <|python_tag|>{\"name\": \"f\", \"parameters\": {}}"},
      {ToolCallFormat::Mistral, "Sure. [TOOL_CALLS][{\"name\": \"f\", \"arguments\": {}}]"},
      {ToolCallFormat::Generic, "{\"response\": \"hi\"}"},
  };
  for (const auto& [format, text] : replies) {
    const ToolCallReply whole = parse_tool_calls(text, format);
    for (size_t piece = 1; piece <= 7; ++piece) {
      SCOPED_TRACE(text + " / pieces of " + std::to_string(piece));
      ToolCallStream stream(format);
      std::string shown;
      for (size_t i = 0; i < text.size(); i += piece) shown += stream.feed(text.substr(i, piece));
      const ToolCallReply rest = stream.finish();
      // The whole parse trims the words around calls; the stream shows them as they came.
      std::string streamed = shown + rest.content;
      if (!whole.calls.empty()) {
        streamed.erase(streamed.find_last_not_of(" \n") + 1);
        streamed.erase(0, streamed.find_first_not_of(" \n") == std::string::npos
                              ? streamed.size()
                              : streamed.find_first_not_of(" \n"));
      }
      EXPECT_EQ(streamed, whole.content);
      ASSERT_EQ(rest.calls.size(), whole.calls.size());
      for (size_t i = 0; i < rest.calls.size(); ++i)
        EXPECT_EQ(rest.calls[i].arguments, whole.calls[i].arguments);
      if (format == ToolCallFormat::Hermes && !whole.calls.empty()) {
        EXPECT_EQ(shown, "Checking <the> weather.\n");  // shown before the reply ended
      }
    }
  }
}

bool grammar_accepts(const ReplyConstraint& c, const std::string& text) {
  auto m = grammar::GrammarMatcher::create(c.grammar);
  EXPECT_TRUE(m);
  auto ok = m->accept(text);
  return ok && *ok && m->can_end();
}

TEST(ToolCalls, GrammarAdmitsWellFormedCallsOnly) {
  const std::string weather =
      R"({"name": "get_weather", "arguments": {"location": "Paris", "unit": "celsius"}})";
  const std::string time = R"({"name": "get_time", "arguments": {}})";
  ToolRequest r{weather_tools(), {ToolChoiceMode::Required, ""}, true};
  auto hermes = tool_call_constraint(r, ToolCallFormat::Hermes);
  ASSERT_TRUE(hermes) << hermes.message();
  EXPECT_TRUE(hermes->triggers.empty());  // required: from the first token
  EXPECT_TRUE(grammar_accepts(*hermes, "<tool_call>\n" + weather + "\n</tool_call>"));
  EXPECT_TRUE(grammar_accepts(
      *hermes, "<tool_call>" + weather + "</tool_call>\n<tool_call>" + time + "</tool_call>"));
  EXPECT_FALSE(grammar_accepts(
      *hermes, "<tool_call>{\"name\": \"get_wether\", \"arguments\": {}}</tool_call>"));
  EXPECT_FALSE(grammar_accepts(  // unit outside the enum
      *hermes,
      R"(<tool_call>{"name": "get_weather", "arguments": {"location": "Paris", "unit": "kelvin"}}</tool_call>)"));
  EXPECT_FALSE(grammar_accepts(  // location over maxLength
      *hermes,
      R"(<tool_call>{"name": "get_weather", "arguments": {"location": "Paris, France!", "unit": "celsius"}}</tool_call>)"));
  EXPECT_FALSE(grammar_accepts(*hermes, "Hello"));

  r.parallel = false;
  auto single = tool_call_constraint(r, ToolCallFormat::Mistral);
  ASSERT_TRUE(single);
  EXPECT_TRUE(grammar_accepts(*single, "[TOOL_CALLS][" + weather + "]"));
  EXPECT_FALSE(grammar_accepts(*single, "[" + weather + ", " + time + "]"));

  r.choice = {ToolChoiceMode::Named, "get_time"};
  auto named = tool_call_constraint(r, ToolCallFormat::Llama3);
  ASSERT_TRUE(named);
  EXPECT_TRUE(grammar_accepts(*named, R"({"name": "get_time", "parameters": {}})"));
  EXPECT_TRUE(grammar_accepts(*named, R"(<|python_tag|>{"name": "get_time", "parameters": {}})"));
  EXPECT_FALSE(grammar_accepts(
      *named,
      R"({"name": "get_weather", "parameters": {"location": "Paris", "unit": "celsius"}})"));

  r.choice = {ToolChoiceMode::Auto, ""};
  auto generic = tool_call_constraint(r, ToolCallFormat::Generic);
  ASSERT_TRUE(generic);
  EXPECT_TRUE(grammar_accepts(*generic, R"({"tool_calls": [)" + weather + "]}"));
  EXPECT_TRUE(grammar_accepts(*generic, R"({"response": "It is warm."})"));
  EXPECT_TRUE(generic->triggers.empty());
  auto lazy = tool_call_constraint(r, ToolCallFormat::Hermes);
  ASSERT_TRUE(lazy);
  ASSERT_EQ(lazy->triggers.size(), 1u);
  EXPECT_EQ(lazy->triggers[0].text, "<tool_call>");

  r.choice = {ToolChoiceMode::None, ""};
  auto none = tool_call_constraint(r, ToolCallFormat::Hermes);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->grammar);
}

TEST(ToolCalls, UnsupportedSchemaIsNamed) {
  ToolRequest r{
      {{"f", "", R"({"type": "object", "properties": {"d": {"type": "string", "format": "date"}}})",
        true}},
      {ToolChoiceMode::Required, ""},
      true};
  auto c = tool_call_constraint(r, ToolCallFormat::Hermes);
  ASSERT_FALSE(c);
  EXPECT_NE(c.message().find("tools[0] (f)"), std::string::npos) << c.message();
  EXPECT_NE(c.message().find("format"), std::string::npos) << c.message();
  EXPECT_NE(c.message().find("/properties/d"), std::string::npos) << c.message();
}

// The demo model writes calls under the grammar of each format: every call parses, names
// an offered tool and has valid arguments; parallel off gives one call.
TEST(ToolCalls, DemoModelCallsAlwaysParseAndValidate) {
  auto model = demo_model();
  ASSERT_TRUE(model);
  const auto prompt =
      model->tokenizer().encode("And the LORD said unto Moses, what is the weather", true);
  for (ToolCallFormat format : {ToolCallFormat::Hermes, ToolCallFormat::Llama3,
                                ToolCallFormat::Mistral, ToolCallFormat::Generic}) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      SCOPED_TRACE(std::string(tool_call_format_name(format)) + " seed " + std::to_string(seed));
      ToolRequest r{weather_tools(),
                    seed % 2 ? ToolChoice{ToolChoiceMode::Required, ""}
                             : ToolChoice{ToolChoiceMode::Named, "get_weather"},
                    seed > 2};
      auto c = tool_call_constraint(r, format);
      ASSERT_TRUE(c) << c.message();
      SessionOptions so;
      so.n_ctx = 3200;  // 16 calls of ~140 demo tokens (blanks are a token each)
      auto session = Session::create(model, so);
      ASSERT_TRUE(session) << session.message();
      GenerateOptions go;
      go.max_tokens = 3000;
      go.sampling.temperature = 0.8f;
      go.sampling.seed = seed;
      apply_constraint(*c, go);
      auto reply = generate(**session, prompt, go);
      ASSERT_TRUE(reply) << reply.message();
      ASSERT_EQ(reply->stop_reason, StopReason::Eos) << reply->text;
      const ToolCallReply parsed = parse_tool_calls(reply->text, format);
      ASSERT_FALSE(parsed.calls.empty()) << reply->text;
      EXPECT_EQ(parsed.content, "") << reply->text;
      if (!r.parallel) {
        EXPECT_EQ(parsed.calls.size(), 1u);
      }
      for (const ToolCall& call : parsed.calls) {
        if (r.choice.mode == ToolChoiceMode::Named) {
          EXPECT_EQ(call.name, "get_weather");
        }
        std::string why;
        if (call.name == "get_weather") {
          EXPECT_TRUE(valid_weather_arguments(call.arguments, why)) << why;
        } else {
          EXPECT_EQ(call.name, "get_time");
          EXPECT_TRUE(Json::parse(call.arguments, nullptr, false).is_object()) << call.arguments;
        }
      }
    }
  }
}

// The demo model's greedy reply to "In the beginning God created" under `gbnf`, lazily
// from `trigger`.
GenerateResult lazy_reply(const char* gbnf, GrammarTrigger trigger) {
  auto model = demo_model();
  auto g = compile_grammar(gbnf);
  EXPECT_TRUE(g) << g.message();
  SessionOptions so;
  so.n_ctx = 256;
  auto session = Session::create(model, so);
  EXPECT_TRUE(session) << session.message();
  GenerateOptions go;
  go.max_tokens = 100;
  go.sampling.temperature = 0;
  go.grammar = *g;
  go.grammar_triggers = {std::move(trigger)};
  auto reply =
      generate(**session, model->tokenizer().encode("In the beginning God created", true), go);
  EXPECT_TRUE(reply) << reply.message();
  return reply ? std::move(*reply) : GenerateResult{};
}

// A lazy grammar: the reply is free until the trigger, then follows the grammar to its end.
TEST(ToolCalls, LazyGrammarStartsAtItsTrigger) {
  const GenerateResult reply = lazy_reply(R"(root ::= " the" " end")", {" the", false});
  EXPECT_EQ(reply.stop_reason, StopReason::Eos) << reply.text;
  ASSERT_GE(reply.text.size(), 8u);
  EXPECT_EQ(reply.text.substr(reply.text.size() - 8), " the end") << reply.text;
  EXPECT_EQ(reply.text.find(" the"), reply.text.size() - 8) << reply.text;  // the first one
}

// `after`: the grammar shapes what follows the trigger (a reasoning's end marker), not the
// trigger itself.
TEST(ToolCalls, LazyGrammarAfterItsTrigger) {
  const GenerateResult reply = lazy_reply(R"(root ::= " end")", {" the", false, /*after=*/true});
  EXPECT_EQ(reply.stop_reason, StopReason::Eos) << reply.text;
  ASSERT_GE(reply.text.size(), 8u);
  EXPECT_EQ(reply.text.substr(reply.text.size() - 8), " the end") << reply.text;
}

TEST(ToolCalls, AGrammarFromTheStartWaitsForTheReasoningsEnd) {
  std::vector<GrammarTrigger> from_start;
  defer_past_reasoning(from_start, ReasoningMarkers{});
  ASSERT_EQ(from_start.size(), 1u);
  EXPECT_EQ(from_start[0].text, "</think>");
  EXPECT_TRUE(from_start[0].after);
  EXPECT_FALSE(from_start[0].at_start);
  std::vector<GrammarTrigger> lazy = {{"<tool_call>", false, false}};
  defer_past_reasoning(lazy, ReasoningMarkers{});
  ASSERT_EQ(lazy.size(), 1u);  // already lazy: unchanged
  EXPECT_EQ(lazy[0].text, "<tool_call>");
}

}  // namespace
}  // namespace kvchat
