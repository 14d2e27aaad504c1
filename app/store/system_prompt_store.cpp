// The system prompt library in the store (schema step 4 -> 5, store/schema.cpp): saved
// prompts (system_prompts: a unique name and a text) and which one a conversation was
// picked from (conversations.system_prompt_id, NULL when typed by hand or deleted). A
// conversation keeps its own copy of the text: editing a saved prompt changes no
// conversation until apply_system_prompt_text copies it. Every change is one transaction.
#include <QSqlDatabase>
#include <QSqlQuery>

#include "store/conversation_store.h"
#include "util/sql.h"

namespace kvchat::app {

namespace {

using sql::exec;
using sql::now_ms;
using sql::set_error;
using sql::text_value;
using sql::time_from_ms;
using sql::WriteTransaction;

const char* kPromptColumns =
    "p.id, p.name, p.text, p.created_at, p.updated_at,"
    " (SELECT COUNT(*) FROM conversations c WHERE c.system_prompt_id = p.id)";

StoredSystemPrompt prompt_from_row(const QSqlQuery& q) {
  StoredSystemPrompt p;
  p.id = q.value(0).toLongLong();
  p.name = q.value(1).toString();
  p.text = q.value(2).toString();
  p.created = time_from_ms(q.value(3).toLongLong());
  p.updated = time_from_ms(q.value(4).toLongLong());
  p.used_by = q.value(5).toInt();
  return p;
}

// A name the library may take for prompt `self` (0: a new one): not empty, and no other
// prompt has it, case aside (the UNIQUE index alone would take "Coder" beside "coder").
bool name_is_free(QSqlDatabase& db, const QString& name, qint64 self, const QString& what,
                  QString* error) {
  if (name.isEmpty()) {
    set_error(error, QStringLiteral("%1: the name is empty").arg(what));
    return false;
  }
  QSqlQuery q(db);
  if (!exec(q, QStringLiteral("SELECT id, name FROM system_prompts WHERE id <> ?"), {self}, what,
            error))
    return false;
  while (q.next()) {
    if (q.value(1).toString().compare(name, Qt::CaseInsensitive) == 0) {
      set_error(error, QStringLiteral("%1: a saved prompt is already named \u201c%2\u201d")
                           .arg(what, q.value(1).toString()));
      return false;
    }
  }
  return true;
}

bool prompt_exists(QSqlDatabase& db, qint64 id, const QString& what, QString* error) {
  QSqlQuery q(db);
  if (!exec(q, QStringLiteral("SELECT 1 FROM system_prompts WHERE id = ?"), {id}, what, error))
    return false;
  if (q.next()) return true;
  set_error(error, QStringLiteral("%1: no saved prompt %2").arg(what, QString::number(id)));
  return false;
}

}  // namespace

qint64 ConversationStore::create_system_prompt(const QString& name, const QString& text,
                                               QString* error) {
  const QString what = QStringLiteral("save the system prompt");
  const QString trimmed = name.trimmed();
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error) || !name_is_free(db, trimmed, 0, what, error)) return 0;
  const qint64 now = now_ms();
  QSqlQuery q(db);
  if (!exec(q,
            QStringLiteral("INSERT INTO system_prompts (name, text, created_at, updated_at)"
                           " VALUES (?, ?, ?, ?)"),
            {text_value(trimmed), text_value(text), now, now}, what, error))
    return 0;
  const qint64 id = q.lastInsertId().toLongLong();
  q.finish();
  return tx.commit(error) ? id : 0;
}

bool ConversationStore::update_system_prompt(qint64 id, const QString& name, const QString& text,
                                             QString* error) {
  const QString what = QStringLiteral("edit the saved prompt");
  const QString trimmed = name.trimmed();
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error) || !prompt_exists(db, id, what, error) ||
      !name_is_free(db, trimmed, id, what, error))
    return false;
  QSqlQuery q(db);
  return exec(q,
              QStringLiteral(
                  "UPDATE system_prompts SET name = ?, text = ?, updated_at = ? WHERE id = ?"),
              {text_value(trimmed), text_value(text), now_ms(), id}, what, error) &&
         tx.commit(error);
}

