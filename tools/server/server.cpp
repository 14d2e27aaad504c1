#include "kvchat/server.h"

#include <chrono>
#include <filesystem>
#include <utility>

#include "kvchat/chat_model.h"
#include "server/server_impl.h"

namespace kvchat {

std::optional<FieldError> check_server_options(const ServerOptions& o) {
  auto between = [](const char* field, int64_t v, int64_t lo, int64_t hi) {
    return std::optional<FieldError>{FieldError{field, "must be between " + std::to_string(lo) +
                                                           " and " + std::to_string(hi) + ", got " +
                                                           std::to_string(v)}};
  };
  if (o.parallel < 1 || o.parallel > 256) return between("parallel", o.parallel, 1, 256);
  if (o.port < 0 || o.port > 65535) return between("port", o.port, 0, 65535);
  // At most 768: Debian's httplib waits with select(), blind past descriptor 1024.
  if (o.max_connections < 1 || o.max_connections > 768) {
    return between("max_connections", o.max_connections, 1, 768);
  }
  if (o.max_connections_per_address < 1) {
    return FieldError{"max_connections_per_address",
                      "must be at least 1, got " + std::to_string(o.max_connections_per_address)};
  }
  for (auto [field, ms] : {std::pair{"header_timeout_ms", o.header_timeout_ms},
                           {"body_timeout_ms", o.body_timeout_ms},
                           {"keep_alive_idle_ms", o.keep_alive_idle_ms}}) {
    if (ms < 1) return FieldError{field, "must be positive, got " + std::to_string(ms)};
  }
  if (o.max_body_bytes < 1) return FieldError{"max_body_bytes", "must be at least 1"};
  return std::nullopt;
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() { stop(); }

Result<std::unique_ptr<Server>> Server::start(std::shared_ptr<const Model> model,
                                              ServerOptions options) {
  if (!model) return Error{"no model"};
  if (auto e = check_server_options(options)) return Error{e->field + " " + e->problem};
  if (options.api_key.empty() && !options.allow_no_key && !server_host_is_loopback(options.host)) {
    return Error{"refusing to serve on " + (options.host.empty() ? "all addresses" : options.host) +
                 " without an API key: other machines could use the model and read the "
                 "conversations; set a key (--api-key, --api-key-file or KVCHAT_API_KEY) or "
                 "say --allow-no-key"};
  }
  auto impl = std::make_unique<Impl>();
  if (options.model_id.empty()) {
    options.model_id = std::filesystem::path(model->info().path).stem().string();
    if (options.model_id.empty()) options.model_id = "kvchat";
  }
  auto format = chat_format_for(*model, options.chat_template, options.enable_thinking);
  if (!format) return Error{"the model's chat format: " + format.message()};
  impl->format = std::move(format).value();
  serving::SessionPoolOptions pool_options;
  pool_options.n_sessions = options.parallel;
  pool_options.kv_budget_bytes = options.kv_budget_bytes;
  pool_options.ram_tier = options.ram_tier;
  pool_options.session = options.session;
  pool_options.session.kv_share_prefix = options.share_prefix_blocks;
  auto pool = serving::SessionPool::create(model, pool_options);
  if (!pool) return Error{pool.message()};
  impl->pool = std::move(pool).value();
  impl->model = std::move(model);
  impl->log.set_capacity(options.request_log_size);
  impl->log_message_text = options.log_message_text;
  impl->options = std::move(options);
  impl->started_unix = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();

  server::GuardedHttpServer& http = impl->http;
  server::ConnectionLimits limits;
  limits.header_timeout = std::chrono::milliseconds(impl->options.header_timeout_ms);
  limits.body_timeout = std::chrono::milliseconds(impl->options.body_timeout_ms);
  limits.keep_alive_idle = std::chrono::milliseconds(impl->options.keep_alive_idle_ms);
  http.configure(impl->options.max_connections, impl->options.max_connections_per_address, limits);
  http.set_payload_max_length(impl->options.max_body_bytes);
  http.set_keep_alive_max_count(100);
  http.set_keep_alive_timeout((impl->options.keep_alive_idle_ms + 999) / 1000);  // its header
  // SO_REUSEADDR only (a restart rebinds at once), not httplib's default SO_REUSEPORT,
  // with which a second server on the same port would silently share its connections.
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof(yes));
  });
  http.set_read_timeout(10);
  http.set_write_timeout(10);
  server::install_routes(*impl);

  const std::string& host = impl->options.host;
  if (impl->options.port == 0) {
    impl->port = http.bind_to_any_port(host);
    if (impl->port < 0) return Error{"cannot listen on " + host + " (any port)"};
  } else {
    if (!http.bind_to_port(host, impl->options.port)) {
      return Error{"cannot listen on " + host + ":" + std::to_string(impl->options.port) +
                   " (in use, or not an address of this machine)"};
    }
    impl->port = impl->options.port;
  }
  http.widen_backlog();
  Impl* raw = impl.get();
  impl->listener = std::thread([raw] {
    raw->http.listen_after_bind();
    raw->listener_done = true;
  });
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

