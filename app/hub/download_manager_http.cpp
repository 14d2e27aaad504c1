// DownloadManager, the network half: the GET (with a Range from the partial's end), the
// answer's status and range checked, the body written as it arrives, redirects, and a
// retry later when the connection breaks off.
#include <QFileInfo>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>

#include "util/byte_size.h"
#include "hub/download_job.h"
#include "hub/download_manager.h"
#include "hub/hub_endpoint.h"
#include "hub/names.h"

namespace kvchat::hub {

namespace {

constexpr qint64 kMaxErrorBody = 64 * 1024;
// What Qt's network thread may hold of an answer before the manager has written it out:
// without a bound a fast server fills memory while the disk is slower. HTTP/1.1 only:
// Qt's HTTP/2 does not hold back its flow-control window for a read buffer, and with one
// set buffers the whole file instead (a long download is one connection either way).
constexpr qint64 kReadBufferBytes = qint64(4) << 20;

}  // namespace

void DownloadManager::send(Job& j) {
  j.checked = false;
  j.discarding = false;
  j.discarded = 0;
  j.range_start = j.bytes;
  QNetworkRequest req(j.url);
  req.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
  req.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);  // see kReadBufferBytes
  req.setTransferTimeout(options_.transfer_timeout_ms);
  req.setRawHeader("User-Agent", "kvchat");
  req.setRawHeader("Accept-Encoding", "identity");  // byte offsets of the file itself
  if (j.bytes > 0) {
    req.setRawHeader("Range", "bytes=" + QByteArray::number(j.bytes) + "-");
    const QByteArray etag = download::strong_etag(j.rec.etag.toLatin1());
    if (!etag.isEmpty()) req.setRawHeader("If-Range", etag);
  }
  // The token goes to the origin the download started from (scheme, host and port),
  // never to another: the CDN's links are signed, and a redirect to another port or to
  // plain http on the same host is another server as far as the token is concerned.
  if (!token_.isEmpty() && same_origin(j.url, QUrl(j.rec.url)))
    req.setRawHeader("Authorization", "Bearer " + token_.toUtf8());
  qCInfo(lcDownload).noquote() << "GET" << url_for_log(j.url) << "from byte" << j.bytes;
  QNetworkReply* reply = network_->get(req);
  reply->setReadBufferSize(kReadBufferBytes);
  j.reply = reply;
  const qint64 id = j.rec.id;
  connect(reply, &QNetworkReply::readyRead, this, [this, id, reply] {
    Job* r = job(id);
    if (r && r->reply == reply) on_ready_read(id);
  });
  connect(reply, &QNetworkReply::finished, this, [this, id, reply] {
    reply->deleteLater();
    Job* r = job(id);
    if (r && r->reply == reply) on_finished(id);
  });
  emit requestSent(id, j.url.adjusted(QUrl::RemoveQuery), j.bytes);
}

bool DownloadManager::accept_response(Job& j, QString* message) {
  QNetworkReply* reply = j.reply;
  const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  if (status != 200 && status != 206) {
    j.discarding = true;  // a redirect or an error: on_finished decides
    return true;
  }
  qint64 total = -1;
  j.range_ignored = status == 200 && j.bytes > 0;
  if (status == 200) {
    if (j.bytes > 0) {  // the range was not honoured (or If-Range did not match): start over
      qCInfo(lcDownload).noquote() << "the server sent the whole file: starting over";
      j.file.resize(0);
      j.file.seek(0);
      j.bytes = 0;
      j.range_start = 0;
      j.hash = std::make_shared<QCryptographicHash>(QCryptographicHash::Sha256);
    }
    bool ok = false;
    const qint64 length = reply->header(QNetworkRequest::ContentLengthHeader).toLongLong(&ok);
    if (ok) total = length;
  } else {
    const auto range = download::parse_content_range(reply->rawHeader("Content-Range"));
    if (!range || range->first != j.bytes) {
      *message =
          tr("The server answered with another byte range (%1) than asked (from %2).")
              .arg(QString::fromLatin1(reply->rawHeader("Content-Range").left(100)).simplified())
              .arg(j.bytes);
      return false;
    }
    total = range->total;
  }
  if (total >= 0) {
    if (j.rec.expected_size > 0 && total != j.rec.expected_size) {
      *message = tr("The server's file has %1 bytes, the Hub said %2.")
                     .arg(total)
                     .arg(j.rec.expected_size);
      return false;
    }
    if (total > kMaxFileBytes) {
      *message = tr("Refused: an absurd size (%1 bytes).").arg(total);
      return false;
    }
    if (j.rec.expected_size <= 0) j.rec.expected_size = total;
  }
  const QByteArray etag = reply->rawHeader("ETag");
  if (!etag.isEmpty()) j.rec.etag = QString::fromLatin1(etag);
  return true;
}

