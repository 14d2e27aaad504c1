// Tests of the chat templates (engine/src/chat/chat_template.cpp): family detection
// from real-looking Jinja, the exact text of a 3-message conversation per family
// (written out by hand from each family's published template), the append-only
// property the KV-cache prefix reuse relies on, and the stop strings.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kvchat/chat_template.h"

namespace kvchat {
namespace {

using K = ChatTemplateKind;

// Abridged from the templates the model cards ship (same markers, same structure).
const char* const kLlama3Jinja =
    "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = "
    "'<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | "
    "trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}"
    "{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ "
    "'<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}";
const char* const kChatMLJinja =
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + "
    "message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}"
    "{{ '<|im_start|>assistant\n' }}{% endif %}";
const char* const kGemmaJinja =
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role "
    "not supported') }}{% endif %}{% for message in messages %}{% if (message['role'] == "
    "'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}"
    "{% endif %}{{ '<start_of_turn>' + role + '\n' + message['content'] | trim + "
    "'<end_of_turn>\n' }}{% endfor %}{% if add_generation_prompt %}{{'<start_of_turn>model\n'}}"
    "{% endif %}";
const char* const kZephyrJinja =
    "{% for message in messages %}\n{% if message['role'] == 'user' %}\n{{ '<|user|>\n' + "
    "message['content'] + eos_token }}\n{% elif message['role'] == 'system' %}\n{{ "
    "'<|system|>\n' + message['content'] + eos_token }}\n{% elif message['role'] == "
    "'assistant' %}\n{{ '<|assistant|>\n'  + message['content'] + eos_token }}\n{% endif %}\n"
    "{% if loop.last and add_generation_prompt %}\n{{ '<|assistant|>' }}\n{% endif %}\n"
    "{% endfor %}";
const char* const kLlama2Jinja =
    "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set "
    "system_message = messages[0]['content'] %}{% else %}{% set loop_messages = messages %}"
    "{% set system_message = false %}{% endif %}{% for message in loop_messages %}{% if "
    "loop.index0 == 0 and system_message != false %}{% set content = '<<SYS>>\\n' + "
    "system_message + '\\n<</SYS>>\\n\\n' + message['content'] %}{% else %}{% set content = "
    "message['content'] %}{% endif %}{% if message['role'] == 'user' %}{{ bos_token + "
    "'[INST] ' + content.strip() + ' [/INST]' }}{% elif message['role'] == 'assistant' %}"
    "{{ ' '  + content.strip() + ' ' + eos_token }}{% endif %}{% endfor %}";
const char* const kMistralJinja =
    "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != "
    "(loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate "
    "user/assistant/user/assistant/...') }}{% endif %}{% if message['role'] == 'user' %}"
    "{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' "
    "%}{{ message['content'] + eos_token}}{% endif %}{% endfor %}";

const std::vector<ChatMessage> kConversation = {
    {"user", "Hello!"},
    {"assistant", "Hi, how can I help?"},
    {"user", "Tell me a joke."},
};
constexpr const char* kSystem = "You are terse.";

const K kAllKinds[] = {K::Completion, K::Llama2,  K::Llama3, K::ChatML,
                       K::Zephyr,     K::Mistral, K::Gemma};

TEST(ChatTemplateDetect, RecognisesEachFamily) {
  EXPECT_EQ(detect_chat_template(kLlama3Jinja), K::Llama3);
  EXPECT_EQ(detect_chat_template(kChatMLJinja), K::ChatML);
  EXPECT_EQ(detect_chat_template(kGemmaJinja), K::Gemma);
  EXPECT_EQ(detect_chat_template(kZephyrJinja), K::Zephyr);
  EXPECT_EQ(detect_chat_template(kLlama2Jinja), K::Llama2);
  EXPECT_EQ(detect_chat_template(kMistralJinja), K::Mistral);
}

TEST(ChatTemplateDetect, EmptyOrUnknownIsCompletion) {
  EXPECT_EQ(detect_chat_template(""), K::Completion);
  EXPECT_EQ(detect_chat_template("{% for message in messages %}{{ message['content'] }}"
                                 "{% endfor %}"),
            K::Completion);
  EXPECT_EQ(detect_chat_template("### Instruction:\n{{ prompt }}\n### Response:"), K::Completion);
}

TEST(ChatTemplateDetect, Names) {
  EXPECT_EQ(chat_template_name(K::Completion), "completion");
  EXPECT_EQ(chat_template_name(K::Llama2), "llama2");
  EXPECT_EQ(chat_template_name(K::Llama3), "llama3");
  EXPECT_EQ(chat_template_name(K::ChatML), "chatml");
  EXPECT_EQ(chat_template_name(K::Zephyr), "zephyr");
  EXPECT_EQ(chat_template_name(K::Mistral), "mistral");
  EXPECT_EQ(chat_template_name(K::Gemma), "gemma");
}

TEST(ChatTemplateRender, ChatML) {
  EXPECT_EQ(render_chat(K::ChatML, kSystem, kConversation),
            "<|im_start|>system\nYou are terse.<|im_end|>\n"
            "<|im_start|>user\nHello!<|im_end|>\n"
            "<|im_start|>assistant\nHi, how can I help?<|im_end|>\n"
            "<|im_start|>user\nTell me a joke.<|im_end|>\n"
            "<|im_start|>assistant\n");
  EXPECT_EQ(render_chat(K::ChatML, "", {{"user", "Hi"}}),
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
}

TEST(ChatTemplateRender, Llama3) {
  EXPECT_EQ(render_chat(K::Llama3, kSystem, kConversation),
            "<|start_header_id|>system<|end_header_id|>\n\nYou are terse.<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nHello!<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\nHi, how can I help?<|eot_id|>"
            "<|start_header_id|>user<|end_header_id|>\n\nTell me a joke.<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
  // Contents are trimmed, as the template's | trim.
  EXPECT_EQ(render_chat(K::Llama3, "", {{"user", "  Hi \n"}}),
            "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
            "<|start_header_id|>assistant<|end_header_id|>\n\n");
}

TEST(ChatTemplateRender, Gemma) {
  EXPECT_EQ(render_chat(K::Gemma, kSystem, kConversation),
            "<start_of_turn>user\nYou are terse.\n\nHello!<end_of_turn>\n"
            "<start_of_turn>model\nHi, how can I help?<end_of_turn>\n"
            "<start_of_turn>user\nTell me a joke.<end_of_turn>\n"
            "<start_of_turn>model\n");
  EXPECT_EQ(render_chat(K::Gemma, "", {{"user", "Hi"}}),
            "<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n");
}

TEST(ChatTemplateRender, Zephyr) {
  EXPECT_EQ(render_chat(K::Zephyr, kSystem, kConversation),
            "<|system|>\nYou are terse.</s>\n"
            "<|user|>\nHello!</s>\n"
            "<|assistant|>\nHi, how can I help?</s>\n"
            "<|user|>\nTell me a joke.</s>\n"
            "<|assistant|>\n");
}

TEST(ChatTemplateRender, Llama2) {
  // The first <s> is the tokenizer's BOS, not part of the text.
  EXPECT_EQ(render_chat(K::Llama2, kSystem, kConversation),
            "[INST] <<SYS>>\nYou are terse.\n<</SYS>>\n\nHello! [/INST]"
            " Hi, how can I help? </s>"
            "<s>[INST] Tell me a joke. [/INST]");
  EXPECT_EQ(render_chat(K::Llama2, "", kConversation),
            "[INST] Hello! [/INST] Hi, how can I help? </s><s>[INST] Tell me a joke. [/INST]");
  // Contents are stripped (content.strip()): the model's reply " Hi" renders the same.
  EXPECT_EQ(render_chat(K::Llama2, "", {{"user", " Hello! "}, {"assistant", " Hi\n"}}),
            "[INST] Hello! [/INST] Hi </s>");
}

TEST(ChatTemplateRender, Mistral) {
  EXPECT_EQ(render_chat(K::Mistral, "", kConversation),
            "[INST] Hello! [/INST]Hi, how can I help?</s>[INST] Tell me a joke. [/INST]");
  // No system role: the system prompt opens the first user message.
  EXPECT_EQ(render_chat(K::Mistral, kSystem, kConversation),
            "[INST] You are terse.\n\nHello! [/INST]Hi, how can I help?</s>"
            "[INST] Tell me a joke. [/INST]");
}

TEST(ChatTemplateRender, Completion) {
  EXPECT_EQ(render_chat(K::Completion, kSystem, kConversation),
            "You are terse.Hello!Hi, how can I help?Tell me a joke.");
  // The KJV demo: the user types the start of a verse and the reply continues it.
  EXPECT_EQ(render_chat(K::Completion, "", {{"user", "Genesis 1\n1 In the beginning"}}),
            "Genesis 1\n1 In the beginning");
  EXPECT_EQ(render_chat(K::Completion, "",
                        {{"user", "Genesis 1\n1 In the beginning"},
                         {"assistant", " God created the heaven and the earth."},
                         {"user", "\n2 And"}}),
            "Genesis 1\n1 In the beginning God created the heaven and the earth.\n2 And");
}

TEST(ChatTemplateRender, EmptyConversation) {
  // Nothing to reply to: only the system turn, a prefix of every longer conversation.
  EXPECT_EQ(render_chat(K::ChatML, "", {}), "");
  EXPECT_EQ(render_chat(K::ChatML, kSystem, {}), "<|im_start|>system\nYou are terse.<|im_end|>\n");
  EXPECT_EQ(render_chat(K::Llama2, kSystem, {}), "");
  EXPECT_EQ(render_chat(K::Completion, "", {}), "");
  EXPECT_EQ(render_chat(K::Completion, kSystem, {}), kSystem);
}

// The text for the first k messages is a prefix of the text for k+1, for every
// family, with and without a (fixed) system prompt: earlier turns' KV is reused.
TEST(ChatTemplateRender, AppendOnlyForEveryFamily) {
  const std::vector<ChatMessage> conversation = {
      {"user", "Hello!"},
      {"assistant", "Hi, how can I help?"},
      {"user", "Tell me a joke."},
      {"assistant", " Why did the token cross the cache? "},
      {"user", "\nAnother one, please.\n"},
      {"assistant", "No."},
  };
  for (const K kind : kAllKinds) {
    for (const char* system : {"", kSystem}) {
      std::vector<ChatMessage> prefix;
      std::string previous = render_chat(kind, system, prefix);
      for (const ChatMessage& m : conversation) {
        prefix.push_back(m);
        const std::string text = render_chat(kind, system, prefix);
        EXPECT_TRUE(text.starts_with(previous))
            << chat_template_name(kind) << " system=\"" << system << "\" after " << prefix.size()
            << " messages:\n[" << previous << "]\nis not a prefix of\n[" << text << "]";
        EXPECT_GT(text.size(), previous.size()) << chat_template_name(kind);
        previous = text;
      }
    }
  }
}

// A user turn ends with the assistant's turn opened; the assistant's message then
// continues exactly that text.
TEST(ChatTemplateRender, UserTurnEndsWithAssistantOpened) {
  const std::vector<std::pair<K, std::string>> openings = {
      {K::ChatML, "<|im_start|>assistant\n"},
      {K::Llama3, "<|start_header_id|>assistant<|end_header_id|>\n\n"},
      {K::Gemma, "<start_of_turn>model\n"},
      {K::Zephyr, "<|assistant|>\n"},
      {K::Llama2, " [/INST]"},
      {K::Mistral, " [/INST]"},
  };
  for (const auto& [kind, opening] : openings) {
    EXPECT_TRUE(render_chat(kind, kSystem, kConversation).ends_with(opening))
        << chat_template_name(kind);
  }
}

TEST(ChatTemplateStop, StopStrings) {
  using Strings = std::vector<std::string>;
  EXPECT_EQ(chat_stop_strings(K::Completion), Strings{});
  EXPECT_EQ(chat_stop_strings(K::ChatML), (Strings{"<|im_end|>", "<|im_start|>"}));
  EXPECT_EQ(chat_stop_strings(K::Llama3), (Strings{"<|eot_id|>", "<|start_header_id|>"}));
  EXPECT_EQ(chat_stop_strings(K::Gemma), (Strings{"<end_of_turn>", "<start_of_turn>"}));
  EXPECT_EQ(chat_stop_strings(K::Zephyr), (Strings{"</s>", "<|user|>", "<|system|>"}));
  EXPECT_EQ(chat_stop_strings(K::Llama2), (Strings{"</s>", "[INST]"}));
  EXPECT_EQ(chat_stop_strings(K::Mistral), (Strings{"</s>", "[INST]"}));
  // Every template's end-of-turn marker (what follows an assistant reply) is a stop
  // string, so a reply that writes it as text ends there.
  for (const K kind : kAllKinds) {
    if (kind == K::Completion) continue;
    const std::string with = render_chat(kind, "", {{"user", "a"}, {"assistant", "REPLY"}});
    const std::string after = with.substr(with.find("REPLY") + 5);
    bool found = false;
    for (const std::string& s : chat_stop_strings(kind))
      found = found || after.find(s) != std::string::npos;
    EXPECT_TRUE(found) << chat_template_name(kind) << ": " << after;
  }
}

}  // namespace
}  // namespace kvchat
