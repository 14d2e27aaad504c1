#include "util/sql.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
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

qint64 now_ms() { return QDateTime::currentMSecsSinceEpoch(); }

QDateTime time_from_ms(qint64 ms) { return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC); }

QString map_to_json(const QVariantMap& map) {
  return QString::fromUtf8(
      QJsonDocument(QJsonObject::fromVariantMap(map)).toJson(QJsonDocument::Compact));
}

QVariantMap map_from_json(const QString& json) {
  return QJsonDocument::fromJson(json.toUtf8()).object().toVariantMap();
}

QString list_to_json(const QVariantList& list) {
  return QString::fromUtf8(
      QJsonDocument(QJsonArray::fromVariantList(list)).toJson(QJsonDocument::Compact));
}

QVariantList list_from_json(const QString& json) {
  return QJsonDocument::fromJson(json.toUtf8()).array().toVariantList();
}

QString value_to_json(const QVariant& value) {
  QJsonArray wrapper;
  wrapper.append(QJsonValue::fromVariant(value));
  return QString::fromUtf8(QJsonDocument(wrapper).toJson(QJsonDocument::Compact));
}

QVariant value_from_json(const QString& json, const QVariant& fallback) {
  const QJsonDocument doc = QJsonDocument::fromJson(json.toUtf8());
  if (!doc.isArray() || doc.array().size() != 1) return fallback;
  return doc.array().at(0).toVariant();
}

bool exec(QSqlQuery& q, const QString& sql, std::initializer_list<QVariant> binds,
          const QString& what, QString* error) {
  return exec(q, sql, QVariantList(binds), what, error);
}

bool exec(QSqlQuery& q, const QString& sql, const QVariantList& binds, const QString& what,
          QString* error) {
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
