// Server-sent events (text/event-stream) read as the WHATWG HTML standard's "event stream
// interpretation" says: lines end with CRLF, LF or a lone CR; a leading BOM is dropped; a
// line starting with ':' is a comment; "field: value" (one space after the colon dropped, a
// line without a colon a field with an empty value); `data` lines joined with '\n', `event`
// the type ("message" when none), `id` the last event id (one holding NUL ignored; kept
// across events), `retry` the reconnection time in ms (digits only); a blank line
// dispatches the event unless its data is empty (the type is reset either way). An event's
// data over max_bytes is dropped and said. For MCP's Streamable HTTP and the OpenAI
// stream of a remote endpoint. No Qt; one stream per parser.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace kvchat {

struct SseEvent {
  std::string type = "message";
  std::string data;
  std::string last_event_id;
};

class SseParser {
 public:
  SseParser(size_t max_bytes, std::function<void(SseEvent&&)> on_event,
            std::function<void(size_t)> on_oversized)
      : max_(max_bytes), on_event_(std::move(on_event)), on_oversized_(std::move(on_oversized)) {}
  void feed(std::string_view bytes);
  // The last valid `retry:` field's milliseconds (nullopt: none came).
  std::optional<int64_t> retry_ms() const { return retry_ms_; }

 private:
  void line(std::string_view l);
  void dispatch();
  size_t max_;
  std::function<void(SseEvent&&)> on_event_;
  std::function<void(size_t)> on_oversized_;
  std::string pending_;
  std::string type_, data_, last_id_;
  bool has_data_ = false, dropping_ = false, started_ = false, after_cr_ = false;
  std::optional<int64_t> retry_ms_;
};

}  // namespace kvchat
