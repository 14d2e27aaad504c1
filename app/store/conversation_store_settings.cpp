// ConversationStore, the app's key/value settings (recent models, window geometry, ...),
// each stored as JSON in the settings table.
#include <QSqlDatabase>
#include <QSqlQuery>

#include "store/conversation_store.h"
#include "util/sql.h"

namespace kvchat::app {

using sql::exec;
using sql::text_value;
using sql::value_from_json;
using sql::value_to_json;
using sql::WriteTransaction;

// ---- settings ---------------------------------------------------------------------------

bool ConversationStore::set_setting(const QString& key, const QVariant& value, QString* error) {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  QSqlQuery q(db);
  const bool ok =
      value.isValid()
          ? exec(q,
                 QStringLiteral("INSERT INTO settings (key, value_json) VALUES (?, ?)"
                                " ON CONFLICT(key) DO UPDATE SET value_json = excluded.value_json"),
                 {text_value(key), value_to_json(value)},
                 QStringLiteral("save setting %1").arg(key), error)
          : exec(q, QStringLiteral("DELETE FROM settings WHERE key = ?"), {text_value(key)},
                 QStringLiteral("remove setting %1").arg(key), error);
  return ok && tx.commit(error);
}

QVariant ConversationStore::setting(const QString& key, const QVariant& fallback) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q, QStringLiteral("SELECT value_json FROM settings WHERE key = ?"), {text_value(key)},
            {}, nullptr) ||
      !q.next())
    return fallback;
  return value_from_json(q.value(0).toString(), fallback);
}

}  // namespace kvchat::app
