// EngineWorker: the engine on its own thread. Every slot runs on the worker thread;
// every result leaves as a signal (queued to GUI-thread receivers). No exception
// escapes a slot: engine calls report through Result/Status, and anything thrown
// (allocation failure) becomes a failure signal with what was thrown.
#include "engine/engine_worker.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <chrono>
#include <exception>
#include <string>
#include <vector>

#include "engine/engine_maps.h"
#include "settings/model_settings.h"
#include "kvchat/chat_model.h"
#include "kvchat/conversation.h"
#include "kvchat/document.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "kvchat/snapshot_store.h"
#include "memory/ram_tier.h"
#include "kvchat/remote_client.h"
#include "remote/remote_model_path.h"
#include "kvchat/summarize.h"
#include "util/engine_text.h"

namespace kvchat::app {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// What was thrown (an allocation failure, in practice), for a failure signal.
QString thrown(const char* what) {
  try {
    throw;
  } catch (const std::exception& e) {
    return QStringLiteral("%1: %2").arg(QLatin1String(what), qstr(e.what()));
  } catch (...) {
    return QStringLiteral("%1: an unknown exception").arg(QLatin1String(what));
  }
}

}  // namespace

EngineWorker::EngineWorker(QObject* parent) : QObject(parent) { register_worker_values(); }

EngineWorker::~EngineWorker() = default;

void EngineWorker::loadModel(const ModelLoadRequest& request) {
  if (is_remote_model_path(request.path)) return load_remote(request);
  try {
    const QString& path = request.path;
    const SessionOptions& options = request.session;
    ChatModelOptions open;
    open.path = path.toStdString();
    open.chat_template = request.chat_template_override.toStdString();
    open.enable_thinking = thinking_switch(request.enable_thinking);
    open.kv_type = options.kv_type;
    open.n_ctx = options.n_ctx;
    // Read the weights in now, with progress and a way out, rather than on the first token.
    open.progress = [this](double fraction) {
      emit loadProgress(fraction);
      return !cancel_load_.load();
    };
    ModelFacts facts;
    auto opened = open_chat_model(open, [&](const Model& m) {
      facts.name = qstr(m.info().name);
      facts.head_dim = m.info().head_dim;
      facts.n_ctx_train = m.info().n_ctx_train;
      emit modelInspected(path, facts);
    });
    cancel_load_.store(false);
    if (!opened) {
      // A setting the model cannot take, in the window's words; else the engine's.
      const QVector<SettingIssue> issues =
          check_model_settings(qstr(options.kv_type), options.n_ctx, facts);
      emit modelLoadFailed(has_blocking(issues) ? blocking_reasons(issues)
                                                : qstr(opened.message()));
      return;
    }
    // A broken override must not lock the user out of the model: the file's own format is
    // used and the reason shown.
    if (!opened->format_error.empty()) emit chatFormatFailed(qstr(opened->format_error));
    std::shared_ptr<const Model> loaded = opened->model;
    ChatFormat format = std::move(opened->format);
    const QString& override_text = request.chat_template_override;

    auto session = Session::create(loaded, options);
    if (!session) {
      emit modelLoadFailed(qstr(session.message()));
      return;
    }
    if (!(*session)->backend_note().empty()) {
      emit sessionEvent(QStringLiteral("backend"), qstr((*session)->backend_note()));
    }
    std::unique_ptr<Session> s = std::move(session).value();
    s->set_event_handler([this](const SessionEvent& e) {
      emit sessionEvent(qstr(session_event_name(e.kind)), qstr(e.message));
      if (e.kind == SessionEvent::Kind::TurnsDropped ||
          e.kind == SessionEvent::Kind::ContextShifted) {
        emit contextPolicyApplied(qstr(session_event_name(e.kind)), e.tokens_before, e.tokens_after,
                                  e.tokens_reevaluated);
      }
    });

    // Only now is the previous model replaced: a failure above leaves it usable. The chat's
    // and the summaries' KV in RAM was the old model's (the server's goes with its pool).
    conversation_ = std::make_unique<Conversation>(std::move(s), format);
    remote_.reset();
    app_ram_tier()->erase_prefix("c");
    app_ram_tier()->erase_prefix("summary/");
    const int32_t overhead =
        kvchat::summary_prompt_overhead(loaded->tokenizer(), SummarizeOptions{});
    {
      const std::lock_guard<std::mutex> lock(model_mutex_);
      summary_prompt_overhead_ = overhead;
      model_ = std::move(loaded);
      format_ = std::move(format);
      session_options_ = options;
    }
    emit modelLoaded(
        loaded_model(conversation_->session(), chat_format_info(*format_, override_text)));
    report_memory();
  } catch (...) {
    emit modelLoadFailed(thrown("Loading the model failed"));
  }
}

