#include "hub/download_store.h"

#include <QAtomicInteger>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

#include "hub/download_schema.h"
#include "util/sql.h"

namespace kvchat::hub {

namespace {

using app::sql::exec;
using app::sql::now_ms;
using app::sql::text_value;

const char* kColumns =
    "id, repo, file, url, dest_path, part_path, expected_size, sha256, etag, bytes_done,"
    " status, error";

DownloadRecord record_from_row(const QSqlQuery& q) {
  DownloadRecord r;
  r.id = q.value(0).toLongLong();
  r.repo = q.value(1).toString();
  r.file = q.value(2).toString();
  r.url = q.value(3).toString();
  r.dest_path = q.value(4).toString();
  r.part_path = q.value(5).toString();
  r.expected_size = q.value(6).toLongLong();
  r.sha256 = q.value(7).toString();
  r.etag = q.value(8).toString();
  r.bytes_done = q.value(9).toLongLong();
  r.status = q.value(10).toString();
  r.error = q.value(11).toString();
  return r;
}

}  // namespace

std::unique_ptr<DownloadStore> DownloadStore::open(const QString& db_path, Table table,
                                                   QString* error) {
  static QAtomicInteger<int> counter;
  const QString name = QStringLiteral("kvchat-downloads-%1").arg(counter.fetchAndAddRelaxed(1));
  {
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
    db.setDatabaseName(db_path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
    bool ok = db.open();
    QString why = ok ? QString() : db.lastError().text();
    if (ok) {
      QSqlQuery q(db);
      ok =
          exec(
              q,
              QStringLiteral(
                  "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'downloads'"),
              {}, QStringLiteral("read the schema"), &why) &&
          q.next();
      const bool exists = ok && q.value(0).toInt() == 1;
      q.finish();
      if (ok && !exists) {
        if (table == Table::MustExist) {
          ok = false;
          why = QStringLiteral("no downloads table (the database was not migrated)");
        } else {
          QSqlQuery create(db);
          for (const QString& statement : downloads_table_v1()) {
            if (!(ok = exec(create, statement, {}, QStringLiteral("create the downloads table"),
                            &why)))
              break;
          }
        }
      }
    }
    if (ok) return std::unique_ptr<DownloadStore>(new DownloadStore(name));
    if (error) *error = QStringLiteral("cannot open the download state %1: %2").arg(db_path, why);
    db.close();
  }
  QSqlDatabase::removeDatabase(name);
  return nullptr;
}

DownloadStore::~DownloadStore() {
  {
    QSqlDatabase db = QSqlDatabase::database(connection_, false);
    db.close();
  }
  QSqlDatabase::removeDatabase(connection_);
}

qint64 DownloadStore::upsert(const DownloadRecord& r, QString* error) {
  const QString what = QStringLiteral("save download %1").arg(r.file);
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  const qint64 now = now_ms();
  QSqlQuery q(db);
  if (!exec(q,
            QStringLiteral(
                "INSERT INTO downloads (repo, file, url, dest_path, part_path, expected_size,"
                " sha256, etag, bytes_done, status, error, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT(dest_path) DO UPDATE SET repo = excluded.repo,"
                " file = excluded.file, url = excluded.url, part_path = excluded.part_path,"
                " expected_size = excluded.expected_size, sha256 = excluded.sha256,"
                " etag = excluded.etag, bytes_done = excluded.bytes_done,"
                " status = excluded.status, error = excluded.error,"
                " updated_at = excluded.updated_at"),
            {text_value(r.repo), text_value(r.file), text_value(r.url), text_value(r.dest_path),
             text_value(r.part_path), r.expected_size, text_value(r.sha256), text_value(r.etag),
             r.bytes_done, r.status.isEmpty() ? QStringLiteral("queued") : r.status,
             text_value(r.error), now, now},
            what, error))
    return 0;
  if (auto saved = by_dest(r.dest_path)) return saved->id;
  if (error) *error = QStringLiteral("%1: the row was not written").arg(what);
  return 0;
}

bool DownloadStore::set_progress(qint64 id, qint64 bytes_done, const QString& etag,
                                 QString* error) {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  return exec(
      q,
      QStringLiteral("UPDATE downloads SET bytes_done = ?, etag = ?, updated_at = ? WHERE id = ?"),
      {bytes_done, text_value(etag), now_ms(), id}, QStringLiteral("save download progress"),
      error);
}

bool DownloadStore::set_status(qint64 id, const QString& status, const QString& error_text,
                               QString* error) {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  return exec(
      q, QStringLiteral("UPDATE downloads SET status = ?, error = ?, updated_at = ? WHERE id = ?"),
      {status, text_value(error_text), now_ms(), id}, QStringLiteral("save download status"),
      error);
}

bool DownloadStore::remove(qint64 id, QString* error) {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  return exec(q, QStringLiteral("DELETE FROM downloads WHERE id = ?"), {id},
              QStringLiteral("remove download"), error);
}

std::optional<DownloadRecord> DownloadStore::record(qint64 id) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q, QStringLiteral("SELECT %1 FROM downloads WHERE id = ?").arg(QLatin1String(kColumns)),
            {id}, QStringLiteral("read download"), nullptr) ||
      !q.next())
    return std::nullopt;
  return record_from_row(q);
}

std::optional<DownloadRecord> DownloadStore::by_dest(const QString& dest_path) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q,
            QStringLiteral("SELECT %1 FROM downloads WHERE dest_path = ?")
                .arg(QLatin1String(kColumns)),
            {dest_path}, QStringLiteral("read download"), nullptr) ||
      !q.next())
    return std::nullopt;
  return record_from_row(q);
}

QVector<DownloadRecord> DownloadStore::unfinished() const {
  QVector<DownloadRecord> out;
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q,
            QStringLiteral("SELECT %1 FROM downloads WHERE status <> 'done' ORDER BY id")
                .arg(QLatin1String(kColumns)),
            {}, QStringLiteral("list downloads"), nullptr))
    return out;
  while (q.next()) out.append(record_from_row(q));
  return out;
}

}  // namespace kvchat::hub
