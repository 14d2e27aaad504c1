// The engine's values as the worker values the window gets (worker_values.h), and the
// window's settings as engine options. Shared by the engine worker and the summary worker.
#include "engine/engine_maps.h"

#include <QCoreApplication>
#include <QRegularExpression>

#include "settings/sampling_settings.h"
#include "kvchat/chat_model.h"
#include "kvchat/model.h"
#include "util/engine_text.h"

namespace kvchat::app {

namespace {

// The engine's description of a chat format in the window's language: the fixed ones and
// "built-in NAME format"; a template's parse error stays as the engine wrote it.
QString chat_format_text(std::string_view engine_text) {
  static const char* const kFixed[] = {
      QT_TRANSLATE_NOOP(
          "ChatFormat",
          "built-in completion format: the file has no chat template, so the conversation is "
          "sent as plain text for the model to continue"),
      QT_TRANSLATE_NOOP("ChatFormat", "your chat template for this model"),
      QT_TRANSLATE_NOOP("ChatFormat", "the model's own chat template"),
  };
  const QString text = qstr(engine_text);
  for (const char* fixed : kFixed) {
    if (text == QLatin1String(fixed)) return QCoreApplication::translate("ChatFormat", fixed);
  }
  static const QRegularExpression built_in(
      QStringLiteral("^built-in (\\S+) format( \\(your override for this model\\))?$"));
  if (const auto m = built_in.match(text); m.hasMatch()) {
    return (m.captured(2).isEmpty()
                ? QCoreApplication::translate("ChatFormat", "built-in %1 format")
                : QCoreApplication::translate("ChatFormat",
                                              "built-in %1 format (your override for this model)"))
        .arg(m.captured(1));
  }
  return text;
}

QString format_source_name(ChatFormatSource source) {
  switch (source) {
    case ChatFormatSource::File: return QStringLiteral("file");
    case ChatFormatSource::Override: return QStringLiteral("override");
    case ChatFormatSource::BuiltIn: break;
  }
  return QStringLiteral("builtin");
}

}  // namespace

Result<SessionOptions> session_options(const QVariantMap& settings) {
  SessionOptions o;
  // The chat and a summary job beside it on the same model hold a common prefix's KV once.
  o.kv_share_prefix = true;
  o.backend =
      settings.value(QStringLiteral("backend"), QStringLiteral("auto")).toString().toStdString();
  o.n_threads = settings.value(QStringLiteral("threads"), 0).toInt();
  o.n_ctx = settings.value(QStringLiteral("ctx"), 0).toInt();
  o.gpu_layers = settings.value(QStringLiteral("gpu_layers"), -1).toInt();
  if (o.gpu_layers < 0) o.gpu_layers = -1;  // auto
  const QString kv_type = settings.value(QStringLiteral("kv_type")).toString();
  if (!kv_type.isEmpty()) o.kv_type = kv_type.toStdString();
  if (settings.contains(QStringLiteral("kv_budget_bytes"))) {
    o.kv_budget_bytes = settings.value(QStringLiteral("kv_budget_bytes")).toULongLong();
  }
  if (settings.contains(QStringLiteral("kv_block_tokens"))) {
    o.kv_block_tokens = settings.value(QStringLiteral("kv_block_tokens")).toInt();
  }
  if (settings.contains(QStringLiteral("no_kv_cache"))) {
    o.no_kv_cache = settings.value(QStringLiteral("no_kv_cache")).toBool();
  }
  if (settings.contains(QStringLiteral("context_warn_fraction"))) {
    o.context_warn_fraction = settings.value(QStringLiteral("context_warn_fraction")).toFloat();
  }
  const QString policy = settings.value(QStringLiteral("context_policy")).toString();
  if (!policy.isEmpty()) {
    auto p = parse_context_policy(policy.toStdString());
    if (!p) return p.error();
    o.context_policy = *p;
  }
  return o;
}

GenerateOptions generate_options(const ReplySampling& sampling, const ChatFormat& format) {
  GenerateOptions o;
  o.sampling = sampling.params;
  o.max_tokens = sampling.max_tokens;
  o.stop_strings = format.stop_strings();
  return o;
}

ReplySampling reply_sampling(const QVariantMap& s) {
  return ReplySampling{sampling_params(s), s.value(QStringLiteral("max_tokens"), 256).toInt()};
}

ChatFormatInfo chat_format_info(const ChatFormat& f, const QString& override_text) {
  const std::optional<bool> thinking = f.enable_thinking();
  return ChatFormatInfo{chat_format_text(f.description()),
                        format_source_name(f.source()),
                        qstr(chat_template_name(f.kind())),
                        override_text,
                        f.declares_thinking(),
                        thinking_switch_name(thinking)};
}

std::string override_text_of(const ChatFormat& format) {
  if (format.source() != ChatFormatSource::Override) return {};  // the file's (or its fallback)
  if (!format.template_source().empty()) return format.template_source();
  return "builtin:" + std::string(chat_template_name(format.kind()));
}

QString thinking_switch_name(std::optional<bool> enabled) {
  return qstr(kvchat::thinking_switch_name(enabled));
}

std::optional<bool> thinking_switch(const QString& name) {
  auto parsed = parse_thinking_switch(name.toStdString());
  return parsed ? *parsed : std::nullopt;  // anything else: the template's default
}

LoadedModel loaded_model(const Session& session, const ChatFormatInfo& format) {
  LoadedModel m;
  m.info = session.model().info();
  m.backend = qstr(session.backend_name());
  m.n_ctx = session.n_ctx();
  m.kv_type = qstr(session.options().kv_type);
  m.context_policy = qstr(context_policy_name(session.options().context_policy));
  m.format = format;
  return m;
}

std::vector<ChatMessage> chat_messages(const ChatTurns& messages) {
  std::vector<ChatMessage> chat;
  chat.reserve(static_cast<size_t>(messages.size()));
  for (const ChatTurn& m : messages) {
    ChatMessage message{m.role.toStdString(), m.content.toStdString()};
    for (const QVariant& c : m.tool_calls) {
      const QVariantMap call = c.toMap();
      message.tool_calls.push_back(
          {call.value(QStringLiteral("id")).toString().toStdString(),
           call.value(QStringLiteral("name")).toString().toStdString(),
           call.value(QStringLiteral("arguments")).toString().toStdString()});
    }
    message.tool_call_id = m.tool_call_id.toStdString();
    message.name = m.name.toStdString();
    chat.push_back(std::move(message));
  }
  return chat;
}

}  // namespace kvchat::app
