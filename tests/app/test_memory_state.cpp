// MemoryState (app/memory/memory_state.h) on its own, without a model: the memory
// reports shown at most ~30 times a second, each conversation's KV timeline kept while
// another is open, the snapshot line of the open conversation only, the context's fill,
// the snapshot budget kept in the store.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "conversations/conversation_host.h"
#include "engine/engine_worker.h"
#include "util/byte_size.h"
#include "memory/memory_state.h"
#include "store/conversation_store.h"

using kvchat::app::ConversationHost;
using kvchat::app::ConversationStore;
using kvchat::app::EngineWorker;
using kvchat::app::MemoryFigures;
using kvchat::app::MemoryState;
using kvchat::app::StoredMessage;

namespace {

// The chat as MemoryState sees it: which conversation is open.
class FakeChat : public ConversationHost {
 public:
  qint64 open = 0;
  MemoryState* memory = nullptr;
  qint64 current_conversation() const override { return open; }
  const QVector<StoredMessage>& message_items() const override { return messages_; }
  QString system_prompt() const override { return {}; }
  bool model_loading() const override { return false; }
  bool generating() const override { return false; }
  MemoryState* memory_state() const override { return memory; }
  QVariantMap last_reply_stats() const override { return {}; }
  QString store_error() const override { return {}; }
  void newConversation() override {}
  bool send_with_stats(const QString&, const QVariantMap&) override { return false; }
  bool append_exchange(qint64, const QString&, const QVariantMap&, const QString&,
                       const QVariantMap&, QString*) override {
    return false;
  }

 private:
  QVector<StoredMessage> messages_;
};

MemoryFigures figures(int tokens, int max = 4096) {
  MemoryFigures f;
  f.n_layers = 2;  // not empty
  f.n_ctx = max;
  f.report.kv_tokens = tokens;
  f.report.kv_max_tokens = max;
  f.report.kv_used_bytes = uint64_t(tokens) * 64;
  f.report.kv_allocated_bytes = uint64_t(tokens) * 128;
  return f;
}

}  // namespace

class TestMemoryState : public QObject {
  Q_OBJECT

 private slots:
  void reportsAreShownAtMostThirtyTimesASecond() {
    QTemporaryDir dir;
    EngineWorker worker;
    FakeChat chat;
    MemoryState memory(dir.path(), nullptr, worker, chat);
    QSignalSpy shown(&memory, &MemoryState::memoryChanged);
    for (int t = 1; t <= 200; ++t) memory.on_memory_report(figures(t));
    // Every report is kept at once (the state file reads them), none shown yet.
    QCOMPARE(memory.memory().value("kv_tokens").toInt(), 200);
    QCOMPARE(memory.memory_history().size(), 200);
    QCOMPARE(shown.count(), 0);
    QVERIFY(QTest::qWaitFor([&] { return shown.count() > 0; }, 1000));
    QTest::qWait(3 * MemoryState::kRefreshMs);
    QCOMPARE(shown.count(), 1);
    // The same fill again adds no point; a reply's end shows what is pending at once.
    memory.on_memory_report(figures(200));
    QCOMPARE(memory.memory_history().size(), 200);
    memory.flush();
    QCOMPARE(shown.count(), 2);
    memory.flush();  // nothing pending: nothing sent
    QCOMPARE(shown.count(), 2);
  }

  // Issue 27: a report of 20 of 32 layers on the GPU gives the panel both sides' weights
  // and KV; one without a GPU layer gives nothing to show.
  void theLayerSplitIsExposedFromTheReport() {
    QTemporaryDir dir;
    EngineWorker worker;
    FakeChat chat;
    MemoryState memory(dir.path(), nullptr, worker, chat);
    MemoryFigures f = figures(100);
    f.report.n_layers = 32;
    f.report.gpu_layers = 20;
    f.report.device_name = "NVIDIA H200";
    f.report.device_weights_bytes = 2749825024;
    f.report.device_kv_bytes = 671088640;
    f.report.host_weights_bytes = 1768112128;
    f.report.host_kv_bytes = 402653184;
    memory.on_memory_report(f);
    const QVariantMap split = memory.layer_split();
    QCOMPARE(split.value("gpu_layers").toInt(), 20);
    QCOMPARE(split.value("n_layers").toInt(), 32);
    QCOMPARE(split.value("device_weights_bytes").toULongLong(), 2749825024ull);
    QCOMPARE(split.value("device_kv_bytes").toULongLong(), 671088640ull);
    QCOMPARE(split.value("host_weights_bytes").toULongLong(), 1768112128ull);
    QCOMPARE(split.value("host_kv_bytes").toULongLong(), 402653184ull);
    QCOMPARE(memory.property("layerSplit").toMap(), split);
    QCOMPARE(memory.memory().value("gpu_layers").toInt(), 20);
    memory.on_memory_report(figures(101));  // the CPU backend: no layer on a GPU
    QVERIFY(memory.layer_split().isEmpty());
  }

