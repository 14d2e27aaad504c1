// The OpenAI response bodies: completions, stream chunks, usage, errors, the model list;
// and the server-sent-event framing of a chunk.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "serving/generation.h"
#include "server/openai_request.h"

namespace kvchat::server {

// What the serving layer (engine/src/serving) says of a generation, in the server's words.
using serving::FinishReason;
using serving::GenerationOutcome;
using serving::GenerationRequest;

// The fields every response of one request shares.
struct ResponseHead {
  std::string id;       // "chatcmpl-…" or "cmpl-…"
  int64_t created = 0;  // unix seconds
  std::string model;
  Endpoint endpoint = Endpoint::ChatCompletions;
};

std::string new_completion_id(Endpoint endpoint);     // random, 24 hex digits after the prefix
std::string_view finish_reason_name(FinishReason f);  // "stop", "length" (cancelled: "stop")

struct Usage {
  int32_t prompt_tokens = 0, completion_tokens = 0, cached_tokens = 0;
};

std::string error_body(const ApiError& e);
// GET /v1/models and /v1/models/{id}: the model with its context as vLLM names it
// (max_model_len), so that a client (kvchat's Remote tab) can show it.
std::string model_body(std::string_view model_id, int64_t created, int64_t context_length);
std::string models_body(std::string_view model_id, int64_t created, int64_t context_length);
// A whole (non-streamed) completion. Chat: `text` is message.content (the answer), and a
// non-empty `reasoning` is message.reasoning_content (absent when empty); calls are
// message.tool_calls (content null when there is no text) with finish_reason "tool_calls".
std::string completion_body(const ResponseHead& head, std::string_view text, FinishReason finish,
                            const Usage& usage, std::string_view reasoning = {},
                            const std::vector<ToolCall>& calls = {});
// One piece of a streamed call, as the OpenAI SDK assembles them: the first piece of call
// `index` carries its id, type and name, the next ones pieces of its arguments.
struct ToolCallDelta {
  int index = 0;
  std::optional<std::string> id, name;
  std::string arguments;
};
// A stream chunk: the first carries the role (chat), the content ones text (chat: the
// reasoning's pieces as delta.reasoning_content, then the answer's as delta.content), the last the
// finish reason; with include_usage every chunk has "usage": null and a final one with
// empty choices carries it.
struct ChunkFields {
  bool role = false;
  std::optional<std::string> text;
  std::optional<std::string> reasoning;  // chat: delta.reasoning_content
  std::optional<ToolCallDelta> call;     // chat: delta.tool_calls[0]
  std::optional<FinishReason> finish;
  bool finish_tool_calls = false;  // with finish: "tool_calls"
  bool usage_null = false;
  std::optional<Usage> usage;  // the usage-only chunk (choices: [])
};
std::string chunk_body(const ResponseHead& head, const ChunkFields& fields);

// "data: <json>\n\n"; sse_done() is "data: [DONE]\n\n".
std::string sse_event(std::string_view json);
std::string_view sse_done();

}  // namespace kvchat::server
