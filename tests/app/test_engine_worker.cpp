// Tests of EngineWorker (app/engine/): the worker lives on its own QThread, requests
// arrive as queued calls, results come back as signals delivered on the GUI thread.
// Uses the demo model (KJV, 6 layers, 2 KV heads x 32, f16 cache: 1536 bytes/token).
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMetaObject>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>
#include <atomic>

#include "engine/engine_maps.h"
#include "engine/engine_worker.h"
#include "messages/message_list_model.h"
#include "kvchat/chat_format.h"
#include "kvchat/chat_template.h"
#include "kvchat/generate.h"
#include "kvchat/model.h"
#include "kvchat/session.h"

using kvchat::app::ChatTurn;
using kvchat::app::ChatTurns;
using kvchat::app::EngineWorker;
using kvchat::app::reply_sampling;
using kvchat::app::ReplySampling;

namespace {

const QString kDemo = QStringLiteral(KVCHAT_SHARED_DIR "/models/kjv-demo-f16.gguf");
const QString kPrompt = QStringLiteral("Genesis 1\n1 In the beginning");
constexpr qulonglong kBytesPerToken = 2 * 6 * 2 * 32 * 2;  // K+V x layers x kv heads x dim x f16

ChatTurn message(const QString& role, const QString& content) { return {role, content}; }

ReplySampling greedy(int max_tokens) {
  return reply_sampling(
      {{QStringLiteral("temperature"), 0.0}, {QStringLiteral("max_tokens"), max_tokens}});
}

// A chat template of the shared cases (templates/cases.json, real published templates).
QString shared_template(const QString& name) {
  QFile f(QStringLiteral(KVCHAT_SHARED_DIR "/templates/cases.json"));
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll())
      .object()
      .value(QStringLiteral("templates"))
      .toObject()
      .value(name)
      .toString();
}

// A signal argument's typed value as the map the window gets.
template <class T>
QVariantMap map_of(const QVariant& v) {
  return qvariant_cast<T>(v).to_map();
}

}  // namespace

class TestEngineWorker : public QObject {
  Q_OBJECT

 private:
  QThread thread_;
  EngineWorker* worker_ = nullptr;
  QString backend_;

  void load(const QString& path) {
    QMetaObject::invokeMethod(worker_, [w = worker_, path] {
      kvchat::SessionOptions options;
      options.backend = "auto";
      options.n_threads = 2;
      w->loadModel({path, options, QString(), QString()});
    });
  }
  void generate(const ChatTurns& messages, const ReplySampling& sampling) {
    QMetaObject::invokeMethod(
        worker_, [w = worker_, messages, sampling] { w->generate(messages, QString(), sampling); });
  }
  // Loads the demo model again: a fresh session with an empty cache.
  void reload() {
    QSignalSpy loaded(worker_, &EngineWorker::modelLoaded);
    load(kDemo);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
  }

 private slots:
  void initTestCase() {
    worker_ = new EngineWorker;
    worker_->moveToThread(&thread_);
    thread_.start();
  }

  void cleanupTestCase() {
    thread_.quit();
    thread_.wait();
    delete worker_;  // its thread has finished
  }

