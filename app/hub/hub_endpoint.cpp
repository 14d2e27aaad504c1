#include "hub/hub_endpoint.h"

#include <QCoreApplication>
#include <QHostAddress>
#include <QUrlQuery>

namespace kvchat::hub {

bool is_loopback_host(const QString& host) {
  if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0) return true;
  QHostAddress address;
  return address.setAddress(host) && address.isLoopback();
}

bool is_allowed_url(const QUrl& url) {
  if (!url.isValid() || url.host().isEmpty()) return false;
  const QString scheme = url.scheme().toLower();
  return scheme == QLatin1String("https") ||
         (scheme == QLatin1String("http") && is_loopback_host(url.host()));
}

namespace {

int port_or_default(const QUrl& url) {
  const QString scheme = url.scheme().toLower();
  return url.port(scheme == QLatin1String("https") ? 443
                                                   : (scheme == QLatin1String("http") ? 80 : -1));
}

}  // namespace

bool same_origin(const QUrl& url, const QUrl& origin) {
  if (!url.isValid() || !origin.isValid() || url.host().isEmpty()) return false;
  if (!url.userInfo().isEmpty() || !origin.userInfo().isEmpty()) return false;
  return url.scheme().compare(origin.scheme(), Qt::CaseInsensitive) == 0 &&
         url.host().compare(origin.host(), Qt::CaseInsensitive) == 0 &&
         port_or_default(url) == port_or_default(origin);
}

HubEndpoint HubEndpoint::choose(const QString& setting, const QString& env) {
  HubEndpoint e;
  QString value = setting.trimmed();
  e.source_ = QStringLiteral("setting");
  if (value.isEmpty()) {
    value = env.trimmed();
    e.source_ = QStringLiteral("HF_ENDPOINT");
  }
  if (value.isEmpty()) {
    value = QLatin1String(kDefaultHubEndpoint);
    e.source_ = QStringLiteral("default");
  }
  while (value.endsWith(u'/')) value.chop(1);
  const QUrl url(value, QUrl::StrictMode);
  const QString scheme = url.scheme().toLower();
  if (!url.isValid() || url.host().isEmpty() ||
      (scheme != QLatin1String("https") && scheme != QLatin1String("http"))) {
    e.error_ = QCoreApplication::translate("HubEndpoint",
                                           "The Hub address \"%1\" (%2) is not an http(s) URL.")
                   .arg(value, e.source_);
    return e;
  }
  if (!url.userInfo().isEmpty() || url.hasQuery() || url.hasFragment()) {
    e.error_ = QCoreApplication::translate(
                   "HubEndpoint",
                   "The Hub address (%1) must not contain a user name, a password, a query or a "
                   "fragment.")
                   .arg(e.source_);
    return e;
  }
  if (!is_allowed_url(url)) {
    e.error_ = QCoreApplication::translate(
                   "HubEndpoint",
                   "The Hub address \"%1\" (%2) uses plain http: only https is allowed, except "
                   "for this computer (localhost).")
                   .arg(value, e.source_);
    return e;
  }
  e.base_ = url;
  return e;
}

HubEndpoint HubEndpoint::from_setting(const QString& setting) {
  return choose(setting, qEnvironmentVariable("HF_ENDPOINT"));
}

QUrl HubEndpoint::join(const QString& path) const {
  QUrl url = base_;
  url.setPath(base_.path(QUrl::FullyEncoded) + path, QUrl::StrictMode);
  return url;
}

namespace {

// Each '/'-separated part percent-encoded (the '/' kept).
QString encoded_path(const QString& path) {
  QStringList parts = path.split(u'/');
  for (QString& p : parts) p = QString::fromLatin1(QUrl::toPercentEncoding(p));
  return parts.join(u'/');
}

}  // namespace

QUrl HubEndpoint::search_url(const QString& query, int limit) const {
  QUrl url = join(QStringLiteral("/api/models"));
  QUrlQuery q;
  q.addQueryItem(QStringLiteral("search"), QString::fromLatin1(QUrl::toPercentEncoding(query)));
  q.addQueryItem(QStringLiteral("filter"), QStringLiteral("gguf"));
  q.addQueryItem(QStringLiteral("sort"), QStringLiteral("downloads"));
  q.addQueryItem(QStringLiteral("direction"), QStringLiteral("-1"));
  q.addQueryItem(QStringLiteral("limit"), QString::number(limit));
  url.setQuery(q);
  return url;
}

QUrl HubEndpoint::tree_url(const QString& repo) const {
  return join(QStringLiteral("/api/models/") + encoded_path(repo) + QStringLiteral("/tree/main"));
}

QUrl HubEndpoint::resolve_url(const QString& repo, const QString& file) const {
  return join(QStringLiteral("/") + encoded_path(repo) + QStringLiteral("/resolve/main/") +
              encoded_path(file));
}

}  // namespace kvchat::hub
