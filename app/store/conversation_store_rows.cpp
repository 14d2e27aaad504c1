// ConversationStore, its rows: conversations (created, renamed, searched, deleted with
// their messages) and messages (appended, updated while a reply streams, cut after an
// edit, marked interrupted after a crash). Opening, migrations and recovery are in
// conversation_store.cpp, settings in conversation_store_settings.cpp.
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

#include "store/conversation_store.h"
#include "store/sql.h"

namespace kvchat::app {

namespace {

using sql::exec;
using sql::map_from_json;
using sql::map_to_json;
using sql::now_ms;
using sql::set_error;
using sql::text_value;
using sql::time_from_ms;
using sql::value_from_json;
using sql::value_to_json;
using sql::WriteTransaction;

// LIKE pattern matching `text` anywhere, with \ as the escape character.
QString like_pattern(const QString& text) {
  QString escaped;
  escaped.reserve(text.size() + 8);
  for (const QChar c : text) {
    if (c == QLatin1Char('\\') || c == QLatin1Char('%') || c == QLatin1Char('_'))
      escaped += QLatin1Char('\\');
    escaped += c;
  }
  return QLatin1Char('%') + escaped + QLatin1Char('%');
}

// The next `updated_at`: now, but strictly later than every stored one, so that "most
// recently updated first" is exact even for two writes within one millisecond.
bool next_update_stamp(QSqlDatabase& db, qint64* stamp, QString* error) {
  QSqlQuery q(db);
  if (!exec(q, QStringLiteral("SELECT MAX(updated_at) FROM conversations"), {},
            QStringLiteral("read update time"), error))
    return false;
  qint64 latest = 0;
  if (q.next() && !q.value(0).isNull()) latest = q.value(0).toLongLong();
  *stamp = std::max(now_ms(), latest + 1);
  return true;
}

bool touch_conversation(QSqlDatabase& db, qint64 conversation_id, QString* error) {
  qint64 stamp = 0;
  if (!next_update_stamp(db, &stamp, error)) return false;
  QSqlQuery q(db);
  return exec(q, QStringLiteral("UPDATE conversations SET updated_at = ? WHERE id = ?"),
              {stamp, conversation_id}, QStringLiteral("update conversation time"), error);
}

const char* kConversationColumns =
    "id, title, system_prompt, settings_json, created_at, updated_at";

StoredConversation conversation_from_row(const QSqlQuery& q) {
  StoredConversation c;
  c.id = q.value(0).toLongLong();
  c.title = q.value(1).toString();
  c.system_prompt = q.value(2).toString();
  c.settings = map_from_json(q.value(3).toString());
  c.created = time_from_ms(q.value(4).toLongLong());
  c.updated = time_from_ms(q.value(5).toLongLong());
  return c;
}

}  // namespace

QString stored_state_name(MessageState s) {
  switch (s) {
    case MessageState::Complete: return QStringLiteral("complete");
    case MessageState::Streaming: return QStringLiteral("streaming");
    case MessageState::Interrupted: return QStringLiteral("interrupted");
  }
  return QStringLiteral("complete");
}

MessageState stored_state_from_name(const QString& s) {
  if (s == QLatin1String("streaming")) return MessageState::Streaming;
  if (s == QLatin1String("interrupted")) return MessageState::Interrupted;
  return MessageState::Complete;
}

StoredMessage stored_message_from_row(const QSqlQuery& q) {
  StoredMessage m;
  m.id = q.value(0).toLongLong();
  m.conversation_id = q.value(1).toLongLong();
  m.role = q.value(2).toString();
  m.content = q.value(3).toString();
  m.state = stored_state_from_name(q.value(4).toString());
  m.stats = map_from_json(q.value(5).toString());
  m.created = time_from_ms(q.value(6).toLongLong());
  m.version = q.value(7).toInt();
  return m;
}

// ---- conversations ----------------------------------------------------------------------

qint64 ConversationStore::create_conversation(const QString& title, const QString& system_prompt,
                                              QString* error) {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return 0;
  qint64 stamp = 0;
  if (!next_update_stamp(db, &stamp, error)) return 0;
  QSqlQuery q(db);
  if (!exec(q,
            QStringLiteral("INSERT INTO conversations (title, system_prompt, settings_json, "
                           "created_at, updated_at)"
                           " VALUES (?, ?, '{}', ?, ?)"),
            {text_value(title), text_value(system_prompt), stamp, stamp},
            QStringLiteral("create conversation"), error))
    return 0;
  const qint64 id = q.lastInsertId().toLongLong();
  q.finish();
  if (!tx.commit(error)) return 0;
  return id;
}

namespace {
// UPDATE conversations SET <column> = value WHERE id; false + message when no such row.
bool update_conversation_column(QSqlDatabase db, qint64 id, const char* column,
                                const QVariant& value, const QString& what, QString* error) {
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  QSqlQuery q(db);
  if (!exec(
          q,
          QStringLiteral("UPDATE conversations SET %1 = ? WHERE id = ?").arg(QLatin1String(column)),
          {value, id}, what, error))
    return false;
  if (q.numRowsAffected() != 1) {
    set_error(error, QStringLiteral("%1: no conversation %2").arg(what, QString::number(id)));
    return false;
  }
  return tx.commit(error);
}
}  // namespace

bool ConversationStore::rename_conversation(qint64 id, const QString& title, QString* error) {
  return update_conversation_column(QSqlDatabase::database(connection_, false), id, "title",
                                    text_value(title), QStringLiteral("rename conversation"),
                                    error);
}

bool ConversationStore::set_system_prompt(qint64 id, const QString& system_prompt, QString* error) {
  return update_conversation_column(QSqlDatabase::database(connection_, false), id, "system_prompt",
                                    text_value(system_prompt), QStringLiteral("set system prompt"),
                                    error);
}

bool ConversationStore::set_conversation_settings(qint64 id, const QVariantMap& settings,
                                                  QString* error) {
  return update_conversation_column(QSqlDatabase::database(connection_, false), id, "settings_json",
                                    map_to_json(settings),
                                    QStringLiteral("set conversation settings"), error);
}

bool ConversationStore::delete_conversation(qint64 id, QString* error) {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  QSqlQuery q(db);
  if (!exec(q, QStringLiteral("DELETE FROM conversations WHERE id = ?"), {id},
            QStringLiteral("delete conversation"), error))
    return false;
  if (q.numRowsAffected() != 1) {
    set_error(error, QStringLiteral("delete conversation: no conversation %1").arg(id));
    return false;
  }
  return tx.commit(error);  // its messages go by ON DELETE CASCADE
}

QVector<StoredConversation> ConversationStore::conversations() const {
  QVector<StoredConversation> out;
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q,
            QStringLiteral("SELECT %1 FROM conversations ORDER BY updated_at DESC, id DESC")
                .arg(QLatin1String(kConversationColumns)),
            {}, {}, nullptr))
    return out;
  while (q.next()) out.append(conversation_from_row(q));
  return out;
}

