#include "hub/hub_request.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QNetworkAccessManager>

#include "util/byte_size.h"
#include "hub/hub_endpoint.h"

namespace kvchat::hub {

namespace {

// What Qt's network thread may hold of an answer before this request has read it: without
// a bound it reads a fast endless answer into memory as quickly as the bytes come, far
// past any cap checked here (the thread waits for this request to read before going on).
// HTTP/1.1 only: Qt's HTTP/2 opens its flow-control window as frames arrive, not as they
// are read, so the bound would not hold there (the Hub's answers are small; one
// connection per request costs nothing that matters).
constexpr qint64 kReadBufferBytes = qint64(1) << 20;

// What a URL is called in a message: scheme, host, port and path, never the query
// (a CDN's signature) nor user info.
QString shown(const QUrl& url) {
  return url.toString(QUrl::RemoveQuery | QUrl::RemoveUserInfo | QUrl::RemoveFragment);
}

// The error of an answer for `what` refused for being larger than `max_body_bytes`
// (announced_bytes: its Content-Length when that is what refused it, else -1).
HubError too_large_error(const QString& what, qint64 max_body_bytes, qint64 announced_bytes,
                         int status) {
  using K = HubError::Kind;
  const QString cap =
      QCoreApplication::translate("HubRequest",
                                  "The Hub's answer for %1 is larger than the %2 (%3 bytes) "
                                  "kvchat reads of an answer: it stopped reading.")
          .arg(what, util::format_bytes(double(max_body_bytes)))
          .arg(max_body_bytes);
  return HubError::make(K::BadResponse,
                        announced_bytes < 0 ? cap
                                            : cap + u' ' +
                                                  QCoreApplication::translate(
                                                      "HubRequest", "(It announced %1 bytes.)")
                                                      .arg(announced_bytes),
                        status);
}

// The HubError of an answer `reply` that broke off with a network error (not NoError):
// offline (before any status), a timeout, a cancel, or an interruption.
HubError network_failure(const QNetworkReply& reply, int status, const QUrl& url,
                         const QString& what) {
  using K = HubError::Kind;
  const QString host = url.host();
  switch (reply.error()) {
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::HostNotFoundError:
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
    case QNetworkReply::UnknownNetworkError:
    case QNetworkReply::ProxyConnectionRefusedError:
    case QNetworkReply::ProxyNotFoundError:
    case QNetworkReply::ProxyTimeoutError:
      if (status == 0) {
        return HubError::make(K::Offline,
                              QCoreApplication::translate(
                                  "HubRequest",
                                  "Cannot reach the Hub at %1 (%2): you may be offline. Local "
                                  "models keep working.")
                                  .arg(host, reply.errorString()));
      }
      break;
    case QNetworkReply::TimeoutError:
      return HubError::make(K::Timeout, QCoreApplication::translate(
                                            "HubRequest", "The Hub did not answer in time (%1).")
                                            .arg(what));
    case QNetworkReply::OperationCanceledError:
      return HubError::make(K::Cancelled, QCoreApplication::translate("HubRequest", "Cancelled."));
    default: break;
  }
  return HubError::make(
      K::Interrupted,
      QCoreApplication::translate("HubRequest", "The connection to %1 broke off (%2).")
          .arg(host, reply.errorString()),
      status);
}

}  // namespace

const char* hub_error_kind_name(HubError::Kind kind) {
  switch (kind) {
    case HubError::Kind::None: return "none";
    case HubError::Kind::Offline: return "offline";
    case HubError::Kind::Timeout: return "timeout";
    case HubError::Kind::Interrupted: return "interrupted";
    case HubError::Kind::Unauthorized: return "unauthorized";
    case HubError::Kind::Forbidden: return "forbidden";
    case HubError::Kind::NotFound: return "not_found";
    case HubError::Kind::RateLimited: return "rate_limited";
    case HubError::Kind::Server: return "server";
    case HubError::Kind::Http: return "http";
    case HubError::Kind::BadResponse: return "bad_response";
    case HubError::Kind::Refused: return "refused";
    case HubError::Kind::Cancelled: return "cancelled";
  }
  return "unknown";
}

int parse_retry_after(const QByteArray& value) {
  const QByteArray v = value.trimmed();
  if (v.isEmpty()) return -1;
  bool ok = false;
  const qint64 s = v.toLongLong(&ok);
  if (ok) return s < 0 ? -1 : static_cast<int>(std::min<qint64>(s, 1 << 30));
  const QDateTime when = QDateTime::fromString(QString::fromLatin1(v), Qt::RFC2822Date);
  if (!when.isValid()) return -1;
  const qint64 delta = QDateTime::currentDateTimeUtc().secsTo(when);
  return static_cast<int>(std::clamp<qint64>(delta, 0, 1 << 30));
}

HubError hub_error_for_status(int status, const QString& what, bool has_token, int retry_after_s) {
  using K = HubError::Kind;
  HubError e;
  e.http_status = status;
  if (status == 401) {
    e.kind = K::Unauthorized;
    e.message = has_token
                    ? QCoreApplication::translate(
                          "HubRequest",
                          "The Hub refused the access token for %1 (HTTP 401). Check the token "
                          "in Settings.")
                          .arg(what)
                    : QCoreApplication::translate(
                          "HubRequest",
                          "%1 is gated or private (HTTP 401): accept its terms on the Hub and set "
                          "an access token in Settings.")
                          .arg(what);
  } else if (status == 403) {
    e.kind = K::Forbidden;
    e.message = QCoreApplication::translate(
                    "HubRequest",
                    "Access to %1 was denied (HTTP 403): accept the repository's terms on the "
                    "Hub with the account of your access token.")
                    .arg(what);
  } else if (status == 404) {
    e.kind = K::NotFound;
    e.message = QCoreApplication::translate("HubRequest", "%1 was not found on the Hub (HTTP 404).")
                    .arg(what);
  } else if (status == 429) {
    e.kind = K::RateLimited;
    e.retry_after_s = retry_after_s;
    e.message =
        retry_after_s >= 0
            ? QCoreApplication::translate(
                  "HubRequest", "The Hub is limiting requests (HTTP 429): try again in %1 seconds.")
                  .arg(retry_after_s)
            : QCoreApplication::translate(
                  "HubRequest", "The Hub is limiting requests (HTTP 429): try again later.");
  } else if (status >= 500) {
    e.kind = K::Server;
    e.message = QCoreApplication::translate(
                    "HubRequest", "The Hub had a server error (HTTP %1) for %2: try again later.")
                    .arg(status)
                    .arg(what);
  } else {
    e.kind = K::Http;
    e.message = QCoreApplication::translate("HubRequest", "The Hub answered HTTP %1 for %2.")
                    .arg(status)
                    .arg(what);
  }
  return e;
}

HubRequest::HubRequest(QNetworkAccessManager* network, const QUrl& url, HubRequestOptions options,
                       QObject* parent)
    : QObject(parent), network_(network), url_(url), options_(std::move(options)) {
  total_timer_.setSingleShot(true);
  stall_timer_.setSingleShot(true);
  retry_timer_.setSingleShot(true);
  connect(&total_timer_, &QTimer::timeout, this, [this] { on_timeout(false); });
  connect(&stall_timer_, &QTimer::timeout, this, [this] { on_timeout(true); });
  connect(&retry_timer_, &QTimer::timeout, this, [this] { start(); });
  if (options_.total_timeout_ms > 0) total_timer_.start(options_.total_timeout_ms);
  // Started from the event loop, so that a caller connects to finished() first even when
  // the request fails at once.
  QMetaObject::invokeMethod(
      this, [this] { start(); }, Qt::QueuedConnection);
}

HubRequest::~HubRequest() {
  if (reply_) {
    reply_->disconnect(this);
    reply_->abort();
    reply_->deleteLater();
  }
}

QByteArray HubRequest::header(const QByteArray& name) const {
  for (const auto& [key, value] : headers_) {
    if (key.compare(name, Qt::CaseInsensitive) == 0) return value;
  }
  return {};
}

qint64 HubRequest::total_size() const {
  const QByteArray range = header("Content-Range");
  if (!range.isEmpty()) {
    const int slash = range.lastIndexOf('/');
    bool ok = false;
    const qint64 total = slash >= 0 ? range.mid(slash + 1).trimmed().toLongLong(&ok) : -1;
    return ok ? total : -1;
  }
  bool ok = false;
  const qint64 length = header("Content-Length").toLongLong(&ok);
  return ok && status_ == 200 ? length : -1;
}

void HubRequest::abort() {
  if (finished_) return;
  finish(HubError::make(HubError::Kind::Cancelled,
                        QCoreApplication::translate("HubRequest", "Cancelled.")));
}

void HubRequest::start() {
  if (finished_) return;
  if (!is_allowed_url(url_)) {
    finish(HubError::make(
        HubError::Kind::Refused,
        QCoreApplication::translate("HubRequest",
                                    "kvchat does not fetch %1: only https, or plain http to this "
                                    "computer.")
            .arg(shown(url_))));
    return;
  }
  QNetworkRequest request(url_);
  request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                       QNetworkRequest::ManualRedirectPolicy);
  request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);  // see kReadBufferBytes
  request.setHeader(QNetworkRequest::UserAgentHeader, QByteArray("kvchat"));
  for (const auto& [key, value] : options_.headers) request.setRawHeader(key, value);
  if (!options_.token.isEmpty() && options_.token_origin.isValid() &&
      same_origin(url_, options_.token_origin)) {
    request.setRawHeader("Authorization", "Bearer " + options_.token.toUtf8());
  }
  body_.clear();
  headers_.clear();
  status_ = 0;
  started_signal_ = false;
  reply_ = network_->get(request);
  reply_->setReadBufferSize(kReadBufferBytes);
  connect(reply_, &QNetworkReply::metaDataChanged, this, &HubRequest::on_meta_data);
  connect(reply_, &QNetworkReply::readyRead, this, &HubRequest::on_ready_read);
  connect(reply_, &QNetworkReply::finished, this, &HubRequest::on_finished);
  if (options_.stall_timeout_ms > 0) stall_timer_.start(options_.stall_timeout_ms);
}

