#include "server/openai_response.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>

namespace kvchat::server {
namespace {

using nlohmann::json;

// Text from the model may hold any bytes a token decodes to; TextStream passes only whole
// UTF-8 characters, and replacing invalid bytes keeps dump() from ever throwing.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json usage_json(const Usage& u) {
  return {{"prompt_tokens", u.prompt_tokens},
          {"completion_tokens", u.completion_tokens},
          {"total_tokens", u.prompt_tokens + u.completion_tokens},
          {"prompt_tokens_details", {{"cached_tokens", u.cached_tokens}}}};
}

json head_json(const ResponseHead& head, bool chunk) {
  const bool chat = head.endpoint == Endpoint::ChatCompletions;
  return {
      {"id", head.id},
      {"object", chat ? (chunk ? "chat.completion.chunk" : "chat.completion") : "text_completion"},
      {"created", head.created},
      {"model", head.model},
      {"system_fingerprint", "kvchat"}};
}

json null_or(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

}  // namespace

std::string new_completion_id(Endpoint endpoint) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  char hex[25];
  std::snprintf(hex, sizeof hex, "%016llx%08llx", static_cast<unsigned long long>(rng()),
                static_cast<unsigned long long>(rng() & 0xffffffffu));
  return std::string(endpoint == Endpoint::ChatCompletions ? "chatcmpl-" : "cmpl-") + hex;
}

std::string_view finish_reason_name(FinishReason f) {
  return f == FinishReason::Length ? "length" : "stop";
}

std::string error_body(const ApiError& e) {
  return dump({{"error",
                {{"message", e.message},
                 {"type", e.type},
                 {"param", null_or(e.param)},
                 {"code", null_or(e.code)}}}});
}

namespace {
json model_object(std::string_view model_id, int64_t created, int64_t context_length) {
  return {{"id", model_id},
          {"object", "model"},
          {"created", created},
          {"owned_by", "kvchat"},
          {"max_model_len", context_length}};
}
}  // namespace

std::string model_body(std::string_view model_id, int64_t created, int64_t context_length) {
  return dump(model_object(model_id, created, context_length));
}

std::string models_body(std::string_view model_id, int64_t created, int64_t context_length) {
  return dump({{"object", "list"},
               {"data", json::array({model_object(model_id, created, context_length)})}});
}

std::string completion_body(const ResponseHead& head, std::string_view text, FinishReason finish,
                            const Usage& usage, std::string_view reasoning,
                            const std::vector<ToolCall>& calls) {
  json j = head_json(head, false);
  json choice = {{"index", 0},
                 {"finish_reason", calls.empty() ? finish_reason_name(finish) : "tool_calls"},
                 {"logprobs", nullptr}};
  if (head.endpoint == Endpoint::ChatCompletions) {
    json content = text.empty() && !calls.empty() ? json(nullptr) : json(text);
    choice["message"] = {{"role", "assistant"}, {"content", content}, {"refusal", nullptr}};
    if (!reasoning.empty()) choice["message"]["reasoning_content"] = reasoning;
    if (!calls.empty()) {
      json list = json::array();
      for (const ToolCall& c : calls) {
        list.push_back({{"id", c.id},
                        {"type", "function"},
                        {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
      }
      choice["message"]["tool_calls"] = std::move(list);
    }
  } else {
    choice["text"] = text;
  }
  j["choices"] = json::array({choice});
  j["usage"] = usage_json(usage);
  return dump(j);
}

std::string chunk_body(const ResponseHead& head, const ChunkFields& f) {
  json j = head_json(head, true);
  if (f.usage) {
    j["choices"] = json::array();
    j["usage"] = usage_json(*f.usage);
    return dump(j);
  }
  json finish = nullptr;
  if (f.finish) finish = f.finish_tool_calls ? "tool_calls" : finish_reason_name(*f.finish);
  json choice = {{"index", 0}, {"finish_reason", finish}, {"logprobs", nullptr}};
  if (head.endpoint == Endpoint::ChatCompletions) {
    json delta = json::object();
    if (f.role) delta["role"] = "assistant";
    if (f.reasoning) delta["reasoning_content"] = *f.reasoning;
    if (f.text) delta["content"] = *f.text;
    if (f.call) {
      json call = {{"index", f.call->index}};
      if (f.call->id) call["id"] = *f.call->id, call["type"] = "function";
      json function = {{"arguments", f.call->arguments}};
      if (f.call->name) function["name"] = *f.call->name;
      call["function"] = std::move(function);
      delta["tool_calls"] = json::array({call});
    }
    choice["delta"] = delta;
  } else {
    choice["text"] = f.text.value_or("");
  }
  j["choices"] = json::array({choice});
  if (f.usage_null) j["usage"] = nullptr;
  return dump(j);
}

std::string sse_event(std::string_view json_text) {
  std::string s = "data: ";
  s += json_text;
  s += "\n\n";
  return s;
}

std::string_view sse_done() { return "data: [DONE]\n\n"; }

}  // namespace kvchat::server
