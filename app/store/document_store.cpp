// DocumentStore on the ConversationStore's file and pattern: positional binds, one
// BEGIN IMMEDIATE transaction per write (store/sql.h).
#include "store/document_store.h"

#include <QSqlDatabase>
#include <QSqlQuery>

#include "store/conversation_store.h"
#include "util/sql.h"

namespace kvchat::app {

namespace {

using sql::exec;
using sql::map_from_json;
using sql::map_to_json;
using sql::now_ms;
using sql::set_error;
using sql::text_value;
using sql::time_from_ms;
using sql::WriteTransaction;

JobStatus status_from_name(const QString& s) {
  if (s == QLatin1String("cancelled")) return JobStatus::Cancelled;
  if (s == QLatin1String("done")) return JobStatus::Done;
  if (s == QLatin1String("failed")) return JobStatus::Failed;
  return JobStatus::Running;
}

// NULL for "none" (0) in a nullable reference column.
QVariant id_or_null(qint64 id) {
  return id > 0 ? QVariant(id) : QVariant(QMetaType(QMetaType::LongLong));
}

const char* kDocumentColumns =
    "id, conversation_id, name, mime, bytes, sha256, encoding, notice, n_tokens, tokens_model,"
    " length(CAST(text AS BLOB)), created_at";

StoredDocument document_from_row(const QSqlQuery& q) {
  StoredDocument d;
  d.id = q.value(0).toLongLong();
  d.conversation_id = q.value(1).isNull() ? 0 : q.value(1).toLongLong();
  d.name = q.value(2).toString();
  d.mime = q.value(3).toString();
  d.bytes = q.value(4).toLongLong();
  d.sha256 = q.value(5).toString();
  d.encoding = q.value(6).toString();
  d.notice = q.value(7).toString();
  d.n_tokens = q.value(8).toLongLong();
  d.tokens_model = q.value(9).toString();
  d.text_bytes = q.value(10).toLongLong();
  d.created = time_from_ms(q.value(11).toLongLong());
  return d;
}

const char* kJobColumns =
    "j.id, j.document_id, j.conversation_id, j.options_json, j.plan_json, j.status,"
    " j.final_summary, j.error, j.created_at, j.updated_at,"
    " (SELECT COUNT(*) FROM summary_partials AS p WHERE p.job_id = j.id)";

StoredSummaryJob job_from_row(const QSqlQuery& q) {
  StoredSummaryJob j;
  j.id = q.value(0).toLongLong();
  j.document_id = q.value(1).toLongLong();
  j.conversation_id = q.value(2).isNull() ? 0 : q.value(2).toLongLong();
  j.options = map_from_json(q.value(3).toString());
  j.plan = map_from_json(q.value(4).toString());
  j.status = status_from_name(q.value(5).toString());
  j.final_summary = q.value(6).toString();
  j.error = q.value(7).toString();
  j.created = time_from_ms(q.value(8).toLongLong());
  j.updated = time_from_ms(q.value(9).toLongLong());
  j.partials = q.value(10).toInt();
  return j;
}

}  // namespace

QString job_status_name(JobStatus s) {
  switch (s) {
    case JobStatus::Running: return QStringLiteral("running");
    case JobStatus::Cancelled: return QStringLiteral("cancelled");
    case JobStatus::Done: return QStringLiteral("done");
    case JobStatus::Failed: return QStringLiteral("failed");
  }
  return QStringLiteral("running");
}

DocumentStore::DocumentStore(const ConversationStore& store)
    : connection_(store.connection_name()) {}

DocumentStore::DocumentStore(QString connection, std::unique_ptr<ConversationStore> owned)
    : connection_(std::move(connection)), owned_(std::move(owned)) {}

DocumentStore::~DocumentStore() = default;

std::unique_ptr<DocumentStore> DocumentStore::open(const QString& path, QString* error) {
  auto store = ConversationStore::open(path, error);
  if (!store) return nullptr;
  const QString name = store->connection_name();
  return std::unique_ptr<DocumentStore>(new DocumentStore(name, std::move(store)));
}

// ---- documents --------------------------------------------------------------------------

qint64 DocumentStore::add_document(const StoredDocument& meta, const QByteArray& utf8_text,
                                   bool* inserted, QString* error) {
  const QString what = QStringLiteral("store document %1").arg(meta.name);
  if (meta.sha256.isEmpty()) {
    set_error(error, QStringLiteral("%1: no content hash").arg(what));
    return 0;
  }
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return 0;
  int added = 0;
  {
    QSqlQuery q(db);
    // CAST(? AS TEXT): the bytes (bound without a UTF-16 copy) become a TEXT value.
    if (!exec(q,
              QStringLiteral(
                  "INSERT INTO documents (conversation_id, name, mime, bytes, sha256, encoding,"
                  " notice, text, n_tokens, tokens_model, created_at)"
                  " VALUES (?, ?, ?, ?, ?, ?, ?, CAST(? AS TEXT), ?, ?, ?)"
                  " ON CONFLICT(sha256) DO NOTHING"),
              {id_or_null(meta.conversation_id), text_value(meta.name), text_value(meta.mime),
               meta.bytes, meta.sha256, text_value(meta.encoding), text_value(meta.notice),
               utf8_text.isNull() ? QByteArray("") : utf8_text, meta.n_tokens,
               text_value(meta.tokens_model), now_ms()},
              what, error))
      return 0;
    added = q.numRowsAffected();
  }
  qint64 id = 0;
  {
    QSqlQuery q(db);
    if (!exec(q, QStringLiteral("SELECT id FROM documents WHERE sha256 = ?"), {meta.sha256}, what,
              error))
      return 0;
    if (!q.next()) {
      set_error(error, QStringLiteral("%1: the row is missing after the insert").arg(what));
      return 0;
    }
    id = q.value(0).toLongLong();
  }
  if (!tx.commit(error)) return 0;
  if (inserted) *inserted = added == 1;
  return id;
}

std::optional<StoredDocument> DocumentStore::document(qint64 id) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q,
            QStringLiteral("SELECT %1 FROM documents WHERE id = ?")
                .arg(QLatin1String(kDocumentColumns)),
            {id}, {}, nullptr) ||
      !q.next())
    return std::nullopt;
  return document_from_row(q);
}

