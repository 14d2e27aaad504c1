// Conversation: one chat as the engine runs it. It owns the messages (and the system
// prompt), renders them with the model's ChatFormat, turns the text into token ids that
// keep every earlier reply exactly as it was sampled (token checkpoints), evaluates only
// what differs from the KV cache its Session already holds (prefix reuse), keeps the
// system prompt out of the context policies' reach, and appends each reply. The Qt app,
// kvchat-cli `chat` and the tests drive the same code; nothing here knows about Qt.
//
// Token checkpoints: each prompt as rendered and each prompt + its reply, with the exact
// ids that were evaluated for it. A new turn, a regenerate or an edit starts from the
// longest checkpoint its rendering begins with and tokenizes only the rest, because
// re-tokenizing a sampled reply's text need not give back the ids it was sampled as
// (which would make the cache miss from that reply on). When a context policy dropped or
// shifted tokens during a reply, the reply's checkpoint maps the whole text onto what the
// session still holds, so the next turn continues from the shortened sequence instead
// of overflowing again.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/chat_format.h"
#include "kvchat/chat_template.h"
#include "kvchat/generate.h"
#include "kvchat/kv_ram_tier.h"
#include "kvchat/reasoning.h"
#include "kvchat/result.h"
#include "kvchat/session.h"
#include "kvchat/summarize.h"
#include "kvchat/tool_calls.h"

namespace kvchat {

// What evaluating a conversation's prompt did.
struct PromptStats {
  int32_t prompt_tokens = 0;     // the rendered conversation, in tokens
  int32_t evaluated_tokens = 0;  // run through the forward pass
  int32_t reused_tokens = 0;     // prompt_tokens - evaluated_tokens: found in the cache
  int32_t kept_tokens = 0;       // the system prompt's, never dropped or shifted out
  double seconds = 0;            // the prefill's wall time
  // The tokens the session held beyond the prefix this prompt shares with them (its first
  // differing token on), dropped to evaluate it, and their KV (x the session's
  // kv_bytes_per_token). On the turn after a reasoning reply of a template that leaves
  // earlier reasoning out (Qwen 3, DeepSeek-R1), what the reasoning's leaving freed.
  int32_t released_tokens = 0;
  uint64_t released_kv_bytes = 0;
  // The prompt opened the reply's reasoning (prompt_opens_reasoning: DeepSeek-R1's ends
  // "<think>\n"): the reply's text starts inside it.
  bool opens_reasoning = false;
};

// A reply's reasoning apart from its answer (kvchat/reasoning.h), for the new text of the
// reply (a continue_reply(): what it added). The reply's text in messages() stays the raw
// sampled text, markers included: the template decides how history renders it.
struct ReasoningStats {
  std::string thinking;  // the reasoning, without its markers and surrounding whitespace
  std::string answer;    // the rest: what the user reads as the reply
  // Sampled tokens whose bytes lie in the reasoning (its markers included); the others
  // count as the answer's.
  int32_t thinking_tokens = 0;
  // From the first sampled token until the reasoning closed (or the reply ended while it
  // was open); 0 without reasoning.
  double thinking_seconds = 0;
  // The KV the reasoning's tokens take: thinking_tokens x the session's kv_bytes_per_token
  // (the KV type in use).
  uint64_t thinking_kv_bytes = 0;
  bool opened = false;  // the reply had reasoning (it opened it, or the prompt did)
  bool closed = false;  // ... and it ended with the close marker (false: cut while thinking)
};

struct ConversationReply {
  PromptStats prompt;
  GenerateResult generated;  // text cut before a stop string; stats of the decode
  ReasoningStats reasoning;
  // With tools offered (set_tools): the calls the reply made, ids set, as messages()
  // keeps them on the reply; and the answer's text without them (reasoning.answer with
  // the calls cut out). Without calls, answer_text = reasoning.answer.
  std::vector<ToolCall> tool_calls;
  std::string answer_text;
};

struct ReplyCallbacks {
  std::function<void(const PromptStats&)> on_prompt;  // after the prompt is evaluated
  // The streamed reply; false stops. Without on_thinking it gets the raw text (reasoning
  // and markers included); with it, only the answer's text.
  TextCallback on_text;
  std::function<bool()> cancelled;  // checked after the prompt: true = no token sampled
  // Set: the reasoning's text streams here (without markers), the answer's to on_text.
  TextCallback on_thinking;
};
// With tools offered, on_text gets the answer only up to where a call may begin (the
// call itself is ConversationReply::tool_calls, not text).

// An OpenAI-style message list (system or developer turns anywhere among the others) as a
// Conversation holds it: the system turns joined in order, a blank line apart, into the
// system prompt; every other turn in order after it.
struct SystemAndTurns {
  std::string system;
  std::vector<ChatMessage> turns;
};
SystemAndTurns split_system_turns(const std::vector<ChatMessage>& messages);

// A prompt as a Conversation renders it for a new reply, without a session: the text of
// system + messages through the format (the assistant's turn opened after a user message),
// its ids (the format's tokenization: no checkpoints), and whether it leaves the reply
// inside reasoning (prompt_opens_reasoning with the format's markers).
struct RenderedPrompt {
  std::string text;
  std::vector<TokenId> ids;
  bool opens_reasoning = false;
};

class Conversation {
 public:
  // `format` is `session`'s model's (it refers to that model's tokenizer, which the
  // session keeps alive).
  Conversation(std::unique_ptr<Session> session, ChatFormat format);
  ~Conversation();
  Conversation(Conversation&&) noexcept;
  Conversation& operator=(Conversation&&) noexcept;

