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

#include "util/sql.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <system_error>
#include <vector>

namespace kvchat::app {

namespace {

std::atomic<quint64> g_connection_serial{0};

using sql::exec;
using sql::exec_plain;
using sql::set_error;
using sql::WriteTransaction;

QString version_text(int v) { return QString::number(v); }

// ---- private files: the database holds the local server's API key ------------------------

// Creates `dir` and every missing parent 0700 (what the XDG base directory spec asks of a
// missing data directory); an existing one is left as it is. ec set on a failure.
void make_private_dirs(const std::filesystem::path& dir, std::error_code& ec) {
  ec.clear();
  std::vector<std::filesystem::path> missing;
  for (std::filesystem::path p = dir.lexically_normal(); !p.empty();
       p = p.has_relative_path() ? p.parent_path() : std::filesystem::path()) {
    if (std::filesystem::exists(p, ec) || ec) break;
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  if (ec) return;
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    const std::string native = it->string();
    if (native.empty()) continue;
    if (::mkdir(native.c_str(), 0700) == 0) {
      ::chmod(native.c_str(), 0700);  // whatever the umask took away; ours, just made
    } else if (errno != EEXIST) {
      ec = std::error_code(errno, std::generic_category());
      return;
    }
  }
  if (!std::filesystem::is_directory(dir, ec) && !ec)
    ec = std::make_error_code(std::errc::not_a_directory);
}

// Takes group's and others' permissions off `path` when it exists and is the user's own.
void drop_group_and_other_bits(const QString& path) {
  const QByteArray native = QFile::encodeName(path);
  struct stat st {};
  if (::stat(native.constData(), &st) != 0 || st.st_uid != ::geteuid()) return;
  if ((st.st_mode & 077) != 0) ::chmod(native.constData(), st.st_mode & 07700);
}

// The database file made before SQLite opens it: created 0600 when missing (an empty file
// is a new database to SQLite, and its -wal, -shm and -journal files take the database's
// mode), else tightened as drop_group_and_other_bits says, its journal files too.
void prepare_private_database(const QString& path) {
  if (path.isEmpty() || path == QLatin1String(":memory:") ||
      path.startsWith(QLatin1String("file:")))
    return;
  const QByteArray native = QFile::encodeName(path);
  const int fd = ::open(native.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    return;
  }
  for (const QString& suffix :
       {QString(), QStringLiteral("-wal"), QStringLiteral("-shm"), QStringLiteral("-journal")})
    drop_group_and_other_bits(path + suffix);
}

}  // namespace

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

QVector<MigrationStep> ConversationStore::migrations() { return schema::migrations(); }

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
    make_private_dirs(p, ec);
    if (ec)
      return refuse(QStringLiteral("the directory is missing and cannot be created (%1)")
                        .arg(QString::fromStdString(ec.message())));
  } else if (QDir::cleanPath(QFileInfo(dir).absoluteFilePath()) ==
             QDir::cleanPath(QFileInfo(default_path({})).absolutePath())) {
    drop_group_and_other_bits(dir);  // kvchat's own directory: nobody else's business
  }
  // Whether a file can be created there (read-only file systems refuse even root).
  const std::string probe = (p / (".kvchat-write-test-" + std::to_string(::getpid()))).string();
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

QString ConversationStore::path() const {
  return QSqlDatabase::database(connection_, false).databaseName();
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

namespace {

// The error for a file of a schema newer than `target`, the newest this version reads.
void refuse_newer(const QString& path, int version, int target, QString* error) {
  set_error(error, QStringLiteral(
                       "cannot open %1: this database was written by a newer kvchat (schema %2; "
                       "this version reads up to %3). Update kvchat, or move the file aside.")
                       .arg(path, version_text(version), version_text(target)));
}

// Whether SQLite may open `path`: the driver is there, the path is not a directory, and its
// directory exists (made private where missing).
bool check_openable(const QString& path, QString* error) {
  if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE"))) {
    set_error(error,
              QStringLiteral("cannot open %1: the Qt SQLite driver (QSQLITE) is not installed")
                  .arg(path));
    return false;
  }
  const QFileInfo info(path);
  if (info.isDir()) {
    set_error(error, QStringLiteral("cannot open %1: it is a directory").arg(path));
    return false;
  }
  std::error_code ec;
  make_private_dirs(std::filesystem::path(QFile::encodeName(info.absolutePath()).toStdString()),
                    ec);
  if (ec) {
    set_error(error, QStringLiteral("cannot create the directory %1 (%2)")
                         .arg(info.absolutePath(), QString::fromStdString(ec.message())));
    return false;
  }
  return true;
}

// The first read of the file (SQLite checks its header here): its schema version, once it
// is known to be a kvchat database (or an empty one) of a schema no newer than `target`.
// `damaged`: whether SQLite found the file damaged.
bool read_schema_version(QSqlDatabase& db, const QString& path, int target, int* version,
                         QString* error, bool* damaged) {
  QVariant version_value;
  {
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("PRAGMA user_version"))) {
      if (damaged) *damaged = is_damage(q.lastError());
      set_error(
          error,
          QStringLiteral("cannot open %1: it is not a kvchat database (not a readable SQLite file: "
                         "read schema version: %2)")
              .arg(path, sql::error_text(q.lastError())));
      return false;
    }
    version_value = q.next() ? q.value(0) : QVariant();
  }
  *version = version_value.toInt();
  QVariant app_id;
  if (!exec_plain(db, QStringLiteral("PRAGMA application_id"),
                  QStringLiteral("read application id"), error, &app_id))
    return false;
  if (app_id.toInt() != 0 && app_id.toInt() != ConversationStore::kApplicationId) {
    set_error(error,
              QStringLiteral("cannot open %1: it is an SQLite database of another application "
                             "(application_id %2), not a kvchat database")
                  .arg(path, QString::number(app_id.toInt())));
    return false;
  }
  if (*version > target) {  // checked before anything is written to the file
    refuse_newer(path, *version, target, error);
    return false;
  }
  return true;
}

