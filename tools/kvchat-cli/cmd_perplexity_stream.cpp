// perplexity --stream: the text as one conversation far longer than the context, so that
// the context policy decides what the model still sees (docs/KV_CACHE.md, "A chat that
// never ends: the policies measured").
//
// Method:
//  - The file is tokenized with BOS first, as for the windowed method. BOS is the kept
//    prefix (set_keep(1)); sink-window keeps at least --sink-tokens tokens.
//  - BOS is evaluated, then the text in turns of --turn-tokens tokens (32 by default),
//    each marked as a turn (mark_turn: drop-oldest drops whole turns) and evaluated in one
//    Session::eval with all logits. Whenever a turn does not fit, the policy makes room.
//  - Every text token is scored once: the first token of a turn from the logits after the
//    previous one (Session::last_logits), the others from the turn's own rows. NLL and
//    perplexity as in the windowed method (log-softmax in double).
//  - Under stop the first turn that does not fit ends the run: the tokens scored until
//    then are reported with "stopped_at" (the text token where it stopped).
//  - tokens_evaluated counts what the forward pass ran (BOS, every text token once, and
//    what drop-oldest re-evaluated); seconds is the wall time of the whole loop.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "numeric/log_softmax.h"

namespace kvchat::cli {

namespace {

struct StreamScores {
  double nll = 0;
  uint64_t scored = 0;
  int32_t policy_events = 0;  // context-shifted and turns-dropped events
  uint64_t reevaluated = 0;   // tokens a policy evaluated again
  uint64_t evaluated = 0;     // tokens the forward pass ran
  double seconds = 0;
  int64_t stopped_at = -1;  // the text token the run stopped at (policy stop), else -1
  std::string stop_message;
};

// Feeds BOS then the text in turns of `turn` tokens through `sess`, scoring every token.
Result<StreamScores> score_stream(Session& sess, const std::vector<TokenId>& ids, int32_t turn,
                                  int32_t n_vocab) {
  StreamScores sc;
  sess.set_event_handler([&sc](const SessionEvent& e) {
    if (e.kind == SessionEvent::Kind::ContextShifted ||
        e.kind == SessionEvent::Kind::TurnsDropped) {
      ++sc.policy_events;
      sc.reevaluated += static_cast<uint64_t>(e.tokens_reevaluated);
    }
  });
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t evaluated0 = sess.tokens_evaluated();
  sess.set_keep(1);
  if (auto s = sess.eval(std::span<const TokenId>(ids.data(), 1)); !s) return Error{s.message()};
  std::vector<float> logits;  // [chunk, n_vocab]
  std::vector<float> before;  // [n_vocab] the logits after the previous turn
  std::vector<double> lp;     // [n_vocab] log-probabilities
  auto score = [&](std::span<const float> row, TokenId next) {
    log_softmax(row, lp);
    sc.nll -= lp[next];
    ++sc.scored;
  };
  for (size_t start = 1; start < ids.size(); start += static_cast<size_t>(turn)) {
    const size_t len = std::min(static_cast<size_t>(turn), ids.size() - start);
    const std::span<const TokenId> chunk(ids.data() + start, len);
    before.assign(sess.last_logits().begin(), sess.last_logits().end());
    sess.mark_turn();
    if (auto s = sess.eval(chunk, &logits); !s) {
      if (sess.options().context_policy != ContextPolicy::Stop) return Error{s.message()};
      sc.stopped_at = static_cast<int64_t>(start - 1);
      sc.stop_message = s.message();
      break;
    }
    score(before, chunk[0]);
    for (size_t i = 1; i < len; ++i)
      score(std::span<const float>(logits.data() + (i - 1) * n_vocab, n_vocab), chunk[i]);
  }
  sc.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  sc.evaluated = sess.tokens_evaluated() - evaluated0;
  return sc;
}

}  // namespace

int perplexity_stream(const Args& args, Session& sess, const std::string& model_path,
                      const std::string& file, const std::vector<TokenId>& ids) {
  auto turn = args.get_int("--turn-tokens", 32);
  if (!turn) return fail(turn.message());
  if (*turn < 1 || *turn > sess.n_ctx() - 2)
    return fail("--turn-tokens must be between 1 and the context less 2 (" +
                std::to_string(sess.n_ctx() - 2) + ")");
  auto scores = score_stream(sess, ids, static_cast<int32_t>(*turn), sess.model().info().n_vocab);
  if (!scores) return fail(scores.message());
  const StreamScores& sc = *scores;
  const double ppl = sc.scored > 0 ? std::exp(sc.nll / static_cast<double>(sc.scored)) : 0.0;
  // Tokens fed (BOS and the text scored) per second of the loop, re-evaluations included.
  const double tps = sc.seconds > 0 ? static_cast<double>(sc.scored + 1) / sc.seconds : 0.0;
  const std::string policy(context_policy_name(sess.options().context_policy));
  if (args.has("--json")) {
    nlohmann::json j = {
        {"model", model_path},
        {"file", file},
        {"backend", std::string(sess.backend_name())},
        {"kv_type", sess.options().kv_type},
        {"ctx", sess.n_ctx()},
        {"context_policy", policy},
        {"sink_tokens", sess.options().sink_tokens},
        {"turn_tokens", *turn},
        {"text_tokens", ids.size() - 1},
        {"tokens", sc.scored},
        {"perplexity", ppl},
        {"policy_events", sc.policy_events},
        {"tokens_evaluated", sc.evaluated},
        {"tokens_reevaluated", sc.reevaluated},
        {"seconds", sc.seconds},
        {"tokens_per_second", tps},
        {"stopped_at", sc.stopped_at >= 0 ? nlohmann::json(sc.stopped_at) : nlohmann::json()},
    };
    std::printf("%s\n", json_text(j, 2).c_str());
    return 0;
  }
  std::printf(
      "text             %s: %zu tokens, one stream in turns of %lld through a context of %d\n",
      file.c_str(), ids.size() - 1, static_cast<long long>(*turn), sess.n_ctx());
  std::printf("policy           %s: %d events, %llu tokens re-evaluated\n", policy.c_str(),
              sc.policy_events, static_cast<unsigned long long>(sc.reevaluated));
  if (sc.stopped_at >= 0)
    std::printf("stopped          at text token %lld: %s\n", static_cast<long long>(sc.stopped_at),
                sc.stop_message.c_str());
  std::printf("perplexity       %.6f over %llu tokens\n", ppl,
              static_cast<unsigned long long>(sc.scored));
  std::printf("speed            %.1f tokens/s (%llu evaluated in %.2f s)\n", tps,
              static_cast<unsigned long long>(sc.evaluated), sc.seconds);
  return 0;
}

}  // namespace kvchat::cli
