// The decode loop: prefill a prompt, then sample token by token until EOS, a stop
// string, the token limit, the context end, or the caller says stop.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/grammar.h"
#include "kvchat/result.h"
#include "kvchat/sampler.h"
#include "kvchat/session.h"

namespace kvchat {

// A lazy grammar's trigger: the grammar applies from the first occurrence of `text` in
// the reply (the text from it on must be a sentence), the reply before it is free.
// at_start: only where the reply, leading whitespace aside, begins with it. after: the
// grammar applies after the trigger's text instead (a reasoning's end marker).
struct GrammarTrigger {
  std::string text;
  bool at_start = false;
  bool after = false;
};

struct GenerateOptions {
  int32_t max_tokens = 128;
  SamplingParams sampling;
  std::vector<std::string> stop_strings;  // generation ends before the first occurrence
  // Checked before each step (another thread may set it): set, the reply ends Cancelled.
  const std::atomic<bool>* cancel = nullptr;
  // Evaluates each sampled token after the session (after make_room(1)); empty:
  // session.eval({token}). The server decodes its requests together through it.
  std::function<Status(Session&, TokenId)> decode_step;
  // Set: every token continues a sentence of this grammar (kvchat/grammar.h), and the
  // reply ends with an end-of-generation token only where a sentence is complete.
  std::shared_ptr<const grammar::Grammar> grammar;
  // Set: the grammar waits for the first of these triggers (a tool call's marker) and the
  // reply is free until then; an occurrence whose continuation (in the same token) cannot
  // continue the grammar is passed over (" then" is not the trigger " the").
  std::vector<GrammarTrigger> grammar_triggers;
  // Special tokens, by their text ("[TOOL_CALLS]", "<|python_tag|>"), that the grammar and
  // the reply's text see as that text while a grammar is given (control tokens otherwise
  // have no text, and a grammar never allows them).
  std::vector<std::string> grammar_special_tokens;
};

enum class StopReason { Eos, StopString, MaxTokens, ContextFull, Cancelled };
std::string_view stop_reason_name(StopReason r);

struct GenerateStats {
  int32_t prompt_tokens = 0;  // tokens evaluated in the prefill
  int32_t generated_tokens = 0;
  double prefill_seconds = 0;
  double decode_seconds = 0;  // from the first sampled token to the end
  double prefill_tokens_per_second() const;
  double decode_tokens_per_second() const;
};

struct GenerateResult {
  std::vector<TokenId> ids;  // generated ids (EOS included when it ended the reply)
  std::string text;          // generated text, cut before a stop string
  StopReason stop_reason = StopReason::MaxTokens;
  GenerateStats stats;
};

// Receives streamed text in complete UTF-8 characters; return false to stop.
using TextCallback = std::function<bool(std::string_view)>;

// Evaluates `prompt` after what the session already holds, then generates.
Result<GenerateResult> generate(Session& session, std::span<const TokenId> prompt,
                                const GenerateOptions& options, const TextCallback& on_text = {});

}  // namespace kvchat
