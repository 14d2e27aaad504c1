// The values that cross between the GUI thread and the engine threads (EngineWorker,
// SummaryWorker): plain structs registered as metatypes, so a queued signal carries typed
// fields instead of a QVariantMap read back by string key. Where QML shows one, to_map()
// gives it its QVariantMap (the keys QML and the state file read) on the GUI thread.
// Qt Core only; any thread.
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>
#include <QVariantMap>

#include "kvchat/kv_ram_tier.h"
#include "kvchat/memory_report.h"
#include "kvchat/model.h"
#include "kvchat/sampler.h"
#include "kvchat/session.h"
#include "settings/model_settings.h"

namespace kvchat::app {

struct StoredMessage;

// One message of a conversation as the engine gets it.
struct ChatTurn {
  QString role;  // "user" | "assistant" | "tool"
  QString content;
  // assistant: the tool calls it made ({id, name, arguments}: app/tools/tool_steps.h).
  QVariantList tool_calls{};
  QString tool_call_id{};  // tool: the call this is the result of
  QString name{};          // tool: the function called
};
using ChatTurns = QList<ChatTurn>;
// The first `rows` messages (all when rows < 0) as turns; a reply with tool calls is its
// steps (each the assistant's calls, then a tool turn per result) and then its answer.
ChatTurns chat_turns(const QVector<StoredMessage>& messages, int rows = -1);

// What a model is loaded with: the session's options and its chat template override ("":
// the file's template, "builtin:<name>" or Jinja text).
struct ModelLoadRequest {
  QString path;
  SessionOptions session;
  QString chat_template_override;
  QString enable_thinking;  // the template's switch: "" (its default), "on" or "off"
  // A remote model (remote/remote_model_path.h): its endpoint's URL, its key ("" none), the
  // endpoint's name; the model's id is the path's.
  QString remote_url{}, remote_key{}, remote_name{};
};

// How one reply is sampled: the sampler's parameters (its seed already chosen) and the
// reply's length limit.
struct ReplySampling {
  SamplingParams params;
  int max_tokens = 256;
};

// How a loaded model's conversations become prompts, as the window says it.
struct ChatFormatInfo {
  QString description;  // in the window's language
  QString source;       // "file" | "override" | "builtin"
  QString kind;         // the built-in format's name ("llama3", "completion", ...)
  QString override_text;
  bool declares_thinking = false;  // the template has reasoning (ChatFormat::declares_thinking)
  QString enable_thinking;         // "" (the template's default), "on" or "off"
  // chat_format_description, chat_format_source, chat_format_kind, chat_template_override,
  // chat_declares_thinking, chat_enable_thinking.
  QVariantMap to_map() const;
};

// A model just loaded: the file's facts and the session it runs in.
struct LoadedModel {
  ModelInfo info;
  // A model served elsewhere (info holds its path and id only): the endpoint's name and
  // origin, and the context its /v1/models says (0: unknown).
  bool remote = false;
  QString remote_name, remote_origin;
  QString backend;  // the session's ("cpu", "cuda")
  int n_ctx = 0;
  QString kv_type;
  QString context_policy;  // its name ("drop-oldest", ...)
  ChatFormatInfo format;
  QString identity() const;  // info.identity as 16 hex digits (a JS number loses bits)
  // ModelInfo fields (path, name, display_name, architecture, n_layers ... identity,
  // is_demo), the KV types' costs per token (kv_types), the session's backend, n_ctx,
  // kv_type, context_policy, format's fields, and instruction_tuned (model/instruction_tuned.h);
  // remote, remote_name and remote_origin for a remote one.
  QVariantMap to_map() const;
};

// A session's memory after a step: the engine's report and the context's fill.
struct MemoryFigures {
  MemoryReport report;
  int n_past = 0;
  int n_ctx = 0;
  // The model's shape, for the KV formula.
  int n_layers = 0;
  int n_kv_heads = 0;
  int head_dim = 0;
  // The app's RAM tier (memory/ram_tier.h): its figures and the conversations it holds.
  KvRamTierStats ram_tier;
  QList<qint64> ram_conversations;
  // MemoryReport fields, n_past, n_ctx, "formula" (the KV formula with these numbers and
  // its text), "ram_tier" (its figures) and "ram_conversations". Empty for a
  // default-constructed value (no session).
  QVariantMap to_map() const;
  bool empty() const { return n_layers == 0; }
};
MemoryFigures memory_figures(const Session& session);

// A finished reply's figures.
struct ReplyStats {
  int prompt_tokens = 0;
  int evaluated_tokens = 0;
  int reused_tokens = 0;
  int generated_tokens = 0;
  double ttft_ms = 0;
  double tokens_per_second = 0;          // decode
  double prefill_tokens_per_second = 0;  // the prompt's (a document's estimate uses it)
  double decode_seconds = 0;
  QString stop_reason;  // stop_reason_name(): "eos", "length", "cancelled", "context-full"...
  qint64 seed = 0;      // the sampling's: a regenerate with it writes the same text
  QString text;
  int n_past = 0;
  QString chat_format;  // the format's description
  // The reply's reasoning (kvchat::ReasoningStats): whether the prompt opened it (the reply's
  // text then starts inside it: how the bubble splits the stored text), its tokens, time and
  // KV, and whether it closed; absent from to_map() without reasoning.
  bool thinking_opened_by_prompt = false;
  bool thinking = false;
  int thinking_tokens = 0;
  double thinking_seconds = 0;
  qint64 thinking_kv_bytes = 0;
  bool thinking_closed = false;
  // What the prompt dropped from the cache past its first differing token (earlier
  // reasoning a template leaves out of the history, an edited message...).
  int released_tokens = 0;
  qint64 released_kv_bytes = 0;
  QVariantMap to_map() const;  // the same names: a message's stored stats
};

// The snapshots' disk after a save or restore.
struct SnapshotDiskUsage {
  qint64 total_bytes = 0;  // every snapshot in the directory
  qint64 file_bytes = 0;   // this conversation's journal
  qint64 evicted = -1;     // snapshots removed for the budget; -1: no budget applied
  // The last save (absent after a restore).
  bool saved = false;
  qint64 last_written_bytes = 0;
  int last_tokens_written = 0;
  bool last_rewritten = false;
  QString last_why_rewritten;
  // total_bytes, file_bytes, evicted (when applied), last_* (after a save).
  QVariantMap to_map() const;
};

// A conversation summarized (Summarize and continue).
struct ConversationSummaryStats {
  qint64 tokens_evaluated = 0;
  qint64 tokens_generated = 0;
  qint64 document_tokens = 0;
  int chunks = 0;
  QVariantMap to_map() const;  // the same names: the new conversation's message stats
};

// Registers the types above for queued connections (once; any thread).
void register_worker_values();

}  // namespace kvchat::app

Q_DECLARE_METATYPE(kvchat::app::ChatTurns)
Q_DECLARE_METATYPE(kvchat::app::ModelFacts)
Q_DECLARE_METATYPE(kvchat::app::ModelLoadRequest)
Q_DECLARE_METATYPE(kvchat::app::ReplySampling)
Q_DECLARE_METATYPE(kvchat::app::ChatFormatInfo)
Q_DECLARE_METATYPE(kvchat::app::LoadedModel)
Q_DECLARE_METATYPE(kvchat::app::MemoryFigures)
Q_DECLARE_METATYPE(kvchat::app::ReplyStats)
Q_DECLARE_METATYPE(kvchat::app::SnapshotDiskUsage)
Q_DECLARE_METATYPE(kvchat::app::ConversationSummaryStats)