// Connection settings (none of them can change inside a transaction).
bool set_connection_pragmas(QSqlDatabase& db, const QString& path, QString* error) {
  QVariant mode;
  if (!exec_plain(db, QStringLiteral("PRAGMA journal_mode=WAL"), QStringLiteral("set WAL journal"),
                  error, &mode))
    return false;
  const QString mode_name = mode.toString().toLower();
  if (mode_name != QLatin1String("wal") && mode_name != QLatin1String("memory")) {
    set_error(error,
              QStringLiteral("cannot open %1: SQLite refused the WAL journal (journal_mode is %2)")
                  .arg(path, mode_name));
    return false;
  }
  return exec_plain(db, QStringLiteral("PRAGMA synchronous=NORMAL"),
                    QStringLiteral("set synchronous"), error) &&
         exec_plain(db, QStringLiteral("PRAGMA foreign_keys=ON"),
                    QStringLiteral("enable foreign keys"), error);
}

// Version 0 is an empty file; tables without a version belong to someone else.
bool check_no_tables(QSqlDatabase& db, const QString& path, QString* error) {
  QVariant objects;
  if (!exec_plain(db, QStringLiteral("SELECT COUNT(*) FROM sqlite_master"),
                  QStringLiteral("read schema"), error, &objects))
    return false;
  if (objects.toInt() > 0) {
    set_error(
        error,
        QStringLiteral("cannot open %1: it is an SQLite database with tables but no kvchat schema "
                       "version, not a kvchat database")
            .arg(path));
    return false;
  }
  return true;
}

// The statements of steps[from] to the last, in order (in the caller's transaction).
bool run_steps(QSqlDatabase& db, const QString& path, const QVector<MigrationStep>& steps, int from,
               QString* error) {
  const int target = int(steps.size());
  for (int v = from; v < target; ++v) {
    for (const QString& statement : steps[v]) {
      QString step_error;
      if (!exec_plain(db, statement, QStringLiteral("statement"), &step_error)) {
        set_error(
            error,
            QStringLiteral("cannot open %1: migrating the schema from version %2 to %3 failed, the "
                           "file is unchanged (%4; in: %5)")
                .arg(path, version_text(v), version_text(v + 1), step_error, statement));
        return false;  // ~WriteTransaction rolls every step back
      }
    }
  }
  return true;
}

// The pending steps and the new schema version (and, on a new file, the application id) in
// one write transaction: all of them or, on a failure, none.
bool migrate(QSqlDatabase& db, const QString& path, const QVector<MigrationStep>& steps,
             QString* error) {
  const int target = int(steps.size());
  WriteTransaction tx(db);
  if (!tx.begin(error)) return false;
  // Read again under the write lock: another process may have migrated meanwhile.
  QVariant version_value;
  if (!exec_plain(db, QStringLiteral("PRAGMA user_version"), QStringLiteral("read schema version"),
                  error, &version_value))
    return false;
  const int version = version_value.toInt();
  if (version > target) {
    refuse_newer(path, version, target, error);
    return false;
  }
  if (version == 0 && !check_no_tables(db, path, error)) return false;
  if (!run_steps(db, path, steps, version, error)) return false;
  if (version == 0 &&
      !exec_plain(db,
                  QStringLiteral("PRAGMA application_id=%1").arg(ConversationStore::kApplicationId),
                  QStringLiteral("set application id"), error))
    return false;
  return exec_plain(db, QStringLiteral("PRAGMA user_version=%1").arg(target),
                    QStringLiteral("set schema version"), error) &&
         tx.commit(error);
}

}  // namespace

std::unique_ptr<ConversationStore> ConversationStore::open(const QString& path,
                                                           const QVector<MigrationStep>& steps,
                                                           QString* error, bool* damaged) {
  if (damaged) *damaged = false;
  const int target = int(steps.size());
  if (!check_openable(path, error)) return nullptr;
  prepare_private_database(path);

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
  int version = 0;
  if (!read_schema_version(db, path, target, &version, error, damaged) ||
      !set_connection_pragmas(db, path, error))
    return nullptr;
  if (version < target && !migrate(db, path, steps, error)) return nullptr;
  // A damaged branch tree is mended, not refused: the store opens either way, and a
  // failure to mend it is said the same way (the queries are bounded regardless).
  constexpr int kBranchSchema = 6;  // messages.parent_id exists from step 5 -> 6 on
  if (target >= kBranchSchema) {
    QString repair_error;
    store->tree_repair_report_ = store->repair_message_trees(&repair_error);
    if (!repair_error.isEmpty()) {
      store->tree_repair_report_ =
          QStringLiteral("The message tree in %1 is damaged and could not be mended: %2")
              .arg(path, repair_error);
    }
  }
  return store;
}

int ConversationStore::schema_version() const {
  QSqlDatabase db = QSqlDatabase::database(connection_, false);
  QVariant v;
  if (!exec_plain(db, QStringLiteral("PRAGMA user_version"), {}, nullptr, &v)) return -1;
  return v.toInt();
}

}  // namespace kvchat::app
