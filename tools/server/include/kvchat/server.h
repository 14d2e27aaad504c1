// Server: a local OpenAI-compatible HTTP server on one loaded model (kvchat-cli serve; the
// app may embed it). Routes: GET /v1/models, POST /v1/chat/completions (streamed as
// server-sent events or not), POST /v1/completions, GET /health. Up to `parallel`
// requests generate at once, each on its own Session (paged KV over the shared weights)
// taken from a pool that prefers the idle session holding the longest common prefix of
// the request's prompt tokens. Every answer is recorded in a bounded request log
// (recent_requests: route, status, tokens, duration, the client; never its key or its
// messages unless log_message_text), and each session keeps its last client (stats()).
// Closed by default: 127.0.0.1, a body limit, an optional bearer key, no CORS headers
// unless asked for. No exceptions cross this API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/grammar.h"
#include "kvchat/kv_ram_tier.h"
#include "kvchat/model.h"
#include "kvchat/result.h"
#include "kvchat/sampling_config.h"
#include "kvchat/session.h"
#include "kvchat/session_pool_stats.h"

namespace kvchat {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;      // 0: the OS chooses (port() says which)
  std::string api_key;  // "" = no key; else every route needs "Bearer <key>"
  // A host beyond loopback (0.0.0.0, a LAN address) without an api_key is refused by
  // start() unless this says the user chose it knowingly (--allow-no-key).
  bool allow_no_key = false;
  int32_t parallel = 4;          // sessions, i.e. requests generating at once: 1..256
  uint64_t kv_budget_bytes = 0;  // idle sessions' KV dropped (LRU) beyond it; 0 = none
  // The RAM tier idle sessions count in (with the app's other idle KV), its budget dropping
  // the least recently used; null: none (kvchat/kv_ram_tier.h).
  std::shared_ptr<KvRamTier> ram_tier;
  uint64_t max_body_bytes = 8ull << 20;  // larger request bodies get 413
  // Connections (slow and idle clients, issue 40): at most max_connections open at once and
  // max_connections_per_address from one peer address (the next is refused at once: 503,
  // 429); a request's header must arrive whole within header_timeout_ms of its first byte
  // and its body within body_timeout_ms of the header (else 408, closed); a kept-alive
  // connection idle for keep_alive_idle_ms is closed. A thread serves each open connection.
  int32_t max_connections = 256;
  int32_t max_connections_per_address = 32;
  int32_t header_timeout_ms = 10000;
  int32_t body_timeout_ms = 60000;
  int32_t keep_alive_idle_ms = 5000;
  bool cors = false;  // Access-Control-Allow-* headers on every response
  // Browser origins ("http://localhost:3000", exact, or "*") whose requests are served
  // (and answered with CORS headers for that origin); a request with another Origin gets
  // 403 unless cors is on (any origin). On a loopback host a request whose Host is not a
  // loopback name or address (with the bound port, or none) gets 421 (DNS rebinding).
  std::vector<std::string> allowed_origins;
  std::string model_id;            // the name clients use; "" = the file's stem
  SessionOptions session;          // backend, n_ctx, kv_type, ... of every session
  int32_t max_tokens_default = 0;  // without max_tokens: <= 0 = until the context ends
  // Sessions whose prompts begin alike hold those KV blocks once (reference-counted,
  // copied on write: SessionOptions::kv_share_prefix).
  bool share_prefix_blocks = true;
  // The chat template: "" = the file's, else as ChatFormat::for_model's override_text
  // ("builtin:<name>" or Jinja source).
  std::string chat_template;
  // The template's enable_thinking (ChatFormat::set_enable_thinking); a request's
  // chat_template_kwargs.enable_thinking overrides it. Unset: not passed.
  std::optional<bool> enable_thinking;
  // The grammar of every reply whose request asks for no response_format and offers no
  // tools (kvchat-cli serve --grammar, --json-schema, --json-object); null: free text.
  std::shared_ptr<const grammar::Grammar> default_grammar;
  // The request log (Server::recent_requests) keeps this many of the last requests.
  size_t request_log_size = 200;
  // The log records the last user message's (or the prompt's) first 200 characters too.
  // Off unless the user turns it on: the log otherwise holds nothing a client wrote beyond
  // its route, model and User-Agent (never the key, never a message).
  bool log_message_text = false;
};

