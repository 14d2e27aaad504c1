#include "kvchat/server.h"

#include <chrono>
#include <filesystem>

#include "server/server_impl.h"

namespace kvchat {

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Server::~Server() { stop(); }

Result<std::unique_ptr<Server>> Server::start(std::shared_ptr<const Model> model,
                                              ServerOptions options) {
  if (!model) return Error{"no model"};
  if (options.parallel < 1) return Error{"--parallel must be at least 1"};
  if (options.port < 0 || options.port > 65535) {
    return Error{"--port must be between 0 and 65535, got " + std::to_string(options.port)};
  }
  auto impl = std::make_unique<Impl>();
  if (options.model_id.empty()) {
    options.model_id = std::filesystem::path(model->info().path).stem().string();
    if (options.model_id.empty()) options.model_id = "kvchat";
  }
  auto format = ChatFormat::for_model(*model, options.chat_template);
  if (!format) return Error{"the model's chat format: " + format.message()};
  format->set_enable_thinking(options.enable_thinking);
  impl->format = std::move(format).value();
  server::SessionPoolOptions pool_options;
  pool_options.n_sessions = options.parallel;
  pool_options.kv_budget_bytes = options.kv_budget_bytes;
  pool_options.session = options.session;
  pool_options.session.kv_share_prefix = options.share_prefix_blocks;
  auto pool = server::SessionPool::create(model, pool_options);
  if (!pool) return Error{pool.message()};
  impl->pool = std::move(pool).value();
  impl->model = std::move(model);
  impl->options = std::move(options);
  impl->started_unix = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();

  httplib::Server& http = impl->http;
  // Room for every generating request and as many waiting or refused ones again (and the
  // health checks) beside them.
  const size_t threads = static_cast<size_t>(impl->options.parallel) * 2 + 16;
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http.set_payload_max_length(impl->options.max_body_bytes);
  http.set_keep_alive_max_count(100);
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

ServerStats server::collect_stats(const Server::Impl& impl) {
  ServerStats s;
  s.model_id = impl.options.model_id;
  s.sessions = impl.pool->stats();
  for (const auto& st : s.sessions) {
    (st.busy ? s.busy : s.idle) += 1;
    s.kv_allocated_bytes += st.kv_allocated_bytes;
  }
  s.kv_shared_bytes = impl.pool->kv_shared_bytes();
  s.kv_budget_bytes = impl.options.kv_budget_bytes;
  s.requests = impl.requests.load();
  s.rejected_busy = impl.rejected_busy.load();
  s.client_hang_ups = impl.client_hang_ups.load();
  const server::DecodeBatchStats batches = impl.batcher.stats();
  s.decode_batches = batches.batches;
  s.decode_steps = batches.steps;
  s.max_decode_batch = batches.max_batch;
  return s;
}

ServerStats Server::stats() const { return server::collect_stats(*impl_); }

}  // namespace kvchat
