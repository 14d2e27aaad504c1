// MCP's Streamable HTTP transport, client side, to a server on this machine (a loopback
// URL): every JSON-RPC message is POSTed to the server's one endpoint, with
// `Accept: application/json, text/event-stream`; what answers a request comes back as one
// JSON body or as a server-sent event stream (which may carry the server's own requests
// and notifications first); a notification or a response is accepted with 202 and no
// body. The session the server names (`Mcp-Session-Id` on its answer to initialize) and
// the protocol version negotiated go with every later message; a GET on the endpoint
// opens the stream of the server's own messages (when it offers one); stop() ends the
// session with a DELETE. Plain HTTP/1.1 on a socket of its own per exchange (no
// library): one connection per message, `Connection: close`, chunked bodies decoded.
// Every limit is a message: a body or event over max_message_bytes is dropped and said.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "kvchat/result.h"
#include "util/sse_parser.h"

namespace kvchat::mcp {

struct HttpUrl {
  std::string host;       // as written ("127.0.0.1", "localhost", "::1")
  std::string port;       // "80" when the URL names none
  std::string path;       // "/" when the URL names none; the query kept
  std::string authority;  // the Host header: host[:port] as written
};
// http://HOST[:PORT][/PATH] with HOST a loopback name or address (localhost, 127.x.x.x,
// [::1]); anything else is an Error that says why (https, another machine, no host).
Result<HttpUrl> parse_loopback_url(std::string_view url);

// An HTTP answer's head: its status and headers (names lower-cased); false when the text
// (up to the blank line, not included) is not an HTTP status line and headers.
struct HttpHead {
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string header(const char* name) const;  // "" when absent
};
bool parse_http_head(std::string_view text, HttpHead& head);

// An answer's body as it arrives, decoded: chunked, of a Content-Length, or up to the end
// of the connection; the bytes go to the sink. feed() false: the chunked framing is broken
// (a size that is not hex, no CRLF after a chunk, a size line over 4 KiB).
class HttpBodyDecoder {
 public:
  HttpBodyDecoder(const HttpHead& head, std::function<void(std::string_view)> sink);
  bool feed(std::string_view bytes);
  bool done() const { return done_; }  // the whole body has come
  bool until_eof() const { return mode_ == Mode::Eof; }

 private:
  enum class Mode { Eof, Length, Chunked } mode_ = Mode::Eof;
  std::function<void(std::string_view)> sink_;
  uint64_t left_ = 0;
  std::string buf_;
  bool done_ = false, need_crlf_ = false, in_trailer_ = false;
};

class StreamableHttp {
 public:
  struct Callbacks {
    std::function<void(std::string&&)> on_message;    // one JSON-RPC message (or batch), as text
    std::function<void(size_t)> on_oversized;         // a message over the limit was dropped
    std::function<void(const std::string&)> on_note;  // for the server's log
    // The server no longer knows the session (404 to a message that named it).
    std::function<void(const std::string&)> on_session_lost;
  };
  StreamableHttp(HttpUrl url, size_t max_message_bytes, Callbacks callbacks);
  ~StreamableHttp();
  StreamableHttp(const StreamableHttp&) = delete;
  StreamableHttp& operator=(const StreamableHttp&) = delete;

  // POSTs one message on a thread of its own; what the server sends back goes to
  // on_message. on_failed gets why when there is no answer (no connection, an HTTP error).
  void post(std::string message, std::function<void(const std::string&)> on_failed);
  // Sent as MCP-Protocol-Version with every later message.
  void set_protocol_version(const std::string& version);
  // Opens the GET stream of the server's own messages (notifications/tools/list_changed):
  // kept open, opened again when the server ends it; a server that offers none (405, 404)
  // is left alone.
  void listen();
  // Ends every exchange, DELETEs the session (when there is one), joins the threads.
  void stop();
  std::string session_id() const;

 private:
  struct Exchange;
  std::string run(const char* method, const std::string& body, bool is_listen);
  void spawn(std::function<void()> work);
  HttpUrl url_;
  size_t max_bytes_;
  Callbacks cb_;
  mutable std::mutex mu_;
  std::string session_, protocol_;
  std::atomic<bool> stop_called_{false};
  std::atomic<bool> stopping_{false};  // every exchange ends
  struct Worker {
    std::thread thread;
    std::atomic<bool> done{false};
  };
  std::list<Worker> workers_;  // guarded by mu_
};

}  // namespace kvchat::mcp
