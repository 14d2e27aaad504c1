// One GET to the Hub (or to where it redirects), as every hub class makes it: redirects
// followed by hand (at most kMaxRedirects, each target checked with is_allowed_url), the
// access token sent in the Authorization header only while the URL is on the Hub's own
// origin (never to a CDN it redirects to), a total and a stall timeout, one 429 answered
// by waiting its Retry-After (when it is at most max_retry_after_s) and asking again, a
// cap on the bytes kept, and every failure mapped to a HubError in plain words.
//
// Starts when constructed; emits finished() exactly once (also after abort()), then the
// caller reads status(), body() or error(). Deletes nothing itself: the owner does (or
// parents it). Lives on the thread that created it, with its network manager.
#pragma once

#include <QByteArray>
#include <QList>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include "hub/hub_error.h"

class QNetworkAccessManager;

namespace kvchat::hub {

inline constexpr int kMaxRedirects = 8;

struct HubRequestOptions {
  QList<QPair<QByteArray, QByteArray>> headers;  // extra request headers (Range, If-Range)
  QUrl token_origin;             // the Hub's base URL: the token goes only to this origin
  QString token;                 // "" = none
  int total_timeout_ms = 30000;  // 0 = none (downloads)
  int stall_timeout_ms = 20000;  // no byte for this long = timeout; 0 = none
  int max_retry_after_s = 30;    // a longer Retry-After is reported, not waited for
  // More = BadResponse, the reply aborted as soon as it passes the cap (or announces more
  // in its Content-Length); memory stays bounded however fast the bytes come (Qt's
  // network thread holds at most 1 MiB of it at a time).
  qint64 max_body_bytes = 16 << 20;
  // Stream: the body of the final (2xx) answer is not kept but handed out through
  // dataReceived() as it arrives; max_body_bytes does not apply.
  bool stream = false;
  QString what;  // what is asked for, for messages ("the search", "kvchat/demo-GGUF")
};

class HubRequest : public QObject {
  Q_OBJECT
 public:
  HubRequest(QNetworkAccessManager* network, const QUrl& url, HubRequestOptions options,
             QObject* parent = nullptr);
  ~HubRequest() override;

  void abort();  // finished() follows with Kind::Cancelled (unless already finished)

  bool is_finished() const { return finished_; }
  const HubError& error() const { return error_; }
  int status() const { return status_; }  // the final answer's HTTP status
  const QByteArray& body() const { return body_; }
  const QUrl& final_url() const { return url_; }  // after redirects
  int redirects() const { return redirects_; }
  // A header of the final answer ("Content-Range", "ETag", ...); empty when absent.
  QByteArray header(const QByteArray& name) const;
  // Total size from Content-Range "bytes a-b/TOTAL" (206) or Content-Length (200); -1.
  qint64 total_size() const;

 signals:
  // The final answer's status and headers arrived (not for redirects).
  void responseStarted(int status);
  // stream mode: bytes of the final 2xx answer, in order.
  void dataReceived(const QByteArray& bytes);
  void finished();

 private:
  void start();
  void on_meta_data();
  void on_ready_read();
  void on_finished();
  void on_timeout(bool stall);
  void finish(HubError error);
  bool is_final_success() const;
  bool keeps_body() const;  // false while streaming a 2xx answer out

  QNetworkAccessManager* network_;
  QUrl url_;
  HubRequestOptions options_;
  QPointer<QNetworkReply> reply_;
  QTimer total_timer_, stall_timer_, retry_timer_;
  QByteArray body_;
  QList<QNetworkReply::RawHeaderPair> headers_;
  int status_ = 0;
  int redirects_ = 0;
  bool retried_429_ = false;
  bool timed_out_ = false;
  bool too_large_ = false;
  qint64 announced_bytes_ = -1;  // the Content-Length of an answer refused for it
  bool started_signal_ = false;
  bool finished_ = false;
  HubError error_;
};

// The HubError of an HTTP status (>= 400), for `what`; has_token says whether a token
// was sent (401 then means it was refused).
HubError hub_error_for_status(int status, const QString& what, bool has_token, int retry_after_s);
// Seconds of a Retry-After header (delta-seconds or an HTTP date); -1 when absent/bad.
int parse_retry_after(const QByteArray& value);

}  // namespace kvchat::hub
