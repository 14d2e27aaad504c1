// MCP's Streamable HTTP transport (http_transport.h): loopback URLs, server-sent events,
// one HTTP/1.1 exchange per message on a socket of its own.
#include "mcp/http_transport.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>

namespace kvchat::mcp {

namespace {

using Clock = std::chrono::steady_clock;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_loopback(std::string_view host) {
  if (lower(host) == "localhost" || host == "::1") return true;
  // 127.x.x.x, four decimal parts.
  int parts = 0;
  size_t at = 0;
  while (at <= host.size()) {
    const size_t dot = std::min(host.find('.', at), host.size());
    const std::string_view part = host.substr(at, dot - at);
    if (!all_digits(part) || part.size() > 3 || std::stoi(std::string(part)) > 255) return false;
    if (parts == 0 && part != "127") return false;
    ++parts;
    at = dot + 1;
  }
  return parts == 4;
}

// A connected socket to the URL's host and port, or -1 with *error.
int connect_to(const HttpUrl& url, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::string host = url.host;
  if (!host.empty() && host.front() == '[') host = host.substr(1, host.size() - 2);
  if (const int rc = ::getaddrinfo(host.c_str(), url.port.c_str(), &hints, &found); rc != 0) {
    *error = "cannot resolve " + host + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  std::string why = "no address";
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      why = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) *error = "cannot connect to " + url.authority + ": " + why;
  return fd;
}

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// One request: the method on the URL's path, the headers MCP asks for, the body.
std::string request_text(const HttpUrl& url, const char* method, const std::string& body,
                         bool is_listen, const std::string& session, const std::string& protocol) {
  std::string request = std::string(method) + " " + url.path +
                        " HTTP/1.1\r\nHost: " + url.authority +
                        "\r\nUser-Agent: kvchat\r\nConnection: close\r\n";
  request += is_listen ? "Accept: text/event-stream\r\n"
                       : "Accept: application/json, text/event-stream\r\n";
  if (!session.empty()) request += "Mcp-Session-Id: " + session + "\r\n";
  if (!protocol.empty()) request += "MCP-Protocol-Version: " + protocol + "\r\n";
  if (std::strcmp(method, "POST") == 0)
    request +=
        "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  return request + "\r\n" + body;
}

const char* const kNoStream = "no stream";  // run()'s answer to a GET the server refuses

}  // namespace

// ---- an answer's head and body ------------------------------------------------------------

std::string HttpHead::header(const char* name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

bool parse_http_head(std::string_view text, HttpHead& head) {
  const size_t eol = std::min(text.find("\r\n"), text.size());
  const std::string_view status_line = text.substr(0, eol);
  if (status_line.substr(0, 5) != "HTTP/") return false;
  const size_t sp = status_line.find(' ');
  if (sp == std::string_view::npos || !all_digits(status_line.substr(sp + 1, 3))) return false;
  head.status = std::stoi(std::string(status_line.substr(sp + 1, 3)));
  for (size_t at = eol + 2; at < text.size();) {
    const size_t end = std::min(text.find("\r\n", at), text.size());
    const std::string_view line = text.substr(at, end - at);
    at = end + 2;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    head.headers[lower(line.substr(0, colon))] = std::string(value);
  }
  return true;
}

HttpBodyDecoder::HttpBodyDecoder(const HttpHead& head, std::function<void(std::string_view)> sink)
    : sink_(std::move(sink)) {
  const std::string length = head.header("content-length");
  if (lower(head.header("transfer-encoding")).find("chunked") != std::string::npos) {
    mode_ = Mode::Chunked;
  } else if (all_digits(length) && length.size() <= 18) {
    mode_ = Mode::Length;
    left_ = std::stoull(length);
    if (left_ == 0) done_ = true;
  }
}

bool HttpBodyDecoder::feed(std::string_view bytes) {
  if (mode_ == Mode::Eof) {
    sink_(bytes);
    return true;
  }
  if (mode_ == Mode::Length) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left_, bytes.size()));
    if (n) sink_(bytes.substr(0, n));
    left_ -= n;
    done_ = left_ == 0;
    return true;
  }
  buf_.append(bytes);
  while (!done_) {
    if (left_ > 0) {  // inside a chunk's data
      const size_t n = static_cast<size_t>(std::min<uint64_t>(left_, buf_.size()));
      if (n == 0) return true;
      sink_(std::string_view(buf_).substr(0, n));
      buf_.erase(0, n);
      left_ -= n;
      if (left_ == 0) need_crlf_ = true;
      continue;
    }
    const size_t eol = buf_.find("\r\n");
    if (eol == std::string::npos) return buf_.size() < 4096;
    const std::string line = buf_.substr(0, eol);
    buf_.erase(0, eol + 2);
    if (need_crlf_) {  // the CRLF after a chunk's data
      need_crlf_ = false;
      if (!line.empty()) return false;
      continue;
    }
    if (in_trailer_) {
      if (line.empty()) done_ = true;
      continue;
    }
    const std::string size = line.substr(0, line.find(';'));
    if (size.empty() || size.size() > 15 ||
        size.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
      return false;
    left_ = std::stoull(size, nullptr, 16);
    if (left_ == 0) in_trailer_ = true;
  }
  return true;
}

