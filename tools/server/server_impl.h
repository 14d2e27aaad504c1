// Server::Impl: what the routes and the lifecycle share (engine-internal).
#pragma once

#include <httplib.h>

#include <atomic>
#include <memory>
#include <optional>
#include <thread>

#include "kvchat/chat_format.h"
#include "kvchat/server.h"
#include "serving/decode_batcher.h"
#include "serving/generation.h"
#include "server/guarded_http_server.h"
#include "server/request_log.h"
#include "serving/session_pool.h"

namespace kvchat {

struct Server::Impl {
  std::shared_ptr<const Model> model;
  ServerOptions options;
  std::optional<ChatFormat> format;
  std::unique_ptr<serving::SessionPool> pool;
  server::GuardedHttpServer http;  // admits, bounds and times its connections
  std::thread listener;
  std::atomic<bool> listener_done{false};
  int port = 0;
  int64_t started_unix = 0;
  std::atomic<bool> stopping{false};  // every generation checks it before each step
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> rejected_busy{0};
  std::atomic<uint64_t> client_hang_ups{0};
  std::atomic<uint64_t> prompt_tokens_evaluated{0};  // prompt tokens run through the model
  serving::DecodeBatcher batcher;  // the generating requests' decode steps, one forward pass each
  server::RequestLog log;          // the last requests answered, each session's last client
  std::atomic<bool> log_message_text{false};  // ServerOptions::log_message_text, as set now
};

namespace server {
using serving::run_generation;
using serving::SessionLease;

// Installs the routes, the key check, the error bodies and (with --cors) the CORS headers.
void install_routes(Server::Impl& impl);
// The pool's sessions and the counters, as Server::stats() and /health report them.
ServerStats collect_stats(const Server::Impl& impl);
// The pool's figures of these sessions with each one's last client.
std::vector<ServerSessionStats> with_clients(const Server::Impl& impl,
                                             const std::vector<PooledSessionStats>& sessions);
}  // namespace server

}  // namespace kvchat
