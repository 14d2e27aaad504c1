// EngineWorker: owns the model and the chat's engine Conversation (its Session); lives on
// its own QThread. Qt glue only: the conversation logic (template, token checkpoints,
// prefix reuse, context policy) is kvchat::Conversation's. Summary jobs run elsewhere
// (documents/summary_worker.h) on sessions of their own.
// Requests arrive as queued slot calls; results leave as signals, which Qt delivers
// queued to receivers on the GUI thread. Stop is an atomic flag any thread may set.
#pragma once

#include <QObject>
#include <QString>
#include <QVariantList>
#include <QVariantMap>
#include <atomic>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <vector>

#include "kvchat/chat_format.h"
#include "kvchat/session.h"

namespace kvchat {
class Conversation;
class Model;
}  // namespace kvchat

namespace kvchat::app {

class EngineWorker : public QObject {
  Q_OBJECT
 public:
  explicit EngineWorker(QObject* parent = nullptr);
  ~EngineWorker() override;

  // Thread-safe: asks a running generation (or load) to stop after the current token.
  void request_stop() { stop_.store(true); }
  // Thread-safe: cancels the model load in progress (or the next one, if none is).
  void request_cancel_load() { cancel_load_.store(true); }
  // Thread-safe: the loaded model (immutable, shareable), for tokenizing off the GUI
  // thread; null before the first load.
  std::shared_ptr<const Model> shared_model() const;
  // Thread-safe: how the loaded model's conversations become prompts (its own template,
  // the user's override, or a built-in format); empty before the first load. Valid while
  // the model from shared_model() is held.
  std::optional<ChatFormat> chat_format() const;
  // Thread-safe: the options the chat's session was created with (a summary job's
  // session uses the same); defaults before the first load.
  SessionOptions session_options() const;
  // Thread-safe: the tokens of a summary step's prompt besides its text with the engine's
  // instructions (kvchat::summary_prompt_overhead), tokenized on this thread when the
  // model loads; 0 before the first load.
  int32_t summary_prompt_overhead() const;

 public slots:
  // settings: "backend" ("auto"|"cpu"|"cuda"), "threads", "ctx", "kv_type",
  // "context_policy", "chat_template_override" (this model's: "" = the file's template,
  // "builtin:<name>" or Jinja text). On failure the previous model stays loaded and usable.
  void loadModel(const QString& path, const QVariantMap& settings);
  // Replaces the loaded model's chat format by `override_text` (as in loadModel); emits
  // chatFormatChanged, or chatFormatFailed with the reason while the old one stays.
  void setChatTemplateOverride(const QString& override_text);
  // messages: list of {"role": "user"|"assistant", "content": text}, the last one the
  // user's; system_prompt may be empty; sampling: "temperature", "top_k", "top_p",
  // "min_p", "repeat_penalty", "seed", "max_tokens". The conversation is rendered with
  // the model's chat template and only what differs from the cache is evaluated.
  void generate(const QVariantList& messages, const QString& system_prompt,
                const QVariantMap& sampling);
  // Re-evaluates nothing; emits memoryReport() for the current state.
  void reportMemory();
  // Saves the session's KV state (tokens, cache, logits) to `path`: appends what changed
  // since the last save to its journal. Then evicts the least recently used snapshots
  // in its directory down to budget_bytes (0: no budget; never `path` itself) and emits
  // snapshotDiskUsage().
  void saveSnapshot(const QString& path, qint64 budget_bytes = 0);
  // Restores a snapshot instead of re-evaluating; on any mismatch the cache is cleared
  // and the next generate() re-evaluates (snapshotRestored says which happened).
  void restoreSnapshot(const QString& path);
  // Empties the cache (a conversation without a usable snapshot was opened).
  void clearSession();
  // The number of tokens `messages` (as in generate) after `system_prompt` come to with
  // the loaded model's format, the reply's turn opened (the document preview's
  // conversation share): counted here, off the GUI thread, with the conversation's own
  // token checkpoints; nothing is evaluated. Answers with conversationTokensCounted(key).
  void countConversationTokens(const QVariantList& messages, const QString& system_prompt,
                               const QString& key);

 signals:
  void modelLoaded(const QVariantMap& info);      // ModelInfo fields + "chat_template"
  void modelLoadFailed(const QString& message);
  // chat_format_description, chat_format_source ("file"|"override"|"builtin"),
  // chat_format_kind, chat_template_override (see format_map()).
  void chatFormatChanged(const QVariantMap& format);
  void chatFormatFailed(const QString& message);
  void loadProgress(double fraction);             // weights read into memory, 0..1
  void replyStarted();
  void replyChunk(const QString& text);           // complete UTF-8 characters
  void replyFinished(const QVariantMap& stats);   // prompt_tokens, evaluated_tokens,
                                                  // generated_tokens, ttft_ms, tokens_per_second,
                                                  // stop_reason
  void replyFailed(const QString& message);
  void memoryReport(const QVariantMap& report);   // MemoryReport fields, after every token
  void sessionEvent(const QString& kind, const QString& message);
  void snapshotSaved(const QString& path, qint64 bytes);
  // restored: true when the KV state came from the file; false with the reason why not.
  // (restored with a non-empty reason: a damaged tail of the journal was ignored.)
  void snapshotRestored(bool restored, qint64 bytes, const QString& reason);
  // tokens: -1 with the reason in `error` when the template refuses the conversation.
  void conversationTokensCounted(const QString& key, qint64 tokens, const QString& error);
  // An engine failure outside a request that has its own failure signal.
  void engineError(const QString& message);
  // After a save or restore: total_bytes (every snapshot in the directory), file_bytes
  // (this conversation's journal), last_written_bytes / last_tokens_written /
  // last_rewritten / last_why_rewritten (the last save; absent after a restore),
  // evicted (snapshots removed for the budget).
  void snapshotDiskUsage(const QVariantMap& usage);

 private:
  void report_memory();
  void report_snapshot_disk(const QString& path, qint64 budget_bytes, bool saved);

  std::shared_ptr<const Model> model_;
  std::optional<ChatFormat> format_;  // model_'s; guarded by model_mutex_ like model_
  SessionOptions session_options_;    // guarded by model_mutex_
  int32_t summary_prompt_overhead_ = 0;  // model_'s; guarded by model_mutex_
  // The chat: its messages, token checkpoints and session (prefix reuse, context policy).
  std::unique_ptr<Conversation> conversation_;
  QVariantMap settings_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> cancel_load_{false};
  mutable std::mutex model_mutex_;  // guards model_ against shared_model() readers
};

}  // namespace kvchat::app
