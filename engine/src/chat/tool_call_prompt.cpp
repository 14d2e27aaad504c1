// Tool calls, the prompt side: the call format a template uses, OpenAI's tools array for
// the template's `tools` variable, the generic format's system prompt and history, and
// call ids.
#include <nlohmann/json.hpp>

#include "kvchat/tool_calls.h"

namespace kvchat {

namespace {

using Json = nlohmann::ordered_json;

// A JSON text as a value (a string when it is not JSON).
Json parsed_or_string(const std::string& text) {
  Json v = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  return v.is_discarded() ? Json(text) : v;
}

Json tools_array(const std::vector<ToolDefinition>& tools) {
  Json out = Json::array();
  for (const ToolDefinition& t : tools) {
    Json function = {{"name", t.name}};
    if (!t.description.empty()) function["description"] = t.description;
    function["parameters"] = parsed_or_string(t.parameters_json);
    out.push_back({{"type", "function"}, {"function", std::move(function)}});
  }
  return out;
}

// The generic format's instructions, after the user's system prompt.
std::string generic_tools_prompt(const ToolRequest& r) {
  std::vector<ToolDefinition> offered;
  for (const ToolDefinition& t : r.tools)
    if (r.choice.mode != ToolChoiceMode::Named || t.name == r.choice.name) offered.push_back(t);
  std::string out =
      "You can call these tools (each one's arguments are described by a JSON Schema):\n" +
      tools_array(offered).dump() + "\n\nReply with one JSON object and nothing else: ";
  const std::string calls =
      r.parallel
          ? R"({"tool_calls": [{"name": "<tool name>", "arguments": {<its arguments>}}, ...]})"
          : R"({"tool_calls": [{"name": "<tool name>", "arguments": {<its arguments>}}]})";
  if (r.choice.mode == ToolChoiceMode::Auto) {
    out += calls + " to call tools, or {\"response\": \"<your answer>\"} to answer directly.";
  } else {
    out += calls + " to call " +
           (r.choice.mode == ToolChoiceMode::Named ? "the tool " + r.choice.name : "tools") + ".";
  }
  return out;
}

// Calls and results as the generic format writes them: an assistant's calls as its JSON
// answer, tool results (a run of them merged) as a user message.
std::vector<ChatMessage> generic_history(const std::vector<ChatMessage>& messages) {
  std::vector<ChatMessage> out;
  for (const ChatMessage& m : messages) {
    if (m.role == "assistant" && !m.tool_calls.empty()) {
      Json calls = Json::array();
      for (const ToolCall& c : m.tool_calls)
        calls.push_back({{"name", c.name}, {"arguments", parsed_or_string(c.arguments)}});
      out.push_back({"assistant", Json{{"tool_calls", std::move(calls)}}.dump()});
    } else if (m.role == "tool") {
      Json result = {
          {"tool_response",
           {{"name", m.name}, {"tool_call_id", m.tool_call_id}, {"content", m.content}}}};
      if (!out.empty() && out.back().role == "user" &&
          out.back().content.starts_with("{\"tool_response\"")) {
        out.back().content += "\n" + result.dump();
      } else {
        out.push_back({"user", result.dump()});
      }
    } else {
      out.push_back({m.role, m.content});
    }
  }
  return out;
}

}  // namespace

std::string_view tool_call_format_name(ToolCallFormat format) {
  switch (format) {
    case ToolCallFormat::Generic: return "generic";
    case ToolCallFormat::Hermes: return "hermes";
    case ToolCallFormat::Llama3: return "llama3";
    case ToolCallFormat::Mistral: return "mistral";
  }
  return "generic";
}

ToolCallFormat detect_tool_call_format(const ChatFormat& format) {
  const std::string& src = format.template_source();
  auto has = [&src](std::string_view s) { return src.find(s) != std::string::npos; };
  if (has("<tool_call>")) return ToolCallFormat::Hermes;
  if (has("[TOOL_CALLS]")) return ToolCallFormat::Mistral;
  // Llama 3.x's own templates; functionary's (Llama 3 based) writes <function=name> calls,
  // a format of its own: generic.
  if (has("<|start_header_id|>") && (has("<|python_tag|>") || has("ipython")) && !has("<function="))
    return ToolCallFormat::Llama3;
  return ToolCallFormat::Generic;
}

std::string tools_json(const std::vector<ToolDefinition>& tools) {
  return tools_array(tools).dump();
}

Result<std::string> render_with_tools(const ChatFormat& format, std::string_view system,
                                      const std::vector<ChatMessage>& messages,
                                      const ToolRequest& request, ToolCallFormat call_format) {
  if (call_format != ToolCallFormat::Generic) {
    return format.render(system, messages,
                         request.active() ? tools_json(request.tools) : std::string());
  }
  std::string with_tools(system);
  if (request.active()) {
    if (!with_tools.empty()) with_tools += "\n\n";
    with_tools += generic_tools_prompt(request);
  }
  return format.render(with_tools, generic_history(messages));
}

std::string new_tool_call_id(ToolCallFormat call_format, uint64_t& rng_state) {
  static constexpr std::string_view kAlnum =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const bool mistral = call_format == ToolCallFormat::Mistral;
  std::string id = mistral ? "" : "call_";
  for (int i = 0; i < (mistral ? 9 : 24); ++i) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);  // splitmix64
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    id += kAlnum[(z ^ (z >> 31)) % kAlnum.size()];
  }
  return id;
}

void assign_tool_call_ids(std::vector<ToolCall>& calls, ToolCallFormat call_format,
                          uint64_t& rng_state) {
  for (ToolCall& c : calls)
    if (c.id.empty() || call_format != ToolCallFormat::Mistral)
      c.id = new_tool_call_id(call_format, rng_state);
}

}  // namespace kvchat
