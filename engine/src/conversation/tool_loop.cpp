#include "kvchat/tool_loop.h"

#include <algorithm>
#include <chrono>

#include "util/printable.h"

namespace kvchat {

namespace {

// The note the model reads after a cut result, and the front end's words for it.
std::string cut_words(int32_t keep, int32_t whole, const std::string& why) {
  return with_commas(keep) + " of " + with_commas(whole) + " tokens kept" + why;
}
std::string cut_marker(const std::string& words) {
  return "\n[kvchat: the tool's output was cut here; " + words + "]";
}

// The result as the model will read it: the tool's text, cut at the limit and to what the
// context can still hold with reply_reserve_tokens (at most half of what is free) free
// after it (the tool message's own wrapping and the cut's note counted).
void fit_result(ToolRun& run, Conversation& c, const ToolLoopOptions& loop) {
  const Tokenizer& tok = c.session().model().tokenizer();
  const std::vector<TokenId> ids = tok.encode_continuation(run.result);
  run.original_tokens = static_cast<int32_t>(ids.size());
  std::vector<ChatMessage> probe = c.messages();
  probe.push_back({"tool", ""});
  probe.back().tool_call_id = run.call.id;
  probe.back().name = run.call.name;
  auto wrapped = c.tokens_for(c.system_prompt(), probe);
  const int32_t used = wrapped ? static_cast<int32_t>(wrapped->size()) : c.session().n_past();
  const int32_t free_tokens = c.session().n_ctx() - used;
  const std::string fit_why =
      " to fit the context (" + with_commas(std::max(0, free_tokens)) + " tokens were free)";
  const auto note_tokens = static_cast<int32_t>(
      tok.encode_continuation(cut_marker(cut_words(99999, 99999, fit_why))).size());
  // A small context keeps at most half of what is free for the reply.
  const int32_t reserve = std::min(loop.reply_reserve_tokens, std::max(0, free_tokens) / 2);
  const int32_t room = free_tokens - reserve - note_tokens;
  const int32_t keep = std::max(0, std::min(loop.max_result_tokens, room));
  // A short text is kept whole when its cut (with the note) would be no shorter: a refusal
  // or an error is read as it is.
  const bool cut = run.original_tokens > keep && (run.original_tokens > loop.max_result_tokens ||
                                                  run.original_tokens > keep + note_tokens);
  if (cut) {
    std::string kept;
    for (int32_t i = 0; i < keep; ++i) kept += tok.token_bytes(ids[static_cast<size_t>(i)]);
    run.cut_note = cut_words(keep, run.original_tokens,
                             keep < loop.max_result_tokens
                                 ? fit_why
                                 : " (the limit is " + with_commas(loop.max_result_tokens) + ")");
    run.result = kept + cut_marker(run.cut_note);
    run.result_tokens = static_cast<int32_t>(tok.encode_continuation(run.result).size());
  } else {
    run.result_tokens = run.original_tokens;
  }
  run.kv_bytes =
      static_cast<uint64_t>(run.result_tokens) * c.session().memory_report().kv_bytes_per_token;
}

ToolRun run_call(const ToolCall& call, Conversation& c, const ToolLoopOptions& loop,
                 const ToolRunner& runner, const ToolLoopCallbacks& cb) {
  ToolRun run;
  run.call = call;
  auto cancelled_now = [&] { return cb.reply.cancelled && cb.reply.cancelled(); };
  const ToolConsent consent = cancelled_now() ? ToolConsent::Deny
                              : cb.consent    ? cb.consent(call)
                                              : ToolConsent::Deny;
  // Esc during an earlier call, or while this one was asked for: not run.
  if (cancelled_now()) {
    run.failed = run.stopped = true;
    run.result = "The user stopped the reply before this call of " + call.name + " ran.";
  } else if (consent == ToolConsent::Deny) {
    run.denied = true;
    run.result = denied_call_text(call);
  } else {
    if (cb.on_call) cb.on_call(call);
    const auto t0 = std::chrono::steady_clock::now();
    const std::function<bool()> cancelled =
        cb.reply.cancelled ? cb.reply.cancelled : std::function<bool()>([] { return false; });
    auto out = runner(call, cancelled);
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!out) {
      run.failed = true;
      run.result = "The call failed: " + out.message();
    } else {
      run.failed = out->is_error;
      run.result = std::move(out->text);
    }
  }
  fit_result(run, c, loop);
  c.add_tool_result(call, run.result);
  if (cb.on_result) cb.on_result(run);
  return run;
}

}  // namespace

std::string denied_call_text(const ToolCall& call) {
  return "The user did not allow this call of " + call.name + "; it was not run.";
}

Result<ToolLoopResult> reply_with_tools(Conversation& conversation, const GenerateOptions& options,
                                        const ToolLoopOptions& loop, const ToolRunner& run,
                                        const ToolLoopCallbacks& callbacks) {
  ToolLoopResult out;
  // The replies' own choice gone when this returns.
  struct RestoreChoice {
    Conversation& c;
    ~RestoreChoice() { c.set_reply_choice(std::nullopt); }
  } restore{conversation};
  int calls_in_a_row = 0, next_check = loop.max_calls;
  auto cancelled = [&] { return callbacks.reply.cancelled && callbacks.reply.cancelled(); };
  while (true) {
    auto reply = conversation.reply(options, callbacks.reply);
    if (!reply) {
      if (out.replies.empty()) return reply.error();
      return Error{"after " + std::to_string(out.runs.size()) + " tool calls: " + reply.message()};
    }
    if (callbacks.on_reply) callbacks.on_reply(*reply);
    const std::vector<ToolCall> calls = reply->tool_calls;
    out.replies.push_back(std::move(reply).value());
    if (calls.empty()) return out;
    for (const ToolCall& call : calls) {
      out.runs.push_back(run_call(call, conversation, loop, run, callbacks));
      ++calls_in_a_row;
    }
    if (cancelled()) {
      out.stopped = true;
      return out;
    }
    if (!loop.keep_choice && conversation.tools().choice.mode != ToolChoiceMode::Auto)
      conversation.set_reply_choice(ToolChoice{ToolChoiceMode::Auto, ""});
    if (calls_in_a_row >= next_check) {
      if (!callbacks.on_limit || !callbacks.on_limit(calls_in_a_row)) {
        out.stopped = true;
        return out;
      }
      next_check = calls_in_a_row + loop.max_calls;
    }
  }
}

}  // namespace kvchat