bool ConversationStore::delete_system_prompt(qint64 id, QString* error) {
  const QString what = QStringLiteral("delete the saved prompt");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error) || !prompt_exists(db, id, what, error)) return false;
  // Done here as well as by ON DELETE SET NULL: the link goes even on a connection that
  // has foreign keys off.
  QSqlQuery unlink(db);
  if (!exec(unlink,
            QStringLiteral(
                "UPDATE conversations SET system_prompt_id = NULL WHERE system_prompt_id = ?"),
            {id}, what, error))
    return false;
  QSqlQuery q(db);
  return exec(q, QStringLiteral("DELETE FROM system_prompts WHERE id = ?"), {id}, what, error) &&
         tx.commit(error);
}

QVector<StoredSystemPrompt> ConversationStore::system_prompts() const {
  QVector<StoredSystemPrompt> out;
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q,
            QStringLiteral("SELECT %1 FROM system_prompts p ORDER BY p.name COLLATE NOCASE, p.id")
                .arg(QLatin1String(kPromptColumns)),
            {}, {}, nullptr))
    return out;
  while (q.next()) out.append(prompt_from_row(q));
  return out;
}

std::optional<StoredSystemPrompt> ConversationStore::system_prompt(qint64 id) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q,
            QStringLiteral("SELECT %1 FROM system_prompts p WHERE p.id = ?")
                .arg(QLatin1String(kPromptColumns)),
            {id}, {}, nullptr) ||
      !q.next())
    return std::nullopt;
  return prompt_from_row(q);
}

qint64 ConversationStore::conversation_system_prompt_id(qint64 conversation_id) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q, QStringLiteral("SELECT system_prompt_id FROM conversations WHERE id = ?"),
            {conversation_id}, {}, nullptr) ||
      !q.next())
    return 0;
  return q.value(0).isNull() ? 0 : q.value(0).toLongLong();
}

bool ConversationStore::set_conversation_system_prompt_id(qint64 conversation_id, qint64 prompt_id,
                                                          QString* error) {
  const QString what = QStringLiteral("link the saved prompt");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  if (prompt_id && !prompt_exists(db, prompt_id, what, error)) return false;
  QSqlQuery q(db);
  if (!exec(q, QStringLiteral("UPDATE conversations SET system_prompt_id = ? WHERE id = ?"),
            {prompt_id ? QVariant(prompt_id) : QVariant(QMetaType(QMetaType::LongLong)),
             conversation_id},
            what, error))
    return false;
  if (q.numRowsAffected() != 1) {
    set_error(error,
              QStringLiteral("%1: no conversation %2").arg(what, QString::number(conversation_id)));
    return false;
  }
  return tx.commit(error);
}

bool ConversationStore::use_system_prompt(qint64 conversation_id, qint64 prompt_id,
                                          QString* error) {
  const QString what = QStringLiteral("use the saved prompt");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error) || !prompt_exists(db, prompt_id, what, error)) return false;
  QSqlQuery q(db);
  if (!exec(q,
            QStringLiteral("UPDATE conversations SET system_prompt ="
                           " (SELECT text FROM system_prompts WHERE id = ?), system_prompt_id = ?"
                           " WHERE id = ?"),
            {prompt_id, prompt_id, conversation_id}, what, error))
    return false;
  if (q.numRowsAffected() != 1) {
    set_error(error,
              QStringLiteral("%1: no conversation %2").arg(what, QString::number(conversation_id)));
    return false;
  }
  return tx.commit(error);
}

int ConversationStore::apply_system_prompt_text(qint64 prompt_id, QString* error) {
  const QString what = QStringLiteral("update the conversations of the saved prompt");
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error) || !prompt_exists(db, prompt_id, what, error)) return -1;
  QSqlQuery q(db);
  if (!exec(q,
            QStringLiteral("UPDATE conversations SET system_prompt ="
                           " (SELECT text FROM system_prompts WHERE id = ?)"
                           " WHERE system_prompt_id = ? AND system_prompt <>"
                           " (SELECT text FROM system_prompts WHERE id = ?)"),
            {prompt_id, prompt_id, prompt_id}, what, error))
    return -1;
  const int changed = q.numRowsAffected();
  q.finish();
  return tx.commit(error) ? changed : -1;
}

}  // namespace kvchat::app