void EngineWorker::generate(const ChatTurns& messages, const QString& system_prompt,
                            const ReplySampling& sampling, const QString& fork_prefix,
                            const ReplyTools& tools) {
  set_tools(tools);
  if (conversation_ && !fork_prefix.isEmpty()) {
    try {
      auto ids = conversation_->tokens_for(system_prompt.toStdString(), chat_messages(messages));
      const std::string key = fork_prefix.toStdString() + "b" + std::to_string(++parked_branches_);
      if (ids) park_branch_before_fork(*app_ram_tier(), *conversation_, key, *ids);
    } catch (...) {
      // Nothing parked: switching back re-evaluates, as before the RAM tier.
    }
  }
  run_reply(messages, system_prompt, sampling, /*continuing=*/false);
}

void EngineWorker::continueReply(const ChatTurns& messages, const QString& system_prompt,
                                 const ReplySampling& sampling, const ReplyTools& tools) {
  set_tools(tools);
  run_reply(messages, system_prompt, sampling, /*continuing=*/true);
}

void EngineWorker::run_reply(const ChatTurns& messages, const QString& system_prompt,
                             const ReplySampling& sampling, bool continuing) {
  stop_.store(false);
  if (remote_) return run_remote_reply(messages, system_prompt, sampling, continuing);
  if (!conversation_) {
    emit replyFailed(QCoreApplication::translate("EngineWorker", "No model is loaded."));
    return;
  }
  try {
    const Clock::time_point t0 = Clock::now();
    emit replyStarted();
    Conversation& conversation = *conversation_;
    conversation.set_system_prompt(system_prompt.toStdString());
    conversation.set_messages(chat_messages(messages));

    double ttft_ms = -1;
    ReplyCallbacks callbacks;
    callbacks.on_prompt = [this](const PromptStats& prompt) {
      if (prompt.opens_reasoning) emit replyOpensThinking();
      report_memory();
    };
    callbacks.cancelled = [this] { return stop_.load(); };
    callbacks.on_text = [&](std::string_view piece) {
      if (ttft_ms < 0) ttft_ms = ms_between(t0, Clock::now());
      emit replyChunk(qstr(piece));
      report_memory(false);
      return !stop_.load();
    };
    const GenerateOptions options = generate_options(sampling, conversation.format());
    auto reply = continuing                      ? conversation.continue_reply(options, callbacks)
                 : conversation.tools().active() ? reply_with_tool_calls(options, callbacks)
                                                 : conversation.reply(options, callbacks);
    report_memory();
    if (!reply) {
      // Said apart from other failures: the window offers a full context's way out.
      if (auto ids = conversation.tokens();
          ids && static_cast<int>(ids->size()) >= conversation.session().n_ctx()) {
        emit replyContextFull(static_cast<int>(ids->size()), conversation.session().n_ctx());
      }
      emit replyFailed(qstr(reply.message()));
      return;
    }
    const PromptStats& prompt = reply->prompt;
    const GenerateResult& result = reply->generated;

    ReplyStats stats;
    stats.prompt_tokens = prompt.prompt_tokens;
    stats.evaluated_tokens = prompt.evaluated_tokens;
    stats.reused_tokens = prompt.reused_tokens;
    stats.generated_tokens = result.stats.generated_tokens;
    stats.ttft_ms = ttft_ms < 0 ? ms_between(t0, Clock::now()) : ttft_ms;
    stats.tokens_per_second = result.stats.decode_tokens_per_second();
    stats.prefill_tokens_per_second = prompt.evaluated_tokens > 0 && prompt.seconds > 0
                                          ? prompt.evaluated_tokens / prompt.seconds
                                          : 0.0;
    stats.decode_seconds = result.stats.decode_seconds;
    // Esc while a call was asked for or ran ends the tool loop after a finished reply.
    stats.stop_reason = stop_.load() && conversation.tools().active()
                            ? QStringLiteral("cancelled")
                            : qstr(stop_reason_name(result.stop_reason));
    stats.seed = static_cast<qint64>(options.sampling.seed);
    stats.text = qstr(result.text);
    stats.n_past = conversation.session().n_past();
    stats.chat_format = qstr(conversation.format().description());
    stats.released_tokens = prompt.released_tokens;
    stats.released_kv_bytes = static_cast<qint64>(prompt.released_kv_bytes);
    const ReasoningStats& reasoning = reply->reasoning;
    stats.thinking_opened_by_prompt = prompt.opens_reasoning;
    stats.thinking = reasoning.opened;
    stats.thinking_tokens = reasoning.thinking_tokens;
    stats.thinking_seconds = reasoning.thinking_seconds;
    stats.thinking_kv_bytes = static_cast<qint64>(reasoning.thinking_kv_bytes);
    stats.thinking_closed = reasoning.closed;
    emit replyFinished(stats);
  } catch (...) {
    emit replyFailed(thrown("Generation failed"));
  }
}

