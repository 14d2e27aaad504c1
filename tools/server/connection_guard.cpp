#include "server/connection_guard.h"

#include <sys/socket.h>

#include <string_view>

namespace kvchat::server {

ConnectionGuard::Verdict ConnectionGuard::admit(const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  if (total_ >= max_total_) return Verdict::kTooMany;
  int32_t& from = per_address_[address];
  if (from >= max_per_address_) {
    if (from == 0) per_address_.erase(address);
    return Verdict::kTooManyFromAddress;
  }
  ++from;
  ++total_;
  return Verdict::kAdmitted;
}

void ConnectionGuard::release(const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = per_address_.find(address);
  if (it == per_address_.end()) return;
  if (--it->second <= 0) per_address_.erase(it);
  --total_;
}

int32_t ConnectionGuard::open() const {
  std::lock_guard<std::mutex> lock(mu_);
  return total_;
}

void send_refusal(int fd, ConnectionGuard::Verdict verdict) {
  const bool per_address = verdict == ConnectionGuard::Verdict::kTooManyFromAddress;
  const std::string_view body =
      per_address ? R"({"error":{"message":"Too many connections from this address",)"
                    R"("type":"rate_limit_error","code":"too_many_connections"}})"
                  : R"({"error":{"message":"Too many connections: the server is full",)"
                    R"("type":"server_error","code":"too_many_connections"}})";
  std::string reply =
      per_address ? "HTTP/1.1 429 Too Many Requests\r\n" : "HTTP/1.1 503 Service Unavailable\r\n";
  reply += "Content-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\n";
  reply += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  reply += body;
  // A full send buffer (it never is on a fresh connection) just loses the answer.
  (void)send(fd, reply.data(), reply.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  // What the client already sent, read away so that close() sends FIN, not RST (which
  // could discard the answer before the client reads it).
  char sink[4096];
  for (int i = 0; i < 16 && recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; ++i) {
  }
  shutdown(fd, SHUT_WR);
}

}  // namespace kvchat::server
