// The header of a GGUF on the Hub, read with HTTP Range requests before anything is
// downloaded: {endpoint}/{repo}/resolve/main/{file} (redirects followed, to a CDN) with
// Range: bytes=0-(1 MiB - 1), then the next ranges, each at least doubling what was read,
// until inspect_gguf_prefix has the whole header; capped at 64 MiB. A range cut off
// midway is inspected as it is (the header may already be whole), else resumed from the
// byte where it stopped (kMaxResumes times at most, then an error). The result is the
// engine's inspection (architecture, hyper-parameters, tensor types, whether kvchat can
// run it, fit()) of the remote file.
#pragma once

#include <QObject>
#include <QString>
#include <QUrl>
#include <functional>

#include "hub/hub_client.h"
#include "kvchat/gguf_inspect.h"

namespace kvchat::hub {

struct RemoteHeaderResult {
  QString repo, file;
  kvchat::GgufInspection inspection;  // when error.ok()
  qint64 file_size = -1;              // as the server declared it
  qint64 bytes_read = 0;              // of the file, over every request
  int requests = 0;                   // range requests made (redirects not counted)
  int resumes = 0;                    // of those, ones continuing a range cut off midway
  HubError error;  // the network's, or BadResponse naming what is wrong with the GGUF
};

class RemoteHeader : public QObject {
  Q_OBJECT
 public:
  static constexpr qint64 kFirstRangeBytes = qint64(1) << 20;
  static constexpr qint64 kMaxHeaderBytes = qint64(64) << 20;
  // A connection that breaks off before the header is whole is resumed (a Range from
  // the byte where it stopped) at most this many times in one fetch, then fails.
  static constexpr int kMaxResumes = 3;

  explicit RemoteHeader(HubClient* client, QObject* parent = nullptr);

  // The first range and the cap (tests).
  void set_limits(qint64 first_range_bytes, qint64 max_header_bytes);

  // Reads the header of `file` in `repo` (names validated first: an invalid one fails
  // without a request). `done` runs once on this thread, unless `context` is gone.
  void fetch(const QString& repo, const QString& file, QObject* context,
             std::function<void(const RemoteHeaderResult&)> done);
  // The same from any allowed URL (https, or http on loopback).
  void fetch_url(const QUrl& url, const QString& what, QObject* context,
                 std::function<void(const RemoteHeaderResult&)> done);

 private:
  HubClient* client_;
  qint64 first_range_bytes_ = kFirstRangeBytes;
  qint64 max_header_bytes_ = kMaxHeaderBytes;
};

}  // namespace kvchat::hub
