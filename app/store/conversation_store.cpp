// ConversationStore on QtSql / QSQLITE: one named connection per store.
//
// Pragmas, set on every open:
//   journal_mode=WAL   readers never block the writer; a commit is one append to the WAL.
//   synchronous=NORMAL in WAL mode a commit is complete once it is in the WAL file (the OS
//                      page cache), so a process killed at any instant (SIGKILL, crash)
//                      loses nothing committed. Only the fsync at commit is skipped; that
//                      fsync (FULL) protects against power loss / OS crash, where NORMAL
//                      may lose the last commits but never corrupts the file. A chat
//                      client saving a streaming reply several times a second takes the
//                      cheaper commit.
//   foreign_keys=ON    messages follow their conversation (ON DELETE CASCADE).
// Every write runs in BEGIN IMMEDIATE ... COMMIT (the write lock is taken up front, so two
// processes on one file wait on the busy timeout instead of failing a lock upgrade).
#include "store/conversation_store.h"

#include "store/sql.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <system_error>

namespace kvchat::app {

namespace {

std::atomic<quint64> g_connection_serial{0};

using sql::exec;
using sql::exec_plain;
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

QString version_text(int v) {
  return QString::number(v);
}

}  // namespace

QString stored_state_name(MessageState s) {
  switch (s) {
    case MessageState::Complete:
      return QStringLiteral("complete");
    case MessageState::Streaming:
      return QStringLiteral("streaming");
    case MessageState::Interrupted:
      return QStringLiteral("interrupted");
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

QString ConversationStore::default_path(const QString& data_dir) {
  QString dir = data_dir;
  if (dir.isEmpty()) {
    // $XDG_DATA_HOME (default ~/.local/share) + /kvchat, whatever the app name is.
    dir = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
          QStringLiteral("/kvchat");
  }
  return QDir(dir).filePath(QStringLiteral("kvchat.sqlite"));
}

ConversationStore::ConversationStore(QString connection_name)
    : connection_(std::move(connection_name)) {}

ConversationStore::~ConversationStore() {
  if (!QSqlDatabase::contains(connection_)) return;
  {
    QSqlDatabase db = QSqlDatabase::database(connection_, false);
    db.close();
  }  // no QSqlDatabase copy may outlive the connection
  QSqlDatabase::removeDatabase(connection_);
}

std::unique_ptr<ConversationStore> ConversationStore::open(const QString& path, QString* error) {
  return open(path, migrations(), error);
}

namespace {

// SQLite's verdict on a file it cannot read as a database: SQLITE_CORRUPT (11) or
// SQLITE_NOTADB (26), primary or extended code.
bool is_damage(const QSqlError& e) {
  const int code = e.nativeErrorCode().toInt() & 0xff;
  return code == 11 || code == 26 || e.text().contains(QLatin1String("not a database")) ||
         e.text().contains(QLatin1String("malformed"));
}

// `<path>.corrupt-<stamp>`, with -2, -3, ... when that name is taken.
QString aside_name(const QString& path) {
  const QString base = path + QStringLiteral(".corrupt-") +
                       QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
  QString name = base;
  for (int n = 2; QFileInfo::exists(name) || QFileInfo::exists(name + QStringLiteral("-wal")); ++n)
    name = base + QStringLiteral("-%1").arg(n);
  return name;
}

}  // namespace

std::unique_ptr<ConversationStore> ConversationStore::open_or_recover(const QString& path,
                                                                      QString* error,
                                                                      QString* moved_to) {
  if (moved_to) moved_to->clear();
  bool damaged = false;
  QString open_error;
  auto store = open(path, migrations(), &open_error, &damaged);
  if (store) {
    const QString check = store->quick_check();
    if (check == QLatin1String("ok")) return store;
    damaged = true;
    open_error = QStringLiteral("SQLite's check of %1 failed: %2").arg(path, check);
    store.reset();  // closes the file before it is moved
  }
  if (!damaged) {
    set_error(error, open_error);
    return nullptr;
  }
  // Never deleted: the damaged file and its journal files move aside together.
  const QString aside = aside_name(path);
  if (!QFile::rename(path, aside)) {
    set_error(error, QStringLiteral("%1; moving it aside to %2 failed, so it is left as it is")
                         .arg(open_error, aside));
    return nullptr;
  }
  for (const QString& suffix : {QStringLiteral("-wal"), QStringLiteral("-shm")}) {
    if (QFileInfo::exists(path + suffix)) QFile::rename(path + suffix, aside + suffix);
  }
  store = open(path, migrations(), error);
  if (store && moved_to) *moved_to = aside;
  return store;
}

QString ConversationStore::check_data_dir(const QString& dir) {
  const auto refuse = [&](const QString& reason) {
    return QStringLiteral(
               "kvchat cannot keep its data in %1: %2. Conversations and settings will not be "
               "saved; start kvchat with --data-dir DIR naming a writable directory.")
        .arg(dir, reason);
  };
  if (dir.isEmpty()) return refuse(QStringLiteral("no directory given"));
  std::error_code ec;
  const std::filesystem::path p(dir.toStdString());
  if (std::filesystem::exists(p, ec) && !std::filesystem::is_directory(p, ec))
    return refuse(QStringLiteral("it is a file, not a directory"));
  if (!std::filesystem::is_directory(p, ec)) {
    std::filesystem::create_directories(p, ec);
    if (ec)
      return refuse(QStringLiteral("the directory is missing and cannot be created (%1)")
                        .arg(QString::fromStdString(ec.message())));
  }
  // Whether a file can be created there (read-only file systems refuse even root).
  const std::string probe =
      (p / (".kvchat-write-test-" + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int e = errno;
    return refuse(QStringLiteral("the directory is not writable (%1)")
                      .arg(QString::fromLocal8Bit(std::strerror(e))));
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

QString ConversationStore::quick_check() const {
  return run_check(QStringLiteral("PRAGMA quick_check"));
}

QString ConversationStore::integrity_check() const {
  return run_check(QStringLiteral("PRAGMA integrity_check"));
}

QString ConversationStore::run_check(const QString& pragma) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!q.exec(pragma)) return sql::error_text(q.lastError());
  QStringList rows;
  while (q.next()) rows << q.value(0).toString();
  return rows.isEmpty() ? QStringLiteral("no answer") : rows.join(QLatin1Char('\n'));
}

std::unique_ptr<ConversationStore> ConversationStore::open(const QString& path,
                                                           const QVector<MigrationStep>& steps,
                                                           QString* error, bool* damaged) {
  if (damaged) *damaged = false;
  const int target = int(steps.size());
  if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE"))) {
    set_error(error,
              QStringLiteral("cannot open %1: the Qt SQLite driver (QSQLITE) is not installed")
                  .arg(path));
    return nullptr;
  }
  const QFileInfo info(path);
  if (info.isDir()) {
    set_error(error, QStringLiteral("cannot open %1: it is a directory").arg(path));
    return nullptr;
  }
  if (!QDir().mkpath(info.absolutePath())) {
    set_error(error, QStringLiteral("cannot create the directory %1").arg(info.absolutePath()));
    return nullptr;
  }

  // From here on the store owns the connection: any early return removes it.
  const QString name = QStringLiteral("kvchat-store-%1").arg(++g_connection_serial);
  std::unique_ptr<ConversationStore> store(new ConversationStore(name));
  QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
  db.setDatabaseName(path);
  db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=5000"));
  if (!db.open()) {
    set_error(error,
              QStringLiteral("cannot open %1: %2").arg(path, sql::error_text(db.lastError())));
    return nullptr;
  }

  // The first read of the file: SQLite checks its header here.
  QVariant version_value;
  {
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("PRAGMA user_version"))) {
      if (damaged) *damaged = is_damage(q.lastError());
      set_error(error,
                QStringLiteral(
                    "cannot open %1: it is not a kvchat database (not a readable SQLite file: "
                    "read schema version: %2)")
                    .arg(path, sql::error_text(q.lastError())));
      return nullptr;
    }
    version_value = q.next() ? q.value(0) : QVariant();
  }
  int version = version_value.toInt();
  QVariant app_id;
  if (!exec_plain(db, QStringLiteral("PRAGMA application_id"),
                  QStringLiteral("read application id"), error, &app_id))
    return nullptr;
  if (app_id.toInt() != 0 && app_id.toInt() != kApplicationId) {
    set_error(error,
              QStringLiteral("cannot open %1: it is an SQLite database of another application "
                             "(application_id %2), not a kvchat database")
                  .arg(path, QString::number(app_id.toInt())));
    return nullptr;
  }
  const auto refuse_newer = [&](int v) {
    set_error(error, QStringLiteral(
                         "cannot open %1: this database was written by a newer kvchat (schema %2; "
                         "this version reads up to %3). Update kvchat, or move the file aside.")
                         .arg(path, version_text(v), version_text(target)));
  };
  if (version > target) {  // checked before anything is written to the file
    refuse_newer(version);
    return nullptr;
  }

  // Connection settings (none of them can change inside a transaction).
  QVariant mode;
  if (!exec_plain(db, QStringLiteral("PRAGMA journal_mode=WAL"), QStringLiteral("set WAL journal"),
                  error, &mode))
    return nullptr;
  const QString mode_name = mode.toString().toLower();
  if (mode_name != QLatin1String("wal") && mode_name != QLatin1String("memory")) {
    set_error(error,
              QStringLiteral("cannot open %1: SQLite refused the WAL journal (journal_mode is %2)")
                  .arg(path, mode_name));
    return nullptr;
  }
  if (!exec_plain(db, QStringLiteral("PRAGMA synchronous=NORMAL"),
                  QStringLiteral("set synchronous"), error) ||
      !exec_plain(db, QStringLiteral("PRAGMA foreign_keys=ON"),
                  QStringLiteral("enable foreign keys"), error))
    return nullptr;

  if (version < target) {
    WriteTransaction tx(db);
    if (!tx.begin(error)) return nullptr;
    // Read again under the write lock: another process may have migrated meanwhile.
    if (!exec_plain(db, QStringLiteral("PRAGMA user_version"),
                    QStringLiteral("read schema version"), error, &version_value))
      return nullptr;
    version = version_value.toInt();
    if (version > target) {
      refuse_newer(version);
      return nullptr;
    }
    if (version == 0) {
      // Version 0 is an empty file; tables without a version belong to someone else.
      QVariant objects;
      if (!exec_plain(db, QStringLiteral("SELECT COUNT(*) FROM sqlite_master"),
                      QStringLiteral("read schema"), error, &objects))
        return nullptr;
      if (objects.toInt() > 0) {
        set_error(error,
                  QStringLiteral(
                      "cannot open %1: it is an SQLite database with tables but no kvchat schema "
                      "version, not a kvchat database")
                      .arg(path));
        return nullptr;
      }
    }
    for (int v = version; v < target; ++v) {
      for (const QString& statement : steps[v]) {
        QString step_error;
        if (!exec_plain(db, statement, QStringLiteral("statement"), &step_error)) {
          set_error(error,
                    QStringLiteral(
                        "cannot open %1: migrating the schema from version %2 to %3 failed, the "
                        "file is unchanged (%4; in: %5)")
                        .arg(path, version_text(v), version_text(v + 1), step_error, statement));
          return nullptr;  // ~WriteTransaction rolls every step back
        }
      }
    }
    if (version == 0 &&
        !exec_plain(db, QStringLiteral("PRAGMA application_id=%1").arg(kApplicationId),
                    QStringLiteral("set application id"), error))
      return nullptr;
    if (!exec_plain(db, QStringLiteral("PRAGMA user_version=%1").arg(target),
                    QStringLiteral("set schema version"), error) ||
        !tx.commit(error))
      return nullptr;
  }
  return store;
}

int ConversationStore::schema_version() const {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  QVariant v;
  if (!exec_plain(db, QStringLiteral("PRAGMA user_version"), {}, nullptr, &v)) return -1;
  return v.toInt();
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
            {conversation_id, position, role, text_value(content), stored_state_name(state), now_ms()},
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
        QStringLiteral("DELETE FROM messages WHERE conversation_id = ? AND position %1 ?").arg(QLatin1String(op));
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

// ---- settings ---------------------------------------------------------------------------

bool ConversationStore::set_setting(const QString& key, const QVariant& value, QString* error) {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  QSqlQuery q(db);
  const bool ok =
      value.isValid()
          ? exec(q,
                 QStringLiteral("INSERT INTO settings (key, value_json) VALUES (?, ?)"
                                " ON CONFLICT(key) DO UPDATE SET value_json = excluded.value_json"),
                 {text_value(key), value_to_json(value)},
                 QStringLiteral("save setting %1").arg(key), error)
          : exec(q, QStringLiteral("DELETE FROM settings WHERE key = ?"), {text_value(key)},
                 QStringLiteral("remove setting %1").arg(key), error);
  return ok && tx.commit(error);
}

QVariant ConversationStore::setting(const QString& key, const QVariant& fallback) const {
  QSqlQuery q(QSqlDatabase::database(connection_, false));
  if (!exec(q, QStringLiteral("SELECT value_json FROM settings WHERE key = ?"), {text_value(key)},
            {}, nullptr) ||
      !q.next())
    return fallback;
  return value_from_json(q.value(0).toString(), fallback);
}

}  // namespace kvchat::app
