// The engine's values as the worker values the window gets (worker_values.h), and the
// window's settings as engine options. Shared by the engine worker and the summary
// worker; no state, any thread.
#pragma once

#include <QString>
#include <QVariantMap>

#include "engine/worker_values.h"
#include "kvchat/chat_format.h"
#include "kvchat/generate.h"
#include "kvchat/result.h"
#include "kvchat/session.h"

namespace kvchat::app {

// settings (the Settings drawer's map): "backend", "threads", "ctx", "kv_type",
// "gpu_layers" (-1 or absent: auto), "context_policy", "kv_budget_bytes", "kv_block_tokens",
// "no_kv_cache", "context_warn_fraction".
Result<SessionOptions> session_options(const QVariantMap& settings);
// sampling (the Settings drawer's map): SamplingParams fields and "max_tokens".
ReplySampling reply_sampling(const QVariantMap& sampling);
// The app's turns as the engine's messages (an assistant's tool calls, a tool turn's
// call id and function).
std::vector<ChatMessage> chat_messages(const ChatTurns& messages);
// The reply's sampling with the format's stop strings.
GenerateOptions generate_options(const ReplySampling& sampling, const ChatFormat& format);
// What the window shows of a chat format (its description in the window's language).
ChatFormatInfo chat_format_info(const ChatFormat& format, const QString& override_text);
// What ChatFormat::for_model takes to make `format` again: "" unless it is an override (the
// file's template, or the built-in format chosen for a file without one), "builtin:<name>"
// for a built-in format the user chose, else the Jinja source in use.
std::string override_text_of(const ChatFormat& format);
// The template's enable_thinking switch as the settings keep it: "" unset (the template's
// default), "on", "off"; anything else reads as unset.
QString thinking_switch_name(std::optional<bool> enabled);
std::optional<bool> thinking_switch(const QString& name);
// The session's model and options, and its chat format.
LoadedModel loaded_model(const Session& session, const ChatFormatInfo& format);

}  // namespace kvchat::app
