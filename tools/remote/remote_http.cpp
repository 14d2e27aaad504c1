#include "remote_http.h"

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "openai_error.h"
#include "util/printable.h"

namespace kvchat::remote {

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kCaBundle = "/etc/ssl/certs/ca-certificates.crt";  // Debian's

bool retryable_status(int status) {
  return status == 429 || status == 502 || status == 503 || status == 504;
}

// Retry-After in delta-seconds (an HTTP-date is taken as absent).
int retry_after_ms(const httplib::Headers& headers) {
  auto it = headers.find("Retry-After");
  if (it == headers.end()) return -1;
  const std::string& v = it->second;
  if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoi(v) * 1000;
}

// Polls `cancelled` every 50 ms while an exchange runs; stops the client when it says so.
class CancelWatch {
 public:
  CancelWatch(httplib::Client& client, const std::function<bool()>& cancelled) {
    if (!cancelled) return;
    thread_ = std::thread([this, &client, cancelled] {
      std::unique_lock lock(m_);
      while (!done_) {
        if (cancelled()) {
          fired_ = true;
          client.stop();
          return;
        }
        cv_.wait_for(lock, std::chrono::milliseconds(50));
      }
    });
  }
  ~CancelWatch() {
    {
      std::lock_guard lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  bool fired() {
    std::lock_guard lock(m_);
    return fired_;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false, fired_ = false;
  std::thread thread_;
};

// Sleeps `ms` unless cancelled first; false when cancelled.
bool wait_unless_cancelled(int ms, const std::function<bool()>& cancelled) {
  const auto until = Clock::now() + std::chrono::milliseconds(ms);
  while (Clock::now() < until) {
    if (cancelled && cancelled()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int>(50, ms)));
  }
  return true;
}

std::string transport_error_in_words(httplib::Error e, const EndpointUrl& url,
                                     const RemoteLimits& limits, bool body_began) {
  const std::string o = url.origin();
  switch (e) {
    case httplib::Error::Connection:
      return "cannot connect to " + o + " (refused, or the host is unreachable)";
    case httplib::Error::ConnectionTimeout:
      return "no connection to " + o + " within " +
             std::to_string(limits.connect_timeout_ms / 1000) + " s";
    case httplib::Error::Read:
      return body_began
                 ? o + " dropped the connection in the middle of its answer"
                 : o + " sent no answer within " + std::to_string(limits.read_timeout_ms / 1000) +
                       " s, or closed the connection";
    case httplib::Error::Write: return o + " closed the connection while the request was sent";
    case httplib::Error::SSLConnection:
      return "the TLS handshake with " + o +
             " failed (is it an https server? an http:// URL may be meant)";
    case httplib::Error::SSLServerVerification:
      return o + "'s TLS certificate could not be verified (self-signed, expired, or for " +
             "another name); nothing was sent to it";
    case httplib::Error::SSLLoadingCerts:
      return std::string("the system's CA certificates could not be read (") + kCaBundle + ")";
    case httplib::Error::Compression: return o + " sent a body that could not be decompressed";
    default: return "the exchange with " + o + " failed (" + httplib::to_string(e) + ")";
  }
}

std::unique_ptr<httplib::Client> make_client(const EndpointUrl& url, const std::string& key,
                                             const RemoteLimits& limits) {
  auto cli = std::make_unique<httplib::Client>(url.origin());
  cli->set_connection_timeout(std::chrono::milliseconds(limits.connect_timeout_ms));
  cli->set_read_timeout(std::chrono::milliseconds(limits.read_timeout_ms));
  cli->set_write_timeout(std::chrono::seconds(60));
  cli->set_follow_location(false);  // the key goes to this origin only
  cli->set_keep_alive(false);
  cli->set_decompress(false);  // asked for identity: a stream arrives as it is written
  if (url.https) {
    if (std::filesystem::exists(kCaBundle)) cli->set_ca_cert_path(kCaBundle);
    cli->enable_server_certificate_verification(true);
  }
  httplib::Headers headers = {{"User-Agent", "kvchat"}, {"Accept-Encoding", "identity"}};
  if (!key.empty()) headers.emplace("Authorization", "Bearer " + key);
  cli->set_default_headers(std::move(headers));
  return cli;
}

}  // namespace

std::string RemoteHttp::redirect_in_words(const HttpAnswer& a) const {
  return "the endpoint answered with a redirect (HTTP " + std::to_string(a.status) + ") to '" +
         printable(a.location, 200) + "'; kvchat does not follow redirects, so that " +
         "the API key goes only to " + url_.origin() +
         ": if you trust that address, make it the endpoint's URL";
}

Result<HttpAnswer> RemoteHttp::attempt(const Exchange& ex, const StreamSink* sink,
                                       const std::function<bool()>& cancelled,
                                       AttemptState& state) {
  auto cli = make_client(url_, key_, limits_);
  httplib::Request req;
  req.method = ex.method;
  req.path = ex.path;
  req.headers = {{"Accept", sink ? "text/event-stream" : "application/json"}};
  if (ex.method == "POST") {
    req.body = ex.body;
    req.headers.emplace("Content-Type", "application/json");
  }
  HttpAnswer answer;
  bool oversized = false;
  req.response_handler = [&](const httplib::Response& r) {
    answer.status = r.status;
    answer.content_type = r.get_header_value("Content-Type");
    answer.location = r.get_header_value("Location");
    answer.retry_after_ms = retry_after_ms(r.headers);
    if (sink && r.status == 200 && sink->on_head) return sink->on_head(answer);
    return true;
  };
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    if (sink && answer.status == 200) {
      state.body_began = true;
      return sink->on_body(std::string_view(data, n));
    }
    if (answer.body.size() + n > limits_.max_body_bytes) {
      oversized = true;
      return false;
    }
    answer.body.append(data, n);
    return true;
  };
  httplib::Response res;
  httplib::Error err = httplib::Error::Success;
  bool sent = false;
  bool cancelled_here = false;
  {
    CancelWatch watch(*cli, cancelled);
    sent = cli->send(req, res, err);
    cancelled_here = watch.fired();
  }
  if (oversized)
    return Error{url_.origin() + " sent an answer of over " +
                 with_commas(limits_.max_body_bytes >> 20) + " MiB to " + ex.path +
                 "; it was not read"};
  if (cancelled_here) {
    answer.cancelled = true;
    return answer;
  }
  if (!sent && !(err == httplib::Error::Canceled && answer.status != 0)) {
    state.connect_failed =
        err == httplib::Error::Connection || err == httplib::Error::ConnectionTimeout;
    return Error{transport_error_in_words(err, url_, limits_, state.body_began)};
  }
  // A stop from the sink (Canceled after the head) is the caller's to tell.
  return answer;
}

Result<HttpAnswer> RemoteHttp::fetch(Exchange& ex, const std::function<bool()>& cancelled) {
  return stream(ex, StreamSink{}, cancelled);
}

Result<HttpAnswer> RemoteHttp::stream(Exchange& ex, const StreamSink& sink,
                                      const std::function<bool()>& cancelled) {
  const StreamSink* s = sink.on_body ? &sink : nullptr;
  int wait_ms = limits_.first_retry_wait_ms;
  for (ex.attempts = 1;; ++ex.attempts) {
    AttemptState state;
    auto a = attempt(ex, s, cancelled, state);
    if (a && a->cancelled) return a;
    const bool last = !ex.retry || ex.attempts >= limits_.max_attempts || state.body_began;
    // Retried: no connection made, or a status that says "later".
    const bool again = a ? retryable_status(a->status) : state.connect_failed;
    if (!again || last) return a;
    const int this_wait = a && a->retry_after_ms >= 0
                              ? std::min(a->retry_after_ms, limits_.max_retry_wait_ms)
                              : wait_ms;
    if (!wait_unless_cancelled(this_wait, cancelled)) {
      HttpAnswer stopped;
      stopped.cancelled = true;
      return stopped;
    }
    wait_ms = std::min(wait_ms * 2, limits_.max_retry_wait_ms);
  }
}

}  // namespace kvchat::remote