void DownloadManager::on_ready_read(qint64 id) {
  Job* jp = job(id);
  if (!jp || !jp->reply) return;
  Job& j = *jp;
  if (!j.reply->isOpen()) return;  // aborted (a stall, a pause): nothing left to read
  if (!j.checked) {
    j.checked = true;
    QString message;
    if (!accept_response(j, &message)) {
      fail(j, message, false);
      return;
    }
  }
  const QByteArray data = j.reply->readAll();
  if (data.isEmpty()) return;
  if (j.discarding) {
    j.discarded += data.size();
    if (j.discarded > kMaxErrorBody) j.reply->abort();
    return;
  }
  if (j.rec.expected_size > 0 && j.bytes + data.size() > j.rec.expected_size) {
    fail(j, tr("The server sent more than the %1 bytes the Hub said.").arg(j.rec.expected_size),
         true);
    return;
  }
  if (j.file.write(data) != data.size()) {
    fail(j, tr("Cannot write %1: %2").arg(j.rec.part_path, j.file.errorString()), false);
    return;
  }
  j.hash->addData(data);
  j.bytes += data.size();
  // Progress is new ground: bytes past the furthest point reached. A server that ignores
  // Range and breaks off at the same place sends bytes every time, and gets nowhere.
  if (j.bytes > j.best) {
    j.best = j.bytes;
    j.failures = 0;
  }
  report_progress(j, false);
}

void DownloadManager::on_finished(qint64 id) {
  on_ready_read(id);  // what is still buffered
  Job* jp = job(id);
  if (!jp || !jp->reply) return;
  Job& j = *jp;
  QNetworkReply* reply = j.reply;
  j.reply = nullptr;
  if (j.stopping) return;
  const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  const auto error = reply->error();
  if (status >= 300 && status < 400 && status != 304) {
    const QUrl target = download::redirect_target(j.url, reply->rawHeader("Location"));
    if (target.isEmpty()) {
      fail(j,
           tr("Refused a redirect to %1 (https only).")
               .arg(QString::fromLatin1(reply->rawHeader("Location"))),
           false);
      return;
    }
    if (++j.redirects > options_.max_redirects) {
      fail(j, tr("Too many redirects."), false);
      return;
    }
    qCInfo(lcDownload).noquote() << "redirected to" << url_for_log(target);
    j.url = target;
    send(j);
    return;
  }
  const QString file = QFileInfo(j.rec.dest_path).fileName();
  if (status == 401 || status == 403) {
    fail(j,
         has_access_token()
             ? tr("The Hub refused the access token for %1 (HTTP %2): accept the model's licence "
                  "on its page, or check the token.")
                   .arg(file)
                   .arg(status)
             : tr("%1 is in a gated repository (HTTP %2): it needs a Hugging Face access token.")
                   .arg(file)
                   .arg(status),
         j.bytes == 0);
    return;
  }
  if (status == 404) {
    fail(j, tr("%1 was not found on the Hub (HTTP 404).").arg(file), true);
    return;
  }
  if (status == 416) {
    if (j.rec.expected_size > 0 && j.bytes == j.rec.expected_size) {
      complete(j);
    } else {
      j.file.resize(0);
      j.file.seek(0);
      j.bytes = 0;
      j.hash = std::make_shared<QCryptographicHash>(QCryptographicHash::Sha256);
      retry_later(j, 0, tr("The server refused the range: starting over"), true);
    }
    return;
  }
  if (status == 429) {
    const int s = download::retry_after_seconds(reply->rawHeader("Retry-After"),
                                                QDateTime::currentDateTimeUtc(),
                                                options_.max_retry_after_s, 5);
    retry_later(j, s * 1000, tr("The Hub asks to wait (HTTP 429): retrying in %n s", nullptr, s),
                true);
    return;
  }
  if (status >= 400 && status < 500) {
    fail(j, tr("The Hub refused %1 (HTTP %2).").arg(file).arg(status), j.bytes == 0);
    return;
  }
  if (status >= 500) {
    save_progress(j);
    retry_later(j, options_.retry_delay_ms, tr("Server error (HTTP %1): retrying").arg(status),
                true);
    return;
  }
  if (error != QNetworkReply::NoError ||
      (j.rec.expected_size > 0 && j.bytes < j.rec.expected_size)) {
    save_progress(j);
    const QString what = error == QNetworkReply::OperationCanceledError
                             ? tr("no data for %1 ms").arg(options_.transfer_timeout_ms)
                             : (error != QNetworkReply::NoError ? reply->errorString()
                                                                : tr("the connection ended early"));
    qCInfo(lcDownload).noquote() << "interrupted at byte" << j.bytes << ":" << what;
    retry_later(j, options_.retry_delay_ms, tr("Connection lost (%1): resuming").arg(what), true);
    return;
  }
  complete(j);
}

void DownloadManager::retry_later(Job& j, int delay_ms, const QString& why, bool counts) {
  if (counts && ++j.failures > options_.max_retries) {
    QString message;
    if (j.best == 0) {
      message =
          tr("%1 — gave up after %n attempts; resume to try again.", nullptr, j.failures).arg(why);
    } else if (j.range_ignored) {
      message = tr("%1 — the server stopped at %2 or before %n times in a row and ignores Range "
                   "(it sends the file "
                   "from its start again): giving up; resume to try again.",
                   nullptr, j.failures)
                    .arg(why, util::format_bytes(double(j.best)));
    } else {
      message =
          tr("%1 — %n attempts in a row got no further than %2: giving up; resume to try again.",
             nullptr, j.failures)
              .arg(why, util::format_bytes(double(j.best)));
    }
    fail(j, message, false);
    return;
  }
  j.url = QUrl(j.rec.url);  // from the start: a CDN link may have expired
  j.redirects = 0;
  set_status(j, QStringLiteral("waiting"), why);
  j.retry.start(std::max(delay_ms, 0));
}

}  // namespace kvchat::hub