  Session& session() { return *session_; }
  const Session& session() const { return *session_; }
  const ChatFormat& format() const { return format_; }
  // Another format for the same model: the texts evaluated so far are forgotten (the
  // cache stays; prefix reuse still compares token ids).
  void set_format(ChatFormat format);

  // ---- tools (kvchat/tool_calls.h, kvchat/tool_loop.h) ----------------------------------
  // The functions replies may call: rendered as the template's call format asks, each
  // reply constrained so a call is well-formed (tool_call_constraint), its calls parsed
  // into ConversationReply::tool_calls and kept on the assistant's message. The template
  // and the tools' text are kept out of the context policies' reach with the system
  // prompt. An empty request: none (earlier calls and results still render).
  void set_tools(ToolRequest tools) { tools_ = std::move(tools); }
  const ToolRequest& tools() const { return tools_; }
  // The choice the next replies' grammar follows instead of tools().choice, the prompt
  // unchanged (so the cache still holds it): the tool loop lets the replies that read
  // results answer freely after a required call. nullopt: tools().choice.
  void set_reply_choice(std::optional<ToolChoice> choice) { reply_choice_ = std::move(choice); }
  ToolCallFormat tool_call_format() const { return call_format_; }
  // The tokens the offered tools' definitions add to the prompt (what they take in the
  // KV cache: x the session's kv_bytes_per_token); 0 without tools.
  int32_t tool_definition_tokens() const;
  // The result of call `call_id` as a tool message after the reply that made it.
  void add_tool_result(const ToolCall& call, std::string text);

  // ---- messages -------------------------------------------------------------------
  const std::string& system_prompt() const { return system_; }
  void set_system_prompt(std::string text) { system_ = std::move(text); }
  const std::vector<ChatMessage>& messages() const { return messages_; }
  // The whole history at once (the app's database is its source of truth).
  void set_messages(std::vector<ChatMessage> messages) { messages_ = std::move(messages); }
  void add_user(std::string text);
  // Replaces user message `index` (0-based in messages()) and drops what follows it.
  Status edit(size_t index, std::string text);
  // Drops the last user message and everything after it (its reply).
  Status undo();
  // Drops the reply after the last user message, so that reply() writes it again.
  Status drop_last_reply();
  // No messages, an empty cache, no checkpoints (the system prompt stays).
  void clear();

