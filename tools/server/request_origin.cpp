#include "server/request_origin.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "kvchat/server.h"

namespace kvchat::server {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// 127.a.b.c with every part a decimal number 0..255 (no signs, no empty parts).
bool loopback_ipv4(std::string_view s) {
  int parts = 0;
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t dot = std::min(s.find('.', pos), s.size());
    const std::string_view part = s.substr(pos, dot - pos);
    if (part.empty() || part.size() > 3) return false;
    int v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || end != part.data() + part.size() || v > 255) return false;
    if (parts == 0 && v != 127) return false;
    ++parts;
    pos = dot + 1;
    if (dot == s.size()) break;
  }
  return parts == 4;
}

}  // namespace

bool loopback_host_header(std::string_view host, int bound_port) {
  const std::string h = lower(trim(host));
  if (h.empty()) return false;
  std::string_view name = h, port;
  if (!h.empty() && h.front() == '[') {
    const size_t close = h.find(']');
    if (close == std::string::npos) return false;
    name = std::string_view(h).substr(0, close + 1);
    const std::string_view rest = std::string_view(h).substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return false;
      port = rest.substr(1);
    }
  } else if (const size_t colon = h.find(':'); colon != std::string::npos) {
    name = std::string_view(h).substr(0, colon);
    port = std::string_view(h).substr(colon + 1);
    if (port.find(':') != std::string_view::npos) return false;
  }
  if (!port.empty() || h.back() == ':') {
    int p = -1;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || p != bound_port)
      return false;
  }
  return name == "localhost" || name == "[::1]" || loopback_ipv4(name);
}

bool origin_listed(std::string_view origin, const std::vector<std::string>& allowed) {
  std::string o = lower(trim(origin));
  if (!o.empty() && o.back() == '/') o.pop_back();
  for (const std::string& entry : allowed) {
    std::string a = lower(trim(entry));
    if (!a.empty() && a.back() == '/') a.pop_back();
    if (a == "*" || (!a.empty() && a == o)) return true;
  }
  return false;
}

bool json_content_type(std::string_view content_type) {
  const std::string_view media = trim(content_type.substr(0, content_type.find(';')));
  return lower(media) == "application/json";
}

std::string client_identity(std::string_view api_key, std::string_view remote_addr) {
  if (!api_key.empty()) return "key";
  constexpr std::string_view kMapped = "::ffff:";
  std::string addr = lower(remote_addr);
  if (addr.rfind(kMapped, 0) == 0 && addr.find('.') != std::string::npos) {
    addr.erase(0, kMapped.size());
  }
  return "addr:" + addr;
}

}  // namespace kvchat::server

namespace kvchat {

bool server_host_is_loopback(std::string_view host) {
  std::string h(host);
  std::transform(h.begin(), h.end(), h.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  return h == "localhost" || h == "::1" || server::loopback_host_header(h, -1);
}

}  // namespace kvchat
