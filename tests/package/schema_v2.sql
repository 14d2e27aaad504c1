-- kvchat's SQLite schema at version 2, as the first package (0.1.0) shipped it: the steps
-- 0 -> 1 and 1 -> 2 of app/store/schema.cpp, copied (shipped steps never change). The
-- package check builds an old database from it to test the upgrade.
BEGIN;
CREATE TABLE conversations ( id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL DEFAULT '', system_prompt TEXT NOT NULL DEFAULT '', settings_json TEXT NOT NULL DEFAULT '{}', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE messages ( id INTEGER PRIMARY KEY AUTOINCREMENT, conversation_id INTEGER NOT NULL   REFERENCES conversations(id) ON DELETE CASCADE, position INTEGER NOT NULL, role TEXT NOT NULL CHECK (role IN ('user', 'assistant')), content TEXT NOT NULL DEFAULT '', state TEXT NOT NULL DEFAULT 'complete'   CHECK (state IN ('complete', 'streaming', 'interrupted')), stats_json TEXT NOT NULL DEFAULT '{}', created_at INTEGER NOT NULL);
CREATE UNIQUE INDEX messages_by_conversation ON messages(conversation_id, position);
CREATE INDEX conversations_by_update ON conversations(updated_at DESC, id DESC);
CREATE INDEX messages_streaming ON messages(state) WHERE state = 'streaming';
CREATE TABLE settings ( key TEXT PRIMARY KEY NOT NULL, value_json TEXT NOT NULL);
CREATE TABLE documents ( id INTEGER PRIMARY KEY AUTOINCREMENT, conversation_id INTEGER   REFERENCES conversations(id) ON DELETE SET NULL, name TEXT NOT NULL DEFAULT '', mime TEXT NOT NULL DEFAULT '', bytes INTEGER NOT NULL DEFAULT 0, sha256 TEXT NOT NULL UNIQUE, encoding TEXT NOT NULL DEFAULT '', notice TEXT NOT NULL DEFAULT '', text TEXT NOT NULL, n_tokens INTEGER NOT NULL DEFAULT 0, tokens_model TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL);
CREATE TABLE summary_jobs ( id INTEGER PRIMARY KEY AUTOINCREMENT, document_id INTEGER NOT NULL   REFERENCES documents(id) ON DELETE CASCADE, conversation_id INTEGER   REFERENCES conversations(id) ON DELETE CASCADE, options_json TEXT NOT NULL DEFAULT '{}', plan_json TEXT NOT NULL DEFAULT '{}', status TEXT NOT NULL DEFAULT 'running'   CHECK (status IN ('running', 'cancelled', 'done', 'failed')), final_summary TEXT NOT NULL DEFAULT '', error TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE INDEX summary_jobs_by_conversation ON summary_jobs(conversation_id, status);
CREATE INDEX summary_jobs_by_document ON summary_jobs(document_id);
CREATE TABLE summary_partials ( job_id INTEGER NOT NULL   REFERENCES summary_jobs(id) ON DELETE CASCADE, level INTEGER NOT NULL, idx INTEGER NOT NULL, token_begin INTEGER NOT NULL DEFAULT 0, token_end INTEGER NOT NULL DEFAULT 0, source_begin INTEGER NOT NULL DEFAULT 0, source_end INTEGER NOT NULL DEFAULT 0, text TEXT NOT NULL DEFAULT '', written_at INTEGER NOT NULL, PRIMARY KEY (job_id, level, idx));
PRAGMA user_version = 2;
COMMIT;