  void loadsOnWorkerAndDeliversOnGuiThread() {
    QThread* const gui = QThread::currentThread();
    QThread* loaded_on = nullptr;
    QVariantMap info;
    // `this` lives on the GUI thread: the default (auto) connection is queued there.
    connect(worker_, &EngineWorker::modelLoaded, this, [&](const kvchat::app::LoadedModel& i) {
      loaded_on = QThread::currentThread();
      info = i.to_map();
    });
    QSignalSpy memory(worker_, &EngineWorker::memoryReport);
    QSignalSpy failed(worker_, &EngineWorker::modelLoadFailed);
    load(kDemo);
    QTRY_VERIFY_WITH_TIMEOUT(loaded_on != nullptr, 60000);
    disconnect(worker_, &EngineWorker::modelLoaded, this, nullptr);
    QCOMPARE(loaded_on, gui);
    QVERIFY(loaded_on != &thread_);
    QCOMPARE(failed.count(), 0);

    QCOMPARE(info.value("name").toString(), QStringLiteral("kjv-demo"));
    QCOMPARE(info.value("is_demo").toBool(), true);
    QCOMPARE(info.value("architecture").toString(), QStringLiteral("llama"));
    QCOMPARE(info.value("n_layers").toInt(), 6);
    QCOMPARE(info.value("n_embd").toInt(), 192);
    QCOMPARE(info.value("n_heads").toInt(), 6);
    QCOMPARE(info.value("n_kv_heads").toInt(), 2);
    QCOMPARE(info.value("head_dim").toInt(), 32);
    QCOMPARE(info.value("n_ff").toInt(), 512);
    QCOMPARE(info.value("n_vocab").toInt(), 2048);
    QCOMPARE(info.value("n_ctx_train").toInt(), 512);
    // The demo file has no chat template: the named completion format, and the reason.
    QCOMPARE(info.value("chat_format_kind").toString(), QStringLiteral("completion"));
    QCOMPARE(info.value("chat_format_source").toString(), QStringLiteral("builtin"));
    QVERIFY(
        info.value("chat_format_description").toString().contains("the file has no chat template"));
    QCOMPARE(info.value("path").toString(), kDemo);
    QVERIFY(info.value("n_params").toULongLong() > 0);
    QVERIFY(info.value("file_bytes").toULongLong() > info.value("weight_bytes").toULongLong());
    const QVariantMap by_type = info.value("weight_bytes_by_type").toMap();
    QVERIFY(by_type.contains("F16"));
    qulonglong sum = 0;
    for (const QVariant& v : by_type) sum += v.toULongLong();
    QCOMPARE(sum, info.value("weight_bytes").toULongLong());
    QVERIFY(info.value("tensor_count_by_type").toMap().value("F16").toInt() > 0);
    backend_ = info.value("backend").toString();
    QVERIFY(backend_ == "cpu" || backend_ == "cuda");

    // A memory report follows the model: an empty cache.
    QTRY_VERIFY_WITH_TIMEOUT(memory.count() >= 1, 10000);
    const QVariantMap report = map_of<kvchat::app::MemoryFigures>(memory.last().at(0));
    QCOMPARE(report.value("kv_used_bytes").toULongLong(), 0ull);
    QCOMPARE(report.value("n_past").toInt(), 0);
    QCOMPARE(report.value("kv_bytes_per_token").toULongLong(), kBytesPerToken);
    QCOMPARE(report.value("weights_bytes").toULongLong(), info.value("weight_bytes").toULongLong());
  }

  void chatTemplateOverrideIsUsedAndABrokenOneIsRefused() {
    reload();
    QSignalSpy changed(worker_, &EngineWorker::chatFormatChanged);
    QSignalSpy refused(worker_, &EngineWorker::chatFormatFailed);
    const QString custom = QStringLiteral(
        "{% for m in messages %}{% if m.role == 'user' %}Genesis 1\n1 {% endif %}"
        "{{ m.content }}{% endfor %}");
    QMetaObject::invokeMethod(worker_,
                              [w = worker_, custom] { w->setChatTemplateOverride(custom); });
    QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, 10000);
    const QVariantMap format = map_of<kvchat::app::ChatFormatInfo>(changed.last().at(0));
    QCOMPARE(format.value("chat_format_source").toString(), QStringLiteral("override"));
    QCOMPARE(format.value("chat_template_override").toString(), custom);

    // The override renders the prompt: "Genesis 1\n1 " + "In the beginning".
    QSignalSpy finished(worker_, &EngineWorker::replyFinished);
    generate({message("user", "In the beginning")}, greedy(4));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    const QVariantMap stats = map_of<kvchat::app::ReplyStats>(finished.last().at(0));
    QCOMPARE(stats.value("chat_format").toString(),
             QStringLiteral("your chat template for this model"));
    const auto model = worker_->shared_model();
    const auto expected = model->tokenizer().encode_with_special(
        kPrompt.toStdString(), model->tokenizer().add_bos_by_default());
    QCOMPARE(stats.value("prompt_tokens").toInt(), static_cast<int>(expected.size()));