  // ---- tokens and evaluation --------------------------------------------------------
  // The token ids `messages` after `system` would be evaluated as now (checkpoints
  // reused, nothing evaluated): the assistant's turn is opened when the last message is
  // the user's. A template that refuses the conversation is an error.
  Result<std::vector<TokenId>> tokens_for(std::string_view system,
                                          const std::vector<ChatMessage>& messages) const;
  Result<std::vector<TokenId>> tokens() const { return tokens_for(system_, messages_); }
  // What tokens_for() renders, for a caller that holds its sessions itself (the server's
  // pool): `messages` after `system` through `format`; a template that refuses them, or no
  // turn to answer, is an error.
  // `tools`: the functions the reply may call (kvchat/tool_calls.h: rendered as the
  // template's call format asks; earlier calls and results in `messages` rendered back).
  static Result<RenderedPrompt> prompt_for(const ChatFormat& format, std::string_view system,
                                           const std::vector<ChatMessage>& messages,
                                           const ToolRequest& tools = {});

  // Evaluates the conversation's prompt, reusing the cache up to the first differing
  // token, then generates the assistant's reply and appends it to messages() (also a
  // reply stopped early: the text so far). On an error the messages are unchanged.
  // A prompt the context cannot hold under any policy is refused before the cache is
  // touched (what the session holds, its token count and the checkpoints stay as they were).
  Result<ConversationReply> reply(const GenerateOptions& options,
                                  const ReplyCallbacks& callbacks = {});
  // add_user(text), then reply(); on an error (a template that refuses the message, a
  // message the context cannot hold) the message is not kept: the conversation is exactly
  // as it was, so the next message or an undo does not meet the refused one.
  Result<ConversationReply> reply_to(std::string text, const GenerateOptions& options,
                                     const ReplyCallbacks& callbacks = {});
  // Continue: the last message is the assistant's (a reply cut at the length limit, or
  // stopped); the conversation is rendered with that reply left open (no end-of-turn
  // after it), and more is generated and appended to it. The reply's sampled ids are
  // reused (its checkpoint), so only its last token is evaluated before sampling: a greedy
  // reply cut at N tokens and continued for N more gives the ids of one uncut greedy
  // reply of 2N. The result holds only the new text and ids. An error (no assistant
  // message last, a template that cannot leave the reply open) changes nothing.
  Result<ConversationReply> continue_reply(const GenerateOptions& options,
                                           const ReplyCallbacks& callbacks = {});

  // ---- a document summarized into the conversation -----------------------------------
  // Summarizes `reader`'s document on this conversation's session (kvchat::summarize_document
  // with `options`, `done` and `callbacks`, see kvchat/summarize.h): the session's cache is
  // the pipeline's scratch, so it is emptied (the next reply evaluates the conversation
  // again; the token checkpoints stay valid). When the summary is finished, the exchange
  // is appended: `request` as the user's message and the summary as the assistant's reply,
  // so the next turn talks about it. Cancelled or failed: the messages are unchanged (a
  // cancelled result holds the partials written so far, to resume with as `done`).
  Result<SummaryResult> summarize_document(DocumentReader& reader, std::string request,
                                           const SummarizeOptions& options,
                                           const std::vector<PartialSummary>& done = {},
                                           const SummarizeCallbacks& callbacks = {});

  // ---- the KV state on disk (the session's snapshot format) ---------------------------
  Status save_snapshot(const std::string& path) const { return session_->save_snapshot(path); }
  // Restores the session's tokens and cache; the texts are forgotten (the next reply
  // re-tokenizes and reuses the cache by token ids). On failure the cache is emptied and
  // the error says why.
  Status restore_snapshot(const std::string& path);
  // Forgets the texts (the session's cache is kept).
  void forget_texts() {
    checkpoints_.clear();
    last_reply_ = {};
  }
  size_t checkpoint_count() const { return checkpoints_.size(); }

  // ---- the KV state in RAM (kvchat/kv_ram_tier.h) --------------------------------------
  // Session::park with this conversation's token checkpoints, so that coming back re-uses
  // every sampled reply's ids as they were (0 tokens evaluated for a prompt the cache holds).
  ParkedKvPtr park() const;
  // Session::resume, and the checkpoints parked with it; an error changes nothing.
  Status resume(ParkedKvPtr parked);

