// Chat templates: how a conversation becomes the text a model was trained to continue.
// The family is recognised from the GGUF's tokenizer.chat_template; base models (no
// template, such as the demo model) use raw completion.
#pragma once

#include <string>
#include <string_view>
#include <vector>

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

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
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

}  // namespace kvchat
