// ConversationStore: conversations, messages and settings in one SQLite file (QtSql).
// Schema versions are migrated forward by `PRAGMA user_version`; a file written by a
// newer kvchat is refused with a clear message. WAL journal, foreign keys on, every
// write in a transaction. A store (its QtSql connection) is used only on the thread that
// opened it; another thread opens its own store on the same file.
#pragma once

#include <QDateTime>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <QVector>
#include <memory>
#include <optional>

#include "store/schema.h"

class QSqlQuery;

namespace kvchat::app {

struct StoredConversation {
  qint64 id = 0;
  QString title;
  QString system_prompt;
  QVariantMap settings;  // sampling settings etc., stored as JSON
  QDateTime created;
  QDateTime updated;
  // The user named it (rename_conversation): its title no longer follows its first message.
  bool title_named = false;
};

// A conversation's title from its first user message: the first 40 characters of the
// message's first 400 after leading white space, white space made single spaces (a bounded
// look at a long one). Empty when the message is only white space.
QString conversation_title_from_message(const QString& message);

// A saved system prompt of the library (store/system_prompt_store.cpp, schema 4 -> 5).
struct StoredSystemPrompt {
  qint64 id = 0;
  QString name;  // unique (compared without case), never empty
  QString text;
  QDateTime created;
  QDateTime updated;
  int used_by = 0;  // how many conversations were picked from it (system_prompt_id)
};

enum class MessageState { Complete, Streaming, Interrupted };
// As the store writes a state: "complete", "streaming", "interrupted" (and back; an
// unknown name reads as Complete).
QString stored_state_name(MessageState s);
MessageState stored_state_from_name(const QString& s);

struct StoredMessage {
  qint64 id = 0;
  qint64 conversation_id = 0;
  QString role;  // "user" or "assistant"
  QString content;
  MessageState state = MessageState::Complete;
  QVariantMap stats;  // tokens, time to first token, tok/s ... stored as JSON
  QDateTime created;
  // Branches (store/message_branches.cpp): which of its siblings this is (an edited user
  // message, a regenerated reply), 0-based, of how many; 1 of 1 without siblings.
  int version = 0;
  int version_count = 1;
  // The message it follows in the tree (0: a first message); whether it is the one of its
  // siblings shown (selected) and on the path the window shows (shown).
  qint64 parent_id = 0;
  bool selected = true;
  bool shown = true;
  // A reply's tool calls, in the order they happened (app/tools/tool_steps.h: each step the
  // text written before its calls and the calls with their results); empty without calls.
  QVariantList tool_steps;
};

// A message from a query's columns 0-11 (id, conversation_id, role, content, state,
// stats_json, created_at, version, parent_id, selected, shown, tool_steps_json); version_count is
// left for the caller. kMessageColumns names them (for a messages table aliased "m").
StoredMessage stored_message_from_row(const QSqlQuery& q);
extern const char* const kMessageColumns;
// The shown path of a conversation (ConversationStore::messages) read through `db`, a
// connection of the calling thread's own (the window's store, or the loader's): empty when
// there is none or the query fails (*error says why when given).
QVector<StoredMessage> read_shown_messages(const QSqlDatabase& db, qint64 conversation_id,
                                           QString* error = nullptr);

class ConversationStore {
 public:
  static constexpr int kSchemaVersion = 9;

