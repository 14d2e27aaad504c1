// The engine's values as the window gets them (QVariantMaps for QML), and the window's
// settings as engine options. Shared by the engine worker and the summary worker; no
// state, any thread.
#pragma once

#include <QString>
#include <QVariantMap>

#include "kvchat/chat_format.h"
#include "kvchat/generate.h"
#include "kvchat/result.h"
#include "kvchat/session.h"

namespace kvchat::app {

// MemoryReport fields, n_past, n_ctx, and "formula" (the KV formula with this model's
// numbers and its text).
QVariantMap memory_map(const Session& session);
// ModelInfo fields, the KV types' costs, is_demo, and the session's backend, n_ctx,
// kv_type and context_policy.
QVariantMap model_map(const ModelInfo& info, const Session& session);
// settings: "backend", "threads", "ctx", "kv_type", "context_policy", "kv_budget_bytes",
// "kv_block_tokens", "no_kv_cache", "context_warn_fraction".
Result<SessionOptions> session_options(const QVariantMap& settings);
// sampling: SamplingParams fields and "max_tokens"; the format's stop strings.
GenerateOptions generate_options(const QVariantMap& sampling, const ChatFormat& format);
// What the window shows of a chat format (merged into the model info):
// chat_format_description, chat_format_source ("file"|"override"|"builtin"),
// chat_format_kind, chat_template_override.
QVariantMap format_map(const ChatFormat& format, const QString& override_text);

}  // namespace kvchat::app
