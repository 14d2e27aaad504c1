// kvchat's SQLite schema history. Entry i of migrations() takes a file from schema
// version i to i+1 (one SQL statement per string); ConversationStore::open runs the
// pending entries in one transaction and then sets `PRAGMA user_version`. Every table's
// DDL is here, the downloads table of app/hub too (store/schema.h).
//
// Rules for adding version N+1: append a step, bump ConversationStore::kSchemaVersion,
// never edit a step that has shipped (files in the wild were built by it), and make the
// step work on a file holding data (ALTER TABLE ... ADD COLUMN with a DEFAULT, or create
// the new table, copy, drop, rename).
#include "store/schema.h"

namespace kvchat::app::schema {

QVector<MigrationStep> migrations() {
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

  // 1 -> 2: long documents (issue 6). A document is stored once per content (sha256 of
  // its extracted UTF-8 text); n_tokens is counted with the model named by tokens_model
  // (ModelInfo::identity, hex). A summary job keeps its options and plan as JSON and its
  // partial summaries one row each, written as they arrive, so a cancelled or crashed job
  // resumes with what is there. updated_at / written_at: milliseconds since the epoch.
  steps.append(MigrationStep{
      QStringLiteral("CREATE TABLE documents ("
                     " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                     " conversation_id INTEGER"
                     "   REFERENCES conversations(id) ON DELETE SET NULL,"
                     " name TEXT NOT NULL DEFAULT '',"
                     " mime TEXT NOT NULL DEFAULT '',"
                     " bytes INTEGER NOT NULL DEFAULT 0,"
                     " sha256 TEXT NOT NULL UNIQUE,"
                     " encoding TEXT NOT NULL DEFAULT '',"
                     " notice TEXT NOT NULL DEFAULT '',"
                     " text TEXT NOT NULL,"
                     " n_tokens INTEGER NOT NULL DEFAULT 0,"
                     " tokens_model TEXT NOT NULL DEFAULT '',"
                     " created_at INTEGER NOT NULL)"),
      QStringLiteral("CREATE TABLE summary_jobs ("
                     " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                     " document_id INTEGER NOT NULL"
                     "   REFERENCES documents(id) ON DELETE CASCADE,"
                     " conversation_id INTEGER"
                     "   REFERENCES conversations(id) ON DELETE CASCADE,"
                     " options_json TEXT NOT NULL DEFAULT '{}',"
                     " plan_json TEXT NOT NULL DEFAULT '{}',"
                     " status TEXT NOT NULL DEFAULT 'running'"
                     "   CHECK (status IN ('running', 'cancelled', 'done', 'failed')),"
                     " final_summary TEXT NOT NULL DEFAULT '',"
                     " error TEXT NOT NULL DEFAULT '',"
                     " created_at INTEGER NOT NULL,"
                     " updated_at INTEGER NOT NULL)"),
      QStringLiteral("CREATE INDEX summary_jobs_by_conversation"
                     " ON summary_jobs(conversation_id, status)"),
      QStringLiteral("CREATE INDEX summary_jobs_by_document ON summary_jobs(document_id)"),
      QStringLiteral("CREATE TABLE summary_partials ("
                     " job_id INTEGER NOT NULL"
                     "   REFERENCES summary_jobs(id) ON DELETE CASCADE,"
                     " level INTEGER NOT NULL,"
                     " idx INTEGER NOT NULL,"
                     " token_begin INTEGER NOT NULL DEFAULT 0,"
                     " token_end INTEGER NOT NULL DEFAULT 0,"
                     " source_begin INTEGER NOT NULL DEFAULT 0,"
                     " source_end INTEGER NOT NULL DEFAULT 0,"
                     " text TEXT NOT NULL DEFAULT '',"
                     " written_at INTEGER NOT NULL,"
                     " PRIMARY KEY (job_id, level, idx))"),
  });

  // 2 -> 3: reply versions (issue 13). A regenerated reply keeps its earlier texts: the
  // messages row holds the version shown (the one the next turn continues from), its
  // `version` column its 0-based number; message_versions holds the others under theirs
  // (0..count-1 with the shown one's number missing). Switching swaps a row in and out.
  steps.append(MigrationStep{
      QStringLiteral("ALTER TABLE messages ADD COLUMN version INTEGER NOT NULL DEFAULT 0"),
      QStringLiteral("CREATE TABLE message_versions ("
                     " message_id INTEGER NOT NULL"
                     "   REFERENCES messages(id) ON DELETE CASCADE,"
                     " version INTEGER NOT NULL,"
                     " content TEXT NOT NULL DEFAULT '',"
                     " state TEXT NOT NULL DEFAULT 'complete'"
                     "   CHECK (state IN ('complete', 'streaming', 'interrupted')),"
                     " stats_json TEXT NOT NULL DEFAULT '{}',"
                     " created_at INTEGER NOT NULL,"
                     " PRIMARY KEY (message_id, version))"),
  });
  // 3 -> 4: model downloads (issue 15), one row per file being fetched into the models
  // directory, so that a download resumes after a restart: where it comes from (url: the
  // Hub's resolve URL), where it goes (dest_path, and part_path: the partial file beside
  // it), what it must be (expected_size, sha256: the Hub's LFS hash, lowercase hex), the
  // validator for If-Range (etag) and the bytes written so far. No access token is ever
  // stored here. status: queued, running, paused, failed, done.
  steps.append(downloads_table_v1());

  return steps;
}

MigrationStep downloads_table_v1() {
  return {
      QStringLiteral("CREATE TABLE downloads ("
                     " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                     " repo TEXT NOT NULL,"
                     " file TEXT NOT NULL,"
                     " url TEXT NOT NULL,"
                     " dest_path TEXT NOT NULL UNIQUE,"
                     " part_path TEXT NOT NULL,"
                     " expected_size INTEGER NOT NULL DEFAULT 0,"
                     " sha256 TEXT NOT NULL DEFAULT '',"
                     " etag TEXT NOT NULL DEFAULT '',"
                     " bytes_done INTEGER NOT NULL DEFAULT 0,"
                     " status TEXT NOT NULL DEFAULT 'queued'"
                     "   CHECK (status IN ('queued', 'running', 'paused', 'failed', 'done')),"
                     " error TEXT NOT NULL DEFAULT '',"
                     " created_at INTEGER NOT NULL,"
                     " updated_at INTEGER NOT NULL)")};
}

}  // namespace kvchat::app::schema