  // Opens or creates the database at `path`, migrating older schemas. nullptr and
  // *error set when the file cannot be opened, is not a kvchat database, or is newer.
  // Private files: a missing directory is created 0700, the database is created 0600 (its
  // -wal, -shm and -journal files take its mode), and an existing one of the user's (and
  // its journal files) that grants group or others anything loses those bits. The branch
  // tree is checked (tree_repair_report()).
  static std::unique_ptr<ConversationStore> open(const QString& path, QString* error);
  // The same with an explicit schema history: steps[i] migrates version i to i+1, and the
  // store reads up to steps.size(). open(path, error) uses migrations(); tests inject
  // extra steps here to prove the machinery (a v1 file with data migrated to a v2, ...).
  // *damaged (when given) says whether the failure was a damaged file (not an SQLite
  // database, or SQLite found it corrupt) rather than a refusal (newer schema, another
  // application's database) or a failure to open at all.
  static std::unique_ptr<ConversationStore> open(const QString& path,
                                                 const QVector<MigrationStep>& steps,
                                                 QString* error, bool* damaged = nullptr);
  // What the app opens at start: open(path), plus `PRAGMA quick_check`. A damaged file is
  // never deleted: it is renamed `<name>.corrupt-<yyyyMMdd-HHmmss>` (its -wal and -shm
  // files alongside, renamed the same way), a fresh database is created at `path`, and
  // *moved_to names the renamed file. Other failures (a newer kvchat's file, another
  // application's, an unwritable directory) leave everything in place: nullptr + *error.
  static std::unique_ptr<ConversationStore> open_or_recover(const QString& path, QString* error,
                                                            QString* moved_to);
  // Whether `dir` can hold kvchat's data: it exists (created when missing) and a file can
  // be created in it. Empty when it can; else a message for the window naming the
  // directory and the reason (read-only, not a directory, permission denied, ...).
  // The data is private (it holds the local server's API key): a missing directory and
  // its missing parents are created 0700; the default one ($XDG_DATA_HOME/kvchat) when it
  // exists, is the user's own and grants group or others anything, loses those bits. A
  // --data-dir that already exists is the user's choice and keeps its mode (the database
  // files in it are 0600 all the same, see open()).
  static QString check_data_dir(const QString& dir);
  // `PRAGMA integrity_check` / `PRAGMA quick_check` (O(size), no index cross-check): "ok",
  // or SQLite's list of problems (or its error).
  QString integrity_check() const;
  QString quick_check() const;
  // kvchat's schema history (schema::migrations(), store/schema.cpp); its size() is
  // kSchemaVersion.
  static QVector<MigrationStep> migrations();
  // Written to `PRAGMA application_id` when a file gets its first schema; a file with
  // another application id is refused.
  static constexpr int kApplicationId = 0x6B764354;  // "kvCT"
  // `data_dir` when given (--data-dir), else $XDG_DATA_HOME/kvchat, + "/kvchat.sqlite".
  static QString default_path(const QString& data_dir = {});
  ~ConversationStore();

  int schema_version() const;
  // The QtSql connection this store owns (DocumentStore shares it on the same thread).
  const QString& connection_name() const { return connection_; }
  QString path() const;  // the database file

  // Conversations (listed most recently updated first; `updated` moves when a message is
  // added, updated or deleted, not on rename / prompt / settings changes). Ids are never
  // reused. Failures return 0 / false with *error set (the SQL error text included).
  qint64 create_conversation(const QString& title, const QString& system_prompt, QString* error);
  // The user's name for it (title_named, schema step 7 -> 8): kept from then on.
  bool rename_conversation(qint64 id, const QString& title, QString* error);
  // The title kvchat gives it: conversation_title_from_message(first_message), unless the
  // user named it (then, or when that title is empty or already the one, nothing changes).
  // *changed (when given) says whether the title changed; false with *error on a failure.
  bool retitle_from_first_message(qint64 id, const QString& first_message, QString* error,
                                  bool* changed = nullptr);
  // The conversation's own text. Its link to a saved prompt (system_prompt_id) stays when
  // the text is unchanged or is that prompt's text; other text (typed by hand) unlinks it.
  bool set_system_prompt(qint64 id, const QString& system_prompt, QString* error);
  bool set_conversation_settings(qint64 id, const QVariantMap& settings, QString* error);
  bool delete_conversation(qint64 id, QString* error);  // its messages go with it
  QVector<StoredConversation> conversations() const;
  // Conversations whose title or any message contains `text` (case-insensitive).
  QVector<StoredConversation> search(const QString& text) const;
  std::optional<StoredConversation> conversation(qint64 id) const;

  // Messages: the path shown (from the first message down each group of siblings' selected
  // one), in conversation order. append_message adds a message after the last one shown.
  qint64 append_message(qint64 conversation_id, const QString& role, const QString& content,
                        MessageState state, QString* error);
  // Updates a message's text/state/stats (a streaming reply is saved as it grows), and its
  // tool steps when `tool_steps` is given (StoredMessage::tool_steps).
  bool update_message(qint64 id, const QString& content, MessageState state,
                      const QVariantMap& stats, QString* error,
                      const QVariantList* tool_steps = nullptr);
  // Deletes every message after `message_id` in the tree (its children on every branch and
  // theirs).
  bool delete_messages_after(qint64 message_id, QString* error);
  // Deletes the message and every message after it; when it was the sibling shown, the
  // last of its other siblings (if any) is shown instead and the later ones' numbers close
  // the gap.
  bool delete_message(qint64 message_id, QString* error);
  QVector<StoredMessage> messages(qint64 conversation_id) const;
  // The length of the shown messages' texts together (UTF-8 characters, as SQLite counts
  // them), read from an index without reading the texts (schema step 6 -> 7): what tells
  // the window whether a conversation is opened at once or on the loader's thread.
  qint64 shown_message_chars(qint64 conversation_id) const;
  // Whether the conversation has any message (none of them read).
  bool has_messages(qint64 conversation_id) const;

