// Summary jobs as the app runs them (app/documents/summary_job, EngineWorker): the demo
// model, a 256-token context and a document of about 1,000 tokens. An uninterrupted job;
// a job cancelled after three partial summaries and resumed, which writes the same
// partials and the same final summary (greedy) without touching the rows kept; a resume
// under another context refused; and the job on a thread of its own (SummaryWorker), on
// a Session of its own, while the chat replies, leaving the chat's KV cache as it was.
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>
#include <atomic>
#include <optional>

#include "documents/document_loader.h"
#include "documents/summary_job.h"
#include "documents/summary_preview.h"
#include "documents/summary_worker.h"
#include "engine/engine_worker.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "store/conversation_store.h"
#include "store/document_store.h"

using namespace kvchat::app;

namespace {

const QString kDemo = QStringLiteral(KVCHAT_SHARED_DIR "/models/kjv-demo-f16.gguf");
const QString kSample = QStringLiteral(KVCHAT_SOURCE_DIR "/tests/data/kjv-revelation-21-22.txt");
constexpr int kCtx = 256;

kvchat::SessionOptions session_options(int n_ctx = kCtx) {
  kvchat::SessionOptions o;
  o.backend = "cpu";
  o.n_threads = 2;
  o.n_ctx = n_ctx;
  return o;
}

QStringList texts(const QVector<StoredPartial>& partials) {
  QStringList out;
  for (const StoredPartial& p : partials)
    out << QStringLiteral("%1/%2:%3").arg(p.level).arg(p.index).arg(p.text);
  return out;
}

}  // namespace

