// One request's generation on one leased session: the prompt with prefix reuse
// (Session::eval_sequence), then kvchat::generate (sampling with OpenAI's penalties, stop
// strings held back while streaming, cancellation), its decode steps batched with the
// other requests' (DecodeBatcher), in OpenAI's terms.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/result.h"
#include "kvchat/sampler.h"
#include "kvchat/session.h"
#include "kvchat/tool_calls.h"
#include "serving/decode_batcher.h"

namespace kvchat::serving {

struct GenerationRequest {
  std::vector<TokenId> prompt;  // the whole prompt; what the session holds of it is reused
  int32_t max_tokens = 0;       // <= 0: until the context ends
  SamplingParams sampling;      // frequency/presence penalties included
  std::vector<std::string> stop_strings;
  ReplyConstraint constraint;  // a response format's or a tool call's grammar; none by default
};

enum class FinishReason { Stop, Length, Cancelled };

struct GenerationOutcome {
  std::string text;  // cut before a stop string
  FinishReason finish = FinishReason::Stop;
  int32_t prompt_tokens = 0;
  int32_t cached_tokens = 0;     // prompt tokens whose KV the session already held
  int32_t evaluated_tokens = 0;  // prompt tokens run through the model (the rest: cached)
  int32_t completion_tokens = 0;
};

// on_text gets safe text pieces (whole UTF-8 characters, no possible stop-string
// prefix); returning false cancels. `cancel` is checked before every step. Without a
// batcher each step is the session's own eval. A cancelled generation gives back the
// KV of what it generated (the session keeps the prompt, for a retry to reuse).
Result<GenerationOutcome> run_generation(Session& session, const GenerationRequest& request,
                                         const std::atomic<bool>& cancel, DecodeBatcher* batcher,
                                         const std::function<bool(std::string_view)>& on_text);

}  // namespace kvchat::serving