  // Branches (store/message_branches.cpp, schema step 5 -> 6). add_branch makes a new
  // sibling of `message_id` (same parent, role and place; the last of its siblings) with
  // `content` and `state`, and shows it: the message and everything after it stay as the
  // other branch. Its id, 0 with *error. select_branch shows `message_id` among its
  // siblings and, below it, the branch each message there last showed. branches lists a
  // message's siblings in order (the message included). message_tree lists every message
  // of the conversation on every branch (parents before their children, siblings in order).
  qint64 add_branch(qint64 message_id, const QString& content, MessageState state, QString* error);
  bool select_branch(qint64 message_id, QString* error);
  QVector<StoredMessage> branches(qint64 message_id) const;
  QVector<StoredMessage> message_tree(qint64 conversation_id) const;
  // The branch tree as open() found it (store/message_branches.cpp). kvchat never writes a
  // message that is its own parent, parents in a loop, or a parent that is missing or in
  // another conversation, but a damaged or hand-edited file can hold them: the messages
  // there are reached from no first message. open() re-attaches each such part where it
  // fits (the loop cut at its earliest message, which becomes a branch after the message
  // shown one place above it, or a first message), every message kept, and says so here
  // for the window: empty when the tree was whole. (Every recursive query of the store
  // visits a message at most once, so a loop made later cannot hang it either.)
  const QString& tree_repair_report() const { return tree_repair_report_; }
  // The check and repair themselves (open() runs them; one transaction, only when a fault
  // is found): the report as above, empty when nothing was wrong; *error on a failure.
  QString repair_message_trees(QString* error);

  // ---- the system prompt library (store/system_prompt_store.cpp) ----
  // Saved prompts, each a name and a text; a conversation keeps its own copy of the text
  // and which saved prompt it was picked from. Names are trimmed; an empty one, or one
  // another saved prompt has (without regard to case), is refused with *error.
  // create_system_prompt: the new id, 0 with *error.
  qint64 create_system_prompt(const QString& name, const QString& text, QString* error);
  // A new name and text; the conversations picked from it keep theirs (see
  // apply_system_prompt_text).
  bool update_system_prompt(qint64 id, const QString& name, const QString& text, QString* error);
  // The conversations picked from it keep their text; their link becomes NULL.
  bool delete_system_prompt(qint64 id, QString* error);
  QVector<StoredSystemPrompt> system_prompts() const;  // by name, case folded
  std::optional<StoredSystemPrompt> system_prompt(qint64 id) const;
  // The saved prompt a conversation was picked from; 0 when none (or no such conversation).
  qint64 conversation_system_prompt_id(qint64 conversation_id) const;
  // Links the conversation to saved prompt `prompt_id` (0: unlinks), its text untouched.
  bool set_conversation_system_prompt_id(qint64 conversation_id, qint64 prompt_id, QString* error);
  // The conversation's text becomes the saved prompt's, linked to it (one transaction).
  bool use_system_prompt(qint64 conversation_id, qint64 prompt_id, QString* error);
  // The saved prompt's text copied into every conversation picked from it: how many
  // changed, -1 with *error.
  int apply_system_prompt_text(qint64 prompt_id, QString* error);
  // ---- end of the system prompt library ----

  // At start-up: replies left Streaming by a killed process become Interrupted. Returns
  // how many were marked, -1 on a database error.
  int mark_streaming_interrupted();

  // Key/value settings of the app (recent models, window geometry, ...), stored as JSON:
  // strings, numbers, bools, lists and maps round-trip; an invalid QVariant removes the key.
  bool set_setting(const QString& key, const QVariant& value, QString* error);
  QVariant setting(const QString& key, const QVariant& fallback = {}) const;

 private:
  explicit ConversationStore(QString connection_name);
  QString run_check(const QString& pragma) const;
  QString connection_;
  QString tree_repair_report_;
};

}  // namespace kvchat::app
