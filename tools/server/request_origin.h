// Who may talk to the server from where (no HTTP library here): the Host header on a
// loopback bind (DNS rebinding: a page of attacker.example whose name now resolves to
// 127.0.0.1 sends Host: attacker.example), the browser's Origin header (drive-by
// requests from any web page), the JSON routes' Content-Type (a "simple" text/plain POST
// needs no preflight), and the client identity prefix reuse is partitioned by.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kvchat::server {

// A Host header of a loopback name or address: localhost, 127.0.0.0/8 (dotted quad),
// [::1]; without a port or with `bound_port`. Case-insensitive; no trailing dot.
bool loopback_host_header(std::string_view host, int bound_port);

// An Origin header allowed by the list: an exact entry (scheme://host[:port],
// case-insensitive, a trailing '/' ignored) or "*". "null" matches only a "null" entry.
bool origin_listed(std::string_view origin, const std::vector<std::string>& allowed);

// "application/json", with parameters (; charset=utf-8) or not, case-insensitive.
bool json_content_type(std::string_view content_type);

// The identity a request's cache reuse belongs to: "key" when the server has an API key
// (every caller with the key is one identity), else "addr:" + the peer's address (an
// IPv4-mapped IPv6 address as its IPv4 form).
std::string client_identity(std::string_view api_key, std::string_view remote_addr);

}  // namespace kvchat::server
