// An endpoint's base URL taken apart: where requests go (scheme, host, port), the API's
// path, and the origin the key is bound to. Internal to kvchat_remote (and its tests).
#pragma once

#include <string>
#include <string_view>

#include "kvchat/result.h"

namespace kvchat::remote {

struct EndpointUrl {
  bool https = false;
  std::string host;            // as written; an IPv6 address without its brackets
  int port = 0;                // 80 / 443 when not written
  std::string api_root;        // "/v1", or the path written (no trailing '/')
  std::string origin() const;  // "http://host:port" (IPv6 in brackets)
  bool loopback() const;       // localhost, 127.0.0.0/8, ::1
};

// "http(s)://host[:port][/path]": no user:password, query or fragment; port 1..65535.
Result<EndpointUrl> parse_endpoint_url(std::string_view url);

}  // namespace kvchat::remote