void EngineWorker::countConversationTokens(const ChatTurns& messages, const QString& system_prompt,
                                           const QString& key) {
  if (!conversation_) {
    emit conversationTokensCounted(
        key, -1, QCoreApplication::translate("EngineWorker", "No model is loaded."));
    return;
  }
  try {
    auto ids = conversation_->tokens_for(system_prompt.toStdString(), chat_messages(messages));
    if (!ids) {
      emit conversationTokensCounted(key, -1, qstr(ids.message()));
      return;
    }
    emit conversationTokensCounted(key, static_cast<qint64>(ids->size()), {});
  } catch (...) {
    emit conversationTokensCounted(key, -1, thrown("Counting the conversation's tokens failed"));
  }
}

void EngineWorker::summarizeConversation(const ChatTurns& messages, const QString& system_prompt) {
  stop_.store(false);
  std::shared_ptr<const Model> model;
  SessionOptions options;
  {
    const std::lock_guard<std::mutex> lock(model_mutex_);
    model = model_;
    options = session_options_;
  }
  if (!model) {
    emit conversationSummaryFailed(
        QCoreApplication::translate("EngineWorker", "No model is loaded."));
    return;
  }
  try {
    std::string transcript;
    if (!system_prompt.trimmed().isEmpty()) {
      transcript += "Instructions: " + system_prompt.toStdString() + "\n\n";
    }
    for (const ChatTurn& m : messages) {
      const bool user = m.role == QLatin1String("user");
      transcript += (user ? "User: " : "Assistant: ") + m.content.toStdString() + "\n\n";
    }
    auto session = Session::create(model, options);
    if (!session) {
      emit conversationSummaryFailed(qstr(session.message()));
      return;
    }
    auto reader = DocumentReader::from_bytes(std::move(transcript), "conversation");
    if (!reader) {
      emit conversationSummaryFailed(qstr(reader.message()));
      return;
    }
    SummarizeOptions summarize_options;
    summarize_options.instruction = "Summarize this conversation in a few sentences.";
    // A merge must fit two summaries in a chunk: shorter summaries in a small context.
    summarize_options.summary_tokens = std::clamp((*session)->n_ctx() / 6, 16, 96);
    SummarizeCallbacks callbacks;
    callbacks.cancelled = [this] { return stop_.load(); };
    auto result = summarize_document(**session, **reader, summarize_options, {}, callbacks);
    if (!result) {
      emit conversationSummaryFailed(qstr(result.message()));
      return;
    }
    if (result->cancelled) {
      emit conversationSummaryFailed(
          QCoreApplication::translate("EngineWorker", "Stopped: no summary was written."));
      return;
    }
    ConversationSummaryStats stats;
    stats.tokens_evaluated = static_cast<qint64>(result->tokens_evaluated);
    stats.tokens_generated = static_cast<qint64>(result->tokens_generated);
    stats.document_tokens = static_cast<qint64>(result->plan.document_tokens);
    stats.chunks = result->plan.n_chunks;
    emit conversationSummarized(qstr(result->summary), stats);
  } catch (...) {
    emit conversationSummaryFailed(thrown("Summarizing the conversation failed"));
  }
}

