#include "memory/memory_state.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <algorithm>

#include "util/display_text.h"
#include "conversations/conversation_host.h"
#include "engine/engine_worker.h"
#include "memory/ram_tier.h"
#include "util/byte_size.h"
#include "store/conversation_store.h"

namespace kvchat::app {

MemoryState::MemoryState(const QString& data_dir, ConversationStore* store, EngineWorker& worker,
                         const ConversationHost& chat, QObject* parent)
    : QObject(parent), data_dir_(data_dir), store_(store), worker_(worker), chat_(chat) {
  if (store_) {
    snapshot_budget_bytes_ =
        store_->setting(QStringLiteral("snapshot_budget_bytes"), kDefaultSnapshotBudgetBytes)
            .toLongLong();
  }
  // The RAM tier's budget as this data directory's settings have it (else the default).
  const qint64 ram_default = static_cast<qint64>(KvRamTier::default_budget_bytes());
  app_ram_tier()->set_budget(static_cast<uint64_t>(std::max<qint64>(
      0, store_ ? store_->setting(QStringLiteral("ram_tier_budget_bytes"), ram_default).toLongLong()
                : ram_default)));
  refresh_.setSingleShot(true);
  refresh_.setInterval(kRefreshMs);
  connect(&refresh_, &QTimer::timeout, this, &MemoryState::flush);
  connect(&kv_probe_, &KvQualityProbe::measured, this,
          [this](const QString& identity, const QVariantMap& figures) {
            QString error;
            if (store_ &&
                !store_->set_setting(QStringLiteral("kv_quality/") + identity, figures, &error)) {
              emit errorOccurred(error);
            }
            if (identity != kv_identity_) return;  // another model is loaded now
            kv_quality_ = figures;
            emit kvQualityChanged();
          });
  connect(&kv_probe_, &KvQualityProbe::failed, this,
          [this](const QString&, const QString& message) { emit kvQualityFailed(message); });
}

QVariantMap MemoryState::context_usage() const {
  const qint64 tokens = memory_.value(QStringLiteral("kv_tokens")).toLongLong();
  const qint64 max = memory_.value(QStringLiteral("kv_max_tokens")).toLongLong();
  const int percent = max > 0 ? static_cast<int>(100 * tokens / max) : 0;
  return {{QStringLiteral("tokens"), tokens},
          {QStringLiteral("max"), max},
          {QStringLiteral("percent"), percent},
          {QStringLiteral("text"),
           tr("%1 of %2 tokens (%3%)").arg(count_text(tokens), count_text(max)).arg(percent)}};
}

// ---- the memory reports and the timelines --------------------------------------------------

void MemoryState::on_memory_report(const MemoryFigures& figures) {
  memory_ = figures.to_map();
  // The sidebar's lines change only when what the tier holds or the live KV's presence does.
  const QVariantList places{memory_.value(QStringLiteral("ram_conversations")), figures.n_past > 0};
  if (places != kv_places_key_) {
    kv_places_key_ = places;
    bump_kv_places();
  }
  const int tokens = figures.report.kv_tokens;
  if (memory_history_.isEmpty() ||
      memory_history_.back().toMap().value("tokens").toInt() != tokens) {
    memory_history_.push_back(
        QVariantMap{{"tokens", tokens},
                    {"used", static_cast<qulonglong>(figures.report.kv_used_bytes)},
                    {"allocated", static_cast<qulonglong>(figures.report.kv_allocated_bytes)},
                    {"turn", false}});
    if (memory_history_.size() > 4096) memory_history_.pop_front();
  }
  dirty_ = true;
  if (!refresh_.isActive()) refresh_.start();
}

QVariantMap MemoryState::layer_split() const {
  if (memory_.value(QStringLiteral("gpu_layers")).toInt() <= 0) return {};
  QVariantMap m;
  for (const char* key : {"gpu_layers", "n_layers", "device_weights_bytes", "device_kv_bytes",
                          "host_weights_bytes", "host_kv_bytes"}) {
    m.insert(QLatin1String(key), memory_.value(QLatin1String(key)));
  }
  return m;
}

void MemoryState::flush() {
  refresh_.stop();
  if (!dirty_) return;
  dirty_ = false;
  emit memoryChanged();
}

void MemoryState::switch_conversation(qint64 from, qint64 to) {
  if (from) memory_histories_.insert(from, memory_history_);
  memory_history_ = memory_histories_.take(to);
  snapshot_status_.clear();
  snapshot_detail_.clear();
  snapshot_bytes_ = 0;
  for (const char* key : {"file_bytes", "last_written_bytes", "last_tokens_written",
                          "last_rewritten", "last_why_rewritten"}) {
    snapshot_disk_.remove(QLatin1String(key));  // this conversation's figures; the total stays
  }
  emit snapshotChanged();
  emit memoryChanged();
  bump_kv_places();
}

void MemoryState::forget_conversation(qint64 id) { memory_histories_.remove(id); }

void MemoryState::forget_session_figures() {
  // Every figure of the previous model's session is stale now: the timelines, the
  // snapshot line (the restore that follows says it again for the new session).
  memory_history_.clear();
  memory_histories_.clear();
  snapshot_status_.clear();
  snapshot_detail_.clear();
  emit snapshotChanged();
  emit memoryChanged();
}

void MemoryState::mark_turn_on_timeline() {
  // The point where the reply begins; for the first turn a point for where the
  // conversation stands before it.
  if (memory_history_.isEmpty()) {
    if (memory_.isEmpty()) return;
    memory_history_.push_back(QVariantMap{{"tokens", memory_.value("kv_tokens").toInt()},
                                          {"used", memory_.value("kv_used_bytes")},
                                          {"allocated", memory_.value("kv_allocated_bytes")},
                                          {"turn", true}});
    return;
  }
  QVariantMap last = memory_history_.back().toMap();
  last["turn"] = true;
  memory_history_.back() = last;
}

// ---- the KV snapshots ----------------------------------------------------------------------

QString MemoryState::snapshot_path(qint64 conversation) const {
  return QDir(data_dir_).filePath(
      QStringLiteral("snapshots/conversation-%1.kvsnap").arg(conversation));
}

void MemoryState::on_snapshot_saved(const QString& path, qint64 bytes) {
  if (path != snapshot_path(chat_.current_conversation())) return;  // of a conversation left since
  snapshot_bytes_ = bytes;
  snapshot_status_ = tr("Saved after the last reply (%1 on disk): reopening this conversation "
                        "restores it without computing it again.")
                         .arg(util::format_bytes(bytes));
  snapshot_detail_.clear();
  emit snapshotChanged();
}

void MemoryState::on_snapshot_disk_usage(const SnapshotDiskUsage& usage) {
  snapshot_disk_ = usage.to_map();
  emit snapshotChanged();
}

QVariantMap MemoryState::snapshot_disk() const {
  QVariantMap m = snapshot_disk_;
  m.insert(QStringLiteral("budget_bytes"), snapshot_budget_bytes_);
  return m;
}

void MemoryState::setSnapshotBudgetBytes(qint64 bytes) {
  bytes = std::max<qint64>(0, bytes);
  if (bytes == snapshot_budget_bytes_) return;
  snapshot_budget_bytes_ = bytes;
  QString error;
  if (store_) store_->set_setting(QStringLiteral("snapshot_budget_bytes"), bytes, &error);
  if (!error.isEmpty()) emit errorOccurred(error);
  emit snapshotChanged();
}

void MemoryState::on_snapshot_restored(bool restored, qint64 bytes, const QString& reason) {
  snapshot_bytes_ = bytes;
  snapshot_detail_ = reason;
  if (restored) {
    snapshot_status_ = tr("This conversation's memory was restored from the snapshot on disk "
                          "(%1): nothing had to be computed again.")
                           .arg(util::format_bytes(bytes));
  } else if (reason == QCoreApplication::translate("EngineWorker", "no snapshot saved")) {
    snapshot_status_ = tr("No snapshot on disk yet: one is saved after the next reply.");
    snapshot_detail_.clear();
  } else {
    snapshot_status_ =
        tr("The snapshot on disk could not be used (made with another model or "
           "settings, or damaged): the conversation is computed again with the "
           "next message.");
  }
  emit snapshotChanged();
  emit snapshotRestored();
}

qint64 MemoryState::ram_tier_budget_bytes() const {
  return static_cast<qint64>(app_ram_tier()->budget_bytes());
}

void MemoryState::setRamTierBudgetBytes(qint64 bytes) {
  bytes = std::max<qint64>(0, bytes);
  if (bytes == ram_tier_budget_bytes()) return;
  app_ram_tier()->set_budget(static_cast<uint64_t>(bytes));  // evicts down to it now
  QString error;
  if (store_) store_->set_setting(QStringLiteral("ram_tier_budget_bytes"), bytes, &error);
  if (!error.isEmpty()) emit errorOccurred(error);
  QMetaObject::invokeMethod(
      &worker_, [w = &worker_] { w->reportMemory(); }, Qt::QueuedConnection);
}

QVariantMap MemoryState::kvPlace(qint64 id) const {
  const auto place = [](const char* where, const QString& text) {
    return QVariantMap{{QStringLiteral("place"), QLatin1String(where)},
                       {QStringLiteral("text"), text}};
  };
  if (memory_.isEmpty()) return {};
  const int n_past = memory_.value(QStringLiteral("n_past")).toInt();
  if (id == chat_.current_conversation()) {
    return n_past > 0 ? place("live", tr("KV live: open now")) : place("none", tr("No KV yet"));
  }
  if (memory_.value(QStringLiteral("ram_conversations")).toList().contains(QVariant(id))) {
    return place("ram", tr("KV in RAM: back with 0 tokens to evaluate"));
  }
  const QFileInfo snapshot(snapshot_path(id));
  if (snapshot.exists()) {
    return place("disk",
                 tr("KV on disk: back with a load of %1").arg(util::format_bytes(snapshot.size())));
  }
  const QVariantList timeline = memory_histories_.value(id);
  const int tokens =
      timeline.isEmpty() ? 0 : timeline.back().toMap().value(QStringLiteral("tokens")).toInt();
  return tokens > 0 ? place("none", tr("No KV kept: %n token(s) to evaluate", nullptr, tokens))
                    : place("none", tr("No KV kept: evaluated again when opened"));
}

void MemoryState::bump_kv_places() {
  ++kv_places_revision_;
  emit kvPlacesChanged();
}

void MemoryState::on_kv_resumed_from_ram(int tokens) {
  snapshot_bytes_ = 0;
  snapshot_detail_.clear();
  snapshot_status_ =
      tr("This conversation's memory came back from RAM (%n token(s) held): "
         "nothing had to be computed or read again.",
         nullptr, tokens);
  emit snapshotChanged();
  emit snapshotRestored();
}

// ---- the KV types' quality -----------------------------------------------------------------

void MemoryState::measure_kv_quality(const QString& identity) {
  kv_identity_ = identity;
  kv_quality_ =
      store_ ? store_->setting(QStringLiteral("kv_quality/") + identity).toMap() : QVariantMap();
  emit kvQualityChanged();
  if (!kv_quality_.isEmpty() || identity.isEmpty()) return;
  SessionOptions options = worker_.session_options();
  options.n_threads = 1;
  kv_probe_.measure(identity, worker_.shared_model(), options);
}

}  // namespace kvchat::app
