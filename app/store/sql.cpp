#include "store/sql.h"

#include <QDateTime>
#include <QSqlError>

namespace kvchat::app::sql {

void set_error(QString* error, const QString& message) {
  if (error) *error = message;
}

QString error_text(const QSqlError& e) {
  const QString text = e.text().trimmed();
  return text.isEmpty() ? QStringLiteral("unknown SQLite error") : text;
}

QVariant text_value(const QString& s) {
  return s.isNull() ? QVariant(QStringLiteral("")) : QVariant(s);
}

qint64 now_ms() {
  return QDateTime::currentMSecsSinceEpoch();
}

bool exec(QSqlQuery& q, const QString& sql, std::initializer_list<QVariant> binds,
          const QString& what, QString* error) {
  if (!q.prepare(sql)) {
    set_error(error, QStringLiteral("%1: %2").arg(what, error_text(q.lastError())));
    return false;
  }
  for (const QVariant& b : binds) q.addBindValue(b);
  if (!q.exec()) {
    set_error(error, QStringLiteral("%1: %2").arg(what, error_text(q.lastError())));
    return false;
  }
  return true;
}

bool exec_plain(QSqlDatabase& db, const QString& sql, const QString& what, QString* error,
                QVariant* first_value) {
  QSqlQuery q(db);
  if (!q.exec(sql)) {
    set_error(error, QStringLiteral("%1: %2").arg(what, error_text(q.lastError())));
    return false;
  }
  if (first_value) *first_value = q.next() ? q.value(0) : QVariant();
  return true;
}

WriteTransaction::~WriteTransaction() {
  if (active_) exec_plain(db_, QStringLiteral("ROLLBACK"), {}, nullptr);
}

bool WriteTransaction::begin(QString* error) {
  active_ = exec_plain(db_, QStringLiteral("BEGIN IMMEDIATE"), QStringLiteral("begin transaction"),
                       error);
  return active_;
}

bool WriteTransaction::commit(QString* error) {
  if (!exec_plain(db_, QStringLiteral("COMMIT"), QStringLiteral("commit"), error)) return false;
  active_ = false;
  return true;
}

}  // namespace kvchat::app::sql
