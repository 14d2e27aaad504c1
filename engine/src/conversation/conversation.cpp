// Conversation: messages -> template text -> token ids (via checkpoints) -> prefix reuse
// on the session -> a reply appended. See kvchat/conversation.h.
#include "kvchat/conversation.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <optional>
#include <random>
#include <utility>

namespace kvchat {

namespace {

constexpr size_t kMaxCheckpoints = 64;

bool is_user(const ChatMessage& m) { return m.role == "user"; }

// The sampled tokens whose bytes lie in the reasoning (markers included), the reply's
// earlier text `before` (a continued reply) setting where it starts. An end-of-generation
// token (no text) goes with the token before it.
int32_t thinking_token_count(const Tokenizer& tok, const std::vector<TokenId>& ids,
                             const ReasoningMarkers& markers, bool starts_in_thinking,
                             std::string_view before) {
  std::string raw(before);
  std::vector<std::pair<size_t, size_t>> ranges;  // each token's bytes in raw
  ranges.reserve(ids.size());
  for (TokenId id : ids) {
    const size_t begin = raw.size();
    if (!tok.is_eog(id)) raw += tok.token_bytes(id);
    ranges.emplace_back(begin, raw.size());
  }
  const std::vector<ReasoningSpan> spans = reasoning_spans(raw, markers, starts_in_thinking);
  int32_t count = 0;
  bool last = starts_in_thinking;
  for (const auto& range : ranges) {
    const size_t begin = range.first, end = range.second;  // (clang 14 cannot capture bindings)
    if (begin < end) {
      last = std::any_of(spans.begin(), spans.end(),
                         [&](const ReasoningSpan& s) { return s.begin < end && begin < s.end; });
    }
    count += last ? 1 : 0;
  }
  return count;
}

using Clock = std::chrono::steady_clock;

// Generates the reply (unless cancelled before it starts) into out.generated, its text
// streamed through a ReasoningSplitter standing where reply_so_far (shown before) left
// it: the callbacks get the raw pieces, or with on_thinking the reasoning and the answer
// apart. out.reasoning gets each part's text, whether the reasoning opened and closed,
// and how long it ran.
Status stream_reply(Session& session, const GenerateOptions& options,
                    const ReplyCallbacks& callbacks, const ReasoningMarkers& markers,
                    bool starts_in_thinking, std::string_view reply_so_far,
                    ConversationReply& out) {
  ReasoningSplitter splitter(markers, starts_in_thinking);
  splitter.feed(reply_so_far);  // shown before; only its state matters
  const bool split_stream = static_cast<bool>(callbacks.on_thinking);
  const Clock::time_point decode_start = Clock::now();
  std::optional<Clock::time_point> thinking_end;
  auto deliver = [&](const ReasoningParts& d) {
    out.reasoning.thinking += d.thinking;
    out.reasoning.answer += d.answer;
    bool go_on = true;
    if (split_stream) {
      if (!d.thinking.empty()) go_on = callbacks.on_thinking(d.thinking) && go_on;
      if (!d.answer.empty() && callbacks.on_text) go_on = callbacks.on_text(d.answer) && go_on;
    }
    return go_on;
  };
  const TextCallback on_piece = [&](std::string_view piece) {
    bool go_on = true;
    if (!split_stream && callbacks.on_text) go_on = callbacks.on_text(piece);
    const bool was_thinking = splitter.in_thinking();
    const ReasoningParts d = splitter.feed(piece);
    if (was_thinking && !splitter.in_thinking()) thinking_end = Clock::now();
    return deliver(d) && go_on;
  };

  if (callbacks.cancelled && callbacks.cancelled()) {
    out.generated.stop_reason = StopReason::Cancelled;
  } else {
    auto r = generate(session, {}, options, on_piece);
    if (!r) return r.error();
    out.generated = std::move(r).value();
  }
  deliver(splitter.finish());
  ReasoningStats& rs = out.reasoning;
  rs.opened = splitter.saw_thinking();
  rs.closed = splitter.thinking_closed();
  if (rs.opened) {
    const Clock::time_point end =
        splitter.in_thinking() || !thinking_end ? Clock::now() : *thinking_end;
    rs.thinking_seconds = std::chrono::duration<double>(end - decode_start).count();
  }
  return {};
}

}  // namespace

Conversation::Conversation(std::unique_ptr<Session> session, ChatFormat format)
    : session_(std::move(session)),
      format_(std::move(format)),
      call_format_(detect_tool_call_format(format_)) {
  // Call ids differ from one Conversation to the next: a conversation stored and continued
  // later (another Conversation) never gets an id its earlier calls have.
  std::random_device entropy;
  call_id_rng_ ^= (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
}

Conversation::~Conversation() = default;
Conversation::Conversation(Conversation&&) noexcept = default;
Conversation& Conversation::operator=(Conversation&&) noexcept = default;

void Conversation::set_format(ChatFormat format) {
  format_ = std::move(format);
  // The prompts of the new format share nothing with the old one's texts.
  forget_texts();
}

// ---- messages -------------------------------------------------------------------------

void Conversation::add_user(std::string text) { messages_.push_back({"user", std::move(text)}); }

Status Conversation::edit(size_t index, std::string text) {
  if (index >= messages_.size()) {
    return Error{"there is no message " + std::to_string(index + 1) + " (the conversation has " +
                 std::to_string(messages_.size()) + ")"};
  }
  if (!is_user(messages_[index])) {
    return Error{"message " + std::to_string(index + 1) + " is the " + messages_[index].role +
                 "'s: only a user message can be edited"};
  }
  messages_.resize(index + 1);
  messages_[index].content = std::move(text);
  return {};
}

Status Conversation::undo() {
  auto last_user = std::find_if(messages_.rbegin(), messages_.rend(), is_user);
  if (last_user == messages_.rend()) return Error{"nothing to undo: no user message"};
  messages_.erase(std::prev(last_user.base()), messages_.end());
  return {};
}

Status Conversation::drop_last_reply() {
  auto last_user = std::find_if(messages_.rbegin(), messages_.rend(), is_user);
  if (last_user == messages_.rend()) return Error{"nothing to regenerate: no user message"};
  messages_.erase(last_user.base(), messages_.end());
  return {};
}

void Conversation::clear() {
  messages_.clear();
  checkpoints_.clear();
  last_reply_ = {};
  session_->truncate(0);
}

// ---- tokens -----------------------------------------------------------------------------

Result<std::string> Conversation::render_text(std::string_view system,
                                              const std::vector<ChatMessage>& messages) const {
  return render_with_tools(format_, system, messages, tools_, call_format_);
}

Result<Conversation::Rendered> Conversation::render(
    std::string_view system, const std::vector<ChatMessage>& messages) const {
  auto text = render_text(system, messages);
  if (!text) return text.error();
  Rendered out;
  out.text = std::move(text).value();
  out.ids = ids_for(out.text);
  return out;
}

std::vector<TokenId> Conversation::ids_for(const std::string& text) const {
  // Continuing or regenerating in the same conversation: keep the exact tokens already
  // evaluated and tokenize only what was appended; otherwise tokenize the whole text.
  const Checkpoint* base = nullptr;
  for (const Checkpoint& c : checkpoints_) {
    if (text.size() >= c.text.size() && text.compare(0, c.text.size(), c.text) == 0 &&
        (!base || c.text.size() > base->text.size())) {
      base = &c;
    }
  }
  if (!base) return format_.tokenize(text);
  std::vector<TokenId> ids = base->ids;
  const std::vector<TokenId> more = session_->model().tokenizer().encode_continuation(
      std::string_view(text).substr(base->text.size()));
  ids.insert(ids.end(), more.begin(), more.end());
  return ids;
}

Result<Conversation::Rendered> Conversation::render_open_reply(
    std::string_view system, const std::vector<ChatMessage>& messages) const {
  if (messages.empty() || messages.back().role != "assistant") {
    return Error{"nothing to continue: the last message is not the assistant's"};
  }
  // The template renders a marker in place of the reply; the text before the marker is
  // what it puts before any reply (the assistant's turn opened), whatever it puts after.
  static constexpr std::string_view kMarker = "\x1f kvchat open reply \x1f";
  std::vector<ChatMessage> marked = messages;
  marked.back().content = std::string(kMarker);
  auto text = render_text(system, marked);
  if (!text) return text.error();
  const size_t at = text->find(kMarker);
  if (at == std::string::npos) {
    return Error{
        "the chat template does not show the assistant's reply as written: it cannot be continued"};
  }
  Rendered out;
  out.text = text->substr(0, at) + messages.back().content;
  if (!last_reply_.ids.empty() && out.text == last_reply_.text) {
    out.ids = last_reply_.ids;  // the reply's own sampled ids, its last one included
  } else {
    out.ids = ids_for(out.text);
  }
  return out;
}

SystemAndTurns split_system_turns(const std::vector<ChatMessage>& messages) {
  SystemAndTurns out;
  for (const ChatMessage& m : messages) {
    if (m.role == "system") {
      if (!out.system.empty()) out.system += "\n\n";
      out.system += m.content;
    } else {
      out.turns.push_back(m);
    }
  }
  return out;
}

Result<RenderedPrompt> Conversation::prompt_for(const ChatFormat& format, std::string_view system,
                                                const std::vector<ChatMessage>& messages,
                                                const ToolRequest& tools) {
  if (messages.empty()) return Error{"no message to answer"};
  auto text = render_with_tools(format, system, messages, tools, detect_tool_call_format(format));
  if (!text) return text.error();
  RenderedPrompt out;
  out.ids = format.tokenize(*text);
  out.opens_reasoning = prompt_opens_reasoning(*text, format.reasoning_markers());
  out.text = std::move(text).value();
  return out;
}

Result<std::vector<TokenId>> Conversation::tokens_for(
    std::string_view system, const std::vector<ChatMessage>& messages) const {
  auto r = render(system, messages);
  if (!r) return r.error();
  return std::move(r->ids);
}

void Conversation::add_checkpoint(std::string text, std::vector<TokenId> ids) {
  // Keep the checkpoints whose ids the new one starts with (the same conversation);
  // the others belong to a branch that was edited away.
  std::erase_if(checkpoints_, [&](const Checkpoint& c) {
    return c.text == text || c.ids.size() > ids.size() ||
           !std::equal(c.ids.begin(), c.ids.end(), ids.begin());
  });
  checkpoints_.push_back({std::move(text), std::move(ids)});
  if (checkpoints_.size() > kMaxCheckpoints) checkpoints_.erase(checkpoints_.begin());
}

// The system prompt's tokens: what every rendering shares with the system-only one (a
// template that cannot render a system turn alone keeps nothing).
int32_t Conversation::system_prompt_tokens(std::span<const TokenId> ids) const {
  if (system_.empty() && !tools_.active()) return 0;
  const Result<std::string> system_text = render_text(system_, {});
  if (!system_text) return 0;
  const std::vector<TokenId> sys_ids = format_.tokenize(*system_text);
  const auto shared =
      std::mismatch(sys_ids.begin(), sys_ids.end(), ids.begin(), ids.end()).first - sys_ids.begin();
  return static_cast<int32_t>(shared);
}

// ---- a reply ----------------------------------------------------------------------------

Result<ConversationReply> Conversation::reply_to(std::string text, const GenerateOptions& options,
                                                 const ReplyCallbacks& callbacks) {
  messages_.push_back({"user", std::move(text)});
  auto out = reply(options, callbacks);
  if (!out) messages_.pop_back();
  return out;
}

Result<ConversationReply> Conversation::reply(const GenerateOptions& options,
                                              const ReplyCallbacks& callbacks) {
  auto rendered = render(system_, messages_);
  if (!rendered) return rendered.error();
  auto out = run(*rendered, /*starts_turn=*/true, options, callbacks);
  // A history longer than the context that the session refused (an edit or a regenerate
  // re-reads it from a point the cache no longer holds, after the policy dropped turns; a
  // refusal leaves the cache as it was): under drop-oldest or shift the prompt leaves out
  // the oldest whole exchanges (a user message and what follows it), the first cut that
  // leaves a quarter of the context free, else the first that fits at all, as the policy
  // does for a new message. messages_ keeps them all; the system prompt and the last user
  // message are always read. Under stop, or when nothing fits, the refusal stands.
  const int32_t n_ctx = session_->n_ctx();
  if (!out && session_->options().context_policy != ContextPolicy::Stop &&
      static_cast<int32_t>(rendered->ids.size()) > n_ctx) {
    std::optional<Rendered> shorter;
    for (size_t i = 1; i < messages_.size(); ++i) {
      if (messages_[i].role != "user") continue;
      auto r =
          render(system_, std::vector<ChatMessage>(
                              messages_.begin() + static_cast<std::ptrdiff_t>(i), messages_.end()));
      if (!r) return r.error();
      const auto size = static_cast<int32_t>(r->ids.size());
      if (size >= n_ctx) continue;  // no room for a reply yet
      const bool roomy = size + n_ctx / 4 <= n_ctx;
      if (roomy || !shorter) shorter = std::move(r).value();
      if (roomy) break;
    }
    if (shorter) out = run(*shorter, /*starts_turn=*/true, options, callbacks);
  }
  if (!out) return out.error();
  split_calls(*out);
  ChatMessage reply{"assistant", out->generated.text};
  if (!out->tool_calls.empty()) {
    reply.content = out->answer_text;
    reply.tool_calls = out->tool_calls;
  }
  messages_.push_back(std::move(reply));
  return out;
}

void Conversation::split_calls(ConversationReply& reply) {
  reply.answer_text = reply.reasoning.answer;
  if (!tools_.active()) return;
  ToolCallReply parsed = parse_tool_calls(reply.reasoning.answer, call_format_);
  if (parsed.calls.empty()) return;
  assign_tool_call_ids(parsed.calls, call_format_, call_id_rng_);
  reply.answer_text = std::move(parsed.content);
  reply.tool_calls = std::move(parsed.calls);
}

void Conversation::add_tool_result(const ToolCall& call, std::string text) {
  ChatMessage m{"tool", std::move(text)};
  m.tool_call_id = call.id;
  m.name = call.name;
  messages_.push_back(std::move(m));
}

int32_t Conversation::tool_definition_tokens() const {
  if (!tools_.active()) return 0;
  const std::vector<ChatMessage> probe{{"user", "?"}};
  auto with = render_text(system_, probe);
  auto without = render_with_tools(format_, system_, probe, {}, call_format_);
  if (!with || !without) return 0;
  const auto n = static_cast<int32_t>(format_.tokenize(*with).size()) -
                 static_cast<int32_t>(format_.tokenize(*without).size());
  return std::max(0, n);
}

Result<ConversationReply> Conversation::continue_reply(const GenerateOptions& options,
                                                       const ReplyCallbacks& callbacks) {
  auto rendered = render_open_reply(system_, messages_);
  if (!rendered) return rendered.error();
  // The same turn goes on: nothing new is marked for drop-oldest.
  auto out = run(*rendered, /*starts_turn=*/false, options, callbacks, messages_.back().content);
  if (!out) return out.error();
  messages_.back().content += out->generated.text;
  return out;
}

Result<ConversationReply> Conversation::run(const Rendered& prompt, bool starts_turn,
                                            const GenerateOptions& options,
                                            const ReplyCallbacks& callbacks,
                                            std::string_view reply_so_far) {
  if (prompt.ids.empty()) return Error{"nothing to continue from: the conversation is empty"};
  // Prefix reuse: the session keeps what it holds up to the first differing token and
  // evaluates the rest (a new turn marked so: drop-oldest drops whole turns).
  ConversationReply out;
  const uint64_t kv_bytes_per_token = session_->memory_report().kv_bytes_per_token;
  // What the cache holds beyond the prefix the prompt shares with it is dropped.
  const std::vector<TokenId>& held = session_->tokens();
  const auto shared = static_cast<int32_t>(
      std::mismatch(held.begin(), held.end(), prompt.ids.begin(), prompt.ids.end()).first -
      held.begin());
  const int32_t released =
      std::max(0, std::min(session_->kv_tokens(), session_->n_past()) - shared);
  const Clock::time_point eval_start = Clock::now();
  // A prompt no policy can fit is refused before the cache is cut back (the session's
  // check), and it is no checkpoint: a refused message leaves everything as it was.
  auto evaluated = session_->eval_sequence(prompt.ids, starts_turn);
  if (!evaluated) return evaluated.error();
  add_checkpoint(prompt.text, prompt.ids);  // only a prompt the session holds
  out.prompt.seconds = std::chrono::duration<double>(Clock::now() - eval_start).count();
  out.prompt.prompt_tokens = static_cast<int32_t>(prompt.ids.size());
  out.prompt.evaluated_tokens = *evaluated;
  out.prompt.reused_tokens = out.prompt.prompt_tokens - *evaluated;
  out.prompt.released_tokens = released;
  out.prompt.released_kv_bytes = static_cast<uint64_t>(released) * kv_bytes_per_token;
  // The system prompt is never dropped or shifted out by the context policies.
  out.prompt.kept_tokens = std::min(system_prompt_tokens(prompt.ids), session_->n_past());
  session_->set_keep(out.prompt.kept_tokens);
  // The reasoning: the reply starts inside it when the prompt (before the reply being
  // continued) opened it; a continued reply's text sets where the splitter stands.
  const ReasoningMarkers& markers = format_.reasoning_markers();
  const bool starts_in_thinking = prompt_opens_reasoning(
      std::string_view(prompt.text).substr(0, prompt.text.size() - reply_so_far.size()), markers);
  out.prompt.opens_reasoning = starts_in_thinking;
  if (callbacks.on_prompt) callbacks.on_prompt(out.prompt);

  GenerateOptions constrained = options;
  ReplyCallbacks shown = callbacks;
  std::optional<ToolCallStream> calls;
  if (tools_.active()) {
    ToolRequest constrained_by = tools_;
    if (reply_choice_) constrained_by.choice = *reply_choice_;
    auto c = tool_call_constraint(constrained_by, call_format_);
    if (!c) return Error{"the tools: " + c.message()};
    apply_constraint(*c, constrained);
    // The answer shows up to where a call may begin; the call is the reply's tool_calls.
    calls.emplace(call_format_);
    auto hold = [&calls, next = callbacks.on_text](std::string_view piece) {
      const std::string text = calls->feed(piece);
      return text.empty() || !next || next(text);
    };
    shown.on_text = hold;
  }
  if (starts_in_thinking && constrained.grammar)
    defer_past_reasoning(constrained.grammar_triggers, markers);
  const Status streamed =
      stream_reply(*session_, constrained, shown, markers, starts_in_thinking, reply_so_far, out);
  if (!streamed) return Error{streamed.message()};
  if (calls) {  // what was held and is not a call (Generic's {"response": ...} answer)
    const ToolCallReply rest = calls->finish();
    if (!rest.content.empty() && callbacks.on_text) callbacks.on_text(rest.content);
  }
  const Tokenizer& tok = session_->model().tokenizer();
  ReasoningStats& rs = out.reasoning;
  rs.thinking_tokens =
      thinking_token_count(tok, out.generated.ids, markers, starts_in_thinking, reply_so_far);
  rs.thinking_kv_bytes = static_cast<uint64_t>(rs.thinking_tokens) * kv_bytes_per_token;

  // What the session holds now: the prompt, then every sampled token but the last (it
  // ends the reply unevaluated). After a context policy dropped tokens, the text maps
  // onto the shortened sequence (see the header).
  const size_t held_generated = out.generated.ids.empty() ? 0 : out.generated.ids.size() - 1;
  std::string held_text = prompt.text;
  for (size_t i = 0; i < held_generated; ++i) held_text += tok.token_bytes(out.generated.ids[i]);
  // The whole reply as sampled, for a Continue: only when its text is all its ids' bytes
  // (cut at the length limit or stopped, not before a stop string or at an end-of-generation
  // token).
  last_reply_ = {};
  const bool cut = out.generated.stop_reason == StopReason::MaxTokens ||
                   out.generated.stop_reason == StopReason::Cancelled;
  if (cut && !out.generated.ids.empty()) {
    std::string whole = held_text + tok.token_bytes(out.generated.ids.back());
    if (whole == prompt.text + out.generated.text) {
      std::vector<TokenId> ids = session_->tokens();
      ids.push_back(out.generated.ids.back());
      last_reply_ = {std::move(whole), std::move(ids)};
    }
  }
  add_checkpoint(std::move(held_text), session_->tokens());
  return out;
}

// ---- a document summarized into the conversation ------------------------------------

Result<SummaryResult> Conversation::summarize_document(DocumentReader& reader, std::string request,
                                                       const SummarizeOptions& options,
                                                       const std::vector<PartialSummary>& done,
                                                       const SummarizeCallbacks& callbacks) {
  // The pipeline evaluates plain-completion prompts from position 0: nothing of the chat
  // (the system prompt's keep included) may stay in the way.
  session_->set_keep(0);
  session_->truncate(0);
  auto result = kvchat::summarize_document(*session_, reader, options, done, callbacks);
  session_->truncate(0);
  if (!result) return result.error();
  if (!result->cancelled) {
    messages_.push_back({"user", std::move(request)});
    messages_.push_back({"assistant", result->summary});
  }
  return result;
}

Status Conversation::restore_snapshot(const std::string& path) {
  forget_texts();
  if (auto st = session_->load_snapshot(path); !st) {
    session_->truncate(0);
    return st;
  }
  return {};
}

}  // namespace kvchat
