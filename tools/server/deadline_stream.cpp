#include "server/deadline_stream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace kvchat::server {
namespace {

constexpr auto kSlice = std::chrono::milliseconds(100);  // how often a wait asks running_

// The numeric address and port of a socket address (a v4-mapped v6 address as v4 text, as
// httplib reports remote_addr).
void address_of(const sockaddr_storage& sa, std::string& addr, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (sa.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&sa);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
    port = ntohs(v4->sin_port);
  } else if (sa.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&sa);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
    port = ntohs(v6->sin6_port);
    if (std::strncmp(text, "::ffff:", 7) == 0 && std::strchr(text + 7, '.')) {
      addr = text + 7;
      return;
    }
  }
  addr = text;
}

}  // namespace

DeadlineStream::DeadlineStream(int fd, const ConnectionLimits& limits,
                               std::function<bool()> running)
    : fd_(fd), limits_(limits), running_(std::move(running)) {
  sockaddr_storage sa{};
  socklen_t len = sizeof(sa);
  if (getpeername(fd_, reinterpret_cast<sockaddr*>(&sa), &len) == 0) {
    address_of(sa, remote_ip_, remote_port_);
  }
  len = sizeof(sa);
  if (getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len) == 0) {
    address_of(sa, local_ip_, local_port_);
  }
}

bool DeadlineStream::wait(short events, Clock::time_point until) const {
  for (;;) {
    if (running_ && !running_()) return false;
    const auto now = Clock::now();
    if (now >= until) return false;
    const auto slice = std::min<Clock::duration>(until - now, kSlice);
    pollfd p{};
    p.fd = fd_;
    p.events = events;
    const int ms = static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(slice).count());
    const int r = poll(&p, 1, ms);
    if (r > 0) return true;  // ready, or an error/hang-up the next call reports
    if (r < 0 && errno != EINTR) return false;
  }
}

bool DeadlineStream::await_request() {
  timed_out_ = Phase::Idle;
  phase_ = Phase::Idle;
  if (off_ >= len_ && !wait(POLLIN, Clock::now() + limits_.keep_alive_idle)) return false;
  phase_ = Phase::Header;
  deadline_ = Clock::now() + limits_.header_timeout;
  last4_ = 0;
  return true;
}

bool DeadlineStream::is_readable() const {
  if (off_ < len_) return true;
  if (timed_out_ != Phase::Idle) return false;
  if (wait(POLLIN, deadline_)) return true;
  if (Clock::now() >= deadline_) timed_out_ = phase_;
  return false;
}

bool DeadlineStream::is_writable() const {
  if (timed_out_ != Phase::Idle) return false;
  if (!wait(POLLOUT, Clock::now() + limits_.write_timeout)) return false;
  // Alive: nothing to read yet, or something (not the end of the stream) to read.
  pollfd p{};
  p.fd = fd_;
  p.events = POLLIN;
  if (poll(&p, 1, 0) <= 0) return true;
  char byte;
  return recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
}

void DeadlineStream::saw(const char* p, size_t n) {
  if (phase_ != Phase::Header) return;
  for (size_t i = 0; i < n; ++i) {
    last4_ = (last4_ << 8) | static_cast<uint8_t>(p[i]);
    if (last4_ == 0x0d0a0d0au) {
      phase_ = Phase::Body;
      deadline_ = Clock::now() + limits_.body_timeout;
      return;
    }
  }
}

ssize_t DeadlineStream::read(char* ptr, size_t size) {
  if (off_ >= len_) {
    if (!is_readable()) return -1;
    ssize_t n;
    do {
      n = recv(fd_, buf_.data(), buf_.size(), MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return -1;  // poll said readable, recv disagrees: an error, the caller stops
    }
    if (n <= 0) return n;
    off_ = 0;
    len_ = static_cast<size_t>(n);
  }
  const size_t take = std::min(size, len_ - off_);
  std::memcpy(ptr, buf_.data() + off_, take);
  saw(ptr, take);
  off_ += take;
  return static_cast<ssize_t>(take);
}

ssize_t DeadlineStream::write(const char* ptr, size_t size) {
  if (!is_writable()) return -1;
  ssize_t n;
  do {
    n = send(fd_, ptr, size, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n;
}

void DeadlineStream::get_remote_ip_and_port(std::string& ip, int& port) const {
  ip = remote_ip_;
  port = remote_port_;
}

void DeadlineStream::get_local_ip_and_port(std::string& ip, int& port) const {
  ip = local_ip_;
  port = local_port_;
}

}  // namespace kvchat::server
