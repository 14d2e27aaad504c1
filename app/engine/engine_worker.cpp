// EngineWorker: the engine on its own thread. Every slot runs on the worker thread;
// every result leaves as a signal (queued to GUI-thread receivers). No exception
// escapes a slot: engine calls report through Result/Status, and anything thrown
// (allocation failure) becomes a failure signal with what was thrown.
#include "engine/engine_worker.h"

#include <QCoreApplication>
#include <QFileInfo>

#include <chrono>
#include <exception>
#include <string>
#include <vector>

#include "engine/engine_maps.h"
#include "kvchat/conversation.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "kvchat/snapshot_store.h"
#include "kvchat/summarize.h"

namespace kvchat::app {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

QString qstr(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

std::vector<ChatMessage> chat_messages(const QVariantList& messages) {
  std::vector<ChatMessage> chat;
  chat.reserve(static_cast<size_t>(messages.size()));
  for (const QVariant& v : messages) {
    const QVariantMap m = v.toMap();
    chat.push_back(ChatMessage{m.value(QStringLiteral("role")).toString().toStdString(),
                               m.value(QStringLiteral("content")).toString().toStdString()});
  }
  return chat;
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

EngineWorker::EngineWorker(QObject* parent) : QObject(parent) {}

EngineWorker::~EngineWorker() = default;

void EngineWorker::loadModel(const QString& path, const QVariantMap& settings) {
  try {
    auto options = app::session_options(settings);
    if (!options) {
      emit modelLoadFailed(qstr(options.message()));
      return;
    }
    auto model = Model::load(path.toStdString());
    if (!model) {
      emit modelLoadFailed(qstr(model.message()));
      return;
    }
    std::shared_ptr<const Model> loaded = std::move(model).value();
    const QString override_text =
        settings.value(QStringLiteral("chat_template_override")).toString();
    auto format = ChatFormat::for_model(*loaded, override_text.toStdString());
    if (!format) {
      // A broken override must not lock the user out of the model: the file's own
      // format is used and the reason shown.
      emit chatFormatFailed(qstr(format.message()));
      format = ChatFormat::for_model(*loaded);
      if (!format) {
        emit modelLoadFailed(qstr(format.message()));
        return;
      }
    }
    // Read the weights in now, with progress and a way out, rather than on the first
    // token (the mapping itself is instant; the pages come from disk as they are used).
    auto prefetched = loaded->prefetch([this](double fraction) {
      emit loadProgress(fraction);
      return !cancel_load_.load();
    });
    cancel_load_.store(false);
    if (!prefetched) {
      emit modelLoadFailed(qstr(prefetched.message()));
      return;
    }

    auto session = Session::create(loaded, *options);
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
    });

    // Only now is the previous model replaced: a failure above leaves it usable.
    conversation_ = std::make_unique<Conversation>(std::move(s), *format);
    const int32_t overhead = kvchat::summary_prompt_overhead(loaded->tokenizer(), SummarizeOptions{});
    {
      const std::lock_guard<std::mutex> lock(model_mutex_);
      summary_prompt_overhead_ = overhead;
      model_ = std::move(loaded);
      format_ = std::move(format).value();
      session_options_ = *options;
    }
    settings_ = settings;
    QVariantMap info = model_map(model_->info(), conversation_->session());
    info.insert(format_map(*format_, override_text));
    emit modelLoaded(info);
    report_memory();
  } catch (...) {
    emit modelLoadFailed(thrown("Loading the model failed"));
  }
}

void EngineWorker::generate(const QVariantList& messages, const QString& system_prompt,
                            const QVariantMap& sampling) {
  stop_.store(false);
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
    callbacks.on_prompt = [this](const PromptStats&) { report_memory(); };
    callbacks.cancelled = [this] { return stop_.load(); };
    callbacks.on_text = [&](std::string_view piece) {
      if (ttft_ms < 0) ttft_ms = ms_between(t0, Clock::now());
      emit replyChunk(qstr(piece));
      report_memory();
      return !stop_.load();
    };
    auto reply = conversation.reply(generate_options(sampling, conversation.format()), callbacks);
    report_memory();
    if (!reply) {
      emit replyFailed(qstr(reply.message()));
      return;
    }
    const PromptStats& prompt = reply->prompt;
    const GenerateResult& result = reply->generated;

    QVariantMap stats;
    stats.insert(QStringLiteral("prompt_tokens"), prompt.prompt_tokens);
    stats.insert(QStringLiteral("evaluated_tokens"), prompt.evaluated_tokens);
    stats.insert(QStringLiteral("reused_tokens"), prompt.reused_tokens);
    stats.insert(QStringLiteral("generated_tokens"), result.stats.generated_tokens);
    stats.insert(QStringLiteral("ttft_ms"), ttft_ms < 0 ? ms_between(t0, Clock::now()) : ttft_ms);
    stats.insert(QStringLiteral("tokens_per_second"), result.stats.decode_tokens_per_second());
    // The prompt's prefill speed (what a document's cost estimate is based on).
    stats.insert(QStringLiteral("prefill_tokens_per_second"),
                 prompt.evaluated_tokens > 0 && prompt.seconds > 0
                     ? prompt.evaluated_tokens / prompt.seconds
                     : 0.0);
    stats.insert(QStringLiteral("decode_seconds"), result.stats.decode_seconds);
    stats.insert(QStringLiteral("stop_reason"), qstr(stop_reason_name(result.stop_reason)));
    stats.insert(QStringLiteral("text"), qstr(result.text));
    stats.insert(QStringLiteral("n_past"), conversation.session().n_past());
    stats.insert(QStringLiteral("chat_format"), qstr(conversation.format().description()));
    emit replyFinished(stats);
  } catch (...) {
    emit replyFailed(thrown("Generation failed"));
  }
}

