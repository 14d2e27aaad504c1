// One request's generation on one leased session: prefix reuse, sampling (with OpenAI's
// frequency/presence penalties), stop strings held back while streaming, cancellation.
// Kept in one function so that a batched decode across sessions can replace it.
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

namespace kvchat::server {

struct GenerationRequest {
  std::vector<TokenId> prompt;  // the whole prompt; what the session holds of it is reused
  int32_t max_tokens = 0;       // <= 0: until the context ends
  SamplingParams sampling;
  float frequency_penalty = 0, presence_penalty = 0;
  std::vector<std::string> stop_strings;
};

enum class FinishReason { Stop, Length, Cancelled };

struct GenerationOutcome {
  std::string text;  // cut before a stop string
  FinishReason finish = FinishReason::Stop;
  int32_t prompt_tokens = 0;
  int32_t cached_tokens = 0;  // prompt tokens whose KV the session already held
  int32_t completion_tokens = 0;
};

// on_text gets safe text pieces (whole UTF-8 characters, no possible stop-string
// prefix); returning false cancels. `cancel` is checked before every step.
Result<GenerationOutcome> run_generation(Session& session, const GenerationRequest& request,
                                         const std::atomic<bool>& cancel,
                                         const std::function<bool(std::string_view)>& on_text);

}  // namespace kvchat::server
