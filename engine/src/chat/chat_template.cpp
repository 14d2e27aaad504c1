// Chat templates: family detection from the GGUF's Jinja text, and a fixed renderer
// per family that produces what the family's published template produces.
//
// Conventions shared by every family:
// - The BOS token is not part of the rendered text: the tokenizer adds it (as the
//   model's add_bos_token says), so the templates' leading {{ bos_token }} is left
//   out. BOS tokens later in the text (Llama 2 starts every turn with one) are
//   written as their piece text, "<s>", like every other special token, and
//   Tokenizer::encode_with_special turns them into ids.
// - A conversation is rendered message by message; when the last message is not
//   the assistant's, the assistant's turn is opened after it (add_generation_prompt);
//   an empty conversation renders only the system turn (where the family has one).
//   The text for an assistant message starts with exactly that opening, so the text
//   for k messages is a prefix of the text for k+1: rendering is append-only and the
//   KV cache of earlier turns is reused.
// - Where a published template is not append-only — Llama 2 puts the system prompt
//   inside the first [INST]; Gemma and Mistral, which have no system role, put it
//   in the first user turn — the text is still append-only as long as the system
//   prompt stays the same during the conversation (changing it re-evaluates).
// - A "system" message among `messages` is rendered as a system turn where the
//   family has one (ChatML, Llama 3, Zephyr) and as a user turn elsewhere; any
//   role other than "assistant" and "system" is rendered as "user".
#include "kvchat/chat_template.h"

#include <initializer_list>
#include <string>

namespace kvchat {
namespace {

enum class Role { System, User, Assistant };

Role role_of(const ChatMessage& m) {
  if (m.role == "assistant") return Role::Assistant;
  if (m.role == "system") return Role::System;
  return Role::User;
}

// The assistant's turn is opened after a user (or system) message; an empty
// conversation opens nothing, so it stays a prefix of every longer one.
bool opens_reply(const std::vector<ChatMessage>& messages) {
  return !messages.empty() && role_of(messages.back()) != Role::Assistant;
}

bool contains(std::string_view text, std::string_view marker) {
  return text.find(marker) != std::string_view::npos;
}

// Python's str.strip() / Jinja's |trim for ASCII whitespace.
std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\r\f\v";
  const size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  const size_t last = s.find_last_not_of(kSpace);
  return s.substr(first, last - first + 1);
}

std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  size_t n = 0;
  for (const std::string_view p : parts) n += p.size();
  out.reserve(n);
  for (const std::string_view p : parts) out.append(p);
  return out;
}

// <|im_start|>role\ncontent<|im_end|>\n ... <|im_start|>assistant\n
std::string render_chatml(std::string_view system, const std::vector<ChatMessage>& messages) {
  std::string out;
  auto turn = [&](std::string_view role, std::string_view content) {
    out += cat({"<|im_start|>", role, "\n", content, "<|im_end|>\n"});
  };
  if (!system.empty()) turn("system", system);
  for (const ChatMessage& m : messages) {
    const Role r = role_of(m);
    turn(r == Role::Assistant ? "assistant" : r == Role::System ? "system" : "user", m.content);
  }
  if (opens_reply(messages)) {
    out += "<|im_start|>assistant\n";
  }
  return out;
}

// <|start_header_id|>role<|end_header_id|>\n\ncontent|trim<|eot_id|> ...
std::string render_llama3(std::string_view system, const std::vector<ChatMessage>& messages) {
  std::string out;
  auto turn = [&](std::string_view role, std::string_view content) {
    out += cat({"<|start_header_id|>", role, "<|end_header_id|>\n\n", trim(content), "<|eot_id|>"});
  };
  if (!system.empty()) turn("system", system);
  for (const ChatMessage& m : messages) {
    const Role r = role_of(m);
    turn(r == Role::Assistant ? "assistant" : r == Role::System ? "system" : "user", m.content);
  }
  if (opens_reply(messages)) {
    out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
  }
  return out;
}

// <start_of_turn>user\ncontent|trim<end_of_turn>\n<start_of_turn>model\n ...
// No system role: the system prompt opens the first user turn, followed by a blank
// line (as Gemma 3's template does).
std::string render_gemma(std::string_view system, const std::vector<ChatMessage>& messages) {
  std::string out;
  bool first_user = true;
  for (const ChatMessage& m : messages) {
    const bool assistant = role_of(m) == Role::Assistant;
    std::string content(trim(m.content));
    if (!assistant && first_user) {
      if (!system.empty()) content = cat({trim(system), "\n\n", content});
      first_user = false;
    }
    out += cat({"<start_of_turn>", assistant ? "model" : "user", "\n", content, "<end_of_turn>\n"});
  }
  if (opens_reply(messages)) {
    out += "<start_of_turn>model\n";
  }
  return out;
}

