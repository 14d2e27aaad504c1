// ConversationStore, its rows: conversations (created, renamed, searched, deleted with
// their messages) and messages (appended, updated while a reply streams, cut after an
// edit, marked interrupted after a crash). Opening, migrations and recovery are in
// conversation_store.cpp, settings in conversation_store_settings.cpp.
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

#include "store/conversation_store.h"
#include "util/sql.h"

namespace kvchat::app {

namespace {

using sql::exec;
using sql::list_from_json;
using sql::list_to_json;
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
    "id, title, system_prompt, settings_json, created_at, updated_at, title_named";

StoredConversation conversation_from_row(const QSqlQuery& q) {
  StoredConversation c;
  c.id = q.value(0).toLongLong();
  c.title = q.value(1).toString();
  c.system_prompt = q.value(2).toString();
  c.settings = map_from_json(q.value(3).toString());
  c.created = time_from_ms(q.value(4).toLongLong());
  c.updated = time_from_ms(q.value(5).toLongLong());
  c.title_named = q.value(6).toInt() != 0;
  return c;
}

}  // namespace

QString conversation_title_from_message(const QString& message) {
  qsizetype start = 0;
  while (start < message.size() && message.at(start).isSpace()) ++start;
  return message.mid(start, 400).simplified().left(40);
}

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
  m.parent_id = q.value(8).toLongLong();
  m.selected = q.value(9).toInt() != 0;
  m.shown = q.value(10).toInt() != 0;
  m.tool_steps = list_from_json(q.value(11).toString());
  return m;
}