    // One that does not parse is refused; the working one stays.
    QMetaObject::invokeMethod(worker_, [w = worker_] { w->setChatTemplateOverride("{% if %}"); });
    QTRY_COMPARE_WITH_TIMEOUT(refused.count(), 1, 10000);
    QVERIFY(refused.last().at(0).toString().contains("does not parse"));
    QCOMPARE(worker_->chat_format()->source(), kvchat::ChatFormatSource::Override);

    // A template's raise_exception() fails the reply with the template's own words.
    QMetaObject::invokeMethod(worker_, [w = worker_] {
      w->setChatTemplateOverride("{{ raise_exception('Only user turns, please') }}");
    });
    QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 2, 10000);
    QSignalSpy failed(worker_, &EngineWorker::replyFailed);
    generate({message("user", "In the beginning")}, greedy(4));
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
    QVERIFY(failed.last().at(0).toString().contains("Only user turns, please"));
    reload();  // the next tests start from the file's own format
  }

  void loadReportsProgressAndCanBeCancelled() {
    reload();
    QSignalSpy progress(worker_, &EngineWorker::loadProgress);
    QSignalSpy loaded(worker_, &EngineWorker::modelLoaded);
    QSignalSpy failed(worker_, &EngineWorker::modelLoadFailed);
    load(kDemo);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
    QVERIFY(progress.count() >= 1);
    QCOMPARE(progress.last().at(0).toDouble(), 1.0);  // every page read

    // Cancelled before the queued load runs: it stops at its first progress check and
    // the previous model stays loaded and usable.
    worker_->request_cancel_load();
    load(kDemo);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 60000);
    QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("cancelled")),
             qPrintable(failed.at(0).at(0).toString()));
    QCOMPARE(loaded.count(), 1);
    QSignalSpy finished(worker_, &EngineWorker::replyFinished);
    generate({message("user", kPrompt)}, greedy(3));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    // The cancel was used up: the next load goes through.
    load(kDemo);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 60000);
  }

  void badPathFailsAndKeepsThePreviousModel() {
    QSignalSpy failed(worker_, &EngineWorker::modelLoadFailed);
    QSignalSpy loaded(worker_, &EngineWorker::modelLoaded);
    load(QStringLiteral("/nonexistent/dir/missing.gguf"));
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
    QCOMPARE(loaded.count(), 0);
    QVERIFY(!failed.at(0).at(0).toString().isEmpty());

    // A file that is not a GGUF fails too.
    load(QStringLiteral(KVCHAT_SOURCE_DIR "/CMakeLists.txt"));
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, 30000);
    QCOMPARE(failed.count(), 2);

    QSignalSpy finished(worker_, &EngineWorker::replyFinished);
    QSignalSpy replyFailed(worker_, &EngineWorker::replyFailed);
    generate({message("user", kPrompt)}, greedy(4));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QCOMPARE(replyFailed.count(), 0);
    QCOMPARE(
        map_of<kvchat::app::ReplyStats>(finished.at(0).at(0)).value("generated_tokens").toInt(), 4);
  }

  // A reply's save appends to the conversation's journal; saving another conversation
  // under a budget evicts the least recently used snapshot, never the one just saved.
  void snapshotsAppendAndStayWithinTheirBudget() {
    reload();
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString first = dir.filePath(QStringLiteral("conversation-1.kvsnap"));
    const QString second = dir.filePath(QStringLiteral("conversation-2.kvsnap"));
    QSignalSpy usage(worker_, &EngineWorker::snapshotDiskUsage);
    QSignalSpy finished(worker_, &EngineWorker::replyFinished);
    auto save = [&](const QString& path, qint64 budget) {
      QMetaObject::invokeMethod(worker_,
                                [w = worker_, path, budget] { w->saveSnapshot(path, budget); });
    };
    const ChatTurns turn1 = {message("user", kPrompt)};
    generate(turn1, greedy(6));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    save(first, 0);
    QTRY_COMPARE_WITH_TIMEOUT(usage.count(), 1, 30000);
    QVariantMap u = map_of<kvchat::app::SnapshotDiskUsage>(usage.at(0).at(0));
    QVERIFY(u.value("last_rewritten").toBool());
    QCOMPARE(u.value("last_written_bytes").toLongLong(), QFileInfo(first).size());
    QCOMPARE(u.value("file_bytes").toLongLong(), QFileInfo(first).size());
    QCOMPARE(u.value("total_bytes").toLongLong(), QFileInfo(first).size());

    // The next turn: only what it added is written.
    const qint64 before = QFileInfo(first).size();
    const ChatTurns turn2 = {
        message("user", kPrompt),
        message("assistant",
                map_of<kvchat::app::ReplyStats>(finished.at(0).at(0)).value("text").toString()),
        message("user", QStringLiteral("2 And the earth"))};
    generate(turn2, greedy(6));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 60000);
    save(first, 0);
    QTRY_COMPARE_WITH_TIMEOUT(usage.count(), 2, 30000);
    u = map_of<kvchat::app::SnapshotDiskUsage>(usage.at(1).at(0));
    QVERIFY2(!u.value("last_rewritten").toBool(),
             qPrintable(u.value("last_why_rewritten").toString()));
    QCOMPARE(QFileInfo(first).size(), before + u.value("last_written_bytes").toLongLong());
    QVERIFY(u.value("last_tokens_written").toInt() > 6);
    QVERIFY(u.value("last_written_bytes").toLongLong() <
            u.value("last_tokens_written").toLongLong() * static_cast<qint64>(kBytesPerToken) +
                16384);

    // Another conversation saved under a budget that fits only itself: the first goes.
    QTest::qWait(20);  // a later modification time than the first's
    save(second, 1);
    QTRY_COMPARE_WITH_TIMEOUT(usage.count(), 3, 30000);
    u = map_of<kvchat::app::SnapshotDiskUsage>(usage.at(2).at(0));
    QCOMPARE(u.value("evicted").toInt(), 1);
    QVERIFY(!QFileInfo::exists(first));
    QVERIFY(QFileInfo::exists(second));
    QCOMPARE(u.value("total_bytes").toLongLong(), QFileInfo(second).size());
  }

  void greedyReplyStreamsAndMatchesTheEngine() {
    reload();
    QStringList chunks;
    QList<QVariantMap> reports;
    QVariantMap stats;
    bool done = false;
    QThread* const gui = QThread::currentThread();
    bool all_on_gui = true;
    auto c1 = connect(worker_, &EngineWorker::replyChunk, this, [&](const QString& s) {
      all_on_gui = all_on_gui && QThread::currentThread() == gui;
      chunks << s;
    });
    auto c2 = connect(worker_, &EngineWorker::memoryReport, this,
                      [&](const kvchat::app::MemoryFigures& r) { reports << r.to_map(); });
    auto c3 = connect(worker_, &EngineWorker::replyFinished, this,
                      [&](const kvchat::app::ReplyStats& reply) {
                        const QVariantMap s = reply.to_map();
                        stats = s;
                        done = true;
                      });
    QSignalSpy replyFailed(worker_, &EngineWorker::replyFailed);
    constexpr int kMaxTokens = 32;
    generate({message("user", kPrompt)}, greedy(kMaxTokens));
    QTRY_VERIFY_WITH_TIMEOUT(done || replyFailed.count() > 0, 120000);
    disconnect(c1);
    disconnect(c2);
    disconnect(c3);
    QCOMPARE(replyFailed.count(), 0);
    QVERIFY(all_on_gui);

    const QString text = stats.value("text").toString();
    QCOMPARE(chunks.join(QString()), text);
    QVERIFY(chunks.size() >= 2);
    QCOMPARE(stats.value("stop_reason").toString(), QStringLiteral("max-tokens"));
    QCOMPARE(stats.value("generated_tokens").toInt(), kMaxTokens);
    const int prompt_tokens = stats.value("prompt_tokens").toInt();
    QVERIFY(prompt_tokens > 1);
    QCOMPARE(stats.value("evaluated_tokens").toInt(), prompt_tokens);  // fresh cache
    QVERIFY(stats.value("ttft_ms").toDouble() >= 0);
    QVERIFY(stats.value("tokens_per_second").toDouble() > 0);

    // The engine's own generate on the same prompt, same backend, greedy.
    auto model = kvchat::Model::load(kDemo.toStdString());
    QVERIFY2(model.ok(), model.ok() ? "" : model.message().c_str());
    std::shared_ptr<const kvchat::Model> m = std::move(model).value();
    kvchat::SessionOptions so;
    so.backend = backend_.toStdString();
    so.n_threads = 2;
    auto session = kvchat::Session::create(m, so);
    QVERIFY2(session.ok(), session.ok() ? "" : session.message().c_str());
    const kvchat::Tokenizer& tok = m->tokenizer();
    const std::string prompt = kvchat::render_chat(kvchat::ChatTemplateKind::Completion, "",
                                                   {{"user", kPrompt.toStdString()}});
    QCOMPARE(QString::fromStdString(prompt), kPrompt);
    const std::vector<kvchat::TokenId> ids =
        tok.encode_with_special(prompt, tok.add_bos_by_default());
    QCOMPARE(static_cast<int>(ids.size()), prompt_tokens);
    kvchat::GenerateOptions go;
    go.max_tokens = kMaxTokens;
    go.sampling.temperature = 0;
    auto ref = kvchat::generate(**session, ids, go);
    QVERIFY2(ref.ok(), ref.ok() ? "" : ref.message().c_str());
    QCOMPARE(text, QString::fromStdString(ref->text));

    // A memory report after every token: KV bytes = 1536 x cached tokens.
    QVERIFY(reports.size() >= chunks.size());
    int last_n_past = -1;
    for (const QVariantMap& r : reports) {
      const int n_past = r.value("n_past").toInt();
      QCOMPARE(r.value("kv_used_bytes").toULongLong(), kBytesPerToken * n_past);
      QCOMPARE(r.value("kv_tokens").toInt(), n_past);
      QVERIFY(r.value("kv_allocated_bytes").toULongLong() >=
              r.value("kv_used_bytes").toULongLong());
      QCOMPARE(
          r.value("kv_fragmentation_bytes").toULongLong(),
          r.value("kv_allocated_bytes").toULongLong() - r.value("kv_used_bytes").toULongLong());
      const QVariantMap f = r.value("formula").toMap();
      QCOMPARE(f.value("layers").toInt(), 6);
      QCOMPARE(f.value("kv_heads").toInt(), 2);
      QCOMPARE(f.value("head_dim").toInt(), 32);
      QCOMPARE(f.value("tokens").toInt(), n_past);
      QCOMPARE(f.value("bytes_per_element_num").toULongLong() * 2 * 6 * n_past * 2 * 32 /
                   f.value("bytes_per_element_den").toULongLong(),
               r.value("kv_used_bytes").toULongLong());
      QVERIFY(n_past >= last_n_past);
      last_n_past = n_past;
    }
    // The prompt, then one more token per streamed token (the last sampled one is
    // not evaluated).
    QCOMPARE(last_n_past, prompt_tokens + kMaxTokens - 1);
  }

  void stopsWithinOneToken() {
    reload();
    // The worker emits its first chunk and waits (a direct connection, on the worker
    // thread) until the GUI thread has seen that chunk and asked to stop: the race
    // between the two threads is taken out, so "within one token" is exact.
    QSemaphore gui_saw_first;
    std::atomic<int> emitted{0};
    int received = 0;
    int received_after_stop = 0;
    bool stop_requested = false;
    QVariantMap stats;
    bool done = false;
    // Connected first: the queued delivery to the GUI is posted before the direct
    // receiver below blocks.
    auto c1 = connect(worker_, &EngineWorker::replyChunk, this, [&](const QString&) {
      ++received;
      if (stop_requested) ++received_after_stop;
      if (!stop_requested) {
        worker_->request_stop();  // from the GUI thread
        stop_requested = true;
        gui_saw_first.release();
      }
    });
    auto c2 = connect(
        worker_, &EngineWorker::replyChunk, worker_,
        [&](const QString&) {
          if (emitted.fetch_add(1) == 0) gui_saw_first.tryAcquire(1, 30000);
        },
        Qt::DirectConnection);
    auto c3 = connect(worker_, &EngineWorker::replyFinished, this,
                      [&](const kvchat::app::ReplyStats& reply) {
                        const QVariantMap s = reply.to_map();
                        stats = s;
                        done = true;
                      });
    generate({message("user", kPrompt)}, greedy(200));
    QTRY_VERIFY_WITH_TIMEOUT(done, 120000);
    disconnect(c1);
    disconnect(c2);
    disconnect(c3);
    QCOMPARE(stats.value("stop_reason").toString(), QStringLiteral("cancelled"));
    QVERIFY2(received_after_stop <= 2, qPrintable(QString::number(received_after_stop)));
    QVERIFY(stats.value("generated_tokens").toInt() <= 3);
    QCOMPARE(received, emitted.load());

    // The flag is reset by the next request: it runs to its end.
    QSignalSpy finished(worker_, &EngineWorker::replyFinished);
    generate({message("user", kPrompt)}, greedy(5));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QCOMPARE(map_of<kvchat::app::ReplyStats>(finished.at(0).at(0)).value("stop_reason").toString(),
             QStringLiteral("max-tokens"));
  }

  void secondTurnEvaluatesOnlyTheNewTokens() {
    reload();
    QSignalSpy finished(worker_, &EngineWorker::replyFinished);
    QSignalSpy memory(worker_, &EngineWorker::memoryReport);
    // A sampled reply of 96 tokens: sampled tokens are often not what re-tokenizing
    // their text gives, which is what this test is about.
    generate({message("user", kPrompt)}, reply_sampling({{QStringLiteral("temperature"), 1.0},
                                                         {QStringLiteral("top_k"), 0},
                                                         {QStringLiteral("top_p"), 1.0},
                                                         {QStringLiteral("min_p"), 0.0},
                                                         {QStringLiteral("seed"), 11},
                                                         {QStringLiteral("max_tokens"), 96}}));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    const QVariantMap first = map_of<kvchat::app::ReplyStats>(finished.at(0).at(0));
    QCOMPARE(first.value("evaluated_tokens").toInt(), first.value("prompt_tokens").toInt());
    const QString reply = first.value("text").toString();
    QVERIFY(!reply.isEmpty());

    const ChatTurns turn2 = {message("user", kPrompt), message("assistant", reply),
                             message("user", QStringLiteral("\n2 And the earth"))};
    generate(turn2, greedy(8));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 60000);
    const QVariantMap second = map_of<kvchat::app::ReplyStats>(finished.at(1).at(0));
    const int prompt_tokens = second.value("prompt_tokens").toInt();
    const int evaluated = second.value("evaluated_tokens").toInt();
    QVERIFY(prompt_tokens > first.value("prompt_tokens").toInt() + 1);
    QVERIFY2(evaluated < prompt_tokens,
             qPrintable(QStringLiteral("%1 of %2").arg(evaluated).arg(prompt_tokens)));
    QVERIFY(evaluated >= 1);
    // Exactly the appended text is evaluated: the first reply's tokens are kept as they
    // were sampled (plus its last token, sampled but never evaluated), not re-tokenized.
    auto model = kvchat::Model::load(kDemo.toStdString());
    QVERIFY(model.ok());
    const int appended =
        static_cast<int>((*model)->tokenizer().encode_continuation("\n2 And the earth").size());
    QVERIFY2(evaluated <= appended + 2,
             qPrintable(QStringLiteral("%1 evaluated, %2 appended").arg(evaluated).arg(appended)));
    // Reused at least the first turn's prompt.
    QVERIFY(prompt_tokens - evaluated >= first.value("prompt_tokens").toInt() - 1);
    QCOMPARE(second.value("stop_reason").toString(), QStringLiteral("max-tokens"));

    // Editing the second user message: only the edited message is evaluated again (the
    // cache is truncated to the end of the first reply, not to an earlier token).
    const ChatTurns edited = {message("user", kPrompt), message("assistant", reply),
                              message("user", QStringLiteral("\n2 And the waters"))};
    generate(edited, greedy(4));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 3, 60000);
    const int edit_evaluated =
        map_of<kvchat::app::ReplyStats>(finished.at(2).at(0)).value("evaluated_tokens").toInt();
    const int edit_appended =
        static_cast<int>((*model)->tokenizer().encode_continuation("\n2 And the waters").size());
    QVERIFY2(edit_evaluated <= edit_appended + 2,
             qPrintable(
                 QStringLiteral("%1 evaluated, %2 edited").arg(edit_evaluated).arg(edit_appended)));
    generate(turn2, greedy(8));  // back to the second turn (its own fork again)
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 4, 60000);
    QVERIFY(
        map_of<kvchat::app::ReplyStats>(finished.at(3).at(0)).value("evaluated_tokens").toInt() <=
        appended + 2);

    // Asking again with nothing new evaluates (almost) nothing: one token at most,
    // to refresh the next-token logits.
    generate(turn2, greedy(1));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 5, 60000);
    QVERIFY(
        map_of<kvchat::app::ReplyStats>(finished.at(4).at(0)).value("evaluated_tokens").toInt() <=
        1);

    // reportMemory answers with the current state.
    memory.clear();
    QMetaObject::invokeMethod(worker_, [w = worker_] { w->reportMemory(); });
    QTRY_COMPARE_WITH_TIMEOUT(memory.count(), 1, 10000);
    const QVariantMap r = map_of<kvchat::app::MemoryFigures>(memory.last().at(0));
    QCOMPARE(r.value("kv_used_bytes").toULongLong(), kBytesPerToken * r.value("n_past").toInt());
  }

  // The document preview's conversation share: counted on the worker thread with the
  // chat's own token checkpoints, equal to what the next generate evaluates as its prompt.
  void countsConversationTokensOnTheWorkerThread() {
    reload();
    QSignalSpy finished(worker_, &EngineWorker::replyFinished);
    QSignalSpy counted(worker_, &EngineWorker::conversationTokensCounted);
    generate({message("user", kPrompt)}, reply_sampling({{QStringLiteral("temperature"), 1.0},
                                                         {QStringLiteral("seed"), 5},
                                                         {QStringLiteral("max_tokens"), 48}}));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    const ChatTurns turn2 = {
        message("user", kPrompt),
        message("assistant",
                map_of<kvchat::app::ReplyStats>(finished.at(0).at(0)).value("text").toString()),
        message("user", QStringLiteral("\n2 And the earth"))};
    QThread* counted_on = nullptr;
    auto c = connect(
        worker_, &EngineWorker::conversationTokensCounted, worker_,
        [&](const QString&, qint64, const QString&) { counted_on = QThread::currentThread(); },
        Qt::DirectConnection);
    QMetaObject::invokeMethod(worker_, [w = worker_, turn2] {
      w->countConversationTokens(turn2, QString(), QStringLiteral("k1"));
    });
    QTRY_COMPARE_WITH_TIMEOUT(counted.count(), 1, 30000);
    disconnect(c);
    QCOMPARE(counted_on, &thread_);
    QCOMPARE(counted.at(0).at(0).toString(), QStringLiteral("k1"));
    QVERIFY(counted.at(0).at(2).toString().isEmpty());
    const qint64 tokens = counted.at(0).at(1).toLongLong();
    generate(turn2, greedy(2));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 60000);
    QCOMPARE(
        static_cast<qint64>(
            map_of<kvchat::app::ReplyStats>(finished.at(1).at(0)).value("prompt_tokens").toInt()),
        tokens);
  }

  // A reasoning template (DeepSeek-R1's, from the shared cases): its generation prompt opens
  // "<think>\n", so the whole reply of the demo model (which never writes "</think>") is
  // reasoning, cut at the length limit; the worker says so before the first chunk.
  void reasoningTemplateReplyIsThinkingWithItsKv() {
    reload();
    QSignalSpy changed(worker_, &EngineWorker::chatFormatChanged);
    const QString deepseek = shared_template("deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja");
    QVERIFY(!deepseek.isEmpty());
    QMetaObject::invokeMethod(worker_,
                              [w = worker_, deepseek] { w->setChatTemplateOverride(deepseek); });
    QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, 10000);
    QVERIFY(map_of<kvchat::app::ChatFormatInfo>(changed.last().at(0))
                .value("chat_declares_thinking")
                .toBool());
    QSignalSpy opens(worker_, &EngineWorker::replyOpensThinking);
    QSignalSpy chunk(worker_, &EngineWorker::replyChunk);
    QSignalSpy finished(worker_, &EngineWorker::replyFinished);
    generate({message("user", kPrompt)}, greedy(12));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QCOMPARE(opens.count(), 1);
    const QVariantMap stats = map_of<kvchat::app::ReplyStats>(finished.last().at(0));
    QCOMPARE(stats.value("thinking_opened_by_prompt").toBool(), true);
    QCOMPARE(stats.value("stop_reason").toString(), QStringLiteral("max-tokens"));
    QCOMPARE(stats.value("thinking_tokens").toInt(), 12);
    QCOMPARE(stats.value("thinking_tokens").toInt(), stats.value("generated_tokens").toInt());
    QCOMPARE(stats.value("thinking_kv_bytes").toULongLong(), 12 * kBytesPerToken);
    QCOMPARE(stats.value("thinking_closed").toBool(), false);
    QVERIFY(stats.value("thinking_seconds").toDouble() > 0);
    // The stored text is the raw reply; shown, it is all reasoning (reply_parts()).
    kvchat::app::StoredMessage m;
    m.role = QStringLiteral("assistant");
    m.content = stats.value("text").toString();
    m.stats = stats;
    QVERIFY(!m.content.isEmpty());
    QCOMPARE(kvchat::app::reply_parts(m).answer, QString());
    QCOMPARE(kvchat::app::reply_parts(m).thinking, m.content.trimmed());
    reload();
  }

  // Qwen 3's enable_thinking: "off" is passed to the template, which then writes an empty
  // reasoning block into the generation prompt ("<think>\n\n</think>\n\n"); "" leaves the
  // template's default (no block). The worker's counts equal the token counts of the texts
  // the engine's format renders in each mode, and "off"'s text is the default's plus the block.
  void enableThinkingSwitchReachesTheTemplate() {
    reload();
    const QString qwen = shared_template("Qwen-Qwen3-0.6B.jinja");
    QVERIFY(!qwen.isEmpty());
    QSignalSpy changed(worker_, &EngineWorker::chatFormatChanged);
    QSignalSpy counted(worker_, &EngineWorker::conversationTokensCounted);
    const ChatTurns turn = {message("user", kPrompt)};
    const auto model = worker_->shared_model();
    auto format = kvchat::ChatFormat::for_model(*model, qwen.toStdString());
    QVERIFY(format.ok());
    const QString modes[2] = {QString(), QStringLiteral("off")};
    std::string rendered[2];
    for (int i = 0; i < 2; ++i) {
      QMetaObject::invokeMethod(worker_, [w = worker_, qwen, mode = modes[i]] {
        w->setChatTemplateOverride(qwen, mode);
      });
      QTRY_COMPARE_WITH_TIMEOUT(changed.count(), i + 1, 10000);
      const QVariantMap info = map_of<kvchat::app::ChatFormatInfo>(changed.last().at(0));
      QCOMPARE(info.value("chat_enable_thinking").toString(), modes[i]);
      QVERIFY(info.value("chat_declares_thinking").toBool());
      QMetaObject::invokeMethod(worker_, [w = worker_, turn] {
        w->countConversationTokens(turn, QString(), QStringLiteral("t"));
      });
      QTRY_COMPARE_WITH_TIMEOUT(counted.count(), i + 1, 30000);
      format->set_enable_thinking(i == 0 ? std::nullopt : std::optional<bool>(false));
      auto text = format->render({}, {{"user", kPrompt.toStdString()}});
      QVERIFY(text.ok());
      rendered[i] = *text;
      QCOMPARE(counted.last().at(1).toLongLong(),
               static_cast<qint64>(format->tokenize(rendered[i]).size()));
    }
    QCOMPARE(rendered[1], rendered[0] + "<think>\n\n</think>\n\n");
    reload();
  }

  void generateWithoutModelFails() {
    EngineWorker fresh;  // on this thread: slots run directly
    QSignalSpy failed(&fresh, &EngineWorker::replyFailed);
    fresh.generate({message("user", kPrompt)}, QString(), greedy(4));
    QCOMPARE(failed.count(), 1);
  }
};

QTEST_GUILESS_MAIN(TestEngineWorker)
#include "test_engine_worker.moc"