// <|system|>\n...</s>\n<|user|>\n...</s>\n<|assistant|>\n (TinyLlama-Chat, Zephyr)
std::string render_zephyr(std::string_view system, const std::vector<ChatMessage>& messages) {
  std::string out;
  auto turn = [&](std::string_view tag, std::string_view content) {
    out += cat({tag, "\n", content, "</s>\n"});
  };
  if (!system.empty()) turn("<|system|>", system);
  for (const ChatMessage& m : messages) {
    const Role r = role_of(m);
    turn(r == Role::Assistant ? "<|assistant|>"
         : r == Role::System  ? "<|system|>"
                              : "<|user|>",
         m.content);
  }
  if (opens_reply(messages)) out += "<|assistant|>\n";
  return out;
}

// [INST] <<SYS>>\nsystem\n<</SYS>>\n\nuser [/INST] assistant </s><s>[INST] user [/INST]
// (Meta's Llama 2 chat template; the first <s> is the tokenizer's BOS). Contents are
// stripped, as the template does.
std::string render_llama2(std::string_view system, const std::vector<ChatMessage>& messages) {
  std::string out;
  bool first_user = true;
  for (const ChatMessage& m : messages) {
    if (role_of(m) == Role::Assistant) {
      out += cat({" ", trim(m.content), " </s>"});
      continue;
    }
    std::string content(m.content);
    if (first_user && !system.empty())
      content = cat({"<<SYS>>\n", system, "\n<</SYS>>\n\n", content});
    if (!first_user) out += "<s>";
    first_user = false;
    out += cat({"[INST] ", trim(content), " [/INST]"});
  }
  return out;
}

// [INST] user [/INST]assistant</s>[INST] user [/INST] (Mistral Instruct v0.1).
// No system role: the system prompt opens the first user message, then a blank line.
std::string render_mistral(std::string_view system, const std::vector<ChatMessage>& messages) {
  std::string out;
  bool first_user = true;
  for (const ChatMessage& m : messages) {
    if (role_of(m) == Role::Assistant) {
      out += cat({m.content, "</s>"});
      continue;
    }
    std::string content(m.content);
    if (first_user && !system.empty()) content = cat({system, "\n\n", content});
    first_user = false;
    out += cat({"[INST] ", content, " [/INST]"});
  }
  return out;
}

// Base models: the system prompt, then every message's text as it is; the reply
// continues the text.
std::string render_completion(std::string_view system, const std::vector<ChatMessage>& messages) {
  std::string out(system);
  for (const ChatMessage& m : messages) out += m.content;
  return out;
}

}  // namespace

std::string_view chat_template_name(ChatTemplateKind kind) {
  switch (kind) {
    case ChatTemplateKind::Completion: return "completion";
    case ChatTemplateKind::Llama2: return "llama2";
    case ChatTemplateKind::Llama3: return "llama3";
    case ChatTemplateKind::ChatML: return "chatml";
    case ChatTemplateKind::Zephyr: return "zephyr";
    case ChatTemplateKind::Mistral: return "mistral";
    case ChatTemplateKind::Gemma: return "gemma";
  }
  return "completion";
}

ChatTemplateKind detect_chat_template(std::string_view jinja) {
  if (contains(jinja, "<|start_header_id|>")) return ChatTemplateKind::Llama3;
  if (contains(jinja, "<|im_start|>")) return ChatTemplateKind::ChatML;
  if (contains(jinja, "<start_of_turn>")) return ChatTemplateKind::Gemma;
  if (contains(jinja, "<|user|>")) return ChatTemplateKind::Zephyr;
  if (contains(jinja, "[INST]")) {
    return contains(jinja, "<<SYS>>") ? ChatTemplateKind::Llama2 : ChatTemplateKind::Mistral;
  }
  return ChatTemplateKind::Completion;
}

std::string render_chat(ChatTemplateKind kind, std::string_view system_prompt,
                        const std::vector<ChatMessage>& messages) {
  switch (kind) {
    case ChatTemplateKind::Completion: return render_completion(system_prompt, messages);
    case ChatTemplateKind::Llama2: return render_llama2(system_prompt, messages);
    case ChatTemplateKind::Llama3: return render_llama3(system_prompt, messages);
    case ChatTemplateKind::ChatML: return render_chatml(system_prompt, messages);
    case ChatTemplateKind::Zephyr: return render_zephyr(system_prompt, messages);
    case ChatTemplateKind::Mistral: return render_mistral(system_prompt, messages);
    case ChatTemplateKind::Gemma: return render_gemma(system_prompt, messages);
  }
  return render_completion(system_prompt, messages);
}

std::vector<std::string> chat_stop_strings(ChatTemplateKind kind) {
  switch (kind) {
    case ChatTemplateKind::Completion: return {};
    case ChatTemplateKind::Llama2: return {"</s>", "[INST]"};
    case ChatTemplateKind::Llama3: return {"<|eot_id|>", "<|start_header_id|>"};
    case ChatTemplateKind::ChatML: return {"<|im_end|>", "<|im_start|>"};
    case ChatTemplateKind::Zephyr: return {"</s>", "<|user|>", "<|system|>"};
    case ChatTemplateKind::Mistral: return {"</s>", "[INST]"};
    case ChatTemplateKind::Gemma: return {"<end_of_turn>", "<start_of_turn>"};
  }
  return {};
}

}  // namespace kvchat
