#include "hub/download_http.h"

#include <QCoreApplication>
#include <QLocale>
#include <QRegularExpression>
#include <QTimeZone>
#include <algorithm>

#include "hub/hub_endpoint.h"

namespace kvchat::hub::download {

std::optional<ContentRange> parse_content_range(const QByteArray& value) {
  static const QRegularExpression re(QStringLiteral("^\\s*bytes\\s+(\\d+)-(\\d+)/(\\d+|\\*)\\s*$"));
  const auto m = re.match(QString::fromLatin1(value));
  if (!m.hasMatch()) return std::nullopt;
  ContentRange r;
  bool ok1 = false, ok2 = false, ok3 = true;
  r.first = m.captured(1).toLongLong(&ok1);
  r.last = m.captured(2).toLongLong(&ok2);
  if (m.captured(3) != QLatin1String("*")) r.total = m.captured(3).toLongLong(&ok3);
  if (!ok1 || !ok2 || !ok3 || r.last < r.first || (r.total >= 0 && r.last >= r.total))
    return std::nullopt;
  return r;
}

int retry_after_seconds(const QByteArray& value, const QDateTime& now, int max_seconds,
                        int fallback) {
  const QByteArray v = value.trimmed();
  if (v.isEmpty()) return fallback;
  bool ok = false;
  qint64 s = v.toLongLong(&ok);
  if (!ok) {
    // An HTTP-date (IMF-fixdate): "Tue, 01 Dec 2026 06:00:30 GMT".
    QDateTime when = QLocale::c().toDateTime(QString::fromLatin1(v),
                                             QStringLiteral("ddd, dd MMM yyyy HH:mm:ss 'GMT'"));
    if (!when.isValid()) return fallback;
    when.setTimeZone(QTimeZone::utc());
    s = now.secsTo(when);
  }
  return static_cast<int>(std::clamp<qint64>(s, 1, max_seconds));
}

QUrl resolve_url(const QUrl& endpoint, const QString& repo, const QString& file) {
  QString path = endpoint.path(QUrl::FullyEncoded);
  while (path.endsWith(QLatin1Char('/'))) path.chop(1);
  auto encode = [](const QString& segments) {
    QStringList parts = segments.split(QLatin1Char('/'));
    for (QString& p : parts) p = QString::fromLatin1(QUrl::toPercentEncoding(p));
    return parts.join(QLatin1Char('/'));
  };
  QUrl url = endpoint;
  url.setPath(
      path + QLatin1Char('/') + encode(repo) + QStringLiteral("/resolve/main/") + encode(file),
      QUrl::TolerantMode);
  url.setQuery(QString());
  return url;
}

QUrl redirect_target(const QUrl& from, const QByteArray& location) {
  if (location.trimmed().isEmpty()) return {};
  const QUrl target = from.resolved(QUrl::fromEncoded(location.trimmed()));
  if (!target.isValid()) return {};
  return is_allowed_url(target) ? target : QUrl();
}

QString local_file_name(const QString& repo_file, QString* why) {
  auto refuse = [why](const QString& reason) {
    if (why) *why = reason;
    return QString();
  };
  if (repo_file.isEmpty())
    return refuse(QCoreApplication::translate("DownloadNames", "an empty file name"));
  if (repo_file.startsWith(QLatin1Char('/')) || repo_file.contains(QLatin1Char('\\')))
    return refuse(QCoreApplication::translate("DownloadNames", "an absolute path or a backslash"));
  const QStringList parts = repo_file.split(QLatin1Char('/'));
  for (const QString& p : parts) {
    if (p.isEmpty() || p == QLatin1String(".") || p == QLatin1String(".."))
      return refuse(QCoreApplication::translate(
          "DownloadNames", "a path that leaves its directory (\"..\" or an empty part)"));
  }
  for (const QChar c : repo_file) {
    if (c.unicode() < 0x20 || c.unicode() == 0x7f)
      return refuse(QCoreApplication::translate("DownloadNames", "a control character"));
  }
  const QString name = parts.last();
  if (name.startsWith(QLatin1Char('.')))
    return refuse(QCoreApplication::translate("DownloadNames", "a hidden file name"));
  if (name.toUtf8().size() > 200)
    return refuse(QCoreApplication::translate("DownloadNames", "a file name over 200 bytes"));
  if (!name.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive))
    return refuse(QCoreApplication::translate("DownloadNames", "not a .gguf file"));
  return name;
}

QByteArray strong_etag(const QByteArray& etag) {
  const QByteArray e = etag.trimmed();
  if (e.size() < 2 || e.startsWith("W/") || !e.startsWith('"') || !e.endsWith('"')) return {};
  return e;
}

void SpeedMeter::reset(qint64 bytes, qint64 ms) {
  last_bytes_ = bytes;
  last_ms_ = ms;
  speed_ = 0;
  has_speed_ = false;
}

void SpeedMeter::sample(qint64 bytes, qint64 ms) {
  const qint64 dt = ms - last_ms_;
  if (dt < 200) return;  // too short a window to say anything
  const double now = double(bytes - last_bytes_) * 1000.0 / double(dt);
  speed_ = has_speed_ ? 0.7 * speed_ + 0.3 * now : now;
  has_speed_ = true;
  last_bytes_ = bytes;
  last_ms_ = ms;
}

double SpeedMeter::eta_seconds(qint64 remaining) const {
  if (!has_speed_ || speed_ <= 0) return -1;
  return double(std::max<qint64>(remaining, 0)) / speed_;
}

}  // namespace kvchat::hub::download
