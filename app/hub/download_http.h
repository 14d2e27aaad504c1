// Small, pure pieces of the download manager's HTTP handling, kept apart so that tests
// can check them without a server: Content-Range and Retry-After parsing, the resolve
// URL of a Hub file, where a redirect may go, whether a name from the network can be a
// local file name, and the speed / ETA estimate.
#pragma once

#include <QByteArray>
#include <QDateTime>
#include <QString>
#include <QUrl>
#include <optional>

namespace kvchat::hub::download {

// "bytes FIRST-LAST/TOTAL" (TOTAL may be "*": -1). nullopt when malformed.
struct ContentRange {
  qint64 first = 0, last = 0, total = -1;
};
std::optional<ContentRange> parse_content_range(const QByteArray& value);

// Retry-After: delta-seconds or an HTTP-date (relative to `now`), clamped to
// [1, max_seconds]; `fallback` when absent or malformed.
int retry_after_seconds(const QByteArray& value, const QDateTime& now, int max_seconds,
                        int fallback);

// {endpoint}/{repo}/resolve/main/{file}, each path segment percent-encoded.
QUrl resolve_url(const QUrl& endpoint, const QString& repo, const QString& file);

// Where a redirect from `from` to `location` (absolute or relative) lands; invalid when it
// must not be followed (hub::is_allowed_url: https, or plain http to a loopback host).
QUrl redirect_target(const QUrl& from, const QByteArray& location);

// The file's local name: the last segment of the repository path (checked first with
// hub::file_path_problem), when it is a sane file name here too (no "..", no separators,
// no control characters, not hidden, at most 200 bytes of UTF-8, ending in .gguf);
// empty otherwise (*why says what is wrong).
QString local_file_name(const QString& repo_file, QString* why);

// A strong ETag usable in If-Range (weak validators W/"..." are not); empty otherwise.
QByteArray strong_etag(const QByteArray& etag);

// Transfer speed as an exponential moving average over samples (bytes done, ms since the
// start), and the time left.
class SpeedMeter {
 public:
  void reset(qint64 bytes, qint64 ms);
  void sample(qint64 bytes, qint64 ms);
  double bytes_per_second() const { return speed_; }
  // Seconds to transfer `remaining` bytes at the current speed; -1 when unknown.
  double eta_seconds(qint64 remaining) const;

 private:
  qint64 last_bytes_ = 0, last_ms_ = 0;
  double speed_ = 0;
  bool has_speed_ = false;
};

}  // namespace kvchat::hub::download
