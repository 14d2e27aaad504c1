#include "server/generation.h"

#include <unordered_map>

#include "session/text_stream.h"

namespace kvchat::server {

Result<GenerationOutcome> run_generation(Session& session, const GenerationRequest& request,
                                         const std::atomic<bool>& cancel,
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
  out.cached_tokens = out.prompt_tokens - *evaluated;
  if (out.cached_tokens < 0) out.cached_tokens = 0;

  const Tokenizer& tok = session.model().tokenizer();
  Sampler sampler(request.sampling);
  TextStream stream(request.stop_strings);
  std::vector<float> logits;
  std::unordered_map<TokenId, int32_t> counts;  // generated token -> times sampled
  bool cancelled = false;
  auto show = [&](const std::string& piece) {
    if (!piece.empty() && on_text && !on_text(piece)) cancelled = true;
  };
  const int32_t room = session.n_ctx() - session.n_past();
  const int32_t limit = request.max_tokens > 0 ? std::min(request.max_tokens, room) : room;
  out.finish = FinishReason::Length;
  while (out.completion_tokens < limit) {
    if (cancel.load()) {
      cancelled = true;
      break;
    }
    logits.assign(session.last_logits().begin(), session.last_logits().end());
    if (request.frequency_penalty != 0 || request.presence_penalty != 0) {
      for (const auto& [id, count] : counts) {  // OpenAI: logit -= c * freq + (c > 0) * pres
        logits[static_cast<size_t>(id)] -=
            static_cast<float>(count) * request.frequency_penalty + request.presence_penalty;
      }
    }
    const TokenId next = sampler.sample(logits, session.tokens());
    ++out.completion_tokens;
    if (next < 0 || tok.is_eog(next)) {
      out.finish = FinishReason::Stop;
      break;
    }
    ++counts[next];
    show(stream.push(tok.token_bytes(next)));
    if (stream.stopped()) {
      out.finish = FinishReason::Stop;
      break;
    }
    if (cancelled) break;
    if (out.completion_tokens >= limit) break;
    const TokenId one[1] = {next};
    if (auto s = session.eval(one); !s) return Error{s.message()};
  }
  if (cancelled) {
    out.finish = FinishReason::Cancelled;
  } else if (!stream.stopped()) {
    show(stream.finish());
  }
  out.text = stream.text();
  return out;
}

}  // namespace kvchat::server