QVector<StoredConversation> ConversationStore::search(const QString& text) const {
  if (text.isEmpty()) return conversations();
  QVector<StoredConversation> out;
  // LIKE folds ASCII case; % and _ in `text` are escaped so they match themselves.
  const QString pattern = like_pattern(text);
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(
          q,
          QStringLiteral("SELECT %1 FROM conversations AS c"
                         " WHERE c.title LIKE ? ESCAPE '\\'"
                         "    OR EXISTS (SELECT 1 FROM messages AS m WHERE m.conversation_id = c.id"
                         "               AND m.content LIKE ? ESCAPE '\\')"
                         " ORDER BY c.updated_at DESC, c.id DESC")
              .arg(QLatin1String(kConversationColumns)),
          {pattern, pattern}, {}, nullptr))
    return out;
  while (q.next()) out.append(conversation_from_row(q));
  return out;
}

std::optional<StoredConversation> ConversationStore::conversation(qint64 id) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q,
            QStringLiteral("SELECT %1 FROM conversations WHERE id = ?")
                .arg(QLatin1String(kConversationColumns)),
            {id}, {}, nullptr) ||
      !q.next())
    return std::nullopt;
  return conversation_from_row(q);
}

// ---- messages ---------------------------------------------------------------------------

qint64 ConversationStore::append_message(qint64 conversation_id, const QString& role,
                                         const QString& content, MessageState state,
                                         QString* error) {
  const QString what = QStringLiteral("append message");
  if (role != QLatin1String("user") && role != QLatin1String("assistant")) {
    set_error(error,
              QStringLiteral("%1: role must be 'user' or 'assistant', not '%2'").arg(what, role));
    return 0;
  }
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return 0;
  qint64 position = 0;
  {
    QSqlQuery q(db);
    if (!exec(q,
              QStringLiteral(
                  "SELECT (SELECT COUNT(*) FROM conversations WHERE id = ?),"
                  " COALESCE((SELECT MAX(position) FROM messages WHERE conversation_id = ?), 0)"),
              {conversation_id, conversation_id}, what, error))
      return 0;
    if (!q.next() || q.value(0).toInt() != 1) {
      set_error(
          error,
          QStringLiteral("%1: no conversation %2").arg(what, QString::number(conversation_id)));
      return 0;
    }
    position = q.value(1).toLongLong() + 1;
  }
  qint64 id = 0;
  {
    QSqlQuery q(db);
    if (!exec(
            q,
            QStringLiteral(
                "INSERT INTO messages (conversation_id, position, role, content, state, stats_json,"
                " created_at) VALUES (?, ?, ?, ?, ?, '{}', ?)"),
            {conversation_id, position, role, text_value(content), stored_state_name(state),
             now_ms()},
            what, error))
      return 0;
    id = q.lastInsertId().toLongLong();
  }
  if (!touch_conversation(db, conversation_id, error) || !tx.commit(error)) return 0;
  return id;
}

