// kvchat's SQLite schema history. Entry i of migrations() takes a file from schema
// version i to i+1 (one SQL statement per string); ConversationStore::open runs the
// pending entries in one transaction and then sets `PRAGMA user_version`.
//
// Rules for adding version N+1: append a step, bump ConversationStore::kSchemaVersion,
// never edit a step that has shipped (files in the wild were built by it), and make the
// step work on a file holding data (ALTER TABLE ... ADD COLUMN with a DEFAULT, or create
// the new table, copy, drop, rename).
#include "store/conversation_store.h"

namespace kvchat::app {

QVector<MigrationStep> ConversationStore::migrations() {
  QVector<MigrationStep> steps;

  // 0 -> 1: the first schema. Times are milliseconds since the Unix epoch (UTC).
  // AUTOINCREMENT so that an id is never reused after a delete (the UI holds ids).
  steps.append(MigrationStep{
      QStringLiteral("CREATE TABLE conversations ("
                     " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                     " title TEXT NOT NULL DEFAULT '',"
                     " system_prompt TEXT NOT NULL DEFAULT '',"
                     " settings_json TEXT NOT NULL DEFAULT '{}',"
                     " created_at INTEGER NOT NULL,"
                     " updated_at INTEGER NOT NULL)"),
      QStringLiteral("CREATE TABLE messages ("
                     " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                     " conversation_id INTEGER NOT NULL"
                     "   REFERENCES conversations(id) ON DELETE CASCADE,"
                     " position INTEGER NOT NULL,"
                     " role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),"
                     " content TEXT NOT NULL DEFAULT '',"
                     " state TEXT NOT NULL DEFAULT 'complete'"
                     "   CHECK (state IN ('complete', 'streaming', 'interrupted')),"
                     " stats_json TEXT NOT NULL DEFAULT '{}',"
                     " created_at INTEGER NOT NULL)"),
      // Message order within a conversation; also the index the cascade delete and
      // the foreign-key check use.
      QStringLiteral("CREATE UNIQUE INDEX messages_by_conversation"
                     " ON messages(conversation_id, position)"),
      // The sidebar: most recently updated first.
      QStringLiteral("CREATE INDEX conversations_by_update"
                     " ON conversations(updated_at DESC, id DESC)"),
      // Start-up scan for replies a killed process left streaming.
      QStringLiteral("CREATE INDEX messages_streaming ON messages(state)"
                     " WHERE state = 'streaming'"),
      QStringLiteral("CREATE TABLE settings ("
                     " key TEXT PRIMARY KEY NOT NULL,"
                     " value_json TEXT NOT NULL)"),
  });

  return steps;
}

}  // namespace kvchat::app