Result<HttpUrl> parse_loopback_url(std::string_view url) {
  const std::string scheme = lower(url.substr(0, url.find("://")));
  if (url.find("://") == std::string_view::npos)
    return Error{"\"" + std::string(url) + "\" is not a URL (http://127.0.0.1:PORT/mcp)"};
  if (scheme != "http")
    return Error{scheme + " URLs are not supported for tool servers: kvchat reaches a server " +
                 "on this machine, over http://127.0.0.1:PORT"};
  std::string_view rest = url.substr(url.find("://") + 3);
  const size_t path_at = std::min(rest.find_first_of("/?"), rest.size());
  HttpUrl out;
  out.authority = std::string(rest.substr(0, path_at));
  out.path = std::string(rest.substr(path_at));
  if (out.path.empty() || out.path.front() == '?') out.path = "/" + out.path;
  std::string_view authority = out.authority;
  if (authority.find('@') != std::string_view::npos)
    return Error{"a tool server's URL cannot hold a user name or password"};
  std::string_view host = authority, port;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return Error{"no ']' after the IPv6 address"};
    host = authority.substr(1, close - 1);
    out.host = std::string(authority.substr(0, close + 1));
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return Error{"what follows the IPv6 address is not a port"};
      port = authority.substr(close + 2);
    }
  } else {
    const size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
    out.host = std::string(host);
  }
  if (host.empty()) return Error{"the URL names no host"};
  if (!port.empty() && (!all_digits(port) || port.size() > 5 || std::stoi(std::string(port)) < 1 ||
                        std::stoi(std::string(port)) > 65535))
    return Error{"'" + std::string(port) + "' is not a port"};
  out.port = port.empty() ? "80" : std::string(port);
  if (!is_loopback(host))
    return Error{
        "only a tool server on this machine can be reached (localhost, 127.0.0.1, "
        "[::1]); " +
        std::string(host) + " is not"};
  return out;
}

// ---- the transport ------------------------------------------------------------------------

StreamableHttp::StreamableHttp(HttpUrl url, size_t max_message_bytes, Callbacks callbacks)
    : url_(std::move(url)), max_bytes_(max_message_bytes), cb_(std::move(callbacks)) {}

StreamableHttp::~StreamableHttp() { stop(); }

std::string StreamableHttp::session_id() const {
  std::lock_guard<std::mutex> lock(mu_);
  return session_;
}

void StreamableHttp::set_protocol_version(const std::string& version) {
  std::lock_guard<std::mutex> lock(mu_);
  protocol_ = version;
}

void StreamableHttp::spawn(std::function<void()> work) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  // The exchanges that ended are joined here, so the list stays short.
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->done) {
      it->thread.join();
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
  Worker& w = workers_.emplace_back();
  w.thread = std::thread([&w, work = std::move(work)] {
    work();
    w.done = true;
  });
}

void StreamableHttp::post(std::string message, std::function<void(const std::string&)> on_failed) {
  spawn([this, message = std::move(message), on_failed = std::move(on_failed)] {
    const std::string error = run("POST", message, false);
    if (!error.empty() && on_failed && !stopping_) on_failed(error);
  });
}

