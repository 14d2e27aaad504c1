// GuardedHttpServer: httplib's server with its connections admitted and bounded (issue 40,
// slowloris). httplib gives every accepted connection a thread for as long as the client
// keeps it open, with only per-read timeouts, so a few dozen clients trickling header bytes
// held every thread and no one else was answered. Here each connection is
//  - admitted or refused at once (ConnectionGuard: caps per peer address and in total;
//    the refusal is a 429 or 503 written without reading anything),
//  - given TCP_NODELAY (a kept-alive response is not held back by Nagle's algorithm
//    waiting for the client's delayed ACK: 44 ms per response before),
//  - read through a DeadlineStream: a request's header and body each have a deadline for
//    the whole of it (408 and closed past it), an idle kept-alive connection is closed.
// Its threads come from an ElasticThreadPool with room for every admitted connection, so
// a legitimate client gets a thread while the slow ones wait out their deadlines.
#pragma once

#include <httplib.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "server/connection_guard.h"
#include "server/deadline_stream.h"

namespace kvchat::server {

struct ConnectionCounters {
  std::atomic<uint64_t> refused{0};    // over a cap: 429 or 503 at once
  std::atomic<uint64_t> timed_out{0};  // a header or body past its deadline: 408
};

// For a handler (it runs on its connection's thread): close the connection once this
// response is written, e.g. a refusal sent before the request's body was read.
void close_connection_after_response();

class GuardedHttpServer final : public httplib::Server {
 public:
  // Before bind: the caps, the deadlines, and a task queue sized for them.
  void configure(int32_t max_connections, int32_t max_per_address, const ConnectionLimits& limits);
  // After bind: a listen backlog of max_connections (httplib's is 5, so a burst of clients
  // lost their SYNs and waited seconds for the retry before anyone accepted them).
  void widen_backlog();
  const ConnectionGuard& guard() const { return *guard_; }
  const ConnectionCounters& counters() const { return counters_; }

 private:
  bool process_and_close_socket(socket_t sock) override;

  std::unique_ptr<ConnectionGuard> guard_ = std::make_unique<ConnectionGuard>(256, 32);
  ConnectionLimits limits_;
  int32_t max_connections_ = 256;
  ConnectionCounters counters_;
};

}  // namespace kvchat::server
