// A reply that may call tools, to its end: the model's reply (its calls well-formed, see
// Conversation::set_tools), each call shown and run only with the user's consent, its
// result back to the model through the template's tool role, and the reply going on —
// several calls in a row up to a limit, then the user is asked whether to go on. Written
// once here for every front end: the window and `kvchat-cli chat` only map the callbacks
// (who asks for consent, who runs the call: kvchat/mcp_toolbox.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kvchat/conversation.h"
#include "kvchat/result.h"

namespace kvchat {

enum class ToolConsent {
  AllowOnce,    // run this call
  AllowAlways,  // run it, and the front end remembers the tool (its own list)
  Deny,         // do not run it; the model reads that the user refused
};

// What running a call gave (the text the model reads, or why there is none).
struct ToolOutput {
  std::string text;
  bool is_error = false;  // the tool failed (its words are the text)
};
// Runs a call; `cancelled` is polled while it runs (Esc). An Error is the call failing
// to run at all (the server crashed, timed out, was cancelled): the model reads it.
using ToolRunner =
    std::function<Result<ToolOutput>(const ToolCall& call, const std::function<bool()>& cancelled)>;

struct ToolLoopOptions {
  int max_calls = 8;                 // calls in a row before on_limit is asked
  int32_t max_result_tokens = 8000;  // a longer result is cut, and the cut said
  // Room kept free for the reply after a result: a result that would leave less than this
  // of the context (at most half of what is free before it) is cut to fit (and the cut said).
  int32_t reply_reserve_tokens = 256;
  // A required or named tool choice holds for the first reply; the replies that read the
  // results choose freely (auto: Conversation::set_reply_choice, the prompt unchanged), so
  // the model can answer. true: every reply keeps it.
  bool keep_choice = false;
};

// One call, as it ran.
struct ToolRun {
  ToolCall call;
  bool denied = false;
  bool stopped = false;         // Esc came before it ran: not run (failed too)
  bool failed = false;          // could not run (ToolRunner's Error) or the tool reported one
  std::string result;           // what the model reads (cut and noted when too long)
  int32_t result_tokens = 0;    // of `result`, in the model's tokens
  int32_t original_tokens = 0;  // of the tool's whole output
  std::string cut_note;         // "" or why the result was cut ("8,000 of 21,344 tokens kept")
  uint64_t kv_bytes = 0;        // result_tokens x the session's KV bytes per token
  double seconds = 0;
};

struct ToolLoopCallbacks {
  ReplyCallbacks reply;  // every reply's streaming (the first and each one after results)
  std::function<void(const ConversationReply&)> on_reply;  // each reply, its calls included
  std::function<ToolConsent(const ToolCall&)> consent;     // unset: every call is denied
  std::function<void(const ToolCall&)> on_call;            // about to run (after consent)
  std::function<void(const ToolRun&)> on_result;           // ran (or was denied)
  // max_calls calls ran in a row: true goes on for max_calls more, false stops (the last
  // results stay in the conversation; the next message continues from them).
  std::function<bool(int calls_so_far)> on_limit;
};

struct ToolLoopResult {
  std::vector<ConversationReply> replies;  // in order; the last one made no call (unless stopped)
  std::vector<ToolRun> runs;
  bool stopped = false;  // cancelled, or the user said no at the limit
};

// conversation.reply(), then for as long as a reply calls tools: each call asked for,
// run (or denied) and its result added; then a reply again. On an error the messages
// added so far stay (each reply and result is kept as it happened) and the error says
// where it stopped.
Result<ToolLoopResult> reply_with_tools(Conversation& conversation, const GenerateOptions& options,
                                        const ToolLoopOptions& loop, const ToolRunner& run,
                                        const ToolLoopCallbacks& callbacks);

// The text the model reads when the user denies a call.
std::string denied_call_text(const ToolCall& call);

}  // namespace kvchat