void EngineWorker::countConversationTokens(const QVariantList& messages,
                                           const QString& system_prompt, const QString& key) {
  if (!conversation_) {
    emit conversationTokensCounted(key, -1, QCoreApplication::translate("EngineWorker", "No model is loaded."));
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

void EngineWorker::saveSnapshot(const QString& path, qint64 budget_bytes) {
  if (!conversation_ || conversation_->session().n_past() == 0) return;
  try {
    if (auto st = conversation_->save_snapshot(path.toStdString()); !st) {
      emit sessionEvent(QStringLiteral("snapshot"),
                        QCoreApplication::translate("EngineWorker", "Saving the KV snapshot failed: %1").arg(qstr(st.message())));
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
  QVariantMap usage;
  if (budget_bytes > 0) {
    const std::string keep[] = {path.toStdString()};
    auto evicted = kvchat::evict_snapshots(dir, static_cast<uint64_t>(budget_bytes), keep);
    if (!evicted) {
      emit sessionEvent(QStringLiteral("snapshot"),
                        QCoreApplication::translate("EngineWorker", "Keeping the KV snapshots within their budget failed: %1").arg(qstr(evicted.message())));
    } else {
      usage.insert(QStringLiteral("evicted"), static_cast<qint64>(evicted->evicted.size()));
    }
  }
  auto disk = kvchat::snapshot_disk_usage(dir);
  usage.insert(QStringLiteral("total_bytes"), disk ? static_cast<qint64>(disk->total_bytes) : qint64{0});
  usage.insert(QStringLiteral("file_bytes"), QFileInfo(path).size());
  if (saved && conversation_) {
    const kvchat::SnapshotSaveStats& last = conversation_->session().last_snapshot_save();
    usage.insert(QStringLiteral("last_written_bytes"), static_cast<qint64>(last.bytes_written));
    usage.insert(QStringLiteral("last_tokens_written"), last.tokens_written);
    usage.insert(QStringLiteral("last_rewritten"), last.rewritten);
    usage.insert(QStringLiteral("last_why_rewritten"), qstr(last.why_rewritten));
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

void EngineWorker::setChatTemplateOverride(const QString& override_text) {
  if (!model_ || !conversation_) return;
  auto format = ChatFormat::for_model(*model_, override_text.toStdString());
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
  settings_.insert(QStringLiteral("chat_template_override"), override_text);
  emit chatFormatChanged(format_map(*format_, override_text));
}

void EngineWorker::reportMemory() { report_memory(); }

void EngineWorker::report_memory() {
  if (!conversation_) return;
  try {
    emit memoryReport(memory_map(conversation_->session()));
  } catch (...) {
    emit engineError(thrown("The memory report could not be built"));
  }
}

}  // namespace kvchat::app