  void eachConversationKeepsItsTimeline() {
    QTemporaryDir dir;
    EngineWorker worker;
    FakeChat chat;
    MemoryState memory(dir.path(), nullptr, worker, chat);
    memory.switch_conversation(0, 1);
    chat.open = 1;
    memory.on_memory_report(figures(10));
    memory.mark_turn_on_timeline();
    memory.on_memory_report(figures(20));
    const QVariantList first = memory.memory_history();
    QCOMPARE(first.size(), 2);
    QVERIFY(first.front().toMap().value("turn").toBool());

    memory.switch_conversation(1, 2);
    chat.open = 2;
    QVERIFY(memory.memory_history().isEmpty());  // one not seen in this run
    memory.on_memory_report(figures(5));
    memory.switch_conversation(2, 1);
    chat.open = 1;
    QCOMPARE(memory.memory_history(), first);
    // A deleted conversation's timeline goes; a new model's session forgets them all.
    memory.forget_conversation(2);
    memory.switch_conversation(1, 2);
    QVERIFY(memory.memory_history().isEmpty());
    memory.forget_session_figures();
    memory.switch_conversation(2, 1);
    QVERIFY(memory.memory_history().isEmpty());
  }

  void theSnapshotLineIsTheOpenConversations() {
    QTemporaryDir dir;
    EngineWorker worker;
    FakeChat chat;
    MemoryState memory(dir.path(), nullptr, worker, chat);
    chat.open = 3;
    QSignalSpy changed(&memory, &MemoryState::snapshotChanged);
    memory.on_snapshot_saved(memory.snapshot_path(4), 1000);  // of a conversation left since
    QVERIFY(memory.snapshot_status().isEmpty());
    QCOMPARE(changed.count(), 0);
    memory.on_snapshot_saved(memory.snapshot_path(3), 2048);
    QCOMPARE(memory.snapshot_bytes(), qint64{2048});
    QVERIFY2(memory.snapshot_status().contains(kvchat::util::format_bytes(2048)),
             qPrintable(memory.snapshot_status()));
    QCOMPARE(changed.count(), 1);
    QVERIFY(memory.snapshot_path(3).startsWith(dir.path()));

    QSignalSpy restored(&memory, &MemoryState::snapshotRestored);
    memory.on_snapshot_restored(false, 0, QStringLiteral("made with another model"));
    QCOMPARE(restored.count(), 1);
    QCOMPARE(memory.snapshot_detail(), QStringLiteral("made with another model"));
    QVERIFY(memory.snapshot_status().contains("could not be used"));
    // Another conversation opened: its lines are not known yet.
    memory.switch_conversation(3, 5);
    QVERIFY(memory.snapshot_status().isEmpty());
    QVERIFY(memory.snapshot_detail().isEmpty());
    QCOMPARE(memory.snapshot_bytes(), qint64{0});
  }

  void theContextsFillIsRoundedDown() {
    QTemporaryDir dir;
    EngineWorker worker;
    FakeChat chat;
    MemoryState memory(dir.path(), nullptr, worker, chat);
    QCOMPARE(memory.context_usage().value("percent").toInt(), 0);  // nothing known
    memory.on_memory_report(figures(4095, 4096));
    const QVariantMap usage = memory.context_usage();
    QCOMPARE(usage.value("percent").toInt(), 99);  // 100 only when full
    QCOMPARE(usage.value("tokens").toLongLong(), qint64{4095});
    QCOMPARE(usage.value("max").toLongLong(), qint64{4096});
    QCOMPARE(usage.value("text").toString(), QStringLiteral("4,095 of 4,096 tokens (99%)"));
  }

  void theSnapshotBudgetIsKept() {
    QTemporaryDir dir;
    const QString db = ConversationStore::default_path(dir.path());
    EngineWorker worker;
    FakeChat chat;
    {
      QString error;
      auto store = ConversationStore::open(db, &error);
      QVERIFY2(store, qPrintable(error));
      MemoryState memory(dir.path(), store.get(), worker, chat);
      QCOMPARE(memory.snapshot_budget_bytes(), MemoryState::kDefaultSnapshotBudgetBytes);
      QSignalSpy changed(&memory, &MemoryState::snapshotChanged);
      memory.setSnapshotBudgetBytes(-5);  // no limit, not a negative one
      QCOMPARE(memory.snapshot_budget_bytes(), qint64{0});
      QCOMPARE(memory.snapshot_disk().value("budget_bytes").toLongLong(), qint64{0});
      memory.setSnapshotBudgetBytes(qint64{512} << 20);
      QCOMPARE(changed.count(), 2);
      memory.setSnapshotBudgetBytes(qint64{512} << 20);  // the same: nothing sent
      QCOMPARE(changed.count(), 2);
    }
    QString error;
    auto store = ConversationStore::open(db, &error);
    QVERIFY2(store, qPrintable(error));
    MemoryState memory(dir.path(), store.get(), worker, chat);
    QCOMPARE(memory.snapshot_budget_bytes(), qint64{512} << 20);
  }
};

QTEST_MAIN(TestMemoryState)
#include "test_memory_state.moc"
