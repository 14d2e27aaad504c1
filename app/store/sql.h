// Small QtSql helpers shared by the stores (ConversationStore, DocumentStore): prepared
// statements with positional binds and error text, and BEGIN IMMEDIATE transactions.
#pragma once

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QString>
#include <QVariant>
#include <initializer_list>

namespace kvchat::app::sql {

void set_error(QString* error, const QString& message);
QString error_text(const QSqlError& e);
// NOT NULL text columns: a null QString would bind as SQL NULL.
QVariant text_value(const QString& s);
qint64 now_ms();  // milliseconds since the Unix epoch (UTC)

// Prepares and runs `sql` with positional `binds`; on failure *error = "<what>: <SQL error>".
bool exec(QSqlQuery& q, const QString& sql, std::initializer_list<QVariant> binds,
          const QString& what, QString* error);
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
