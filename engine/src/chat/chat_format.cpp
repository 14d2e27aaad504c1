#include "kvchat/chat_format.h"

#include <array>
#include <utility>

#include "kvchat/model.h"

namespace kvchat {

namespace {

constexpr std::string_view kBuiltInPrefix = "builtin:";

constexpr std::array kBuiltInKinds = {ChatTemplateKind::Completion, ChatTemplateKind::Llama2,
                                      ChatTemplateKind::Llama3,     ChatTemplateKind::ChatML,
                                      ChatTemplateKind::Zephyr,     ChatTemplateKind::Mistral,
                                      ChatTemplateKind::Gemma};

Result<ChatTemplateKind> parse_built_in(std::string_view name) {
  std::string known;
  for (ChatTemplateKind k : kBuiltInKinds) {
    if (name == chat_template_name(k)) return k;
    known += (known.empty() ? "" : ", ") + std::string(chat_template_name(k));
  }
  return Error{"unknown built-in chat format '" + std::string(name) + "' (known: " + known + ")"};
}

std::string token_text(const Tokenizer& tok, TokenId id) {
  return id >= 0 && id < tok.n_vocab() ? tok.token_text(id) : std::string();
}

}  // namespace

ChatFormat ChatFormat::built_in(ChatTemplateKind kind, const Tokenizer& tokenizer) {
  ChatFormat f;
  f.tokenizer_ = &tokenizer;
  f.kind_ = kind;
  f.bos_text_ = token_text(tokenizer, tokenizer.bos());
  f.eos_text_ = token_text(tokenizer, tokenizer.eos());
  f.description_ = "built-in " + std::string(chat_template_name(kind)) + " format";
  return f;
}

Result<ChatFormat> ChatFormat::for_model(const Model& model, std::string_view override_text) {
  return create(model.info().chat_template, model.tokenizer(), override_text);
}

Result<ChatFormat> ChatFormat::create(std::string_view file_template, const Tokenizer& tok,
                                      std::string_view override_text) {
  if (override_text.starts_with(kBuiltInPrefix)) {
    auto kind = parse_built_in(override_text.substr(kBuiltInPrefix.size()));
    if (!kind) return kind.error();
    ChatFormat f = built_in(*kind, tok);
    f.source_ = ChatFormatSource::Override;
    f.description_ += " (your override for this model)";
    return f;
  }
  const bool overridden = !override_text.empty();
  const std::string_view source = overridden ? override_text : file_template;
  if (source.empty()) {
    ChatFormat f = built_in(ChatTemplateKind::Completion, tok);
    f.description_ =
        "built-in completion format: the file has no chat template, so the "
        "conversation is sent as plain text for the model to continue";
    return f;
  }
  auto parsed = ChatTemplate::parse(source);
  if (!parsed) {
    if (overridden) return Error{"the chat template override does not parse: " + parsed.message()};
    const ChatTemplateKind kind = detect_chat_template(file_template);
    ChatFormat f = built_in(kind, tok);
    f.description_ = "built-in " + std::string(chat_template_name(kind)) +
                     " format: the file's chat template does not parse (" + parsed.message() + ")";
    return f;
  }
  ChatFormat f = built_in(detect_chat_template(source), tok);
  f.source_ = overridden ? ChatFormatSource::Override : ChatFormatSource::File;
  f.jinja_source_ = std::string(source);
  f.jinja_.emplace(std::move(parsed).value());
  f.description_ =
      overridden ? "your chat template for this model" : "the model's own chat template";
  return f;
}

Result<std::string> ChatFormat::render(std::string_view system_prompt,
                                       const std::vector<ChatMessage>& messages,
                                       std::string_view tools_json) const {
  if (!jinja_) return render_chat(kind_, system_prompt, messages);
  std::vector<ChatMessage> all;
  all.reserve(messages.size() + 1);
  if (!system_prompt.empty()) all.push_back({"system", std::string(system_prompt)});
  all.insert(all.end(), messages.begin(), messages.end());
  ChatRenderOptions options;
  options.add_generation_prompt = !messages.empty() && messages.back().role != "assistant";
  options.bos_token = bos_text_;
  options.eos_token = eos_text_;
  std::string variables;
  if (enable_thinking_)
    variables = *enable_thinking_ ? R"("enable_thinking": true)" : R"("enable_thinking": false)";
  if (!tools_json.empty())
    variables +=
        (variables.empty() ? "" : ", ") + std::string(R"("tools": )") + std::string(tools_json);
  if (!variables.empty()) options.extra_variables_json = "{" + variables + "}";
  auto text = jinja_->render(all, options);
  if (!text && !system_prompt.empty() && !messages.empty() && messages.front().role == "user") {
    std::vector<ChatMessage> merged(messages);
    merged.front().content = std::string(system_prompt) + "\n\n" + merged.front().content;
    if (auto retry = jinja_->render(merged, options)) return retry;
  }
  if (!text) return Error{"the chat template refused the conversation: " + text.message()};
  return text;
}

std::vector<TokenId> ChatFormat::tokenize(std::string_view rendered) const {
  const bool has_bos_text = !bos_text_.empty() && rendered.starts_with(bos_text_);
  return tokenizer_->encode_with_special(rendered,
                                         tokenizer_->add_bos_by_default() && !has_bos_text);
}

std::vector<std::string> ChatFormat::stop_strings() const { return chat_stop_strings(kind_); }

bool ChatFormat::declares_thinking() const {
  if (!jinja_) return false;
  return jinja_source_.find("enable_thinking") != std::string::npos ||
         (!markers_.open.empty() && jinja_source_.find(markers_.open) != std::string::npos);
}

}  // namespace kvchat
