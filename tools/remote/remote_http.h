// One endpoint's HTTP exchanges on cpp-httplib (TLS through OpenSSL): a client per
// exchange bound to the endpoint's origin, never following a redirect, bounded bodies, the
// retry policy of remote_client.h, and every transport failure in words. Internal to
// kvchat_remote.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>

#include "kvchat/remote_client.h"
#include "remote_url.h"

namespace kvchat::remote {

// A whole answer (a JSON body, an error page).
struct HttpAnswer {
  int status = 0;
  std::string body;
  std::string content_type;
  std::string location;     // a redirect's
  int retry_after_ms = -1;  // a 429 / 503's Retry-After in seconds, as ms; -1 none
  // `cancelled` said stop: what came so far (status 0 when nothing did).
  bool cancelled = false;
};

// How a streamed answer is taken: `on_head` once the status and headers came (false: do
// not read the body); `on_body` each piece of a 200's body (false: stop reading).
struct StreamSink {
  std::function<bool(const HttpAnswer& head)> on_head;
  std::function<bool(std::string_view bytes)> on_body;
};

struct Exchange {
  std::string method = "GET";  // GET or POST
  std::string path;            // from the origin's root
  std::string body;            // POST: JSON
  bool retry = true;           // the retry policy applies
  int attempts = 0;            // out: how many were made
};

class RemoteHttp {
 public:
  RemoteHttp(EndpointUrl url, std::string api_key, RemoteLimits limits)
      : url_(std::move(url)), key_(std::move(api_key)), limits_(limits) {}

  // The answer, whatever its status (a body over max_body_bytes is an error), or the
  // exchange stopped (HttpAnswer::cancelled); an error only when no answer came.
  // `cancelled` (may be empty) is polled every 50 ms.
  Result<HttpAnswer> fetch(Exchange& exchange, const std::function<bool()>& cancelled = {});
  // A streamed answer: a non-200 status's body is read whole (bounded) into the answer, a
  // 200's goes to sink.on_body. The retry policy holds only until the body has begun.
  Result<HttpAnswer> stream(Exchange& exchange, const StreamSink& sink,
                            const std::function<bool()>& cancelled);

  const EndpointUrl& url() const { return url_; }
  const std::string& key() const { return key_; }
  const RemoteLimits& limits() const { return limits_; }
  // The words for a redirect that was not followed.
  std::string redirect_in_words(const HttpAnswer& a) const;

 private:
  // What one attempt left for the retry policy to read.
  struct AttemptState {
    bool body_began = false;      // a 200's body reached the sink: never retried
    bool connect_failed = false;  // no connection was made: retried
  };
  Result<HttpAnswer> attempt(const Exchange& exchange, const StreamSink* sink,
                             const std::function<bool()>& cancelled, AttemptState& state);
  EndpointUrl url_;
  std::string key_;
  RemoteLimits limits_;
};

}  // namespace kvchat::remote
