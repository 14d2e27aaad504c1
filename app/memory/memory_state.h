// MemoryState: what the memory panel shows, split from ChatController (issue 26). It owns
// the chat session's latest memory report (memory), the open conversation's KV timeline
// and those of the other conversations seen in this run (memoryHistory), how full the
// context is (contextUsage, also the status line's), the open conversation's KV snapshot
// lines, the snapshots' disk use and budget, and the KV types' quality figures measured on
// the loaded model (kvQuality, KvQualityProbe). The engine reports after every token:
// memoryChanged is sent from the latest figures at most every kRefreshMs.
// ChatController owns it, connects the worker's memory and snapshot reports to it, and
// tells it when the open conversation changes, a model is loaded and a reply begins. QML
// reads it as the context property memoryState. GUI thread only.
#pragma once

#include <QHash>
#include <QObject>
#include <QTimer>
#include <QVariantList>
#include <QVariantMap>

#include "engine/kv_quality_probe.h"
#include "engine/worker_values.h"

namespace kvchat::app {

class ConversationHost;
class ConversationStore;
class EngineWorker;

class MemoryState : public QObject {
  Q_OBJECT
  // The chat session's latest memory report (MemoryFigures::to_map fields).
  Q_PROPERTY(QVariantMap memory READ memory NOTIFY memoryChanged)
  // The open conversation's KV timeline: {tokens, used, allocated, turn} per report.
  Q_PROPERTY(QVariantList memoryHistory READ memory_history NOTIFY memoryChanged)
  // How full the context is, computed once for the panel and the status line: tokens, max,
  // percent (whole, rounded down: 100 only when full) and text ("1,234 of 4,096 tokens (30%)").
  Q_PROPERTY(QVariantMap contextUsage READ context_usage NOTIFY memoryChanged)
  // One line on the open conversation's KV snapshot, in plain words: restored, not usable,
  // none yet, or saved after the last reply (with its size on disk). Empty: nothing known.
  Q_PROPERTY(QString snapshotStatus READ snapshot_status NOTIFY snapshotChanged)
  // The engine's own reason behind that line (for a tooltip); empty when there is none.
  Q_PROPERTY(QString snapshotDetail READ snapshot_detail NOTIFY snapshotChanged)
  Q_PROPERTY(qint64 snapshotBytes READ snapshot_bytes NOTIFY snapshotChanged)
  // EngineWorker::snapshotDiskUsage's figures plus budget_bytes.
  Q_PROPERTY(QVariantMap snapshotDisk READ snapshot_disk NOTIFY snapshotChanged)
  // All KV snapshots together; the least recently used go beyond it (0: no limit).
  // A double for QML (qmllint 6.4 has no qlonglong): byte counts stay far below 2^53.
  Q_PROPERTY(double snapshotBudgetBytes READ snapshot_budget_bytes WRITE setSnapshotBudgetBytes
                 NOTIFY snapshotChanged)
  // The app's RAM tier budget (memory/ram_tier.h; Settings), bytes as a double for QML.
  Q_PROPERTY(double ramTierBudgetBytes READ ram_tier_budget_bytes WRITE setRamTierBudgetBytes NOTIFY
                 memoryChanged)
  // Bumped when kvPlace's answers may have changed (what the RAM tier holds, the open
  // conversation, whether it holds KV): what the sidebar's lines bind to (with
  // snapshotDisk), not every token's report.
  Q_PROPERTY(int kvPlacesRevision READ kv_places_revision NOTIFY kvPlacesChanged)
  // The layers split between GPU and CPU (the report's gpu_layers > 0): gpu_layers,
  // n_layers, and the weights and KV on each side (device_weights_bytes, device_kv_bytes,
  // host_weights_bytes, host_kv_bytes); empty when every layer runs on the CPU.
  Q_PROPERTY(QVariantMap layerSplit READ layer_split NOTIFY memoryChanged)
  // The KV types' quality figures measured on the loaded model (KvQualityProbe fields),
  // empty until measured (the panel then shows the demo model's, labelled as such).
  Q_PROPERTY(QVariantMap kvQuality READ kv_quality NOTIFY kvQualityChanged)

