// What DownloadManager keeps per file being fetched (private to download_manager*.cpp):
// the partial file, its running hash, the reply, and the retry and redirect counts.
#pragma once

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QFutureWatcher>
#include <QLoggingCategory>
#include <QNetworkReply>
#include <QPointer>
#include <QTimer>
#include <QUrl>
#include <memory>

#include "hub/download_http.h"
#include "hub/download_manager.h"

Q_DECLARE_LOGGING_CATEGORY(lcDownload)

namespace kvchat::hub {

// A URL as the log writes it: no query (a signed CDN URL's token), user or fragment.
inline QString url_for_log(const QUrl& url) {
  return url.toString(QUrl::RemoveQuery | QUrl::RemoveUserInfo | QUrl::RemoveFragment);
}

// The SHA-256 state over a partial file's first `bytes` bytes, computed off the manager's
// thread when a download resumes.
struct Rehash {
  std::shared_ptr<QCryptographicHash> hash;
  qint64 bytes = 0;
  bool ok = false;
};

struct DownloadManager::Job {
  DownloadRecord rec;
  QFile file;                                // the partial, open while running
  std::shared_ptr<QCryptographicHash> hash;  // over the partial's bytes [0, bytes)
  qint64 bytes = 0;                          // bytes in the partial and in `hash`
  QPointer<QNetworkReply> reply;
  QUrl url;  // the request's URL (the resolve URL, or where it redirected)
  int redirects = 0;
  int failures = 0;            // failed attempts in a row that got no further than `best`
  qint64 best = 0;             // the furthest byte of the file any attempt reached
  bool range_ignored = false;  // the last answer to a Range request was the whole file
  qint64 range_start = 0;
  bool checked = false;     // the response's status and range were looked at
  bool discarding = false;  // a redirect's or an error's body
  qint64 discarded = 0;
  bool stopping = false;  // paused or cancelled: the reply's end is ours
  QElapsedTimer clock;
  download::SpeedMeter meter;
  qint64 last_emit_ms = -1000000, last_save_ms = 0;
  QTimer retry;
  QFutureWatcher<Rehash>* rehash = nullptr;
};

}  // namespace kvchat::hub
