// Chat templates: how a conversation becomes the text a model was trained to continue.
// The family is recognised from the GGUF's tokenizer.chat_template; base models (no
// template, such as the demo model) use raw completion.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/result.h"

namespace kvchat {

enum class ChatTemplateKind {
  Completion,  // no template: the messages' text concatenated, the reply continues it
  Llama2,      // [INST] ... [/INST]
  Llama3,      // <|start_header_id|>role<|end_header_id|> ... <|eot_id|>
  ChatML,      // <|im_start|>role ... <|im_end|>
  Zephyr,      // <|user|> ... </s> (TinyLlama-Chat)
  Mistral,     // [INST] ... [/INST] without a system block
  Gemma,       // <start_of_turn>user ... <end_of_turn>
};

// A function call the assistant made (OpenAI's tool_calls[i]).
struct ToolCall {
  std::string id;         // what the tool's result names (tool_call_id)
  std::string name;       // the function
  std::string arguments;  // JSON text (an object)
};

struct ChatMessage {
  std::string role;  // "system", "user", "assistant" or "tool"
  std::string content;
  std::vector<ToolCall> tool_calls{};  // assistant: the calls it made (content may be empty)
  std::string tool_call_id{};          // tool: the call this message is the result of
  std::string name{};                  // tool: the function that was called
};

std::string_view chat_template_name(ChatTemplateKind kind);
// The family of a Jinja chat template (by its marker strings); Completion when empty
// or unrecognised.
ChatTemplateKind detect_chat_template(std::string_view jinja);
// The prompt text for `messages` (after an optional system prompt), ending with the
// assistant's turn opened. Rendering is append-only: the text for the first k messages
// is a prefix of the text for k+1, so the KV cache of earlier turns is reused (for
// Llama 2, Mistral and Gemma, whose system prompt sits inside the first user turn, as
// long as the system prompt is unchanged). When the last message is the assistant's,
// its turn is closed and no new turn is opened; an empty conversation renders only the
// system turn (families with a system role). Special tokens appear as their text
// ("<|im_start|>"); tokenize with Tokenizer::encode_with_special. The leading BOS is
// left out: the tokenizer adds it (add_bos_by_default()).
std::string render_chat(ChatTemplateKind kind, std::string_view system_prompt,
                        const std::vector<ChatMessage>& messages);
// Strings that end an assistant reply in this template (besides EOS).
std::vector<std::string> chat_stop_strings(ChatTemplateKind kind);

// ---- Jinja chat templates (tokenizer.chat_template), rendered as Hugging Face's
// apply_chat_template renders them (jinja2 with trim_blocks and lstrip_blocks, the
// sandbox's limits, transformers' tojson, raise_exception and strftime_now). The
// named kinds above remain the fallback for models without a template.

struct ChatRenderOptions {
  bool add_generation_prompt = true;
  std::string bos_token, eos_token;
  // What strftime_now() formats (seconds since the epoch, shown in local time);
  // unset = the real current time. Tests fix it for reproducible output.
  std::optional<std::int64_t> now_unix_seconds;
  // Extra template variables as a JSON object, e.g. {"tools": [...],
  // "enable_thinking": false}. Empty = none.
  std::string extra_variables_json;
  // transformers' apply_chat_template always passes `tools` and `documents`, None when
  // the caller has none, so there `tools is none` holds and `tools is defined` too.
  // true: the same here (tools and documents are none unless given); false: only the
  // variables given are defined, as jinja2's Template.render(messages=...) leaves them
  // (how shared/templates/cases.json was rendered). A tool_use template that loops over
  // tools unconditionally (Hermes-2-Pro's, Command-R's) fails with tools=None, in
  // transformers as here.
  bool tools_none_when_absent = false;
};

// A parsed Jinja chat template (from tokenizer.chat_template or a user override).
// Immutable and cheap to copy (the parsed tree is shared); safe to render from
// several threads at once.
class ChatTemplate {
 public:
  // Syntax errors name the line and column ("line 3, column 7: ...").
  static Result<ChatTemplate> parse(std::string_view jinja_source);

  // The text for `messages` (role + content each). raise_exception(msg) in the
  // template, and any other render-time error, becomes Error{msg}.
  Result<std::string> render(const std::vector<ChatMessage>& messages,
                             const ChatRenderOptions& options) const;
  // The same for messages given as JSON: an array of message objects (any keys:
  // tool_calls, nested objects...), or an object {"messages": [...], ...} whose other
  // keys (tools, documents, ...) become template variables too.
  Result<std::string> render_json(std::string_view messages_json,
                                  const ChatRenderOptions& options) const;

  // Whether the text for the first k messages is a prefix of the text for the first
  // k+1 (both rendered with `options`), i.e. whether a KV cache of the shorter prompt
  // stays valid after appending message k. Informative only.
  Result<bool> is_prefix_stable(const std::vector<ChatMessage>& messages, std::size_t k,
                                const ChatRenderOptions& options) const;

  const std::string& source() const;

  struct Parsed;  // the parsed tree (internal)

 private:
  explicit ChatTemplate(std::shared_ptr<const Parsed> parsed) : parsed_(std::move(parsed)) {}
  std::shared_ptr<const Parsed> parsed_;
};

}  // namespace kvchat