const char* const kMessageColumns =
    "m.id, m.conversation_id, m.role, m.content, m.state, m.stats_json, m.created_at,"
    " m.version, m.parent_id, m.selected, m.shown, m.tool_steps_json";

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
// UPDATE conversations SET <assignments> WHERE id, `value` bound to the assignments' one
// `?`; false + message when no such row.
bool update_conversation_column(QSqlDatabase db, qint64 id, const char* assignments,
                                const QVariant& value, const QString& what, QString* error) {
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  QSqlQuery q(db);
  if (!exec(q,
            QStringLiteral("UPDATE conversations SET %1 WHERE id = ?")
                .arg(QLatin1String(assignments)),
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
  return update_conversation_column(QSqlDatabase::database(connection_, false), id,
                                    "title = ?, title_named = 1", text_value(title),
                                    QStringLiteral("rename conversation"), error);
}

bool ConversationStore::retitle_from_first_message(qint64 id, const QString& first_message,
                                                   QString* error, bool* changed) {
  if (changed) *changed = false;
  const QString title = conversation_title_from_message(first_message);
  if (title.isEmpty()) return true;  // nothing to name it by: the title it has stays
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  QSqlQuery q(db);
  if (!exec(q,
            QStringLiteral("UPDATE conversations SET title = ?"
                           " WHERE id = ? AND title_named = 0 AND title <> ?"),
            {title, id, title}, QStringLiteral("retitle conversation"), error))
    return false;
  const bool did = q.numRowsAffected() > 0;
  q.finish();
  if (!tx.commit(error)) return false;
  if (changed) *changed = did;
  return true;
}

bool ConversationStore::set_system_prompt(qint64 id, const QString& system_prompt, QString* error) {
  const QString what = QStringLiteral("set system prompt");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  // SET expressions read the row's old values: the link stays when the text is unchanged
  // or is the linked prompt's text (the library, store/system_prompt_store.cpp).
  QSqlQuery q(db);
  if (!exec(q,
            QStringLiteral("UPDATE conversations SET system_prompt = ?,"
                           " system_prompt_id = CASE WHEN system_prompt = ? THEN system_prompt_id"
                           " ELSE (SELECT p.id FROM system_prompts p"
                           " WHERE p.id = conversations.system_prompt_id AND p.text = ?) END"
                           " WHERE id = ?"),
            {text_value(system_prompt), text_value(system_prompt), text_value(system_prompt), id},
            what, error))
    return false;
  if (q.numRowsAffected() != 1) {
    set_error(error, QStringLiteral("%1: no conversation %2").arg(what, QString::number(id)));
    return false;
  }
  return tx.commit(error);
}

bool ConversationStore::set_conversation_settings(qint64 id, const QVariantMap& settings,
                                                  QString* error) {
  return update_conversation_column(QSqlDatabase::database(connection_, false), id,
                                    "settings_json = ?", map_to_json(settings),
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
  {
    QSqlQuery q(db);
    if (!exec(q, QStringLiteral("SELECT COUNT(*) FROM conversations WHERE id = ?"),
              {conversation_id}, what, error))
      return 0;
    if (!q.next() || q.value(0).toInt() != 1) {
      set_error(
          error,
          QStringLiteral("%1: no conversation %2").arg(what, QString::number(conversation_id)));
      return 0;
    }
  }
  // After the last message shown: its child, one place further down the tree.
  QVariant parent;  // NULL: a first message
  qint64 position = 1;
  {
    QSqlQuery q(db);
    if (!exec(q,
              QStringLiteral("SELECT id, position FROM messages WHERE conversation_id = ?"
                             " AND shown = 1 ORDER BY position DESC LIMIT 1"),
              {conversation_id}, what, error))
      return 0;
    if (q.next()) {
      parent = q.value(0).toLongLong();
      position = q.value(1).toLongLong() + 1;
    }
  }
  // Any children it has already (none while the tree is whole) stay, as other branches.
  int version = 0;
  {
    QSqlQuery q(db);
    if (!exec(q,
              QStringLiteral("SELECT COUNT(*) FROM messages WHERE conversation_id = ?"
                             " AND position = ? AND parent_id IS ?"),
              {conversation_id, position, parent}, what, error))
      return 0;
    if (q.next()) version = q.value(0).toInt();
  }
  if (version > 0) {
    QSqlQuery q(db);
    if (!exec(q,
              QStringLiteral("UPDATE messages SET selected = 0, shown = 0 WHERE conversation_id = ?"
                             " AND position = ? AND parent_id IS ?"),
              {conversation_id, position, parent}, what, error))
      return 0;
  }
  qint64 id = 0;
  {
    QSqlQuery q(db);
    if (!exec(
            q,
            QStringLiteral(
                "INSERT INTO messages (conversation_id, position, role, content, state, stats_json,"
                " created_at, version, parent_id, selected, shown)"
                " VALUES (?, ?, ?, ?, ?, '{}', ?, ?, ?, 1, 1)"),
            {conversation_id, position, role, text_value(content), stored_state_name(state),
             now_ms(), version, parent},
            what, error))
      return 0;
    id = q.lastInsertId().toLongLong();
  }
  if (!touch_conversation(db, conversation_id, error) || !tx.commit(error)) return 0;
  return id;
}

bool ConversationStore::update_message(qint64 id, const QString& content, MessageState state,
                                       const QVariantMap& stats, QString* error,
                                       const QVariantList* tool_steps) {
  const QString what = QStringLiteral("update message");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  qint64 conversation_id = 0;
  {
    QSqlQuery q(db);
    const bool ok =
        tool_steps
            ? exec(q,
                   QStringLiteral("UPDATE messages SET content = ?, state = ?, stats_json = ?,"
                                  " tool_steps_json = ? WHERE id = ?"),
                   {text_value(content), stored_state_name(state), map_to_json(stats),
                    list_to_json(*tool_steps), id},
                   what, error)
            : exec(q,
                   QStringLiteral(
                       "UPDATE messages SET content = ?, state = ?, stats_json = ? WHERE id = ?"),
                   {text_value(content), stored_state_name(state), map_to_json(stats), id}, what,
                   error);
    if (!ok) return false;
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

QVector<StoredMessage> read_shown_messages(const QSqlDatabase& db, qint64 conversation_id,
                                           QString* error) {
  QVector<StoredMessage> out;
  QSqlQuery q(db);
  q.setForwardOnly(true);  // each row once: a giant text is not kept twice
  // The shown path by the partial index messages_shown_path; the siblings by
  // messages_by_conversation (siblings share their place).
  if (!exec(q,
            QStringLiteral("SELECT %1, (SELECT COUNT(*) FROM messages AS s"
                           "  WHERE s.conversation_id = m.conversation_id"
                           "    AND s.position = m.position AND s.parent_id IS m.parent_id)"
                           " FROM messages AS m WHERE m.conversation_id = ? AND m.shown = 1"
                           " ORDER BY m.position")
                .arg(QLatin1String(kMessageColumns)),
            {conversation_id}, QStringLiteral("read messages"), error))
    return out;
  while (q.next()) {
    StoredMessage m = stored_message_from_row(q);
    m.version_count = q.value(12).toInt();
    out.append(std::move(m));
  }
  return out;
}

QVector<StoredMessage> ConversationStore::messages(qint64 conversation_id) const {
  return read_shown_messages(QSqlDatabase::database(connection_, false), conversation_id);
}

qint64 ConversationStore::shown_message_chars(qint64 conversation_id) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  // Answered from messages_content_length alone: no text is read.
  if (!exec(q,
            QStringLiteral("SELECT SUM(length(content)) FROM messages"
                           " INDEXED BY messages_content_length"
                           " WHERE conversation_id = ? AND shown = 1"),
            {conversation_id}, {}, nullptr) ||
      !q.next())
    return 0;
  return q.value(0).toLongLong();
}

bool ConversationStore::has_messages(qint64 conversation_id) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  return exec(q, QStringLiteral("SELECT EXISTS (SELECT 1 FROM messages WHERE conversation_id = ?)"),
              {conversation_id}, {}, nullptr) &&
         q.next() && q.value(0).toBool();
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
