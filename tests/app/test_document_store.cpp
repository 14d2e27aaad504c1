// DocumentStore (schema version 2): documents stored once per content hash, summary jobs
// and their partial summaries (one row per (job, level, idx), replaced never duplicated),
// the resume listing, cascades, a second connection on another thread, and the migration
// of a version-1 file holding conversations.
#include <QCryptographicHash>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include "store/conversation_store.h"
#include "store/document_store.h"

using kvchat::app::ConversationStore;
using kvchat::app::DocumentStore;
using kvchat::app::JobStatus;
using kvchat::app::MessageState;
using kvchat::app::StoredDocument;
using kvchat::app::StoredPartial;

namespace {

// A raw QtSql connection, to look at what the store wrote.
class RawDb {
 public:
  explicit RawDb(const QString& path) : name_(QStringLiteral("raw-doc-%1").arg(++serial_)) {
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name_);
    db.setDatabaseName(path);
    db.open();
  }
  ~RawDb() {
    {
      QSqlDatabase db = QSqlDatabase::database(name_, false);
      db.close();
    }
    QSqlDatabase::removeDatabase(name_);
  }
  QVariant value(const QString& sql) {
    QSqlQuery q(QSqlDatabase::database(name_, false));
    if (!q.exec(sql) || !q.next()) return {};
    return q.value(0);
  }
  bool exec(const QString& sql) {
    QSqlQuery q(QSqlDatabase::database(name_, false));
    return q.exec(sql);
  }

 private:
  static inline int serial_ = 0;
  QString name_;
};

QString sha256_hex(const QByteArray& text) {
  return QString::fromLatin1(QCryptographicHash::hash(text, QCryptographicHash::Sha256).toHex());
}

StoredDocument meta_for(const QByteArray& text, const QString& name) {
  StoredDocument d;
  d.name = name;
  d.mime = QStringLiteral("text/plain");
  d.bytes = text.size();
  d.sha256 = sha256_hex(text);
  d.encoding = QStringLiteral("utf-8");
  d.n_tokens = text.size() / 4;
  d.tokens_model = QStringLiteral("00000000000000aa");
  return d;
}

StoredPartial partial(int level, int index, const QString& text) {
  StoredPartial p;
  p.level = level;
  p.index = index;
  p.token_begin = index * 100;
  p.token_end = index * 100 + 100;
  p.source_begin = level > 0 ? index * 2 : 0;
  p.source_end = level > 0 ? index * 2 + 2 : 0;
  p.text = text;
  return p;
}

}  // namespace

