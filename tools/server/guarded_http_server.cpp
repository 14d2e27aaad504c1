#include "server/guarded_http_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "server/elastic_thread_pool.h"

namespace kvchat::server {
namespace {

thread_local bool t_close_after_response = false;

// A 408 for a request whose header or body did not arrive in time (the connection closes).
void send_timeout(int fd, DeadlineStream::Phase phase, const ConnectionLimits& limits) {
  const bool header = phase == DeadlineStream::Phase::Header;
  const auto ms = (header ? limits.header_timeout : limits.body_timeout).count();
  const std::string body = std::string(R"({"error":{"message":"the request's )") +
                           (header ? "header" : "body") + " did not arrive within " +
                           std::to_string(ms) + R"( ms","type":"invalid_request_error",)" +
                           R"("code":"request_timeout"}})";
  std::string reply = "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\n";
  reply += "Connection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  reply += body;
  (void)send(fd, reply.data(), reply.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

}  // namespace

void close_connection_after_response() { t_close_after_response = true; }

void GuardedHttpServer::configure(int32_t max_connections, int32_t max_per_address,
                                  const ConnectionLimits& limits) {
  guard_ = std::make_unique<ConnectionGuard>(max_connections, max_per_address);
  limits_ = limits;
  max_connections_ = max_connections;
  // A thread for every admitted connection, and a few to refuse the ones over the caps.
  const size_t threads = static_cast<size_t>(max_connections) + 8;
  new_task_queue = [threads] { return new ElasticThreadPool(threads); };
}

void GuardedHttpServer::widen_backlog() {
  const socket_t sock = svr_sock_;
  if (sock != INVALID_SOCKET) ::listen(sock, max_connections_);  // Linux: updates the backlog
}

bool GuardedHttpServer::process_and_close_socket(socket_t sock) {
  // stop() closes the listening socket at once (is_running() turns false only after every
  // connection's task has returned, so the waits must not ask it).
  const auto listening = [this] { return svr_sock_ != INVALID_SOCKET; };
  DeadlineStream stream(sock, limits_, listening);
  std::string peer;
  int peer_port = 0;
  stream.get_remote_ip_and_port(peer, peer_port);
  const ConnectionGuard::Verdict verdict = guard_->admit(peer);
  if (verdict != ConnectionGuard::Verdict::kAdmitted) {
    ++counters_.refused;
    send_refusal(sock, verdict);
    close(sock);
    return true;
  }
  int one = 1;
  setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));

  bool ok = true;
  for (size_t left = keep_alive_max_count_; left > 0 && listening(); --left) {
    if (!stream.await_request()) break;
    bool closed = false;
    t_close_after_response = false;
    ok = process_request(stream, /*close_connection=*/left == 1, closed, nullptr);
    if (stream.timed_out() != DeadlineStream::Phase::Idle) {
      ++counters_.timed_out;
      send_timeout(sock, stream.timed_out(), limits_);
      break;
    }
    if (!ok || closed || t_close_after_response) break;
  }
  shutdown(sock, SHUT_RDWR);
  close(sock);
  guard_->release(peer);
  return ok;
}

}  // namespace kvchat::server