 public:
  static constexpr qint64 kDefaultSnapshotBudgetBytes = qint64{4} << 30;
  static constexpr int kRefreshMs = 33;  // ~30 updates per second are plenty for the eye

  // Snapshots live under data_dir/snapshots; the budget and the measured KV quality are
  // settings of `store` (may be null: nothing kept). The worker's model is what the
  // quality probe measures; `chat` says which conversation is open (its snapshot's
  // reports are taken, another's are of one left since).
  MemoryState(const QString& data_dir, ConversationStore* store, EngineWorker& worker,
              const ConversationHost& chat, QObject* parent = nullptr);

  QVariantMap memory() const { return memory_; }
  QVariantList memory_history() const { return memory_history_; }
  QVariantMap context_usage() const;
  QVariantMap layer_split() const;
  QString snapshot_status() const { return snapshot_status_; }
  QString snapshot_detail() const { return snapshot_detail_; }
  qint64 snapshot_bytes() const { return snapshot_bytes_; }
  QVariantMap snapshot_disk() const;
  qint64 snapshot_budget_bytes() const { return snapshot_budget_bytes_; }
  void setSnapshotBudgetBytes(qint64 bytes);
  QVariantMap kv_quality() const { return kv_quality_; }
  qint64 ram_tier_budget_bytes() const;
  void setRamTierBudgetBytes(qint64 bytes);
  // Where conversation `id`'s KV is and what opening it costs: place ("live", "ram",
  // "disk", "none") and text (for the sidebar: 0 tokens, a load of N MB, N tokens to
  // evaluate when the count is known from this run).
  Q_INVOKABLE QVariantMap kvPlace(qint64 id) const;
  int kv_places_revision() const { return kv_places_revision_; }
  // Where a conversation's KV snapshot is kept.
  QString snapshot_path(qint64 conversation) const;

  // The worker's reports (queued on the GUI thread).
  void on_memory_report(const MemoryFigures& figures);
  void on_snapshot_saved(const QString& path, qint64 bytes);
  void on_snapshot_restored(bool restored, qint64 bytes, const QString& reason);
  // EngineWorker::kvResumedFromRam: the status line says so (and snapshotRestored is sent:
  // the conversation was opened with its KV).
  void on_kv_resumed_from_ram(int tokens);
  void on_snapshot_disk_usage(const SnapshotDiskUsage& usage);

  // The open conversation changes: the timeline is put away for `from` and taken out for
  // `to` (empty for one not seen in this run); its snapshot lines are cleared.
  void switch_conversation(qint64 from, qint64 to);
  void forget_conversation(qint64 id);  // deleted: its timeline goes
  void forget_session_figures();        // a model (re)loaded: the old session's timelines, lines
  void mark_turn_on_timeline();         // a reply begins here
  // The KV types' quality on the loaded model `identity`: stored once measured, else
  // measured now in the background (one thread, sessions of its own; the chat goes on).
  void measure_kv_quality(const QString& identity);
  // The figures not yet shown are shown now (a reply's end).
  void flush();

 signals:
  void memoryChanged();
  void snapshotChanged();
  void kvPlacesChanged();
  void kvQualityChanged();
  void errorOccurred(const QString& message);
  void kvQualityFailed(const QString& message);  // for the status line
  // The open conversation's snapshot was restored (or found unusable): it was (re)opened.
  void snapshotRestored();

 private:
  QString data_dir_;
  ConversationStore* store_;
  EngineWorker& worker_;
  const ConversationHost& chat_;
  QVariantMap memory_;
  QVariantList memory_history_;
  QHash<qint64, QVariantList> memory_histories_;  // of the conversations not open now
  QString snapshot_status_;
  QString snapshot_detail_;
  qint64 snapshot_bytes_ = 0;
  QVariantMap snapshot_disk_;
  qint64 snapshot_budget_bytes_ = kDefaultSnapshotBudgetBytes;
  QString kv_identity_;  // the model whose quality figures are wanted
  QVariantMap kv_quality_;
  KvQualityProbe kv_probe_;
  QTimer refresh_;
  bool dirty_ = false;          // figures not shown yet
  QVariantList kv_places_key_;  // (the tier's conversations, live KV or not) at the last bump
  int kv_places_revision_ = 0;
  void bump_kv_places();
};

}  // namespace kvchat::app