class TestSummaryJob : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString db_;
  std::unique_ptr<ConversationStore> conversations_;
  std::unique_ptr<DocumentStore> store_;
  std::shared_ptr<const kvchat::Model> model_;
  qint64 document_ = 0;
  QVariantMap options_;
  // The uninterrupted job's results, which the resumed one must reproduce.
  QString full_summary_;
  QStringList full_partials_;

  qint64 new_job() {
    QString error;
    const qint64 job = store_->create_job(document_, 0, options_, {}, &error);
    if (!job) qWarning() << error;
    return job;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    db_ = dir_.filePath(QStringLiteral("kvchat.sqlite"));
    QString error;
    conversations_ = ConversationStore::open(db_, &error);
    QVERIFY2(conversations_, qPrintable(error));
    store_ = std::make_unique<DocumentStore>(*conversations_);
    auto model = kvchat::Model::load(kDemo.toStdString());
    QVERIFY(model);
    model_ = std::move(model).value();
    // The first half of Revelation 21-22: about 1,000 tokens, four times the context.
    auto doc = extract_document(kSample, {}, &error);
    QVERIFY2(doc, qPrintable(error));
    const QByteArray text = doc->text.left(doc->text.indexOf('\n', doc->text.size() / 2) + 1);
    StoredDocument meta;
    meta.name = QStringLiteral("revelation.txt");
    meta.sha256 = QStringLiteral("test-sha");
    meta.n_tokens = count_document_tokens(model_->tokenizer(), text);
    QVERIFY(meta.n_tokens > 3 * kCtx);
    bool inserted = false;
    document_ = store_->add_document(meta, text, &inserted, &error);
    QVERIFY2(document_, qPrintable(error));
    options_ = summarize_options_to_map(summarize_options_for(
        summary_prompt_overhead(model_->tokenizer(), default_summarize_options()), kCtx));
    QVERIFY(options_.value(QStringLiteral("summary_tokens")).toInt() < 96);  // made to fit 256
  }

  void uninterruptedJob() {
    const qint64 job = new_job();
    int partials = 0, progress = 0;
    kvchat::SummaryPlan plan;
    SummaryJobHooks hooks;
    hooks.partial = [&](const StoredPartial&) { ++partials; };
    hooks.progress = [&](const kvchat::SummaryProgress& p, const kvchat::Session&) {
      if (p.steps_total > 0 && !p.stage.empty()) ++progress;  // (the counting pass has none)
    };
    hooks.plan = [&](const kvchat::SummaryPlan& p) { plan = p; };
    const SummaryJobOutcome o = run_summary_job(db_, job, model_, session_options(), hooks);
    QVERIFY2(o.status == JobStatus::Done, qPrintable(o.error));
    QVERIFY(!o.summary.isEmpty());
    // The exchange the job's Conversation appended: the request, then the summary.
    QCOMPARE(o.request, QStringLiteral("Summarize “revelation.txt”"));
    QCOMPARE(o.resumed, 0);
    QVERIFY(plan.n_chunks > 2);
    QVERIFY(o.partials >= plan.n_chunks + 1);
    QCOMPARE(partials, o.partials);  // every partial reported after it was stored
    QVERIFY(progress > 0);
    QVERIFY(o.peak_kv_bytes > 0 && o.peak_kv_bytes <= qint64(kCtx) * 1536);
    const auto stored = store_->job(job);
    QCOMPARE(stored->status, JobStatus::Done);
    QCOMPARE(stored->final_summary, o.summary);
    QCOMPARE(stored->plan.value(QStringLiteral("n_chunks")).toInt(), plan.n_chunks);  // measured
    const auto rows = store_->partials(job);
    QCOMPARE(rows.size(), o.partials);
    QCOMPARE(std::count_if(rows.begin(), rows.end(),
                           [](const StoredPartial& p) { return p.level == 0; }),
             plan.n_chunks);
    full_summary_ = o.summary;
    full_partials_ = texts(rows);
  }

  void cancelledJobResumesWhereItStopped() {
    QVERIFY(!full_summary_.isEmpty());
    const qint64 job = new_job();
    int partials = 0;
    SummaryJobHooks hooks;
    hooks.partial = [&](const StoredPartial&) { ++partials; };
    hooks.cancelled = [&] { return partials >= 3; };
    const SummaryJobOutcome cancelled = run_summary_job(db_, job, model_, session_options(), hooks);
    QVERIFY2(cancelled.status == JobStatus::Cancelled, qPrintable(cancelled.error));
    QCOMPARE(store_->job(job)->status, JobStatus::Cancelled);
    const auto kept = store_->partials(job);
    QCOMPARE(kept.size(), 3);
    QCOMPARE(texts(kept), full_partials_.mid(0, 3));
    QCOMPARE(store_->resumable_jobs(0).front().id, job);

    QThread::msleep(5);  // a rewrite would get a later written_at
    partials = 0;
    hooks.cancelled = {};
    const SummaryJobOutcome resumed = run_summary_job(db_, job, model_, session_options(), hooks);
    QVERIFY2(resumed.status == JobStatus::Done, qPrintable(resumed.error));
    QCOMPARE(resumed.resumed, 3);
    QCOMPARE(partials, resumed.partials - 3);  // only the missing ones were written
    QCOMPARE(resumed.summary, full_summary_);
    const auto rows = store_->partials(job);
    QCOMPARE(texts(rows), full_partials_);  // no duplicates, nothing missing
    for (int i = 0; i < 3; ++i) QCOMPARE(rows[i].written_at, kept[i].written_at);
  }

  void resumeUnderAnotherContextFails() {
    const qint64 job = new_job();
    int partials = 0;
    SummaryJobHooks hooks;
    hooks.partial = [&](const StoredPartial&) { ++partials; };
    hooks.cancelled = [&] { return partials >= 2; };
    QCOMPARE(run_summary_job(db_, job, model_, session_options(), hooks).status,
             JobStatus::Cancelled);
    hooks.cancelled = {};
    const SummaryJobOutcome o = run_summary_job(db_, job, model_, session_options(512), hooks);
    QCOMPARE(o.status, JobStatus::Failed);
    QVERIFY(!o.error.isEmpty());
    QCOMPARE(store_->job(job)->status, JobStatus::Failed);
    QCOMPARE(store_->job(job)->error, o.error);
    QCOMPARE(store_->partials(job).size(), 2);  // kept: it can resume under the old context
    QCOMPARE(run_summary_job(db_, 99999, model_, session_options(), {}).status, JobStatus::Failed);
  }

  // Issue 26 point 1: the plan the document card previews (document_summary_plan, with the
  // options the job is created with) has the chunks the job then runs, for long texts (the
  // sample repeated: tens and hundreds of thousands of tokens) and several contexts. (It
  // was an estimate from the loader's token count: 188 chunks shown, 190 run.)
  void previewPlanIsTheJobsPlan_data() {
    QTest::addColumn<int>("repeats");
    QTest::addColumn<int>("n_ctx");
    QTest::newRow("x20 ctx 256") << 20 << 256;
    QTest::newRow("x20 ctx 1024") << 20 << 1024;
    QTest::newRow("x60 ctx 512") << 60 << 512;
    QTest::newRow("x60 ctx 2048") << 60 << 2048;
  }
  void previewPlanIsTheJobsPlan() {
    QFETCH(int, repeats);
    QFETCH(int, n_ctx);
    QString error;
    auto doc = extract_document(kSample, {}, &error);
    QVERIFY2(doc, qPrintable(error));
    QByteArray text;
    for (int i = 0; i < repeats; ++i)
      text += doc->text + QByteArray("\n") + QByteArray::number(i) + "\n";
    StoredDocument meta;
    meta.name = QStringLiteral("long-%1.txt").arg(repeats);
    meta.sha256 = QStringLiteral("long-sha-%1").arg(repeats);
    meta.n_tokens = count_document_tokens(model_->tokenizer(), text);
    bool inserted = false;
    const qint64 document = store_->add_document(meta, text, &inserted, &error);
    QVERIFY2(document, qPrintable(error));
    const kvchat::SummarizeOptions options = summarize_options_for(
        summary_prompt_overhead(model_->tokenizer(), default_summarize_options()), n_ctx);
    auto session = kvchat::Session::create(model_, session_options(n_ctx));
    QVERIFY(session);
    const std::string kv_type = (*session)->options().kv_type;
    const uint64_t bpt = (*session)->memory_report().kv_bytes_per_token;
    const int32_t ctx = (*session)->n_ctx();
    auto preview = document_summary_plan(model_->tokenizer(), store_->document_text(document),
                                         meta.name, ctx, kv_type, bpt, options);
    QVERIFY2(preview, preview ? "" : preview.message().c_str());
    QVERIFY(preview->n_chunks > 10);
    // The job, stopped once it has planned (its counting pass is the plan it then runs).
    const qint64 job = store_->create_job(document, 0, summarize_options_to_map(options),
                                          plan_to_map(*preview), &error);
    QVERIFY2(job, qPrintable(error));
    std::optional<kvchat::SummaryPlan> planned;
    SummaryJobHooks hooks;
    hooks.plan = [&](const kvchat::SummaryPlan& p) { planned = p; };
    hooks.cancelled = [&] { return planned.has_value(); };
    const SummaryJobOutcome o = run_summary_job(db_, job, model_, session_options(n_ctx), hooks);
    QVERIFY2(o.status == JobStatus::Cancelled, qPrintable(o.error));
    QVERIFY(planned);
    qInfo("%d x the sample, ctx %d: preview %d chunks of %d, job %d chunks of %d", repeats, ctx,
          preview->n_chunks, preview->chunk_tokens, planned->n_chunks, planned->chunk_tokens);
    QCOMPARE(preview->chunk_tokens, planned->chunk_tokens);
    QCOMPARE(preview->n_chunks, planned->n_chunks);
    QCOMPARE(preview->document_tokens, planned->document_tokens);
    QCOMPARE(preview->n_levels, planned->n_levels);
    QCOMPARE(preview->n_steps, planned->n_steps);
  }

  // On a thread of its own, on a Session of its own over the chat's model: the chat
  // replies while the job is in the middle of its work (the job is held inside its
  // first partial until the chat's reply has arrived: were they on one thread, the reply
  // would never come), the job's session reports its own KV, and the chat's cache is
  // left as the chat made it.
  void runsOnItsOwnThreadWhileTheChatReplies() {
    QThread engine_thread, summary_thread;
    auto* worker = new EngineWorker;
    worker->moveToThread(&engine_thread);
    connect(&engine_thread, &QThread::finished, worker, &QObject::deleteLater);
    engine_thread.start();
    auto* summary = new SummaryWorker;
    summary->moveToThread(&summary_thread);
    connect(&summary_thread, &QThread::finished, summary, &QObject::deleteLater);
    summary_thread.start();

    QSignalSpy loaded(worker, &EngineWorker::modelLoaded);
    QSignalSpy memory(worker, &EngineWorker::memoryReport);
    QSignalSpy replied(worker, &EngineWorker::replyFinished);
    QMetaObject::invokeMethod(worker, [worker] {
      kvchat::SessionOptions options;
      options.backend = "cpu";
      options.n_threads = 1;
      options.n_ctx = kCtx;
      worker->loadModel({kDemo, options, QString(), QString()});
    });
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
    QVERIFY(worker->shared_model());
    QCOMPARE(worker->session_options().n_ctx, kCtx);
    const ChatTurn user{QStringLiteral("user"), QStringLiteral("Genesis 1\n1 In the beginning")};
    ReplySampling greedy;
    greedy.params.temperature = 0;
    greedy.max_tokens = 8;
    QMetaObject::invokeMethod(worker,
                              [worker, user, greedy] { worker->generate({user}, {}, greedy); });
    QTRY_COMPARE_WITH_TIMEOUT(replied.count(), 1, 60000);
    QVERIFY(replied[0][0].value<ReplyStats>().prefill_tokens_per_second > 0);

    QSignalSpy plan(summary, &SummaryWorker::summaryPlan);
    QSignalSpy progress(summary, &SummaryWorker::summaryProgress);
    QSignalSpy partial(summary, &SummaryWorker::summaryPartial);
    QSignalSpy finished(summary, &SummaryWorker::summaryFinished);
    QSignalSpy job_memory(summary, &SummaryWorker::memoryReport);
    std::atomic<bool> job_held{false};
    QSemaphore chat_replied;
    connect(
        summary, &SummaryWorker::summaryPartial, summary,
        [&](qint64, const StoredPartial&) {
          if (job_held.exchange(true)) return;
          chat_replied.tryAcquire(1, 60000);  // on the job's thread, mid-job
        },
        Qt::DirectConnection);
    const qint64 job = new_job();
    summary->reset_cancel();
    QMetaObject::invokeMethod(
        summary, [summary, job, db = db_, model = worker->shared_model(),
                  options = worker->session_options()] { summary->run(job, db, model, options); });
    QTRY_VERIFY_WITH_TIMEOUT(job_held.load(), 60000);
    // The job is held inside its first partial: the chat answers meanwhile.
    const ChatTurn assistant{QStringLiteral("assistant"), replied[0][0].value<ReplyStats>().text};
    const ChatTurn next{QStringLiteral("user"), QStringLiteral("\n2 And the earth")};
    QMetaObject::invokeMethod(worker, [worker, user, assistant, next, greedy] {
      worker->generate({user, assistant, next}, {}, greedy);
    });
    QTRY_COMPARE_WITH_TIMEOUT(replied.count(), 2, 60000);
    QCOMPARE(finished.count(), 0);  // the job is still running
    const QVariantMap before = memory.last()[0].value<MemoryFigures>().to_map();
    QVERIFY(before.value(QStringLiteral("n_past")).toInt() > 16);
    chat_replied.release();

    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    const SummaryJobOutcome outcome = finished[0][1].value<SummaryJobOutcome>();
    QCOMPARE(outcome.status, JobStatus::Done);
    QCOMPARE(outcome.summary, full_summary_);
    QCOMPARE(plan.count(), 1);
    QVERIFY(progress.count() > 0);
    QCOMPARE(partial.count(), outcome.partials);
    QCOMPARE(partial[0][1].value<StoredPartial>().level, 0);
    // The job's own session reported its KV (1536 bytes a token, at most the context),
    // and an empty report when it ended.
    QVERIFY(job_memory.count() >= 2);
    bool some_kv = false;
    for (int i = 0; i + 1 < job_memory.count(); ++i) {
      const QVariantMap r = job_memory[i][1].value<MemoryFigures>().to_map();
      const qulonglong used = r.value(QStringLiteral("kv_used_bytes")).toULongLong();
      QCOMPARE(used, 1536ull * r.value(QStringLiteral("kv_tokens")).toULongLong());
      QVERIFY(r.value(QStringLiteral("kv_tokens")).toInt() <= kCtx);
      some_kv = some_kv || used > 0;
    }
    QVERIFY(some_kv);
    QVERIFY(job_memory.last()[1].value<MemoryFigures>().empty());

    memory.clear();
    QMetaObject::invokeMethod(
        worker, [worker] { worker->reportMemory(); }, Qt::QueuedConnection);
    QTRY_COMPARE_WITH_TIMEOUT(memory.count(), 1, 10000);
    const QVariantMap after = memory[0][0].value<MemoryFigures>().to_map();
    for (const char* key : {"n_past", "kv_tokens", "kv_used_bytes"}) {
      QCOMPARE(after.value(QLatin1String(key)), before.value(QLatin1String(key)));
    }

    // Cancelled from another thread while it runs.
    finished.clear();
    partial.clear();
    const qint64 second = new_job();
    summary->reset_cancel();
    QMetaObject::invokeMethod(summary, [summary, second, db = db_, model = worker->shared_model(),
                                        options = worker->session_options()] {
      summary->run(second, db, model, options);
    });
    QTRY_VERIFY_WITH_TIMEOUT(partial.count() >= 1, 60000);
    summary->request_cancel();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QCOMPARE(finished[0][1].value<SummaryJobOutcome>().status, JobStatus::Cancelled);
    QCOMPARE(store_->job(second)->status, JobStatus::Cancelled);
    QVERIFY(!store_->partials(second).isEmpty());

    summary_thread.quit();
    summary_thread.wait();
    engine_thread.quit();
    engine_thread.wait();
  }
};

QTEST_GUILESS_MAIN(TestSummaryJob)
#include "test_summary_job.moc"