std::optional<StoredDocument> DocumentStore::document_by_hash(const QString& sha256) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q,
            QStringLiteral("SELECT %1 FROM documents WHERE sha256 = ?")
                .arg(QLatin1String(kDocumentColumns)),
            {sha256}, {}, nullptr) ||
      !q.next())
    return std::nullopt;
  return document_from_row(q);
}

QByteArray DocumentStore::document_text(qint64 id) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  // As bytes: UTF-8 as stored, no UTF-16 copy.
  if (!exec(q, QStringLiteral("SELECT CAST(text AS BLOB) FROM documents WHERE id = ?"), {id}, {},
            nullptr) ||
      !q.next())
    return {};
  return q.value(0).toByteArray();
}

bool DocumentStore::set_token_count(qint64 id, qint64 n_tokens, const QString& tokens_model,
                                    QString* error) {
  const QString what = QStringLiteral("store the token count");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  QSqlQuery q(db);
  if (!exec(q, QStringLiteral("UPDATE documents SET n_tokens = ?, tokens_model = ? WHERE id = ?"),
            {n_tokens, text_value(tokens_model), id}, what, error))
    return false;
  if (q.numRowsAffected() != 1) {
    set_error(error, QStringLiteral("%1: no document %2").arg(what, QString::number(id)));
    return false;
  }
  return tx.commit(error);
}

int DocumentStore::document_count() const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q, QStringLiteral("SELECT COUNT(*) FROM documents"), {}, {}, nullptr) || !q.next())
    return -1;
  return q.value(0).toInt();
}

// ---- summary jobs -----------------------------------------------------------------------

qint64 DocumentStore::create_job(qint64 document_id, qint64 conversation_id,
                                 const QVariantMap& options, const QVariantMap& plan,
                                 QString* error) {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return 0;
  QSqlQuery q(db);
  const qint64 now = now_ms();
  if (!exec(q,
            QStringLiteral("INSERT INTO summary_jobs (document_id, conversation_id, options_json,"
                           " plan_json, status, created_at, updated_at)"
                           " VALUES (?, ?, ?, ?, 'running', ?, ?)"),
            {document_id, id_or_null(conversation_id), map_to_json(options), map_to_json(plan), now,
             now},
            QStringLiteral("create summary job"), error))
    return 0;
  const qint64 id = q.lastInsertId().toLongLong();
  q.finish();
  return tx.commit(error) ? id : 0;
}

