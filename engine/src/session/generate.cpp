#include "kvchat/generate.h"

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "session/reply_grammar.h"
#include "session/text_stream.h"

namespace kvchat {

std::string_view stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::Eos: return "eos";
    case StopReason::StopString: return "stop-string";
    case StopReason::MaxTokens: return "max-tokens";
    case StopReason::ContextFull: return "context-full";
    case StopReason::Cancelled: return "cancelled";
  }
  return "unknown";
}

double GenerateStats::prefill_tokens_per_second() const {
  return prefill_seconds > 0 ? prompt_tokens / prefill_seconds : 0;
}
double GenerateStats::decode_tokens_per_second() const {
  return decode_seconds > 0 ? generated_tokens / decode_seconds : 0;
}

Result<GenerateResult> generate(Session& session, std::span<const TokenId> prompt,
                                const GenerateOptions& options, const TextCallback& on_text) {
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  const Tokenizer& tok = session.model().tokenizer();
  GenerateResult result;

  const auto t0 = Clock::now();
  if (!prompt.empty()) {
    if (auto s = session.eval(prompt); !s) return Error{s.message()};
  } else if (session.last_logits().empty()) {
    return Error{"nothing to continue from: the prompt is empty"};
  }
  const auto t1 = Clock::now();
  result.stats.prompt_tokens = static_cast<int32_t>(prompt.size());
  result.stats.prefill_seconds = seconds(t0, t1);

  Sampler sampler(options.sampling);
  auto grammar = ReplyGrammar::create(options, session.model());
  if (!grammar) return grammar.error();
  TextStream stream(options.stop_strings);
  std::vector<float> logits;
  bool cancelled = false;
  auto show = [&](const std::string& piece) {
    if (!piece.empty() && on_text && !on_text(piece)) cancelled = true;
  };

  result.stop_reason = StopReason::MaxTokens;
  while (static_cast<int32_t>(result.ids.size()) < options.max_tokens) {
    if (options.cancel && options.cancel->load()) {
      result.stop_reason = StopReason::Cancelled;
      break;
    }
    logits.assign(session.last_logits().begin(), session.last_logits().end());
    const TokenId next =
        sampler.sample(logits, session.tokens(), *grammar ? (*grammar)->filter() : nullptr);
    std::string bytes;
    if (*grammar) {
      auto accepted = (*grammar)->accept(next);
      if (!accepted) return accepted.error();
      bytes = std::move(*accepted);
    } else if (!tok.is_eog(next)) {
      bytes = tok.token_bytes(next);
    }
    result.ids.push_back(next);
    if (tok.is_eog(next)) {
      result.stop_reason = StopReason::Eos;
      break;
    }
    show(stream.push(bytes));
    if (stream.stopped()) {
      result.stop_reason = StopReason::StopString;
      break;
    }
    if (cancelled) {
      result.stop_reason = StopReason::Cancelled;
      break;
    }
    if (static_cast<int32_t>(result.ids.size()) >= options.max_tokens) break;
    if (!session.make_room(1)) {  // policy stop, or nothing left to drop (an event says so)
      result.stop_reason = StopReason::ContextFull;
      break;
    }
    const TokenId one[1] = {next};
    const Status evaluated =
        options.decode_step ? options.decode_step(session, next) : session.eval(one);
    if (!evaluated) return Error{evaluated.message()};
  }
  if (!stream.stopped()) show(stream.finish());
  result.text = stream.text();
  result.stats.generated_tokens = static_cast<int32_t>(result.ids.size());
  result.stats.decode_seconds = seconds(t1, Clock::now());
  return result;
}

}  // namespace kvchat
