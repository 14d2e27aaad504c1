// DownloadStore: the state of model downloads in SQLite (table `downloads`), so that a
// partial file resumes after a restart. In the app the table lives in kvchat.sqlite,
// created by its schema migration 3 -> 4; kvchat-cli keeps its own small state file, where
// open() creates the table. Its DDL is the hub's (hub/download_schema.h). One row per
// destination file. No access token is ever stored: a token lives only in memory
// (DownloadManager::set_access_token) or in the HF_TOKEN environment variable.
// A store (its own QtSql connection) is used only on the thread that opened it.
#pragma once

#include <QString>
#include <QVector>
#include <memory>
#include <optional>

namespace kvchat::hub {

struct DownloadRecord {
  qint64 id = 0;
  QString repo;              // "owner/name" on the Hub
  QString file;              // the file's path in the repository
  QString url;               // the resolve URL the download starts from (redirects followed)
  QString dest_path;         // the finished file, in the models directory
  QString part_path;         // the partial file beside it
  qint64 expected_size = 0;  // bytes; 0 when unknown
  QString sha256;            // the Hub's LFS hash, lowercase hex
  QString etag;              // the validator of the last response, for If-Range
  qint64 bytes_done = 0;     // bytes in the partial file when last saved
  QString status;            // queued, running, paused, failed, done
  QString error;             // why it failed
};

class DownloadStore {
 public:
  enum class Table { MustExist, CreateIfMissing };
  // Opens a connection of its own on `db_path`. MustExist: the app's database, migrated
  // by ConversationStore first (an unmigrated file is refused: nothing is written to it).
  // CreateIfMissing: a state file of its own (kvchat-cli).
  static std::unique_ptr<DownloadStore> open(const QString& db_path, Table table, QString* error);
  ~DownloadStore();
  DownloadStore(const DownloadStore&) = delete;
  DownloadStore& operator=(const DownloadStore&) = delete;

  // Inserts the record (id ignored), or replaces the one with the same dest_path; its id,
  // 0 with *error on failure.
  qint64 upsert(const DownloadRecord& record, QString* error);
  bool set_progress(qint64 id, qint64 bytes_done, const QString& etag, QString* error);
  bool set_status(qint64 id, const QString& status, const QString& error_text, QString* error);
  bool remove(qint64 id, QString* error);
  std::optional<DownloadRecord> record(qint64 id) const;
  std::optional<DownloadRecord> by_dest(const QString& dest_path) const;
  // Every download not done (queued, running — left so by a crash —, paused, failed),
  // oldest first.
  QVector<DownloadRecord> unfinished() const;

 private:
  explicit DownloadStore(QString connection) : connection_(std::move(connection)) {}
  QString connection_;
};

}  // namespace kvchat::hub
