#include "remote_url.h"

#include <cctype>
#include <charconv>

namespace kvchat::remote {

namespace {

bool lower_equal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  }
  return true;
}

bool host_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
}

}  // namespace

std::string EndpointUrl::origin() const {
  const bool v6 = host.find(':') != std::string::npos;
  return std::string(https ? "https://" : "http://") + (v6 ? "[" + host + "]" : host) + ":" +
         std::to_string(port);
}

bool EndpointUrl::loopback() const {
  if (lower_equal(host, "localhost") || host == "::1") return true;
  return host.rfind("127.", 0) == 0 && host.find_first_not_of("0123456789.") == std::string::npos;
}

Result<EndpointUrl> parse_endpoint_url(std::string_view url) {
  const std::string shown(url.substr(0, 200));
  EndpointUrl u;
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos)
    return Error{"'" + shown + "' is not a URL: write http://host:port/v1 or https://…"};
  const std::string_view scheme = url.substr(0, scheme_end);
  if (lower_equal(scheme, "https")) {
    u.https = true;
  } else if (!lower_equal(scheme, "http")) {
    return Error{"'" + shown + "': only http:// and https:// endpoints are spoken to"};
  }
  std::string_view rest = url.substr(scheme_end + 3);
  const size_t path_at = rest.find('/');
  std::string_view authority = rest.substr(0, path_at);
  std::string_view path = path_at == std::string_view::npos ? "" : rest.substr(path_at);
  if (authority.find('@') != std::string_view::npos)
    return Error{"'" + shown + "' holds a user name or password: give the API key apart, " +
                 "never in the URL"};
  if (path.find_first_of("?#") != std::string_view::npos)
    return Error{"'" + shown + "': a base URL has no query (?) or fragment (#)"};
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return Error{"'" + shown + "': an unclosed [ in the host"};
    u.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') return Error{"'" + shown + "': not a host:port"};
    if (!after.empty()) port_text = after.substr(1);
    if (u.host.find_first_not_of("0123456789abcdefABCDEF:.") != std::string::npos)
      return Error{"'" + shown + "': not an IPv6 address in [ ]"};
  } else {
    const size_t colon = authority.rfind(':');
    u.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
    for (char c : u.host) {
      if (!host_char(c)) return Error{"'" + shown + "': the host name holds '" + c + "'"};
    }
  }
  if (u.host.empty()) return Error{"'" + shown + "' names no host"};
  u.port = u.https ? 443 : 80;
  if (!port_text.empty() || (!authority.empty() && authority.back() == ':')) {
    int port = 0;
    auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 1 || port > 65535)
      return Error{"'" + shown + "': the port must be a number from 1 to 65535"};
    u.port = port;
  }
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  u.api_root = path.empty() ? "/v1" : std::string(path);
  return u;
}

}  // namespace kvchat::remote