std::string Server::url() const {
  const std::string& host = impl_->options.host;
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(impl_->port);
}

int Server::port() const { return impl_->port; }

void Server::stop() {
  if (!impl_) return;
  impl_->stopping = true;
  // stop() does nothing until listen_after_bind() has begun: repeat it until it returns.
  while (impl_->listener.joinable() && !impl_->listener_done.load()) {
    impl_->http.stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (impl_->listener.joinable()) impl_->listener.join();
}

std::vector<ServerSessionStats> server::with_clients(
    const Server::Impl& impl, const std::vector<PooledSessionStats>& sessions) {
  std::vector<ServerSessionStats> out;
  out.reserve(sessions.size());
  for (const PooledSessionStats& pooled : sessions) {
    ServerSessionStats st;
    static_cast<PooledSessionStats&>(st) = pooled;
    SessionClient client = impl.log.session_client(pooled.index);
    st.client_address = std::move(client.address);
    st.user_agent = std::move(client.user_agent);
    st.model = std::move(client.model);
    out.push_back(std::move(st));
  }
  return out;
}

ServerStats server::collect_stats(const Server::Impl& impl) {
  ServerStats s;
  s.model_id = impl.options.model_id;
  s.sessions = with_clients(impl, impl.pool->stats());
  for (const auto& st : s.sessions) {
    (st.busy ? s.busy : s.idle) += 1;
    s.kv_allocated_bytes += st.kv_allocated_bytes;
  }
  s.kv_shared_bytes = impl.pool->kv_shared_bytes();
  s.kv_budget_bytes = impl.options.kv_budget_bytes;
  if (impl.options.ram_tier) s.ram_tier = impl.options.ram_tier->stats();
  s.requests = impl.requests.load();
  s.rejected_busy = impl.rejected_busy.load();
  s.client_hang_ups = impl.client_hang_ups.load();
  s.prompt_tokens_evaluated = impl.prompt_tokens_evaluated.load();
  s.connections_open = impl.http.guard().open();
  s.connections_refused = impl.http.counters().refused.load();
  s.requests_timed_out = impl.http.counters().timed_out.load();
  const serving::DecodeBatchStats batches = impl.batcher.stats();
  s.decode_batches = batches.batches;
  s.decode_steps = batches.steps;
  s.max_decode_batch = batches.max_batch;
  return s;
}

ServerStats Server::stats() const { return server::collect_stats(*impl_); }

std::vector<ServerRequestRecord> Server::recent_requests(size_t max) const {
  return impl_->log.recent(max);
}

void Server::set_log_message_text(bool on) {
  impl_->log_message_text = on;
  if (!on) impl_->log.drop_message_texts();
}

std::vector<std::string> server_endpoints() {
  // As install_routes (http_routes.cpp) registers them.
  return {"GET /v1/models", "GET /v1/models/{id}", "POST /v1/chat/completions",
          "POST /v1/completions", "GET /health"};
}

}  // namespace kvchat
