// Reply versions in the store (schema step 2 -> 3, store/schema.cpp): the messages row
// shows one version (its `version` column), message_versions keeps the others. Adding a
// version moves the shown one into message_versions; selecting one swaps it back in.
// Every change is one transaction.
#include "store/conversation_store.h"

#include "store/sql.h"

namespace kvchat::app {

namespace {

using sql::exec;
using sql::map_from_json;
using sql::now_ms;
using sql::set_error;
using sql::time_from_ms;
using sql::WriteTransaction;

// The shown version of a message: its number and how many versions it has.
bool shown_version(QSqlDatabase& db, qint64 message_id, int* version, int* count,
                   const QString& what, QString* error) {
  QSqlQuery q(db);
  if (!exec(q,
            QStringLiteral("SELECT version, (SELECT COUNT(*) FROM message_versions"
                           " WHERE message_id = messages.id) + 1 FROM messages WHERE id = ?"),
            {message_id}, what, error))
    return false;
  if (!q.next()) {
    set_error(error, QStringLiteral("%1: no message %2").arg(what, QString::number(message_id)));
    return false;
  }
  *version = q.value(0).toInt();
  *count = q.value(1).toInt();
  return true;
}

// Keeps the shown version of `message_id` in message_versions under its number.
bool keep_shown_version(QSqlDatabase& db, qint64 message_id, const QString& what, QString* error) {
  QSqlQuery q(db);
  return exec(q,
              QStringLiteral("INSERT INTO message_versions"
                             " (message_id, version, content, state, stats_json, created_at)"
                             " SELECT id, version, content, state, stats_json, created_at"
                             " FROM messages WHERE id = ?"),
              {message_id}, what, error);
}

// `updated` moves as for any message change: now, later than every stored time.
bool touch(QSqlDatabase& db, qint64 message_id, const QString& what, QString* error) {
  QSqlQuery q(db);
  return exec(
      q,
      QStringLiteral("UPDATE conversations"
                     " SET updated_at = MAX(?, (SELECT MAX(updated_at) FROM conversations) + 1)"
                     " WHERE id = (SELECT conversation_id FROM messages WHERE id = ?)"),
      {now_ms(), message_id}, what, error);
}

// Moves stored version `version` of the message into its messages row (the one shown).
bool show_stored_version(QSqlDatabase& db, qint64 message_id, int version, const QString& what,
                         QString* error) {
  {
    QSqlQuery q(db);
    if (!exec(
            q,
            QStringLiteral("UPDATE messages SET (content, state, stats_json, created_at, version) ="
                           " (SELECT content, state, stats_json, created_at, version"
                           "  FROM message_versions WHERE message_id = ? AND version = ?)"
                           " WHERE id = ?"),
            {message_id, version, message_id}, what, error))
      return false;
  }
  QSqlQuery q(db);
  return exec(q,
              QStringLiteral("DELETE FROM message_versions WHERE message_id = ? AND version = ?"),
              {message_id, version}, what, error);
}

}  // namespace

int ConversationStore::add_message_version(qint64 message_id, QString* error) {
  const QString what = QStringLiteral("add a reply version");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return -1;
  int version = 0, count = 0;
  if (!shown_version(db, message_id, &version, &count, what, error) ||
      !keep_shown_version(db, message_id, what, error))
    return -1;
  // The new version is the last one: number `count`.
  QSqlQuery q(db);
  if (!exec(
          q,
          QStringLiteral("UPDATE messages SET content = '', state = 'streaming', stats_json = '{}',"
                         " version = ?, created_at = ? WHERE id = ?"),
          {count, now_ms(), message_id}, what, error) ||
      !touch(db, message_id, what, error) || !tx.commit(error))
    return -1;
  return count;
}

bool ConversationStore::select_message_version(qint64 message_id, int version, QString* error) {
  const QString what = QStringLiteral("switch the reply version");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  int shown = 0, count = 0;
  if (!shown_version(db, message_id, &shown, &count, what, error)) return false;
  if (version < 0 || version >= count) {
    set_error(error, QStringLiteral("%1: message %2 has no version %3 (it has %4)")
                         .arg(what, QString::number(message_id), QString::number(version + 1),
                              QString::number(count)));
    return false;
  }
  if (version == shown) return tx.commit(error);
  if (!keep_shown_version(db, message_id, what, error)) return false;
  return show_stored_version(db, message_id, version, what, error) &&
         touch(db, message_id, what, error) && tx.commit(error);
}

bool ConversationStore::discard_shown_version(qint64 message_id, QString* error) {
  const QString what = QStringLiteral("discard the reply version");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  int shown = 0, count = 0;
  if (!shown_version(db, message_id, &shown, &count, what, error)) return false;
  if (count < 2) {
    set_error(error, QStringLiteral("%1: message %2 has no other version")
                         .arg(what, QString::number(message_id)));
    return false;
  }
  // The others close the gap the shown one leaves; then the last of them is shown.
  const int last = count - 2;
  {
    QSqlQuery q(db);
    if (!exec(q,
              QStringLiteral("UPDATE message_versions SET version = version - 1"
                             " WHERE message_id = ? AND version > ?"),
              {message_id, shown}, what, error))
      return false;
  }
  return show_stored_version(db, message_id, last, what, error) &&
         touch(db, message_id, what, error) && tx.commit(error);
}

QVector<StoredMessage> ConversationStore::message_versions(qint64 message_id) const {
  QVector<StoredMessage> out;
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q,
            QStringLiteral(
                "SELECT m.id, m.conversation_id, m.role, v.content, v.state,"
                " v.stats_json, v.created_at, v.version"
                " FROM (SELECT message_id, version, content, state, stats_json, created_at"
                "       FROM message_versions WHERE message_id = ?"
                "       UNION ALL SELECT id, version, content, state, stats_json, created_at"
                "       FROM messages WHERE id = ?) v"
                " JOIN messages m ON m.id = v.message_id ORDER BY v.version"),
            {message_id, message_id}, {}, nullptr))
    return out;
  while (q.next()) {
    out.append(stored_message_from_row(q));
  }
  for (StoredMessage& m : out) m.version_count = static_cast<int>(out.size());
  return out;
}

}  // namespace kvchat::app