bool HubRequest::is_final_success() const { return status_ >= 200 && status_ < 300; }

bool HubRequest::keeps_body() const { return !(options_.stream && is_final_success()); }

void HubRequest::on_meta_data() {
  if (!reply_) return;
  status_ = reply_->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  headers_ = reply_->rawHeaderPairs();
  // An answer that announces more than it may have is refused before its first byte.
  bool has_length = false;
  const qint64 length = reply_->rawHeader("Content-Length").trimmed().toLongLong(&has_length);
  if (keeps_body() && has_length && length > options_.max_body_bytes) {
    too_large_ = true;
    announced_bytes_ = length;
    reply_->abort();  // on_finished reports it
    return;
  }
  const bool redirect = status_ >= 300 && status_ < 400 && reply_->hasRawHeader("Location");
  if (!redirect && status_ != 429 && !started_signal_) {
    started_signal_ = true;
    emit responseStarted(status_);
  }
}

void HubRequest::on_ready_read() {
  if (!reply_ || finished_) return;
  if (options_.stall_timeout_ms > 0) stall_timer_.start(options_.stall_timeout_ms);
  if (status_ == 0) on_meta_data();
  if (!reply_ || too_large_) return;  // on_meta_data refused it
  if (!keeps_body()) {
    const QByteArray bytes = reply_->readAll();
    if (!bytes.isEmpty()) emit dataReceived(bytes);
    return;
  }
  // No more than one byte past the cap is ever read: that byte says "too large".
  const qint64 room = std::max<qint64>(options_.max_body_bytes - body_.size(), 0);
  body_ += reply_->read(room + 1);
  if (body_.size() > options_.max_body_bytes) {
    too_large_ = true;
    body_.clear();
    reply_->abort();
  }
}

