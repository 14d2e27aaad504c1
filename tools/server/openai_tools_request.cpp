// The request fields of structured output and tool calls: tools, tool_choice,
// parallel_tool_calls and response_format, and the tool fields of messages. Every
// unknown field of a tool definition or a response format is named (400); the schemas
// themselves are checked when their grammar is compiled (the route).
#include <algorithm>

#include "kvchat/grammar.h"
#include "server/request_json.h"

namespace kvchat::server {

namespace {

using nlohmann::json;

// OpenAI's function names: letters, digits, '_' and '-', at most 64.
bool valid_function_name(const std::string& name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

std::optional<ApiError> read_string(const json& obj, const std::string& param, const char* key,
                                    std::string& out, bool required) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) {
    if (required) return bad(param + "." + key, "'" + param + "." + key + "' is required");
    return std::nullopt;
  }
  if (!it->is_string()) return wrong_type(param + "." + key, "a string", *it);
  out = it->get<std::string>();
  return checked_text(param + "." + key, out);
}

std::optional<ApiError> read_function_name(const json& obj, const std::string& param,
                                           std::string& out) {
  if (auto e = read_string(obj, param, "name", out, true)) return e;
  if (!valid_function_name(out)) {
    return bad(param + ".name", "'" + param + ".name' must be 1 to 64 letters, digits, '_' or " +
                                    "'-', got " + json(out).dump());
  }
  return std::nullopt;
}

std::optional<ApiError> read_tool(const json& t, const std::string& p, ToolDefinition& tool) {
  if (!t.is_object()) return wrong_type(p, "an object", t);
  if (auto e = only_known_keys(t, p, {"type", "function"})) return e;
  std::string type;
  if (auto e = read_string(t, p, "type", type, true)) return e;
  if (type != "function") {
    return bad(p + ".type", "'" + p + ".type' must be \"function\", got " + json(type).dump());
  }
  auto f = t.find("function");
  const std::string fp = p + ".function";
  if (f == t.end() || f->is_null()) return bad(fp, "'" + fp + "' is required");
  if (!f->is_object()) return wrong_type(fp, "an object", *f);
  if (auto e = only_known_keys(*f, fp, {"name", "description", "parameters", "strict"})) return e;
  if (auto e = read_function_name(*f, fp, tool.name)) return e;
  if (auto e = read_string(*f, fp, "description", tool.description, false)) return e;
  if (auto s = f->find("strict"); s != f->end() && !s->is_null()) {
    if (!s->is_boolean()) return wrong_type(fp + ".strict", "a boolean", *s);
    tool.strict = s->get<bool>();
  }
  auto params = f->find("parameters");
  if (params == f->end() || params->is_null()) {  // a function without arguments
    tool.parameters_json = R"({"type": "object", "properties": {}, "additionalProperties": false})";
  } else if (!params->is_object()) {
    return wrong_type(fp + ".parameters", "an object (a JSON Schema)", *params);
  } else {
    tool.parameters_json = params->dump();
  }
  return std::nullopt;
}

std::optional<ApiError> read_tool_choice(const json& body, CompletionRequest& r) {
  auto it = body.find("tool_choice");
  if (it == body.end() || it->is_null()) return std::nullopt;
  ToolChoice& c = r.tools.choice;
  if (it->is_string()) {
    const std::string mode = it->get<std::string>();
    if (mode == "auto") {
      c.mode = ToolChoiceMode::Auto;
    } else if (mode == "none") {
      c.mode = ToolChoiceMode::None;
    } else if (mode == "required") {
      c.mode = ToolChoiceMode::Required;
    } else {
      return bad("tool_choice",
                 "'tool_choice' must be \"auto\", \"none\", \"required\" or " +
                     std::string("{\"type\": \"function\", \"function\": {\"name\": ...}}, got ") +
                     it->dump());
    }
  } else if (it->is_object()) {
    if (auto e = only_known_keys(*it, "tool_choice", {"type", "function"})) return e;
    std::string type;
    if (auto e = read_string(*it, "tool_choice", "type", type, true)) return e;
    if (type != "function")
      return bad("tool_choice.type", "'tool_choice.type' must be \"function\"");
    auto f = it->find("function");
    if (f == it->end() || !f->is_object())
      return wrong_type("tool_choice.function", "an object", f == it->end() ? json() : *f);
    if (auto e = only_known_keys(*f, "tool_choice.function", {"name"})) return e;
    if (auto e = read_function_name(*f, "tool_choice.function", c.name)) return e;
    c.mode = ToolChoiceMode::Named;
  } else {
    return wrong_type("tool_choice", "a string or an object", *it);
  }
  if (r.tools.tools.empty()) {
    return bad("tool_choice", "'tool_choice' is only allowed when 'tools' are given");
  }
  if (c.mode == ToolChoiceMode::Named &&
      std::none_of(r.tools.tools.begin(), r.tools.tools.end(),
                   [&](const ToolDefinition& t) { return t.name == c.name; })) {
    return bad("tool_choice.function.name", "'tool_choice.function.name' is '" + c.name +
                                                "', not one of the functions in 'tools'");
  }
  return std::nullopt;
}

}  // namespace