void StreamableHttp::listen() {
  spawn([this] {
    int failures = 0;
    while (!stopping_) {
      const std::string error = run("GET", "", true);
      if (error == kNoStream || stopping_) return;
      if (!error.empty()) {
        if (++failures >= 3) {
          cb_.on_note("its stream of notifications failed 3 times (" + error +
                      "); not opened again");
          return;
        }
      } else {
        failures = 0;
      }
      for (int i = 0; i < 10 && !stopping_; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
}

void StreamableHttp::stop() {
  if (stop_called_.exchange(true)) return;
  // The session ends first (at most 2 s), while the other exchanges still run.
  if (!session_id().empty()) (void)run("DELETE", "", false);
  stopping_ = true;
  std::list<Worker> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    workers.swap(workers_);
  }
  for (Worker& w : workers) w.thread.join();
}

std::string StreamableHttp::run(const char* method, const std::string& body, bool is_listen) {
  std::string error;
  const int fd = connect_to(url_, &error);
  if (fd < 0) return error;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  std::string session, protocol;
  {
    std::lock_guard<std::mutex> lock(mu_);
    session = session_;
    protocol = protocol_;
  }
  const std::string request = request_text(url_, method, body, is_listen, session, protocol);
  if (!send_all(fd, request)) return std::string("cannot send to ") + url_.authority;

  HttpHead head;
  bool have_head = false, sse = false, oversized = false;
  std::string raw, json;
  std::unique_ptr<HttpBodyDecoder> decoder;
  SseParser events(
      max_bytes_, [this](SseEvent&& e) { cb_.on_message(std::move(e.data)); },
      [this](size_t n) { cb_.on_oversized(n); });
  std::string error_body;
  auto sink = [&](std::string_view bytes) {
    if (head.status >= 300) {
      if (error_body.size() < 300) error_body.append(bytes.substr(0, 300 - error_body.size()));
    } else if (sse) {
      events.feed(bytes);
    } else if (!oversized) {
      json.append(bytes);
      if (json.size() > max_bytes_) {
        oversized = true;
        cb_.on_oversized(json.size());
        json.clear();
      }
    }
  };
  const auto deadline = Clock::now() + std::chrono::seconds(2);  // a DELETE's
  const bool is_delete = std::strcmp(method, "DELETE") == 0;
  std::string buf(64 << 10, '\0');
  while (!(decoder && decoder->done())) {
    if (stopping_ && !is_delete) return "stopped";
    if (is_delete && Clock::now() > deadline) return "no answer to DELETE";
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, 100);
    if (ready < 0 && errno != EINTR) return std::strerror(errno);
    if (ready <= 0) continue;
    const ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (decoder && decoder->until_eof()) break;
      return have_head ? "the connection closed before the answer ended"
                       : "the connection closed without an answer";
    }
    std::string_view got(buf.data(), static_cast<size_t>(n));
    if (!have_head) {
      raw.append(got);
      const size_t end = raw.find("\r\n\r\n");
      if (end == std::string::npos) {
        if (raw.size() > (64u << 10)) return "its answer's headers are over 64 KiB";
        continue;
      }
      if (!parse_http_head(std::string_view(raw).substr(0, end), head))
        return "its answer is not HTTP";
      have_head = true;
      if (const std::string id = head.header("mcp-session-id"); !id.empty()) {
        std::lock_guard<std::mutex> lock(mu_);
        if (session_.empty()) session_ = id;
      }
      if (head.status == 202 || head.status == 204) return "";
      if (is_listen && (head.status == 405 || head.status == 404)) return kNoStream;
      sse = lower(head.header("content-type")).find("text/event-stream") != std::string::npos;
      decoder = std::make_unique<HttpBodyDecoder>(head, sink);
      const std::string first = raw.substr(end + 4);  // the body's first bytes
      raw.clear();
      if (!decoder->feed(first)) return "its answer's chunked framing is broken";
      continue;
    }
    if (!decoder->feed(got)) return "its answer's chunked framing is broken";
  }
  if (head.status == 404 && !session.empty()) {
    if (cb_.on_session_lost)
      cb_.on_session_lost("lost its session: HTTP 404, the server no longer knows it");
    return "HTTP 404: the session ended";
  }
  if (head.status >= 300)
    return "HTTP " + std::to_string(head.status) + (error_body.empty() ? "" : ": " + error_body);
  if (!sse && !oversized && !json.empty()) cb_.on_message(std::move(json));
  return "";
}

}  // namespace kvchat::mcp
