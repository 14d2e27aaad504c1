// SIGKILL at random moments (issue 12): a child process (fault_child) runs the app's own
// classes and is killed by this test at a random moment while it generates replies
// (ChatController: store, engine thread, streaming saves) and while it runs a summary job
// (run_summary_job). After every kill: the database opens, `PRAGMA integrity_check` is
// ok, every reply the child reported stored is there with the same text and state
// complete, at most one reply (the one in flight) is left streaming and so marked
// interrupted at the next start, every partial summary reported stored is there; and the
// summary job, resumed after the last kill, ends with the summary an uninterrupted run
// writes (greedy decoding). KVCHAT_KILL_RUNS sets the kills per part (default 100: 200 in
// all).
#include <signal.h>

#include <QCryptographicHash>
#include <QHash>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include "documents/document_loader.h"
#include "documents/summary_job.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "store/conversation_store.h"
#include "store/document_store.h"

using namespace kvchat::app;

namespace {

const QString kDemo = QStringLiteral(KVCHAT_SHARED_DIR "/models/kjv-demo-f16.gguf");
const QString kSample = QStringLiteral(KVCHAT_SOURCE_DIR "/tests/data/kjv-revelation-21-22.txt");
const QString kChild = QStringLiteral(KVCHAT_FAULT_CHILD);
constexpr int kCtx = 256;

int kill_runs() {
  const int n = qEnvironmentVariableIntValue("KVCHAT_KILL_RUNS");
  return n > 0 ? n : 100;
}

QByteArray sha1(const QString& text) {
  return QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha1).toHex();
}

// Starts the child, waits for "started", lets it run `delay_ms` more, kills it with
// SIGKILL and returns its stdout lines (empty list when it did not start).
QList<QByteArray> run_and_kill(const QStringList& args, int delay_ms, bool* started) {
  QProcess child;
  child.setProcessChannelMode(QProcess::SeparateChannels);
  child.start(kChild, args);
  *started = false;
  QByteArray out;
  if (child.waitForStarted(30000)) {
    QElapsedTimer t;
    t.start();
    while (!out.contains("started\n") && t.elapsed() < 60000 &&
           child.state() == QProcess::Running) {
      child.waitForReadyRead(100);
      out += child.readAllStandardOutput();
    }
    *started = out.contains("started\n");
    if (*started) QThread::msleep(static_cast<unsigned long>(delay_ms));
    // Only a child still running: processId() is 0 once it has exited, and kill(0) would
    // kill this whole process group (ctest, make and all).
    const qint64 pid = child.processId();
    if (pid > 0 && child.state() == QProcess::Running) ::kill(static_cast<pid_t>(pid), SIGKILL);
    child.waitForFinished(30000);
  }
  out += child.readAllStandardOutput();
  if (!*started) qWarning() << "child did not start:" << out << child.readAllStandardError();
  return out.split('\n');
}

}  // namespace

class TestKillRecovery : public QObject {
  Q_OBJECT

 private slots:
  void killedDuringGeneration() {
    QTemporaryDir dir;
    const QString db = ConversationStore::default_path(dir.path());
    QHash<qint64, QByteArray> saved;  // reply id -> sha1 of its text, as the child stored it
    int interrupted = 0, kills = 0;
    for (int run = 0; run < kill_runs(); ++run) {
      bool started = false;
      const int delay = int(QRandomGenerator::global()->bounded(250));
      const auto lines = run_and_kill(
          {QStringLiteral("chat"), dir.path(), kDemo, QString::number(run + 1)}, delay, &started);
      QVERIFY2(started, qPrintable(QStringLiteral("run %1").arg(run)));
      ++kills;
      for (const QByteArray& line : lines) {
        const auto parts = line.split(' ');
        if (parts.size() == 3 && parts[0] == "saved") saved.insert(parts[1].toLongLong(), parts[2]);
      }
      // What the next start sees.
      QString error;
      auto store = ConversationStore::open(db, &error);
      QVERIFY2(store, qPrintable(error));
      QCOMPARE(store->integrity_check(), QStringLiteral("ok"));
      const int marked = store->mark_streaming_interrupted();
      QVERIFY2(marked >= 0 && marked <= 1, qPrintable(QString::number(marked)));
      interrupted += marked;
      QHash<qint64, StoredMessage> replies;
      for (const StoredConversation& c : store->conversations())
        for (const StoredMessage& m : store->messages(c.id))
          if (m.role == QLatin1String("assistant")) replies.insert(m.id, m);
      for (auto it = saved.begin(); it != saved.end(); ++it) {
        QVERIFY2(replies.contains(it.key()),
                 qPrintable(QStringLiteral("reply %1 lost").arg(it.key())));
        const StoredMessage& m = replies[it.key()];
        QCOMPARE(sha1(m.content), it.value());
        QCOMPARE(m.state, MessageState::Complete);
      }
    }
    qInfo(
        "%d kills during generation: %lld replies stored and found, %d left in flight "
        "(marked interrupted)",
        kills, static_cast<long long>(saved.size()), interrupted);
    QVERIFY(saved.size() > kills / 2);  // the kills did land between and during replies
  }

