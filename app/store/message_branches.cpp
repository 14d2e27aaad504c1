// Branches in the store (schema step 5 -> 6, store/schema.cpp): a conversation's messages
// are a tree (parent_id); each group of siblings shows one (selected), and the path shown
// (shown = 1) runs from the first message down each group's selected one. Every write
// that changes which messages are shown recomputes that path in the same transaction.
// A subtree is deleted here with one recursive query (parent_id is not a foreign key).
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

#include "store/conversation_store.h"
#include "store/sql.h"

namespace kvchat::app {

namespace {

using sql::exec;
using sql::now_ms;
using sql::set_error;
using sql::text_value;
using sql::WriteTransaction;

// Where a message sits in the tree: its conversation, parent (NULL for a first message),
// place, role, number among its siblings and whether it is the one shown of them.
struct Place {
  qint64 conversation_id = 0;
  QVariant parent;
  qint64 position = 0;
  QString role;
  int version = 0;
  bool selected = false;
};

bool locate(QSqlDatabase& db, qint64 message_id, Place* place, const QString& what,
            QString* error) {
  QSqlQuery q(db);
  if (!exec(q,
            QStringLiteral("SELECT conversation_id, parent_id, position, role, version, selected"
                           " FROM messages WHERE id = ?"),
            {message_id}, what, error))
    return false;
  if (!q.next()) {
    set_error(error, QStringLiteral("%1: no message %2").arg(what, QString::number(message_id)));
    return false;
  }
  place->conversation_id = q.value(0).toLongLong();
  place->parent = q.value(1).isNull() ? QVariant() : QVariant(q.value(1).toLongLong());
  place->position = q.value(2).toLongLong();
  place->role = q.value(3).toString();
  place->version = q.value(4).toInt();
  place->selected = q.value(5).toInt() != 0;
  return true;
}

// The siblings of a place (the message itself included), as a WHERE clause and its values.
const char* kSiblings = "conversation_id = ? AND position = ? AND parent_id IS ?";
QVariantList sibling_values(const Place& p) { return {p.conversation_id, p.position, p.parent}; }

// The path shown, recomputed from the selections: from the selected first message down
// each selected child. Cleared first, so the partial unique index never sees two rows at
// one place.
bool refresh_shown(QSqlDatabase& db, qint64 conversation_id, const QString& what, QString* error) {
  {
    QSqlQuery q(db);
    if (!exec(
            q,
            QStringLiteral("UPDATE messages SET shown = 0 WHERE conversation_id = ? AND shown = 1"),
            {conversation_id}, what, error))
      return false;
  }
  QSqlQuery q(db);
  return exec(q,
              QStringLiteral("WITH RECURSIVE path(id) AS ("
                             "  SELECT id FROM messages WHERE conversation_id = ?"
                             "    AND parent_id IS NULL AND selected = 1"
                             "  UNION ALL SELECT c.id FROM messages AS c JOIN path"
                             "    ON c.parent_id = path.id WHERE c.selected = 1)"
                             " UPDATE messages SET shown = 1 WHERE id IN (SELECT id FROM path)"),
              {conversation_id}, what, error);
}

// `updated` moves as for any message change: now, later than every stored time.
bool touch(QSqlDatabase& db, qint64 conversation_id, const QString& what, QString* error) {
  QSqlQuery q(db);
  return exec(q,
              QStringLiteral(
                  "UPDATE conversations"
                  " SET updated_at = MAX(?, COALESCE((SELECT MAX(updated_at) FROM conversations),"
                  " 0) + 1) WHERE id = ?"),
              {now_ms(), conversation_id}, what, error);
}

// Deletes the messages below `message_id` (with_itself: and the message).
bool delete_subtree(QSqlDatabase& db, qint64 message_id, bool with_itself, const QString& what,
                    QString* error) {
  QSqlQuery q(db);
  const QString start = with_itself ? QStringLiteral("SELECT ?")
                                    : QStringLiteral("SELECT id FROM messages WHERE parent_id = ?");
  return exec(q,
              QStringLiteral("WITH RECURSIVE sub(id) AS (%1"
                             "  UNION ALL SELECT c.id FROM messages AS c JOIN sub"
                             "    ON c.parent_id = sub.id)"
                             " DELETE FROM messages WHERE id IN (SELECT id FROM sub)")
                  .arg(start),
              {message_id}, what, error);
}

QVector<StoredMessage> read_messages(QSqlQuery& q) {
  QVector<StoredMessage> out;
  while (q.next()) {
    StoredMessage m = stored_message_from_row(q);
    m.version_count = q.value(11).toInt();
    out.append(std::move(m));
  }
  return out;
}

}  // namespace

qint64 ConversationStore::add_branch(qint64 message_id, const QString& content, MessageState state,
                                     QString* error) {
  const QString what = QStringLiteral("add a branch");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return 0;
  Place p;
  if (!locate(db, message_id, &p, what, error)) return 0;
  int version = 0;
  {
    QSqlQuery q(db);
    if (!exec(q,
              QStringLiteral("SELECT COALESCE(MAX(version), -1) + 1 FROM messages WHERE %1")
                  .arg(QLatin1String(kSiblings)),
              sibling_values(p), what, error) ||
        !q.next())
      return 0;
    version = q.value(0).toInt();
  }
  {
    QSqlQuery q(db);
    if (!exec(q,
              QStringLiteral("UPDATE messages SET selected = 0 WHERE %1")
                  .arg(QLatin1String(kSiblings)),
              sibling_values(p), what, error))
      return 0;
  }
  qint64 id = 0;
  {
    QSqlQuery q(db);
    if (!exec(
            q,
            QStringLiteral("INSERT INTO messages (conversation_id, position, role, content, state,"
                           " stats_json, created_at, version, parent_id, selected, shown)"
                           " VALUES (?, ?, ?, ?, ?, '{}', ?, ?, ?, 1, 0)"),
            {p.conversation_id, p.position, p.role, text_value(content), stored_state_name(state),
             now_ms(), version, p.parent},
            what, error))
      return 0;
    id = q.lastInsertId().toLongLong();
  }
  if (!refresh_shown(db, p.conversation_id, what, error) ||
      !touch(db, p.conversation_id, what, error) || !tx.commit(error))
    return 0;
  return id;
}

bool ConversationStore::select_branch(qint64 message_id, QString* error) {
  const QString what = QStringLiteral("switch the branch");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  Place p;
  if (!locate(db, message_id, &p, what, error)) return false;
  if (p.selected) return tx.commit(error);
  {
    QSqlQuery q(db);
    QVariantList values{message_id};
    values += sibling_values(p);
    if (!exec(q,
              QStringLiteral("UPDATE messages SET selected = (id = ?) WHERE %1")
                  .arg(QLatin1String(kSiblings)),
              values, what, error))
      return false;
  }
  return refresh_shown(db, p.conversation_id, what, error) &&
         touch(db, p.conversation_id, what, error) && tx.commit(error);
}

bool ConversationStore::delete_messages_after(qint64 message_id, QString* error) {
  const QString what = QStringLiteral("delete messages");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  Place p;
  return locate(db, message_id, &p, what, error) &&
         delete_subtree(db, message_id, /*with_itself=*/false, what, error) &&
         touch(db, p.conversation_id, what, error) && tx.commit(error);
}

bool ConversationStore::delete_message(qint64 message_id, QString* error) {
  const QString what = QStringLiteral("delete message");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  Place p;
  if (!locate(db, message_id, &p, what, error) ||
      !delete_subtree(db, message_id, /*with_itself=*/true, what, error))
    return false;
  {
    // The later siblings close the gap.
    QSqlQuery q(db);
    QVariantList values = sibling_values(p);
    values << p.version;
    if (!exec(q,
              QStringLiteral("UPDATE messages SET version = version - 1 WHERE %1 AND version > ?")
                  .arg(QLatin1String(kSiblings)),
              values, what, error))
      return false;
  }
  if (p.selected) {
    // The last of the others is shown (when there is one).
    QSqlQuery q(db);
    QVariantList values = sibling_values(p);
    values += sibling_values(p);
    if (!exec(q,
              QStringLiteral("UPDATE messages SET selected = 1 WHERE id ="
                             " (SELECT id FROM messages WHERE %1 ORDER BY version DESC LIMIT 1)"
                             " AND %1")
                  .arg(QLatin1String(kSiblings)),
              values, what, error))
      return false;
    if (!refresh_shown(db, p.conversation_id, what, error)) return false;
  }
  return touch(db, p.conversation_id, what, error) && tx.commit(error);
}

QVector<StoredMessage> ConversationStore::branches(qint64 message_id) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q,
            QStringLiteral("SELECT %1, 0 FROM messages AS m JOIN messages AS x ON x.id = ?"
                           " WHERE m.conversation_id = x.conversation_id"
                           "   AND m.position = x.position AND m.parent_id IS x.parent_id"
                           " ORDER BY m.version")
                .arg(QLatin1String(kMessageColumns)),
            {message_id}, {}, nullptr))
    return {};
  QVector<StoredMessage> out = read_messages(q);
  for (StoredMessage& m : out) m.version_count = static_cast<int>(out.size());
  return out;
}

QVector<StoredMessage> ConversationStore::message_tree(qint64 conversation_id) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  // A message's place is its depth: parents come before their children.
  if (!exec(q,
            QStringLiteral("SELECT %1, (SELECT COUNT(*) FROM messages AS s"
                           "  WHERE s.conversation_id = m.conversation_id"
                           "    AND s.position = m.position AND s.parent_id IS m.parent_id)"
                           " FROM messages AS m WHERE m.conversation_id = ?"
                           " ORDER BY m.position, m.parent_id, m.version")
                .arg(QLatin1String(kMessageColumns)),
            {conversation_id}, {}, nullptr))
    return {};
  return read_messages(q);
}

}  // namespace kvchat::app
