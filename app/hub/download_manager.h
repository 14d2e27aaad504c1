// DownloadManager: fetches model files from the Hub into the models directory on Qt
// Network, asynchronously (its thread never blocks on the network; the app runs it on a
// thread of its own, ModelsController). Per file:
//  - refused before any request when the repository or file name is not sane, the file
//    is already there, or the disk has not room for what is left (QStorageInfo, or the
//    free-space seam of Options);
//  - the resolve URL's redirects (the Hub sends files to a CDN) followed by hand, at most
//    Options::max_redirects, https only (plain http for loopback hosts); the access token
//    goes as an Authorization header to the starting origin only (hub::same_origin: scheme,
//    host and port), never logged nor stored;
//  - written to "<models dir>/.<name>.part", SHA-256 computed as the bytes arrive; the
//    state (URL, expected size, SHA-256, ETag, bytes done) saved in the app's database
//    (DownloadStore) so that pause, a dropped connection or a restart resume with
//    `Range: bytes=N-` and `If-Range: <etag>` (a 200 instead of 206 starts over); on
//    resume the partial's hash is recomputed off this thread first;
//  - accepted only when its size and SHA-256 equal the Hub's (else the partial is removed
//    and the reason reported), then renamed atomically to "<models dir>/<name>";
//  - every request has a transfer timeout; dropped connections and 5xx are retried
//    (Options::max_retries in a row without progress, progress being bytes past the
//    furthest offset any attempt reached: a server that ignores Range and breaks off at
//    the same place is given up on, with that reason), 429 after its Retry-After;
//  - a failure leaves no empty partial file (one with bytes stays, to resume);
//  - cancel aborts and removes the partial file and its row.
// The system proxy is honoured (QNetworkProxyFactory::setUseSystemConfiguration).
#pragma once

#include <QObject>
#include <QString>
#include <QUrl>
#include <QVector>
#include <functional>
#include <map>
#include <memory>

#include "hub/download_store.h"

class QNetworkAccessManager;

namespace kvchat::hub {

struct DownloadRequest {
  QString repo;              // "owner/name"
  QString file;              // path of the file in the repository
  QUrl url;                  // its resolve URL (download::resolve_url)
  QString models_dir;        // where the finished file goes
  qint64 expected_size = 0;  // from the Hub's file tree (0: unknown, taken from the reply)
  QString sha256;  // the Hub's LFS SHA-256 (required: a file is never accepted unverified)
};

class DownloadManager : public QObject {
  Q_OBJECT
 public:
  struct Options {
    int transfer_timeout_ms = 30000;  // no byte for this long: the request fails (and is retried)
    int max_retries =
        4;  // failed attempts in a row (no byte past the furthest reached) before giving up
    int retry_delay_ms = 1000;    // before retrying a dropped connection or a 5xx
    int max_retry_after_s = 120;  // a longer Retry-After is cut to this
    int max_redirects = 5;
    qint64 disk_margin_bytes = 16ll << 20;  // kept free beyond the file
    int progress_interval_ms = 250;         // progress signals at most this often
    // Free bytes on the filesystem holding a directory (tests inject a figure).
    std::function<qint64(const QString& dir)> free_space;
  };

  explicit DownloadManager(QObject* parent = nullptr);
  ~DownloadManager() override;

  // The state database (the app's kvchat.sqlite, or kvchat-cli's own file: `table`);
  // opened on the calling thread, which must be this object's. Rows left "running" by a
  // killed process become "paused".
  bool open(const QString& db_path, DownloadStore::Table table, QString* error);
  void set_options(const Options& options) { options_ = options; }
  const Options& options() const { return options_; }
  // Kept in memory only; sent as "Authorization: Bearer <token>" to the download's own
  // origin (scheme, host, port). Empty: none.
  void set_access_token(const QString& token) { token_ = token; }
  bool has_access_token() const { return !token_.isEmpty(); }

  // Starts (or, for a destination with a partial file, resumes) a download. Its id, or 0
  // with *error when refused.
  qint64 start(const DownloadRequest& request, QString* error);
  // Keeps the partial file; resume() continues with a Range request.
  void pause(qint64 id);
  bool resume(qint64 id, QString* error);
  // Aborts, removes the partial file and forgets the download.
  void cancel(qint64 id);
  bool is_active(qint64 id) const;
  QVector<DownloadRecord> unfinished() const;
  std::optional<DownloadRecord> record(qint64 id) const;

 signals:
  // bytes_per_second / eta_seconds: -1 while unknown.
  void progress(qint64 id, qint64 bytes_done, qint64 total, double bytes_per_second,
                double eta_seconds);
  // "running", "verifying", "waiting" (a retry is due), "paused", "failed", "done".
  void statusChanged(qint64 id, const QString& status, const QString& message);
  // A request went out: its URL (without query) and the first byte asked for (0: all).
  void requestSent(qint64 id, const QUrl& url, qint64 range_start);
  void finished(qint64 id, const QString& path);
  void failed(qint64 id, const QString& message);

 private:
  struct Job;
  Job* job(qint64 id) const;
  bool prepare(Job& j, QString* error);
  void begin_rehash(Job& j);
  void send(Job& j);
  void on_ready_read(qint64 id);
  void on_finished(qint64 id);
  bool accept_response(Job& j, QString* message);
  void retry_later(Job& j, int delay_ms, const QString& why, bool counts);
  void complete(Job& j);
  void fail(Job& j, const QString& message, bool remove_partial);
  void report_progress(Job& j, bool force);
  void save_progress(Job& j);
  void stop_reply(Job& j);
  void set_status(Job& j, const QString& status, const QString& message);
  qint64 free_bytes(const QString& dir) const;

  Options options_;
  QString token_;
  std::unique_ptr<DownloadStore> store_;
  QNetworkAccessManager* network_ = nullptr;
  std::map<qint64, std::unique_ptr<Job>> jobs_;
};

}  // namespace kvchat::hub
