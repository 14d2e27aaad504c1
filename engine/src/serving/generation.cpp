#include "serving/generation.h"

#include <algorithm>
#include <optional>

#include "kvchat/generate.h"

namespace kvchat::serving {

Result<GenerationOutcome> run_generation(Session& session, const GenerationRequest& request,
                                         const std::atomic<bool>& cancel, DecodeBatcher* batcher,
                                         const std::function<bool(std::string_view)>& on_text) {
  GenerationOutcome out;
  out.prompt_tokens = static_cast<int32_t>(request.prompt.size());
  if (request.prompt.empty()) return Error{"the prompt is empty"};
  if (out.prompt_tokens >= session.n_ctx()) {
    return Error{"the prompt has " + std::to_string(out.prompt_tokens) +
                 " tokens; the context holds " + std::to_string(session.n_ctx())};
  }
  if (cancel.load()) {
    out.finish = FinishReason::Cancelled;
    return out;
  }
  auto evaluated = session.eval_sequence(request.prompt, /*starts_turn=*/true);
  if (!evaluated) return Error{evaluated.message()};
  out.evaluated_tokens = *evaluated;
  out.cached_tokens = std::max(out.prompt_tokens - *evaluated, 0);

  GenerateOptions options;
  const int32_t room = session.n_ctx() - session.n_past();
  options.max_tokens = request.max_tokens > 0 ? std::min(request.max_tokens, room) : room;
  options.sampling = request.sampling;
  options.stop_strings = request.stop_strings;
  options.cancel = &cancel;
  apply_constraint(request.constraint, options);
  std::optional<DecodeBatchMembership> member;
  if (batcher) {
    member.emplace(*batcher);
    options.decode_step = [batcher](Session& s, TokenId t) { return batcher->decode(s, t); };
  }
  auto reply = generate(session, {}, options, on_text);  // continues from the prompt's logits
  member.reset();
  if (!reply) return Error{reply.message()};
  if (reply->stop_reason == StopReason::Cancelled) session.truncate(out.prompt_tokens);
  switch (reply->stop_reason) {
    case StopReason::Eos:
    case StopReason::StopString: out.finish = FinishReason::Stop; break;
    case StopReason::MaxTokens:
    case StopReason::ContextFull: out.finish = FinishReason::Length; break;
    case StopReason::Cancelled: out.finish = FinishReason::Cancelled; break;
  }
  out.completion_tokens = reply->stats.generated_tokens;
  out.text = std::move(reply->text);
  return out;
}

}  // namespace kvchat::serving
