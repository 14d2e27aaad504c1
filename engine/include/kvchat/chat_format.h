// ChatFormat: how a conversation becomes the prompt text of one model. The model's own
// Jinja template (tokenizer.chat_template) when the file has one, a user's override per
// model, or a built-in named format as the fallback (the window says which). Shared by
// the app and kvchat-cli so the conversation logic has no Qt in it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/chat_template.h"
#include "kvchat/reasoning.h"
#include "kvchat/result.h"
#include "kvchat/tokenizer.h"

namespace kvchat {

class Model;

enum class ChatFormatSource {
  File,      // tokenizer.chat_template, rendered by the engine's Jinja interpreter
  Override,  // a template the user set for this model (Jinja text or a built-in name)
  BuiltIn,   // the file has no template (or one that does not parse): a named format
};

// Refers to the model's tokenizer: valid while the model lives.
class ChatFormat {
 public:
  // `override_text`: "" = the file's template; "builtin:<name>" = a built-in format
  // (names: completion, llama2, llama3, chatml, zephyr, mistral, gemma); anything else is
  // Jinja source. A file template that does not parse falls back to the built-in format
  // its markers suggest, and note() says why; an override that does not parse is an error.
  static Result<ChatFormat> for_model(const Model& model, std::string_view override_text = {});
  // The same from a file's template text ("" when it has none) and its tokenizer.
  static Result<ChatFormat> create(std::string_view file_template, const Tokenizer& tokenizer,
                                   std::string_view override_text = {});
  // A built-in format on its own (tests, and models without a template).
  static ChatFormat built_in(ChatTemplateKind kind, const Tokenizer& tokenizer);

  ChatFormatSource source() const { return source_; }
  // One line for the window: "the model's own template", "built-in ChatML format: the
  // file has no chat template", ...
  const std::string& description() const { return description_; }
  // The Jinja source in use ("" for a built-in format).
  const std::string& template_source() const { return jinja_source_; }
  // The built-in kind when source() is BuiltIn (or an override naming one).
  ChatTemplateKind kind() const { return kind_; }

  // The prompt for `messages` after an optional system prompt. When the last message is
  // the user's, the assistant's turn is opened (add_generation_prompt); when it is the
  // assistant's, the text ends with that reply. A template's raise_exception() is an Error
  // with its message. A template that refuses a system message (Gemma's) gets the system
  // prompt at the head of the first user message instead, as its own docs advise.
  // `tools_json`: OpenAI's tools array (JSON text) for the template's `tools` variable;
  // "" = not passed. Built-in formats ignore it (kvchat/tool_calls.h words the tools into
  // the system prompt for them).
  Result<std::string> render(std::string_view system_prompt,
                             const std::vector<ChatMessage>& messages,
                             std::string_view tools_json = {}) const;
  // Token ids of a rendered prompt: special tokens parsed; BOS added when the tokenizer
  // adds one and the text does not already begin with the BOS token's text.
  std::vector<TokenId> tokenize(std::string_view rendered) const;
  // Strings that end a reply besides the end-of-generation tokens.
  std::vector<std::string> stop_strings() const;

  // ---- reasoning ("thinking" models) ----------------------------------------------------
  // The template's `enable_thinking` switch (Qwen 3's; transformers passes it as
  // apply_chat_template(enable_thinking=...)): set, every render() passes the variable
  // `enable_thinking` with this value; unset (the default), it is not passed and the
  // template's own default applies (Qwen 3: thinking on). A per-model setting of the app.
  // Built-in formats ignore it.
  void set_enable_thinking(std::optional<bool> enabled) { enable_thinking_ = enabled; }
  std::optional<bool> enable_thinking() const { return enable_thinking_; }
  // Whether the switch means something here: the Jinja source mentions enable_thinking or
  // the open marker (<think>). False for built-in formats.
  bool declares_thinking() const;
  // The markers replies' reasoning sits between (<think> ... </think>).
  const ReasoningMarkers& reasoning_markers() const { return markers_; }

 private:
  ChatFormat() = default;
  const Tokenizer* tokenizer_ = nullptr;
  ChatFormatSource source_ = ChatFormatSource::BuiltIn;
  ChatTemplateKind kind_ = ChatTemplateKind::Completion;
  std::string description_;
  std::string jinja_source_;
  std::optional<ChatTemplate> jinja_;  // the parsed Jinja template, when one is used
  std::string bos_text_, eos_text_;
  std::optional<bool> enable_thinking_;  // unset: the variable is not passed
  ReasoningMarkers markers_;
};

}  // namespace kvchat
