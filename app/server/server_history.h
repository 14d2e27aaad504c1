// ServerHistory: what the local server has done across its restarts (issue 43). A restart
// replaces the Server, and with it its counters and its request log; the controller keeps
// the replaced instances' here, so that a restart of the same server (the chat template
// changed, Settings' Restart) does not reset what the user sees. Cleared when the user
// turns the server off or it serves another model. Pure (no Qt but the record's map).
#pragma once

#include <QVariantMap>
#include <cstddef>
#include <vector>

#include "kvchat/server.h"

namespace kvchat::app {

class ServerHistory {
 public:
  // An instance being replaced (stopped: its log complete): its counters and log kept.
  void carry(const ServerStats& stats, std::vector<ServerRequestRecord> log, size_t max_log);
  void clear();
  // `now` with the earlier instances' counters added (the maximum batch: the largest).
  ServerStats with_earlier(ServerStats now) const;
  // `now` (newest first) followed by the earlier instances' records, at most `max`.
  std::vector<ServerRequestRecord> log_with_earlier(std::vector<ServerRequestRecord> now,
                                                    size_t max) const;
  // The user turned the logging of message texts off: none kept from before either.
  void drop_message_texts();

 private:
  ServerStats earlier_;                           // the counters only
  std::vector<ServerRequestRecord> earlier_log_;  // newest first
};

// A record as the server view shows it: {time (ms since the epoch), method, route, status,
// prompt_tokens, completion_tokens, duration_ms, client_address, user_agent, model,
// session, message_text}.
QVariantMap request_record_map(const ServerRequestRecord& r);

}  // namespace kvchat::app