  void killedDuringSummaryJob() {
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("kvchat.sqlite"));
    QString error;
    auto conversations = ConversationStore::open(db, &error);
    QVERIFY2(conversations, qPrintable(error));
    auto store = std::make_unique<DocumentStore>(*conversations);
    auto loaded = kvchat::Model::load(kDemo.toStdString());
    QVERIFY(loaded);
    const std::shared_ptr<const kvchat::Model> model = std::move(loaded).value();
    auto doc = extract_document(kSample, {}, &error);
    QVERIFY2(doc, qPrintable(error));
    const QByteArray text = doc->text.left(doc->text.indexOf('\n', doc->text.size() / 2) + 1);
    StoredDocument meta;
    meta.name = QStringLiteral("revelation.txt");
    meta.sha256 = QStringLiteral("kill-test");
    meta.n_tokens = count_document_tokens(model->tokenizer(), text);
    bool inserted = false;
    const qint64 document = store->add_document(meta, text, &inserted, &error);
    QVERIFY2(document, qPrintable(error));
    const QVariantMap options = summarize_options_to_map(summarize_options_for(
        summary_prompt_overhead(model->tokenizer(), default_summarize_options()), kCtx));
    kvchat::SessionOptions session;
    session.backend = "cpu";
    session.n_threads = 1;
    session.n_ctx = kCtx;

    // The summary an uninterrupted run writes.
    const qint64 reference = store->create_job(document, 0, options, {}, &error);
    const SummaryJobOutcome full = run_summary_job(db, reference, model, session, {});
    QVERIFY2(full.status == JobStatus::Done, qPrintable(full.error));
    QHash<QByteArray, QByteArray> reference_partials;  // "level index" -> sha1
    for (const StoredPartial& p : store->partials(reference))
      reference_partials.insert(QByteArray::number(p.level) + " " + QByteArray::number(p.index),
                                sha1(p.text));

    qint64 job = store->create_job(document, 0, options, {}, &error);
    QVERIFY(job);
    int jobs_finished_while_killed = 0;
    QHash<QByteArray, QByteArray> reported;  // of the current job
    for (int run = 0; run < kill_runs(); ++run) {
      bool started = false;
      const int delay = int(QRandomGenerator::global()->bounded(400));
      const auto lines = run_and_kill({QStringLiteral("summary"), db, kDemo, QString::number(job)},
                                      delay, &started);
      QVERIFY2(started, qPrintable(QStringLiteral("run %1").arg(run)));
      for (const QByteArray& line : lines) {
        const auto parts = line.split(' ');
        if (parts.size() == 4 && parts[0] == "partial")
          reported.insert(parts[1] + " " + parts[2], parts[3]);
      }
      QCOMPARE(conversations->integrity_check(), QStringLiteral("ok"));
      QHash<QByteArray, QByteArray> stored;
      for (const StoredPartial& p : store->partials(job))
        stored.insert(QByteArray::number(p.level) + " " + QByteArray::number(p.index),
                      sha1(p.text));
      for (auto it = reported.begin(); it != reported.end(); ++it) {
        QVERIFY2(stored.contains(it.key()), it.key().constData());
        QCOMPARE(stored.value(it.key()), it.value());
      }
      for (auto it = stored.begin(); it != stored.end(); ++it)
        QCOMPARE(it.value(), reference_partials.value(it.key()));  // resumed = uninterrupted
      const auto row = store->job(job);
      QVERIFY(row);
      if (row->status == JobStatus::Done) {  // it finished before the kill: check, go on
        QCOMPARE(row->final_summary, full.summary);
        ++jobs_finished_while_killed;
        job = store->create_job(document, 0, options, {}, &error);
        reported.clear();
      } else {
        QCOMPARE(row->status, JobStatus::Running);  // cut short: resumable
        bool listed = false;
        for (const StoredSummaryJob& j : store->resumable_jobs(0)) listed = listed || j.id == job;
        QVERIFY(listed);
      }
    }
    // The job resumes where the last kill left it and ends as the uninterrupted one.
    const int before = static_cast<int>(store->partials(job).size());
    const SummaryJobOutcome resumed = run_summary_job(db, job, model, session, {});
    QVERIFY2(resumed.status == JobStatus::Done, qPrintable(resumed.error));
    QCOMPARE(resumed.resumed, before);
    QCOMPARE(resumed.summary, full.summary);
    QCOMPARE(conversations->integrity_check(), QStringLiteral("ok"));
    qInfo(
        "%d kills during summary jobs: %d jobs finished between kills, the last resumed "
        "after %d of %d partials",
        kill_runs(), jobs_finished_while_killed, before, full.partials);
  }
};

QTEST_GUILESS_MAIN(TestKillRecovery)
#include "test_kill_recovery.moc"
