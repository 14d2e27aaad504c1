// ConversationStore: conversations, messages and settings in one SQLite file (QtSql).
// Schema versions are migrated forward by `PRAGMA user_version`; a file written by a
// newer kvchat is refused with a clear message. WAL journal, foreign keys on, every
// write in a transaction. A store (its QtSql connection) is used only on the thread that
// opened it; another thread opens its own store on the same file.
#pragma once

#include <QDateTime>
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
  // Reply versions (regenerate keeps the earlier ones): which one this is, 0-based, of
  // how many.
  int version = 0;
  int version_count = 1;
};

// A message from a query's columns 0-7 (id, conversation_id, role, content, state,
// stats_json, created_at, version); version_count is left for the caller.
StoredMessage stored_message_from_row(const QSqlQuery& q);

class ConversationStore {
 public:
  static constexpr int kSchemaVersion = 4;

  // Opens or creates the database at `path`, migrating older schemas. nullptr and
  // *error set when the file cannot be opened, is not a kvchat database, or is newer.
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

  // Conversations (listed most recently updated first; `updated` moves when a message is
  // added, updated or deleted, not on rename / prompt / settings changes). Ids are never
  // reused. Failures return 0 / false with *error set (the SQL error text included).
  qint64 create_conversation(const QString& title, const QString& system_prompt, QString* error);
  bool rename_conversation(qint64 id, const QString& title, QString* error);
  bool set_system_prompt(qint64 id, const QString& system_prompt, QString* error);
  bool set_conversation_settings(qint64 id, const QVariantMap& settings, QString* error);
  bool delete_conversation(qint64 id, QString* error);  // its messages go with it
  QVector<StoredConversation> conversations() const;
  // Conversations whose title or any message contains `text` (case-insensitive).
  QVector<StoredConversation> search(const QString& text) const;
  std::optional<StoredConversation> conversation(qint64 id) const;

  // Messages, in conversation order.
  qint64 append_message(qint64 conversation_id, const QString& role, const QString& content,
                        MessageState state, QString* error);
  // Updates a message's text/state/stats (a streaming reply is saved as it grows).
  bool update_message(qint64 id, const QString& content, MessageState state,
                      const QVariantMap& stats, QString* error);
  // Deletes every message after `message_id` in its conversation (edit / regenerate).
  bool delete_messages_after(qint64 message_id, QString* error);
  bool delete_message(qint64 message_id, QString* error);
  QVector<StoredMessage> messages(qint64 conversation_id) const;

  // Reply versions (store/message_versions.cpp). add_message_version keeps the message's
  // text, state and stats as a version and makes it a new, empty, streaming one (the
  // last): its number, or -1 with *error. select_message_version shows version `version`
  // (0-based) in the message's row, keeping the one shown until now. message_versions
  // lists every version in order (the one shown included), with version / version_count
  // set.
  int add_message_version(qint64 message_id, QString* error);
  bool select_message_version(qint64 message_id, int version, QString* error);
  QVector<StoredMessage> message_versions(qint64 message_id) const;
  // Drops the version shown (a regenerated reply that wrote nothing) and shows the last
  // of the others; the later versions' numbers close the gap. False with *error when the
  // message has no other version (delete the message instead).
  bool discard_shown_version(qint64 message_id, QString* error);

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
  bool delete_by_position(qint64 message_id, const char* op, const QString& what, QString* error);
  QString connection_;
};

}  // namespace kvchat::app