bool ConversationStore::update_message(qint64 id, const QString& content, MessageState state,
                                       const QVariantMap& stats, QString* error) {
  const QString what = QStringLiteral("update message");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  qint64 conversation_id = 0;
  {
    QSqlQuery q(db);
    if (!exec(q,
              QStringLiteral(
                  "UPDATE messages SET content = ?, state = ?, stats_json = ? WHERE id = ?"),
              {text_value(content), stored_state_name(state), map_to_json(stats), id}, what, error))
      return false;
    if (q.numRowsAffected() != 1) {
      set_error(error, QStringLiteral("%1: no message %2").arg(what, QString::number(id)));
      return false;
    }
  }
  {
    QSqlQuery q(db);
    if (!exec(q, QStringLiteral("SELECT conversation_id FROM messages WHERE id = ?"), {id}, what,
              error) ||
        !q.next())
      return false;
    conversation_id = q.value(0).toLongLong();
  }
  return touch_conversation(db, conversation_id, error) && tx.commit(error);
}

namespace {
// conversation_id and position of a message; false + message when there is none.
bool locate_message(QSqlDatabase& db, qint64 id, qint64* conversation_id, qint64* position,
                    const QString& what, QString* error) {
  QSqlQuery q(db);
  if (!exec(q, QStringLiteral("SELECT conversation_id, position FROM messages WHERE id = ?"), {id},
            what, error))
    return false;
  if (!q.next()) {
    set_error(error, QStringLiteral("%1: no message %2").arg(what, QString::number(id)));
    return false;
  }
  *conversation_id = q.value(0).toLongLong();
  *position = q.value(1).toLongLong();
  return true;
}
}  // namespace

bool ConversationStore::delete_messages_after(qint64 message_id, QString* error) {
  return delete_by_position(message_id, ">", QStringLiteral("delete messages"), error);
}

bool ConversationStore::delete_message(qint64 message_id, QString* error) {
  return delete_by_position(message_id, "=", QStringLiteral("delete message"), error);
}

// Deletes the messages of `message_id`'s conversation whose position compares with its
// position by `op` ("=": the message itself; ">": every later one), in one transaction.
bool ConversationStore::delete_by_position(qint64 message_id, const char* op, const QString& what,
                                           QString* error) {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  qint64 conversation_id = 0, position = 0;
  if (!locate_message(db, message_id, &conversation_id, &position, what, error)) return false;
  {
    QSqlQuery q(db);
    const QString sql =
        QStringLiteral("DELETE FROM messages WHERE conversation_id = ? AND position %1 ?")
            .arg(QLatin1String(op));
    if (!exec(q, sql, {conversation_id, position}, what, error)) return false;
  }
  return touch_conversation(db, conversation_id, error) && tx.commit(error);
}

QVector<StoredMessage> ConversationStore::messages(qint64 conversation_id) const {
  QVector<StoredMessage> out;
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(
          q,
          QStringLiteral("SELECT id, conversation_id, role, content, state, stats_json, created_at,"
                         " version, (SELECT COUNT(*) FROM message_versions v"
                         "           WHERE v.message_id = messages.id) + 1"
                         " FROM messages WHERE conversation_id = ? ORDER BY position"),
          {conversation_id}, {}, nullptr))
    return out;
  while (q.next()) {
    StoredMessage m = stored_message_from_row(q);
    m.version_count = q.value(8).toInt();
    out.append(std::move(m));
  }
  return out;
}

int ConversationStore::mark_streaming_interrupted() {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(nullptr)) return -1;
  int marked = 0;
  {
    QSqlQuery q(db);
    if (!exec(q,
              QStringLiteral("UPDATE messages SET state = 'interrupted' WHERE state = 'streaming'"),
              {}, {}, nullptr))
      return -1;
    marked = q.numRowsAffected();
  }
  return tx.commit(nullptr) ? marked : -1;
}

}  // namespace kvchat::app