class TestDocumentStore : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  int files_ = 0;
  QString fresh_path() { return dir_.filePath(QStringLiteral("db%1/kvchat.sqlite").arg(++files_)); }

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void schemaVersionTwoHasTheDocumentTables() {
    QVERIFY(ConversationStore::kSchemaVersion >= 2);  // documents came with version 2
    const QString path = fresh_path();
    QString error;
    auto store = ConversationStore::open(path, &error);
    QVERIFY2(store, qPrintable(error));
    RawDb raw(path);
    for (const char* table : {"documents", "summary_jobs", "summary_partials"}) {
      QCOMPARE(raw.value(QStringLiteral("SELECT COUNT(*) FROM sqlite_master WHERE type='table'"
                                        " AND name='%1'")
                             .arg(QLatin1String(table)))
                   .toInt(),
               1);
    }
  }

  void sameContentIsStoredOnce() {
    const QString path = fresh_path();
    QString error;
    auto conversations = ConversationStore::open(path, &error);
    QVERIFY2(conversations, qPrintable(error));
    DocumentStore store(*conversations);
    const QByteArray text = QByteArrayLiteral("In the beginning — ünïcödé — was the text.\n");
    bool inserted = false;
    const qint64 a =
        store.add_document(meta_for(text, QStringLiteral("a.txt")), text, &inserted, &error);
    QVERIFY2(a > 0, qPrintable(error));
    QVERIFY(inserted);
    // The same content from another file name: the same row.
    const qint64 b = store.add_document(meta_for(text, QStringLiteral("copy of a.txt")), text,
                                        &inserted, &error);
    QCOMPARE(b, a);
    QVERIFY(!inserted);
    QCOMPARE(store.document_count(), 1);
    const QByteArray other = text + "more";
    const qint64 c =
        store.add_document(meta_for(other, QStringLiteral("b.txt")), other, &inserted, &error);
    QVERIFY(c > 0 && c != a);
    QVERIFY(inserted);
    QCOMPARE(store.document_count(), 2);

    // The text comes back byte for byte, stored as TEXT (not a blob).
    QCOMPARE(store.document_text(a), text);
    const auto d = store.document(a);
    QVERIFY(d);
    QCOMPARE(d->name, QStringLiteral("a.txt"));  // the first name stays
    QCOMPARE(d->sha256, sha256_hex(text));
    QCOMPARE(d->text_bytes, qint64(text.size()));
    QCOMPARE(store.document_by_hash(sha256_hex(other))->id, c);
    RawDb raw(path);
    QCOMPARE(raw.value(QStringLiteral("SELECT typeof(text) FROM documents WHERE id = %1").arg(a))
                 .toString(),
             QStringLiteral("text"));
    QVERIFY(raw.value(QStringLiteral("SELECT text FROM documents WHERE id = %1").arg(a))
                .toString()
                .contains(QStringLiteral("ünïcödé")));

    QVERIFY(store.set_token_count(a, 1234, QStringLiteral("00000000000000bb"), &error));
    QCOMPARE(store.document(a)->n_tokens, 1234);
    QCOMPARE(store.document(a)->tokens_model, QStringLiteral("00000000000000bb"));
    QVERIFY(!store.set_token_count(999, 1, {}, &error));
    QVERIFY(error.contains(QStringLiteral("no document 999")));
  }

  void partialsArePersistedOnceAndListedForResume() {
    const QString path = fresh_path();
    QString error;
    auto conversations = ConversationStore::open(path, &error);
    QVERIFY2(conversations, qPrintable(error));
    DocumentStore store(*conversations);
    const qint64 conv = conversations->create_conversation(QStringLiteral("docs"), {}, &error);
    const QByteArray text = QByteArrayLiteral("a document");
    bool inserted = false;
    const qint64 doc =
        store.add_document(meta_for(text, QStringLiteral("d.txt")), text, &inserted, &error);
    const QVariantMap options{{QStringLiteral("summary_tokens"), 48}};
    const QVariantMap plan{{QStringLiteral("n_chunks"), 3}, {QStringLiteral("n_steps"), 4}};
    const qint64 job = store.create_job(doc, conv, options, plan, &error);
    QVERIFY2(job > 0, qPrintable(error));
    QCOMPARE(store.job(job)->status, JobStatus::Running);
    QCOMPARE(store.job(job)->options.value(QStringLiteral("summary_tokens")).toInt(), 48);
    QCOMPARE(store.job(job)->plan.value(QStringLiteral("n_steps")).toInt(), 4);

    // Written as they arrive, out of order on purpose: listed by (level, idx).
    QVERIFY(store.save_partial(job, partial(0, 1, QStringLiteral("second chunk")), &error));
    QVERIFY(store.save_partial(job, partial(0, 0, QStringLiteral("first chunk")), &error));
    QCOMPARE(store.partials(job).size(), 2);
    QCOMPARE(store.partials(job)[0].text, QStringLiteral("first chunk"));
    QCOMPARE(store.partials(job)[1].token_begin, 100);
    const qint64 first_written = store.partials(job)[0].written_at;
    QVERIFY(first_written > 0);

    // Cancelled: listed for resume (and a job left running by a crash is too).
    QVERIFY(store.set_job_status(job, JobStatus::Cancelled, {}, {}, &error));
    auto resumable = store.resumable_jobs(conv);
    QCOMPARE(resumable.size(), 1);
    QCOMPARE(resumable[0].id, job);
    QCOMPARE(resumable[0].partials, 2);
    QCOMPARE(resumable[0].status, JobStatus::Cancelled);
    QVERIFY(store.resumable_jobs(conv + 1000).isEmpty());
    QCOMPARE(store.resumable_jobs(0).size(), 1);

    // The resumed run: a partial written again replaces its row, never a second one.
    QVERIFY(store.set_job_status(job, JobStatus::Running, {}, {}, &error));
    QVERIFY(store.save_partial(job, partial(0, 1, QStringLiteral("second chunk, again")), &error));
    QVERIFY(store.save_partial(job, partial(0, 2, QStringLiteral("third chunk")), &error));
    QVERIFY(store.save_partial(job, partial(1, 0, QStringLiteral("the merge")), &error));
    const auto all = store.partials(job);
    QCOMPARE(all.size(), 4);
    QCOMPARE(all[1].text, QStringLiteral("second chunk, again"));
    QCOMPARE(all[0].written_at, first_written);  // untouched
    QCOMPARE(all[3].level, 1);
    QCOMPARE(all[3].source_end, 2);
    RawDb raw(path);
    QCOMPARE(
        raw.value(
               QStringLiteral("SELECT COUNT(*) FROM summary_partials WHERE job_id = %1").arg(job))
            .toInt(),
        4);

    // Done: no longer resumable; the final summary is kept.
    QVERIFY(store.set_job_status(job, JobStatus::Done, QStringLiteral("the summary"), {}, &error));
    QCOMPARE(store.job(job)->final_summary, QStringLiteral("the summary"));
    QVERIFY(store.resumable_jobs(conv).isEmpty());
    QVERIFY(store.set_job_plan(job, {{QStringLiteral("n_steps"), 5}}, &error));
    QCOMPARE(store.job(job)->plan.value(QStringLiteral("n_steps")).toInt(), 5);

    // A failed job is offered again, with its error.
    const qint64 failed = store.create_job(doc, conv, options, plan, &error);
    QVERIFY(
        store.set_job_status(failed, JobStatus::Failed, {}, QStringLiteral("disk full"), &error));
    QCOMPARE(store.resumable_jobs(conv).size(), 1);
    QCOMPARE(store.resumable_jobs(conv)[0].error, QStringLiteral("disk full"));

    // Deleting the conversation takes its jobs and their partials; the document stays.
    QVERIFY(conversations->delete_conversation(conv, &error));
    QVERIFY(!store.job(job));
    QVERIFY(store.partials(job).isEmpty());
    QCOMPARE(raw.value(QStringLiteral("SELECT COUNT(*) FROM summary_partials")).toInt(), 0);
    QVERIFY(store.document(doc));
  }

  // The engine thread writes partials on a connection of its own while the GUI thread's
  // connection reads them (WAL: readers never block the writer).
  void secondConnectionOnAnotherThread() {
    const QString path = fresh_path();
    QString error;
    auto conversations = ConversationStore::open(path, &error);
    QVERIFY2(conversations, qPrintable(error));
    DocumentStore gui(*conversations);
    const QByteArray text = QByteArrayLiteral("threads");
    bool inserted = false;
    const qint64 doc =
        gui.add_document(meta_for(text, QStringLiteral("t.txt")), text, &inserted, &error);
    const qint64 job = gui.create_job(doc, 0, {}, {}, &error);
    QVERIFY(job > 0);
    constexpr int kPartials = 40;
    QString thread_error;
    std::unique_ptr<QThread> writer(QThread::create([&] {
      auto own = DocumentStore::open(path, &thread_error);
      if (!own) return;
      for (int i = 0; i < kPartials && thread_error.isEmpty(); ++i) {
        own->save_partial(job, partial(0, i, QStringLiteral("chunk %1").arg(i)), &thread_error);
      }
    }));
    writer->start();
    int seen = 0;
    while (!writer->isFinished()) {
      seen = std::max(seen, int(gui.partials(job).size()));  // never fails while written to
      QThread::msleep(1);
    }
    writer->wait();
    QVERIFY2(thread_error.isEmpty(), qPrintable(thread_error));
    QCOMPARE(gui.partials(job).size(), kPartials);
    QCOMPARE(gui.partials(job).back().text, QStringLiteral("chunk %1").arg(kPartials - 1));
  }

  // A version-1 file (conversations only) gains the document tables; nothing is lost.
  void migratesVersionOneFileWithData() {
    const QString path = fresh_path();
    qint64 conv = 0;
    QString error;
    {
      auto v1 = ConversationStore::open(path, ConversationStore::migrations().mid(0, 1), &error);
      QVERIFY2(v1, qPrintable(error));
      QCOMPARE(v1->schema_version(), 1);
      conv =
          v1->create_conversation(QStringLiteral("from version 1"), QStringLiteral("sys"), &error);
    }
    {
      // A message as version 1 wrote it (today's append_message writes the tree's columns).
      RawDb raw(path);
      QVERIFY(raw.exec(QStringLiteral("INSERT INTO messages (conversation_id, position, role,"
                                      " content, created_at) VALUES (%1, 1, 'user', 'hello', 1)")
                           .arg(conv)));
      QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), 1);
      QCOMPARE(
          raw.value(QStringLiteral("SELECT COUNT(*) FROM sqlite_master WHERE name = 'documents'"))
              .toInt(),
          0);
    }
    auto store = DocumentStore::open(path, &error);  // migrates, on a connection of its own
    QVERIFY2(store, qPrintable(error));
    const QByteArray text = QByteArrayLiteral("after the migration");
    bool inserted = false;
    StoredDocument meta = meta_for(text, QStringLiteral("m.txt"));
    meta.conversation_id = conv;
    const qint64 doc = store->add_document(meta, text, &inserted, &error);
    QVERIFY2(doc > 0, qPrintable(error));
    QCOMPARE(store->document(doc)->conversation_id, conv);
    QVERIFY(store->create_job(doc, conv, {}, {}, &error) > 0);
    auto conversations = ConversationStore::open(path, &error);
    QVERIFY2(conversations, qPrintable(error));
    QCOMPARE(conversations->schema_version(), ConversationStore::kSchemaVersion);  // every step run
    QCOMPARE(conversations->conversation(conv)->title, QStringLiteral("from version 1"));
    QCOMPARE(conversations->messages(conv).size(), 1);
    QCOMPARE(conversations->messages(conv)[0].content, QStringLiteral("hello"));
    // Deleting the conversation leaves the document, unattached.
    QVERIFY(conversations->delete_conversation(conv, &error));
    QCOMPARE(store->document(doc)->conversation_id, 0);
  }
};

QTEST_GUILESS_MAIN(TestDocumentStore)
#include "test_document_store.moc"