void EngineWorker::saveSnapshot(const QString& path, qint64 budget_bytes) {
  if (!conversation_ || conversation_->session().n_past() == 0) return;
  try {
    if (auto st = conversation_->save_snapshot(path.toStdString()); !st) {
      emit sessionEvent(
          QStringLiteral("snapshot"),
          QCoreApplication::translate("EngineWorker", "Saving the KV snapshot failed: %1")
              .arg(qstr(st.message())));
      return;
    }
    emit snapshotSaved(path, QFileInfo(path).size());
    report_snapshot_disk(path, budget_bytes, true);
  } catch (...) {
    emit sessionEvent(QStringLiteral("snapshot"), thrown("Saving the KV snapshot failed"));
  }
}

void EngineWorker::report_snapshot_disk(const QString& path, qint64 budget_bytes, bool saved) {
  const std::string dir = QFileInfo(path).absolutePath().toStdString();
  SnapshotDiskUsage usage;
  if (budget_bytes > 0) {
    const std::string keep[] = {path.toStdString()};
    auto evicted = kvchat::evict_snapshots(dir, static_cast<uint64_t>(budget_bytes), keep);
    if (!evicted) {
      emit sessionEvent(
          QStringLiteral("snapshot"),
          QCoreApplication::translate("EngineWorker",
                                      "Keeping the KV snapshots within their budget failed: %1")
              .arg(qstr(evicted.message())));
    } else {
      usage.evicted = static_cast<qint64>(evicted->evicted.size());
    }
  }
  auto disk = kvchat::snapshot_disk_usage(dir);
  usage.total_bytes = disk ? static_cast<qint64>(disk->total_bytes) : qint64{0};
  usage.file_bytes = QFileInfo(path).size();
  if (saved && conversation_) {
    const kvchat::SnapshotSaveStats& last = conversation_->session().last_snapshot_save();
    usage.saved = true;
    usage.last_written_bytes = static_cast<qint64>(last.bytes_written);
    usage.last_tokens_written = last.tokens_written;
    usage.last_rewritten = last.rewritten;
    usage.last_why_rewritten = qstr(last.why_rewritten);
  }
  emit snapshotDiskUsage(usage);
}

void EngineWorker::restoreSnapshot(const QString& path) {
  if (!conversation_) return;
  QString why;
  try {
    if (!QFileInfo::exists(path)) {
      why = QCoreApplication::translate("EngineWorker", "no snapshot saved");
      conversation_->clear();
    } else if (auto st = conversation_->restore_snapshot(path.toStdString()); !st) {
      why = qstr(st.message());
    }
  } catch (...) {
    why = thrown("Restoring the KV snapshot failed");
    conversation_->clear();
  }
  const bool restored = why.isEmpty();
  if (restored && !conversation_->session().last_snapshot_load().ignored_tail.empty()) {
    why = QStringLiteral("%1 tokens; a damaged end of the journal was ignored: %2")
              .arg(conversation_->session().last_snapshot_load().tokens_restored)
              .arg(qstr(conversation_->session().last_snapshot_load().ignored_tail));
  }
  report_memory();  // first, so the restored numbers are shown
  emit snapshotRestored(restored, restored ? QFileInfo(path).size() : 0, why);
  report_snapshot_disk(path, 0, false);
}

