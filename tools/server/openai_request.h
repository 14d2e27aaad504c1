// The OpenAI request bodies kvchat serves, parsed and validated (no HTTP here): the
// function the fuzz target drives. Every error names the field (message and param).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kvchat/chat_template.h"
#include "kvchat/sampler.h"
#include "kvchat/tool_calls.h"

namespace kvchat::server {

// An error in OpenAI's shape: {"error": {"message", "type", "param", "code"}}.
struct ApiError {
  int status = 400;
  std::string message;
  std::string type = "invalid_request_error";
  std::string param;  // the field, "" = null
  std::string code;   // "" = null
};

enum class Endpoint { ChatCompletions, Completions };

// OpenAI's defaults: temperature 1, top_p 1, top_k 0 and min_p 0 (off), no penalty.
inline SamplingParams openai_sampling_defaults() {
  SamplingParams p;
  p.temperature = 1.0f;
  p.top_p = 1.0f;
  p.top_k = 0;
  p.min_p = 0.0f;
  p.repeat_penalty = 1.0f;
  return p;
}

struct CompletionRequest {
  Endpoint endpoint = Endpoint::ChatCompletions;
  std::string model;
  std::vector<ChatMessage> messages;  // chat: system, user, assistant turns in order
  std::string prompt;                 // completions
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  int32_t max_tokens = 0;      // 0: unset (the server's default)
  // OpenAI's sampling fields (temperature, top_p, top_k, min_p, frequency_penalty,
  // presence_penalty) checked against the engine's ranges (kvchat/sampling_config.h); an
  // absent one keeps OpenAI's default (temperature 1, top_p 1, top_k and min_p off).
  SamplingParams sampling = openai_sampling_defaults();
  // The seed the request gave; absent or negative: a fresh random one (kvchat::resolve_seed).
  std::optional<uint64_t> seed;
  std::vector<std::string> stop;
  // logit_bias: token id -> bias in [-100, 100] added to its logit before sampling (-100
  // bans it); ids checked against the vocabulary by the route (the model is not known here).
  std::vector<std::pair<int32_t, float>> logit_bias;
  // chat_template_kwargs.enable_thinking (llama.cpp's server takes it so): the template's
  // enable_thinking for this request; unset = the server's setting.
  std::optional<bool> enable_thinking;
  // tools, tool_choice, parallel_tool_calls (chat only): the functions the reply may call.
  ToolRequest tools;
  // response_format: the JSON Schema the reply must be an instance of (json_object:
  // kJsonObjectSchema); "" = text.
  std::string response_schema;
};

inline constexpr int kMaxJsonDepth = 32;
inline constexpr size_t kMaxStopStrings = 16;
inline constexpr size_t kMaxStopBytes = 256;
inline constexpr size_t kMaxLogitBias = 1024;  // entries
inline constexpr size_t kMaxTools = 128;
inline constexpr size_t kMaxToolCalls = 128;  // in one assistant message

struct ParsedRequest {
  std::optional<CompletionRequest> request;
  ApiError error;  // when !request
};
ParsedRequest parse_completion_request(std::string_view body, Endpoint endpoint);

// Deepest nesting of arrays/objects in JSON text (strings skipped); stops counting past
// `limit` (returns limit + 1).
int json_nesting_depth(std::string_view text, int limit);

}  // namespace kvchat::server
