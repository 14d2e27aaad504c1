// DownloadStore on the app's database: the table comes with schema version 3, rows
// survive reopening (a restart), and no access token can end up in it.
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

#include "hub/download_store.h"
#include "store/conversation_store.h"

using kvchat::app::ConversationStore;
using kvchat::hub::DownloadRecord;
using kvchat::hub::DownloadStore;

class TestDownloadStore : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  int n_ = 0;
  QString fresh() { return dir_.filePath(QStringLiteral("db%1.sqlite").arg(++n_)); }

  static DownloadRecord sample(const QString& dest) {
    DownloadRecord r;
    r.repo = QStringLiteral("bartowski/Llama-3.2-1B-Instruct-GGUF");
    r.file = QStringLiteral("Llama-3.2-1B-Instruct-Q4_K_M.gguf");
    r.url = QStringLiteral(
                "https://huggingface.co/bartowski/Llama-3.2-1B-Instruct-GGUF/resolve/main/") +
            r.file;
    r.dest_path = dest;
    r.part_path = dest + QStringLiteral(".part");
    r.expected_size = 807690000;
    r.sha256 = QString(64, QLatin1Char('a'));
    r.status = QStringLiteral("running");
    return r;
  }

 private slots:
  void theAppDatabaseHasTheTableAtVersionThree() {
    const QString path = fresh();
    QString error;
    {
      auto app = ConversationStore::open(path, &error);
      QVERIFY2(app, qPrintable(error));
      QVERIFY(app->schema_version() >= 3);
    }
    auto store = DownloadStore::open(path, DownloadStore::Table::MustExist, &error);
    QVERIFY2(store, qPrintable(error));
    const qint64 id = store->upsert(sample(QStringLiteral("/m/a.gguf")), &error);
    QVERIFY2(id > 0, qPrintable(error));
    QVERIFY(store->set_progress(id, 12345, QStringLiteral("\"etag\""), &error));
    store.reset();
    // Reopened (as after a restart): the row as it was left.
    auto again = DownloadStore::open(path, DownloadStore::Table::MustExist, &error);
    QVERIFY(again);
    const auto left = again->unfinished();
    QCOMPARE(left.size(), 1);
    QCOMPARE(left[0].id, id);
    QCOMPARE(left[0].bytes_done, qint64(12345));
    QCOMPARE(left[0].etag, QStringLiteral("\"etag\""));
    QCOMPARE(left[0].expected_size, qint64(807690000));
    QCOMPARE(left[0].status, QStringLiteral("running"));
    // The same destination again replaces the row (one row per destination).
    DownloadRecord other = sample(QStringLiteral("/m/a.gguf"));
    other.sha256 = QString(64, QLatin1Char('b'));
    QCOMPARE(again->upsert(other, &error), id);
    QCOMPARE(again->record(id)->sha256, other.sha256);
    QVERIFY(again->set_status(id, QStringLiteral("done"), QString(), &error));
    QVERIFY(again->unfinished().isEmpty());
    QVERIFY(again->remove(id, &error));
    QVERIFY(!again->record(id));
    // A status outside the list is refused by the table itself.
    QVERIFY(!again->set_status(again->upsert(sample(QStringLiteral("/m/b.gguf")), &error),
                               QStringLiteral("bogus"), QString(), &error));
  }

  void anUnmigratedFileIsRefusedAndLeftAlone() {
    const QString path = fresh();
    QString error;
    QVERIFY(!DownloadStore::open(path, DownloadStore::Table::MustExist, &error));
    QVERIFY2(error.contains(QStringLiteral("downloads")), qPrintable(error));
    {
      QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
      db.setDatabaseName(path);
      QVERIFY(db.open());
      QSqlQuery q(db);
      QVERIFY(q.exec(QStringLiteral("SELECT count(*) FROM sqlite_master")) && q.next());
      QCOMPARE(q.value(0).toInt(), 0);  // nothing created
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw"));
    // kvchat-cli's own state file: the table is made.
    auto own = DownloadStore::open(path, DownloadStore::Table::CreateIfMissing, &error);
    QVERIFY2(own, qPrintable(error));
    QVERIFY(own->upsert(sample(QStringLiteral("/m/c.gguf")), &error) > 0);
  }
};

QTEST_GUILESS_MAIN(TestDownloadStore)
#include "test_download_store.moc"
