// kvchat's SQLite schema history. Entry i of migrations() takes a file from schema
// version i to i+1 (one SQL statement per string); ConversationStore::open runs the
// pending entries in one transaction and then sets `PRAGMA user_version`. Every table's
// DDL is here but the downloads table's, which app/hub owns (hub/download_schema.h: it is
// also kvchat-cli's state file) and step 3 -> 4 takes from there.
//
// Rules for adding version N+1: append a step, bump ConversationStore::kSchemaVersion,
// never edit a step that has shipped (files in the wild were built by it), and make the
// step work on a file holding data (ALTER TABLE ... ADD COLUMN with a DEFAULT, or create
// the new table, copy, drop, rename).
#include "store/schema.h"

#include "hub/download_schema.h"

namespace kvchat::app::schema {

namespace {

// 0 -> 1: the first schema. Times are milliseconds since the Unix epoch (UTC).
// AUTOINCREMENT so that an id is never reused after a delete (the UI holds ids).
MigrationStep first_schema() {
  return {
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
  };
}

// 1 -> 2: long documents (issue 6). A document is stored once per content (sha256 of
// its extracted UTF-8 text); n_tokens is counted with the model named by tokens_model
// (ModelInfo::identity, hex). A summary job keeps its options and plan as JSON and its
// partial summaries one row each, written as they arrive, so a cancelled or crashed job
// resumes with what is there. updated_at / written_at: milliseconds since the epoch.
MigrationStep documents() {
  return {
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
  };
}

// 2 -> 3: reply versions (issue 13). A regenerated reply keeps its earlier texts: the
// messages row holds the version shown (the one the next turn continues from), its
// `version` column its 0-based number; message_versions holds the others under theirs
// (0..count-1 with the shown one's number missing). Switching swaps a row in and out.
MigrationStep reply_versions() {
  return {
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
  };
}

// 4 -> 5: the system prompt library (issue 29): saved prompts, each with a name and its
// text. A conversation keeps its own copy of the text it uses (conversations.system_prompt,
// as before) and which saved prompt it was picked from (system_prompt_id; NULL when typed
// by hand or when that prompt was deleted), so editing a saved prompt can offer to update
// the conversations that use it. updated_at: milliseconds since the epoch.
MigrationStep system_prompt_library() {
  return {
      QStringLiteral("CREATE TABLE system_prompts ("
                     " id INTEGER PRIMARY KEY AUTOINCREMENT,"
                     " name TEXT NOT NULL,"
                     " text TEXT NOT NULL DEFAULT '',"
                     " created_at INTEGER NOT NULL,"
                     " updated_at INTEGER NOT NULL)"),
      QStringLiteral("CREATE UNIQUE INDEX system_prompts_by_name ON system_prompts(name)"),
      QStringLiteral("ALTER TABLE conversations ADD COLUMN system_prompt_id INTEGER"
                     " REFERENCES system_prompts(id) ON DELETE SET NULL"),
  };
}

// 5 -> 6: branches (issue 29). A conversation's messages form a tree: parent_id is the
// message a message answers or follows (NULL for a first message), and the children of
// one parent are sibling branches (an edited user message, a regenerated reply), ordered
// by `version` (0-based, in the order they were made). `selected` marks, in every group
// of siblings, the one shown (exactly one per group, stored: the ‹ 2/3 › choice). `shown`
// is 1 for the messages of the path the window shows (from the first message down each
// group's selected one), kept by every write, so the message list and the sidebar read
// the shown path as before: by (conversation_id, position) WHERE shown = 1, `position`
// being the depth of a message in the tree (a child's is its parent's + 1; siblings
// share theirs). parent_id is not a foreign key: the store deletes a subtree itself
// (one recursive query; cascading down a long chain would run into SQLite's trigger
// depth), and a conversation's messages still go with it by conversation_id.
// The reply versions of step 2 -> 3 become branches: each message's parent is the one
// before it by position, the version shown keeps its row, its id and the messages after
// it, and every message_versions row becomes a new sibling row (its version number,
// text, state, stats and time kept) with nothing after it; message_versions goes.
MigrationStep message_branches() {
  return {
      QStringLiteral("ALTER TABLE messages ADD COLUMN parent_id INTEGER"),
      QStringLiteral("ALTER TABLE messages ADD COLUMN selected INTEGER NOT NULL DEFAULT 1"),
      QStringLiteral("ALTER TABLE messages ADD COLUMN shown INTEGER NOT NULL DEFAULT 1"),
      QStringLiteral("UPDATE messages SET parent_id ="
                     " (SELECT p.id FROM messages AS p"
                     "  WHERE p.conversation_id = messages.conversation_id"
                     "    AND p.position < messages.position"
                     "  ORDER BY p.position DESC LIMIT 1)"),
      QStringLiteral("DROP INDEX messages_by_conversation"),
      QStringLiteral(
          "CREATE INDEX messages_by_conversation ON messages(conversation_id, position)"),
      QStringLiteral("INSERT INTO messages (conversation_id, position, role, content, state,"
                     " stats_json, created_at, version, parent_id, selected, shown)"
                     " SELECT m.conversation_id, m.position, m.role, v.content, v.state,"
                     " v.stats_json, v.created_at, v.version, m.parent_id, 0, 0"
                     " FROM message_versions AS v JOIN messages AS m ON m.id = v.message_id"
                     " ORDER BY v.message_id, v.version"),
      QStringLiteral("DROP TABLE message_versions"),
      QStringLiteral("CREATE UNIQUE INDEX messages_shown_path"
                     " ON messages(conversation_id, position) WHERE shown = 1"),
      QStringLiteral("CREATE INDEX messages_by_parent ON messages(parent_id)"),
  };
}

// 6 -> 7: how long a conversation's shown messages are, without reading them (issue 40
// point 8). SQLite keeps length(content) in this index at every write, so
// ConversationStore::shown_message_chars() sums it from the index alone (a 50 MiB text
// is not read, ~0 ms) and the window knows before opening a conversation whether its
// messages are read on the GUI thread or on the loader's (store/message_loader.h).
MigrationStep content_length_index() {
  return {
      QStringLiteral("CREATE INDEX messages_content_length"
                     " ON messages(conversation_id, shown, length(content))"),
  };
}

// 7 -> 8: whether the user named a conversation (issue 43 point 11). kvchat titles a
// conversation with the first words of its first user message and follows that message
// when it is edited or another branch of it is shown (conversation_title_from_message);
// a name the user gave it (a rename in the sidebar) is kept: title_named = 1.
// Conversations of older files: a title that is the first words of none of the
// conversation's first user messages (any branch) was given by the user (or is kvchat's
// "Continued: ..."), and stays. The first words as SQL sees them: the first 400
// characters, tabs and line breaks made spaces, runs of spaces (up to 16) made one,
// trimmed, cut to 40 (as the app's left(400).simplified().left(40)); where the two differ
// (other white space, characters beyond the BMP) the title counts as named: kept, as
// before this step.
MigrationStep conversation_title_named() {
  const QString first_words = QStringLiteral(
      "substr(trim(replace(replace(replace(replace(replace(replace(replace("
      "substr(m.content, 1, 400), char(13), ' '), char(10), ' '), char(9), ' '),"
      " '  ', ' '), '  ', ' '), '  ', ' '), '  ', ' ')), 1, 40)");
  return {
      QStringLiteral("ALTER TABLE conversations ADD COLUMN title_named INTEGER NOT NULL DEFAULT 0"),
      QStringLiteral("UPDATE conversations SET title_named = 1"
                     " WHERE EXISTS (SELECT 1 FROM messages AS m"
                     "   WHERE m.conversation_id = conversations.id AND m.parent_id IS NULL"
                     "     AND m.role = 'user')"
                     " AND title NOT IN (SELECT %1 FROM messages AS m"
                     "   WHERE m.conversation_id = conversations.id AND m.parent_id IS NULL"
                     "     AND m.role = 'user')")
          .arg(first_words),
  };
}

// 8 -> 9: the tool calls of a reply (issue 47 point 2), kept with the message they belong
// to, so a branch (another version of the reply) has its own and a copy of the row keeps
// them: a JSON array of the reply's steps, each the text the model wrote before its calls
// and the calls ({id, name, arguments, server, tool, state, result, is_error, denied,
// result_tokens, original_tokens, cut_note, kv_bytes, seconds}); app/tools/tool_steps.h
// reads and writes it. '[]' for a reply without calls (every message of an older file).
MigrationStep message_tool_steps() {
  return {
      QStringLiteral("ALTER TABLE messages ADD COLUMN tool_steps_json TEXT NOT NULL DEFAULT '[]'"),
  };
}

}  // namespace

QVector<MigrationStep> migrations() {
  QVector<MigrationStep> steps;
  steps.append(first_schema());    // 0 -> 1
  steps.append(documents());       // 1 -> 2
  steps.append(reply_versions());  // 2 -> 3
  // 3 -> 4: model downloads (issue 15), one row per file being fetched into the models
  // directory, so that a download resumes after a restart: where it comes from (url: the
  // Hub's resolve URL), where it goes (dest_path, and part_path: the partial file beside
  // it), what it must be (expected_size, sha256: the Hub's LFS hash, lowercase hex), the
  // validator for If-Range (etag) and the bytes written so far. No access token is ever
  // stored here. status: queued, running, paused, failed, done.
  steps.append(hub::downloads_table_v1());
  steps.append(system_prompt_library());     // 4 -> 5
  steps.append(message_branches());          // 5 -> 6
  steps.append(content_length_index());      // 6 -> 7
  steps.append(conversation_title_named());  // 7 -> 8
  steps.append(message_tool_steps());        // 8 -> 9
  return steps;
}

}  // namespace kvchat::app::schema