void HubRequest::on_timeout(bool stall) {
  if (finished_) return;
  timed_out_ = true;
  if (reply_) {
    reply_->abort();  // on_finished reports the timeout
  } else {
    finish(HubError::make(
        HubError::Kind::Timeout,
        QCoreApplication::translate("HubRequest", "The Hub did not answer in time (%1).")
            .arg(options_.what)));
  }
  (void)stall;
}

void HubRequest::on_finished() {
  QNetworkReply* reply = reply_;
  if (!reply || finished_) return;
  reply_ = nullptr;
  reply->deleteLater();
  stall_timer_.stop();
  using K = HubError::Kind;
  if (status_ == 0) {
    status_ = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    headers_ = reply->rawHeaderPairs();
  }
  if (reply->isOpen() && !too_large_) {
    if (!keeps_body()) {
      const QByteArray rest = reply->readAll();
      if (!rest.isEmpty()) emit dataReceived(rest);
    } else {
      const qint64 room = std::max<qint64>(options_.max_body_bytes - body_.size(), 0);
      body_ += reply->read(room + 1);
      if (body_.size() > options_.max_body_bytes) {
        too_large_ = true;
        body_.clear();
      }
    }
  }
  if (timed_out_) {
    finish(HubError::make(K::Timeout, QCoreApplication::translate(
                                          "HubRequest", "The Hub did not answer in time (%1).")
                                          .arg(options_.what)));
    return;
  }
  if (too_large_) {
    finish(too_large_error(options_.what, options_.max_body_bytes, announced_bytes_, status_));
    return;
  }
  // Redirects, by hand: the token must not follow to another origin.
  if (status_ >= 300 && status_ < 400 && reply->hasRawHeader("Location")) {
    if (++redirects_ > kMaxRedirects) {
      finish(HubError::make(K::BadResponse,
                            QCoreApplication::translate("HubRequest", "Too many redirects for %1.")
                                .arg(options_.what),
                            status_));
      return;
    }
    url_ = url_.resolved(QUrl::fromEncoded(reply->rawHeader("Location")));
    start();
    return;
  }
  if (status_ == 429 && !retried_429_) {
    const int wait = parse_retry_after(reply->rawHeader("Retry-After"));
    if (wait >= 0 && wait <= options_.max_retry_after_s) {
      retried_429_ = true;
      retry_timer_.start(wait * 1000);
      return;
    }
  }
  if (status_ >= 400) {
    finish(hub_error_for_status(status_, options_.what, !options_.token.isEmpty(),
                                parse_retry_after(reply->rawHeader("Retry-After"))));
    return;
  }
  if (reply->error() == QNetworkReply::NoError) {
    finish({});
    return;
  }
  finish(network_failure(*reply, status_, url_, options_.what));
}

void HubRequest::finish(HubError error) {
  if (finished_) return;
  finished_ = true;
  total_timer_.stop();
  stall_timer_.stop();
  retry_timer_.stop();
  error_ = std::move(error);
  if (reply_) {
    QNetworkReply* reply = reply_;
    reply_ = nullptr;
    reply->disconnect(this);
    reply->abort();
    reply->deleteLater();
  }
  emit finished();
}

}  // namespace kvchat::hub