// One pooled session, for /health and the app's server view: the pool's figures and the
// client that last used it (each as that client said: its peer address, its User-Agent
// header cut to 200 bytes, the model its request named).
struct ServerSessionStats : PooledSessionStats {
  std::string client_address;  // "" = no request yet
  std::string user_agent;
  std::string model;
};

// One request the server answered, for the app's live log. Never the Authorization
// header or key, never the body (message_text only with ServerOptions::log_message_text).
struct ServerRequestRecord {
  int64_t time_unix_ms = 0;  // when its header had arrived
  std::string method;        // "GET", "POST", ...
  std::string route;         // the path only, no query string
  // The answer's status; 499 (nginx's "client closed request") when the client hung up
  // before the whole answer was written.
  int status = 0;
  int32_t prompt_tokens = 0;  // completions: the prompt's, and the tokens generated
  int32_t completion_tokens = 0;
  int64_t duration_ms = 0;  // from its header to the answer's last byte (a stream's end)
  std::string client_address;
  std::string user_agent;    // at most 200 bytes
  std::string model;         // the model a completion named; "" for other routes
  int32_t session = -1;      // the pooled session that served it; -1: none
  std::string message_text;  // "" unless log_message_text was on
};

// The routes the server offers, "METHOD /path" ({id}: a model's id).
std::vector<std::string> server_endpoints();

struct ServerStats {
  std::string model_id;
  int32_t busy = 0, idle = 0;       // idle counts every slot not busy (created or not)
  uint64_t kv_allocated_bytes = 0;  // the sum over sessions (a shared block in each)
  uint64_t kv_shared_bytes = 0;     // the blocks held by more than one session, once each
  uint64_t kv_budget_bytes = 0;
  std::optional<KvRamTierStats> ram_tier;  // with ServerOptions::ram_tier
  uint64_t requests = 0;                   // completions started
  uint64_t rejected_busy = 0;              // 503s: every session busy
  uint64_t client_hang_ups = 0;            // generations cancelled because the client went away
  // Connections: open now, refused at once over a cap, closed with 408 past a deadline.
  int32_t connections_open = 0;
  uint64_t connections_refused = 0;
  uint64_t requests_timed_out = 0;
  // Prompt tokens run through the model (those reused from a session's KV are not).
  uint64_t prompt_tokens_evaluated = 0;
  // Batched decode: forward passes run for the generating requests' steps, and the steps
  // they computed (decode_steps / decode_batches: the mean batch).
  uint64_t decode_batches = 0;
  uint64_t decode_steps = 0;
  int32_t max_decode_batch = 0;
  std::vector<ServerSessionStats> sessions;
};

// The first of `options`' values the server cannot take, in neutral words naming its field
// (ServerOptions' member name: "parallel", "port", "max_connections", "header_timeout_ms",
// ...); each front end says it its own way (kvchat-cli serve: its flag).
std::optional<FieldError> check_server_options(const ServerOptions& options);

// True for the names and addresses only this machine reaches: localhost, 127.0.0.0/8,
// ::1 (brackets allowed). 0.0.0.0, "" and every other address are beyond loopback.
bool server_host_is_loopback(std::string_view host);

class Server {
 public:
  // Binds host:port and serves on background threads until stop() or destruction.
  static Result<std::unique_ptr<Server>> start(std::shared_ptr<const Model> model,
                                               ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  std::string url() const;  // "http://127.0.0.1:8080"
  int port() const;
  // Stops accepting, cancels generations in flight, waits for the threads. Idempotent.
  void stop();
  ServerStats stats() const;
  // The last `max` requests answered (at most ServerOptions::request_log_size), newest first.
  std::vector<ServerRequestRecord> recent_requests(size_t max = 200) const;
  // ServerOptions::log_message_text while serving; turned off, the texts already
  // recorded are dropped too.
  void set_log_message_text(bool on);

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kvchat