bool DocumentStore::set_job_status(qint64 job_id, JobStatus status, const QString& final_summary,
                                   const QString& error_text, QString* error) {
  const QString what = QStringLiteral("update summary job");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  QSqlQuery q(db);
  if (!exec(q,
            QStringLiteral("UPDATE summary_jobs SET status = ?, final_summary = ?, error = ?,"
                           " updated_at = ? WHERE id = ?"),
            {job_status_name(status), text_value(final_summary), text_value(error_text), now_ms(),
             job_id},
            what, error))
    return false;
  if (q.numRowsAffected() != 1) {
    set_error(error, QStringLiteral("%1: no job %2").arg(what, QString::number(job_id)));
    return false;
  }
  return tx.commit(error);
}

bool DocumentStore::set_job_plan(qint64 job_id, const QVariantMap& plan, QString* error) {
  const QString what = QStringLiteral("store the summary plan");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  QSqlQuery q(db);
  if (!exec(q, QStringLiteral("UPDATE summary_jobs SET plan_json = ?, updated_at = ? WHERE id = ?"),
            {map_to_json(plan), now_ms(), job_id}, what, error))
    return false;
  if (q.numRowsAffected() != 1) {
    set_error(error, QStringLiteral("%1: no job %2").arg(what, QString::number(job_id)));
    return false;
  }
  return tx.commit(error);
}

std::optional<StoredSummaryJob> DocumentStore::job(qint64 id) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q,
            QStringLiteral("SELECT %1 FROM summary_jobs AS j WHERE j.id = ?")
                .arg(QLatin1String(kJobColumns)),
            {id}, {}, nullptr) ||
      !q.next())
    return std::nullopt;
  return job_from_row(q);
}

QVector<StoredSummaryJob> DocumentStore::resumable_jobs(qint64 conversation_id) const {
  QVector<StoredSummaryJob> out;
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  const QString sql =
      QStringLiteral(
          "SELECT %1 FROM summary_jobs AS j"
          " WHERE j.status IN ('running', 'cancelled', 'failed') %2"
          " ORDER BY j.updated_at DESC, j.id DESC")
          .arg(QLatin1String(kJobColumns),
               conversation_id > 0 ? QStringLiteral("AND j.conversation_id = ?") : QString());
  const bool ok = conversation_id > 0 ? exec(q, sql, {conversation_id}, {}, nullptr)
                                      : exec(q, sql, {}, {}, nullptr);
  if (!ok) return out;
  while (q.next()) out.append(job_from_row(q));
  return out;
}

// ---- partial summaries ------------------------------------------------------------------

bool DocumentStore::save_partial(qint64 job_id, const StoredPartial& p, QString* error) {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  {
    QSqlQuery q(db);
    if (!exec(q,
              QStringLiteral(
                  "INSERT INTO summary_partials (job_id, level, idx, token_begin, token_end,"
                  " source_begin, source_end, text, written_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                  " ON CONFLICT(job_id, level, idx) DO UPDATE SET"
                  " token_begin = excluded.token_begin, token_end = excluded.token_end,"
                  " source_begin = excluded.source_begin, source_end = excluded.source_end,"
                  " text = excluded.text, written_at = excluded.written_at"),
              {job_id, p.level, p.index, p.token_begin, p.token_end, p.source_begin, p.source_end,
               text_value(p.text), now_ms()},
              QStringLiteral("save partial summary %1/%2").arg(p.level).arg(p.index), error))
      return false;
  }
  {
    QSqlQuery q(db);
    if (!exec(q, QStringLiteral("UPDATE summary_jobs SET updated_at = ? WHERE id = ?"),
              {now_ms(), job_id}, QStringLiteral("update summary job time"), error))
      return false;
  }
  return tx.commit(error);
}

QVector<StoredPartial> DocumentStore::partials(qint64 job_id) const {
  QVector<StoredPartial> out;
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q,
            QStringLiteral("SELECT level, idx, token_begin, token_end, source_begin, source_end,"
                           " text, written_at FROM summary_partials WHERE job_id = ?"
                           " ORDER BY level, idx"),
            {job_id}, {}, nullptr))
    return out;
  while (q.next()) {
    StoredPartial p;
    p.level = q.value(0).toInt();
    p.index = q.value(1).toInt();
    p.token_begin = q.value(2).toLongLong();
    p.token_end = q.value(3).toLongLong();
    p.source_begin = q.value(4).toInt();
    p.source_end = q.value(5).toInt();
    p.text = q.value(6).toString();
    p.written_at = q.value(7).toLongLong();
    out.append(std::move(p));
  }
  return out;
}

}  // namespace kvchat::app
