// What went wrong with a request to the Hub, in plain words. The message never contains
// the access token (it travels in the Authorization header only) nor a URL's query.
#pragma once

#include <QString>

namespace kvchat::hub {

struct HubError {
  enum class Kind {
    None,
    Offline,       // no network, host not found, connection refused
    Timeout,       // no answer in time
    Interrupted,   // the connection broke off in the middle (a download may resume)
    Unauthorized,  // 401: gated or private without a token, or the token was refused
    Forbidden,     // 403: the token's account has not accepted the repository's terms
    NotFound,      // 404
    RateLimited,   // 429 (after honouring one Retry-After)
    Server,        // 5xx
    Http,          // any other HTTP error status
    BadResponse,   // not the JSON or bytes expected, or too large
    Refused,       // a URL kvchat will not fetch (plain http to a non-loopback host, ...)
    Cancelled,
  };
  Kind kind = Kind::None;
  int http_status = 0;     // 0 when no HTTP answer came
  int retry_after_s = -1;  // 429: the server's Retry-After, when it gave one
  QString message;         // translated, for people

  bool ok() const { return kind == Kind::None; }
  static HubError make(Kind kind, QString message, int http_status = 0) {
    HubError e;
    e.kind = kind;
    e.message = std::move(message);
    e.http_status = http_status;
    return e;
  }
};

// "offline", "timeout", ... (for JSON output and logs).
const char* hub_error_kind_name(HubError::Kind kind);

}  // namespace kvchat::hub