 private:
  struct Checkpoint {
    std::string text;
    std::vector<TokenId> ids;
  };
  // The rendered text of system + messages and its ids from the longest checkpoint.
  struct Rendered {
    std::string text;
    std::vector<TokenId> ids;
  };
  Result<Rendered> render(std::string_view system, const std::vector<ChatMessage>& messages) const;
  // The text of system + messages with the last (assistant) message left open: what its
  // template puts before the reply, then the reply's text. Its ids as in render().
  Result<Rendered> render_open_reply(std::string_view system,
                                     const std::vector<ChatMessage>& messages) const;
  // Ids for `text` from the longest checkpoint it begins with (else the format's
  // tokenization).
  std::vector<TokenId> ids_for(const std::string& text) const;
  // Prompt evaluation and generation shared by reply() and continue_reply().
  // `reply_so_far`: the text of the reply being continued, at the end of prompt.text
  // (where the reasoning state starts from); empty for a new reply.
  Result<ConversationReply> run(const Rendered& prompt, bool starts_turn,
                                const GenerateOptions& options, const ReplyCallbacks& callbacks,
                                std::string_view reply_so_far = {});
  void add_checkpoint(std::string text, std::vector<TokenId> ids);
  int32_t system_prompt_tokens(std::span<const TokenId> ids) const;

  // system + messages through the format with the tools (render_with_tools).
  Result<std::string> render_text(std::string_view system,
                                  const std::vector<ChatMessage>& messages) const;
  // The reply's calls parsed from its answer (tools offered), ids new.
  void split_calls(ConversationReply& reply);

  std::unique_ptr<Session> session_;
  ChatFormat format_;
  ToolRequest tools_;
  std::optional<ToolChoice> reply_choice_;
  ToolCallFormat call_format_ = ToolCallFormat::Generic;
  uint64_t call_id_rng_ = 0x6b7663686174ull;  // call ids (new_tool_call_id)
  std::string system_;
  std::vector<ChatMessage> messages_;
  std::vector<Checkpoint> checkpoints_;
  // The last reply with all its sampled ids (the last one not yet evaluated), when its
  // text is exactly their bytes: what continue_reply() starts from. Not a checkpoint (a
  // next turn keeps tokenizing from the evaluated ids).
  Checkpoint last_reply_;
};

// What switching a conversation's KV through the RAM tier did.
struct KvSwitch {
  bool parked = false;      // what the conversation held was kept in the tier
  bool from_ram = false;    // the entered state came from the tier (nothing re-evaluated)
  int32_t held_tokens = 0;  // tokens the session holds afterwards
  std::string note;         // why a tier entry could not be resumed; empty otherwise
};
// Another conversation: parks what `conversation` holds under `leave_key` (kind
// Conversation; nothing when leave_key is empty or it holds nothing), then resumes the
// most recently parked entry whose key starts with `enter_prefix`; without one the session
// is emptied (the caller restores a disk snapshot, or the next reply re-evaluates).
// Enforces the tier's budget last (the blocks the session let go of count as the tier's).
KvSwitch switch_conversation_kv(KvRamTier& tier, Conversation& conversation,
                                const std::string& leave_key, std::string_view enter_prefix);
// Another branch of the same conversation, whose prompt is `target`: parks what the
// session holds under `leave_key` (kind Branch), then resumes the entry under
// `enter_prefix` that shares the longest prefix with `target` when it shares more than
// the session does; else keeps the prefix the session shares with it (truncates). The
// budget is enforced last.
KvSwitch switch_branch_kv(KvRamTier& tier, Conversation& conversation, const std::string& leave_key,
                          std::string_view enter_prefix, std::span<const TokenId> target);
// An edit or a regenerate is about to make `target` the conversation's prompt: when target
// forks from what the session holds (the session would drop tokens past the fork), that
// state waits in the tier as a branch under `leave_key` first (its blocks shared, nothing
// copied), so switching back to it later evaluates nothing. Returns whether it parked.
bool park_branch_before_fork(KvRamTier& tier, Conversation& conversation,
                             const std::string& leave_key, std::span<const TokenId> target);

// The memory panel's figures as text (kvchat-cli chat's /memory): weights, KV used and
// allocated, scratch, the formula with this model's numbers, per layer, the context and
// its policy, and what each KV type would cost and how much context it would fit.
std::string describe_memory(const Session& session);

}  // namespace kvchat