std::optional<ApiError> read_tools(const json& body, CompletionRequest& r) {
  auto it = body.find("tools");
  if (it != body.end() && !it->is_null()) {
    if (r.endpoint != Endpoint::ChatCompletions)
      return bad("tools", "'tools' is only supported on /v1/chat/completions");
    if (!it->is_array()) return wrong_type("tools", "an array", *it);
    if (it->size() > kMaxTools)
      return bad("tools", "'tools' may hold at most " + std::to_string(kMaxTools) + " functions");
    for (size_t i = 0; i < it->size(); ++i) {
      ToolDefinition tool;
      if (auto e = read_tool((*it)[i], "tools[" + std::to_string(i) + "]", tool)) return e;
      for (const ToolDefinition& other : r.tools.tools) {
        if (other.name == tool.name)
          return bad("tools[" + std::to_string(i) + "].function.name",
                     "'tools[" + std::to_string(i) + "].function.name' names the function '" +
                         tool.name + "' a second time");
      }
      r.tools.tools.push_back(std::move(tool));
    }
  }
  if (auto e = read_tool_choice(body, r)) return e;
  if (auto p = body.find("parallel_tool_calls"); p != body.end() && !p->is_null()) {
    if (!p->is_boolean()) return wrong_type("parallel_tool_calls", "a boolean", *p);
    r.tools.parallel = p->get<bool>();
  }
  return std::nullopt;
}

std::optional<ApiError> read_response_format(const json& body, CompletionRequest& r) {
  auto it = body.find("response_format");
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_object()) return wrong_type("response_format", "an object", *it);
  std::string type;
  if (auto e = read_string(*it, "response_format", "type", type, true)) return e;
  if (type == "text") return only_known_keys(*it, "response_format", {"type"});
  if (type == "json_object") {
    if (auto e = only_known_keys(*it, "response_format", {"type"})) return e;
    r.response_schema = std::string(kJsonObjectSchema);
  } else if (type == "json_schema") {
    if (auto e = only_known_keys(*it, "response_format", {"type", "json_schema"})) return e;
    const std::string p = "response_format.json_schema";
    auto js = it->find("json_schema");
    if (js == it->end() || js->is_null()) return bad(p, "'" + p + "' is required");
    if (!js->is_object()) return wrong_type(p, "an object", *js);
    if (auto e = only_known_keys(*js, p, {"name", "description", "schema", "strict"})) return e;
    std::string name;
    if (auto e = read_function_name(*js, p, name)) return e;
    if (auto s = js->find("strict"); s != js->end() && !s->is_null() && !s->is_boolean())
      return wrong_type(p + ".strict", "a boolean", *s);
    auto schema = js->find("schema");
    if (schema == js->end() || schema->is_null()) {
      r.response_schema = std::string(kJsonObjectSchema);  // OpenAI: absent = any JSON object
    } else if (!schema->is_object()) {
      return wrong_type(p + ".schema", "an object (a JSON Schema)", *schema);
    } else {
      r.response_schema = schema->dump();
    }
  } else {
    return bad("response_format.type",
               "'response_format.type' must be \"text\", \"json_object\" or \"json_schema\", got " +
                   json(type).dump());
  }
  if (r.tools.active()) {
    return bad("response_format",
               "'response_format' " + type + " cannot be combined with 'tools' (tool_choice " +
                   "\"none\" aside): a reply is either a tool call or the constrained answer");
  }
  return std::nullopt;
}

std::optional<ApiError> read_message_tool_fields(const json& m, const std::string& p,
                                                 ChatMessage& msg) {
  if (msg.role == "tool") {
    if (auto e = read_string(m, p, "tool_call_id", msg.tool_call_id, true)) return e;
    return read_string(m, p, "name", msg.name, false);
  }
  auto calls = m.find("tool_calls");
  if (calls == m.end() || calls->is_null()) return std::nullopt;
  if (msg.role != "assistant")
    return bad(p + ".tool_calls", "'" + p + ".tool_calls' is only allowed on assistant messages");
  if (!calls->is_array()) return wrong_type(p + ".tool_calls", "an array", *calls);
  if (calls->size() > kMaxToolCalls)
    return bad(p + ".tool_calls", "'" + p + ".tool_calls' may hold at most " +
                                      std::to_string(kMaxToolCalls) + " calls");
  for (size_t i = 0; i < calls->size(); ++i) {
    const json& c = (*calls)[i];
    const std::string cp = p + ".tool_calls[" + std::to_string(i) + "]";
    if (!c.is_object()) return wrong_type(cp, "an object", c);
    ToolCall call;
    std::string type = "function";
    if (auto e = read_string(c, cp, "id", call.id, true)) return e;
    if (auto e = read_string(c, cp, "type", type, false)) return e;
    if (type != "function") return bad(cp + ".type", "'" + cp + ".type' must be \"function\"");
    auto f = c.find("function");
    if (f == c.end() || !f->is_object())
      return wrong_type(cp + ".function", "an object", f == c.end() ? json() : *f);
    if (auto e = read_string(*f, cp + ".function", "name", call.name, true)) return e;
    if (auto e = read_string(*f, cp + ".function", "arguments", call.arguments, true)) return e;
    msg.tool_calls.push_back(std::move(call));
  }
  return std::nullopt;
}

}  // namespace kvchat::server
