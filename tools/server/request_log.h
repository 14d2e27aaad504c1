// RequestLog: what the server remembers of its clients for the app's server view: the last
// requests answered (a bounded ring, read newest first) and each pooled session's last
// client. It holds only what ServerRequestRecord says (never a key, never a body unless
// the user asked for the message text). Thread-safe: the connections' threads write, the
// stats' readers read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/server.h"

namespace kvchat::server {

inline constexpr size_t kMaxShownHeaderBytes = 200;  // a User-Agent, a model name, a route
inline constexpr size_t kMaxLoggedMessageChars = 200;

// `text` cut to at most `max_bytes` on a UTF-8 character boundary, control characters
// (newlines included) as spaces: a line the window can show as it is.
std::string shown_text(std::string_view text, size_t max_bytes = kMaxShownHeaderBytes);
// The first `max_chars` characters (UTF-8 code points) of `text`, as shown_text shows them.
std::string first_characters(std::string_view text, size_t max_chars);

struct SessionClient {
  std::string address;
  std::string user_agent;
  std::string model;
};

class RequestLog {
 public:
  // Before use: how many records are kept (0: none).
  void set_capacity(size_t capacity);
  void add(ServerRequestRecord record);
  // The last `max` records, newest first.
  std::vector<ServerRequestRecord> recent(size_t max) const;
  // Every record's message_text emptied (the user turned the logging of texts off).
  void drop_message_texts();

  void set_session_client(int32_t index, SessionClient client);
  SessionClient session_client(int32_t index) const;  // empty when none yet

 private:
  mutable std::mutex mu_;
  size_t capacity_ = 200;
  std::vector<ServerRequestRecord> ring_;  // full: next_ is the oldest, overwritten next
  size_t next_ = 0;
  std::vector<SessionClient> sessions_;  // by session index, grown on demand
};

}  // namespace kvchat::server
