#include "openai_error.h"

#include <nlohmann/json.hpp>

#include "util/printable.h"

namespace kvchat::remote {

namespace {

using nlohmann::json;

std::string string_or_number(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_integer()) return std::to_string(j.get<int64_t>());
  return {};
}

std::string status_words(int status, bool has_key) {
  switch (status) {
    case 400: return "the endpoint refused the request";
    case 401: return has_key ? "the endpoint refused the API key" : "the endpoint wants an API key";
    case 403:
      return "the endpoint forbids this (the key lacks the right, or the address is refused)";
    case 404: return "the endpoint has no such route or model (its API is usually under /v1)";
    case 408: return "the endpoint gave up waiting for the request";
    case 413: return "the request is too large for the endpoint";
    case 422: return "the endpoint could not use the request";
    case 429: return "the endpoint is busy or over its rate limit";
    case 500: return "the endpoint failed";
    case 502: return "the endpoint's gateway got no good answer from the server behind it";
    case 503: return "the endpoint is unavailable (loading a model, or overloaded)";
    case 504: return "the endpoint's gateway timed out";
    default: return status >= 500 ? "the endpoint failed" : "the endpoint refused the request";
  }
}

}  // namespace

std::string error_body_message(std::string_view body) {
  const json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    // Not JSON (an HTML page from a proxy, plain text): its first line.
    const std::string_view line = body.substr(0, body.find('\n'));
    return printable(line, 300);
  }
  const json* e = &j;
  if (auto it = j.find("error"); it != j.end()) {
    if (it->is_string()) return printable(it->get<std::string>(), 300);
    if (it->is_object()) e = &*it;
  }
  std::string message;
  if (auto m = e->find("message"); m != e->end() && m->is_string()) message = *m;
  if (auto d = e->find("detail"); message.empty() && d != e->end() && d->is_string())
    message = *d;  // FastAPI's default error body
  std::string code;
  if (auto c = e->find("code"); c != e->end()) code = string_or_number(*c);
  if (code.empty() || code == "400" || code.find_first_not_of("0123456789") == std::string::npos) {
    if (auto t = e->find("type"); t != e->end() && t->is_string()) code = *t;
  }
  std::string out = printable(message, 300);
  if (!code.empty() && out.find(code) == std::string::npos)
    out += (out.empty() ? "" : " ") + ("(" + printable(code, 60) + ")");
  return out;
}

std::string http_error_in_words(int status, std::string_view body, bool has_key) {
  std::string s = status_words(status, has_key) + " (HTTP " + std::to_string(status) + ")";
  const std::string message = error_body_message(body);
  if (!message.empty()) s += ": " + message;
  return s;
}

std::string without_key(std::string text, std::string_view key) {
  if (key.empty()) return text;
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
    text.replace(at, key.size(), "[API key]");
    at += 9;
  }
  return text;
}

}  // namespace kvchat::remote