void EngineWorker::followBranch(const ChatTurns& messages, const QString& system_prompt,
                                const QString& path, qint64 budget_bytes, const QString& prefix) {
  if (!conversation_) {
    QFile::remove(path);
    emit branchFollowed(0);
    return;
  }
  int32_t kept = 0;
  bool from_ram = false;
  try {
    Session& session = conversation_->session();
    auto ids = conversation_->tokens_for(system_prompt.toStdString(), chat_messages(messages));
    if (ids) {
      // The branch left waits in RAM; the one shown comes back from it when it is there,
      // else the session keeps the prefix it shares with it.
      const std::string key = prefix.toStdString() + "b" + std::to_string(++parked_branches_);
      from_ram = switch_branch_kv(*app_ram_tier(), *conversation_, key, prefix.toStdString(), *ids)
                     .from_ram;
    } else {
      session.truncate(0);  // the template refuses the branch: nothing of it is known
    }
    kept = session.n_past();
  } catch (...) {
    conversation_->clear();
    kept = 0;
  }
  report_memory();
  if (kept == 0) {
    QFile::remove(path);
  } else {
    saveSnapshot(path, budget_bytes);
  }
  if (from_ram) emit kvResumedFromRam(kept);
  emit branchFollowed(kept);
}

void EngineWorker::switchConversation(const QString& leave_prefix, const QString& enter_prefix,
                                      const QString& path) {
  if (!conversation_) return;
  try {
    const std::string leave = leave_prefix.isEmpty() ? "" : leave_prefix.toStdString() + "live";
    const KvSwitch sw =
        switch_conversation_kv(*app_ram_tier(), *conversation_, leave, enter_prefix.toStdString());
    if (sw.from_ram) {
      report_memory();
      emit kvResumedFromRam(sw.held_tokens);
      return;
    }
  } catch (...) {
    conversation_->clear();
  }
  if (path.isEmpty()) {
    report_memory();
  } else {
    restoreSnapshot(path);
  }
}

void EngineWorker::forgetConversation(const QString& prefix) {
  if (!prefix.isEmpty()) app_ram_tier()->erase_prefix(prefix.toStdString());
  report_memory();
}

void EngineWorker::clearSession() {
  if (!conversation_) return;
  conversation_->clear();
  report_memory();
}

std::shared_ptr<const Model> EngineWorker::shared_model() const {
  const std::lock_guard<std::mutex> lock(model_mutex_);
  return model_;
}

std::optional<ChatFormat> EngineWorker::chat_format() const {
  const std::lock_guard<std::mutex> lock(model_mutex_);
  return format_;
}

SessionOptions EngineWorker::session_options() const {
  const std::lock_guard<std::mutex> lock(model_mutex_);
  return session_options_;
}

int32_t EngineWorker::summary_prompt_overhead() const {
  const std::lock_guard<std::mutex> lock(model_mutex_);
  return summary_prompt_overhead_;
}

void EngineWorker::setChatTemplateOverride(const QString& override_text,
                                           const QString& enable_thinking) {
  if (!model_ || !conversation_) return;
  auto format =
      chat_format_for(*model_, override_text.toStdString(), thinking_switch(enable_thinking));
  if (!format) {
    emit chatFormatFailed(qstr(format.message()));
    return;
  }
  {
    const std::lock_guard<std::mutex> lock(model_mutex_);
    format_ = *format;
  }
  // The prompts of the new format share nothing with the old one's texts.
  conversation_->set_format(std::move(format).value());
  emit chatFormatChanged(chat_format_info(*format_, override_text));
}

void EngineWorker::reportMemory() { report_memory(); }

void EngineWorker::report_memory(bool measure_tier) {
  if (!conversation_) return;
  try {
    MemoryFigures figures = memory_figures(conversation_->session());
    if (measure_tier) {
      const std::shared_ptr<KvRamTier> tier = app_ram_tier();
      tier->enforce();  // what the session let go of since counts as the tier's
      ram_tier_ = tier->stats();
      ram_conversations_ = ram_tier_conversations(*tier);
    }
    figures.ram_tier = ram_tier_;
    figures.ram_conversations = ram_conversations_;
    emit memoryReport(figures);
  } catch (...) {
    emit engineError(thrown("The memory report could not be built"));
  }
}

}  // namespace kvchat::app
