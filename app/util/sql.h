// The one set of helpers the stores (ConversationStore, DocumentStore, hub::DownloadStore)
// share: prepared statements with positional binds and error text, BEGIN IMMEDIATE
// transactions, and how maps and times are stored (JSON text, milliseconds since the Unix
// epoch, UTC).
#pragma once

#include <QDateTime>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QString>
#include <QVariant>
#include <QVariantMap>
#include <initializer_list>

namespace kvchat::app::sql {

void set_error(QString* error, const QString& message);
QString error_text(const QSqlError& e);
// NOT NULL text columns: a null QString would bind as SQL NULL.
QVariant text_value(const QString& s);
qint64 now_ms();                    // milliseconds since the Unix epoch (UTC)
QDateTime time_from_ms(qint64 ms);  // a stored time, as UTC

// A map as compact JSON text (settings_json, stats_json, options_json, plan_json) and back;
// text that is not a JSON object reads as an empty map.
QString map_to_json(const QVariantMap& map);
QVariantMap map_from_json(const QString& json);
// A list as compact JSON text (tool_steps_json) and back; text that is not a JSON array
// reads as an empty list.
QString list_to_json(const QVariantList& list);
QVariantList list_from_json(const QString& json);
// Any value as JSON text: a one-element array, so that scalars are valid JSON too; text
// that is not such an array reads as `fallback`.
QString value_to_json(const QVariant& value);
QVariant value_from_json(const QString& json, const QVariant& fallback);

// Prepares and runs `sql` with positional `binds`; on failure *error = "<what>: <SQL error>".
bool exec(QSqlQuery& q, const QString& sql, std::initializer_list<QVariant> binds,
          const QString& what, QString* error);
bool exec(QSqlQuery& q, const QString& sql, const QVariantList& binds, const QString& what,
          QString* error);
// Runs a statement without bind values (pragmas, BEGIN/COMMIT, migration steps).
bool exec_plain(QSqlDatabase& db, const QString& sql, const QString& what, QString* error,
                QVariant* first_value = nullptr);

// BEGIN IMMEDIATE ... COMMIT; rolled back when destroyed uncommitted. The write lock is
// taken up front, so two connections on one file wait on the busy timeout instead of
// failing a lock upgrade.
class WriteTransaction {
 public:
  explicit WriteTransaction(QSqlDatabase db) : db_(std::move(db)) {}
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  ~WriteTransaction();
  bool begin(QString* error);
  bool commit(QString* error);

 private:
  QSqlDatabase db_;
  bool active_ = false;
};

}  // namespace kvchat::app::sql
