// kvchat serve against slow and idle clients (issue 40 points 1 and 6): hundreds of slowloris
// connections do not keep a legitimate client waiting, connections over the per-address and
// total caps are refused at once, a header or body trickled in has a deadline for the whole
// of it, an idle kept-alive connection is closed, and accepted sockets have TCP_NODELAY.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "kvchat/server.h"
#include "server/client_socket.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::shared_ptr<const Model> demo() {
  static auto model = Model::load(test::shared_path("models/kjv-demo-f16.gguf"));
  EXPECT_TRUE(model) << model.message();
  return model ? *model : nullptr;
}

std::unique_ptr<Server> start(ServerOptions o) {
  o.port = 0;
  o.parallel = 1;
  o.session.n_ctx = 256;
  auto s = Server::start(demo(), o);
  EXPECT_TRUE(s) << s.message();
  return s ? std::move(s).value() : nullptr;
}

// A TCP connection from `source` (a 127.x.y.z address: another client to the server) to
// the server on 127.0.0.1:port, or -1.
int connect_from(const std::string& source, int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in from{};
  from.sin_family = AF_INET;
  inet_pton(AF_INET, source.c_str(), &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool send_all(int fd, const std::string& text) {
  return send(fd, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
}

// What the server sends until it closes the connection (or resets it), at most `within`.
struct Received {
  std::string data;
  bool closed = false;  // EOF or reset before `within` passed
  double seconds = 0;
};
Received read_until_closed(int fd, std::chrono::milliseconds within) {
  Received r;
  const auto t0 = Clock::now();
  char buf[4096];
  while (Clock::now() - t0 < within) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) {
      r.closed = true;
      break;
    }
    r.data.append(buf, static_cast<size_t>(n));
  }
  r.seconds = seconds_since(t0);
  return r;
}

// One complete response on a kept-alive connection (by its Content-Length).
std::string read_response(int fd) {
  std::string data;
  char buf[4096];
  for (;;) {
    const size_t head = data.find("\r\n\r\n");
    if (head != std::string::npos) {
      const size_t at = data.find("Content-Length: ");
      const size_t length = at == std::string::npos ? 0 : std::stoul(data.substr(at + 16));
      if (data.size() >= head + 4 + length) return data;
    }
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 5000) <= 0) return data;
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n <= 0) return data;
    data.append(buf, static_cast<size_t>(n));
  }
}

const std::string kHealth = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

// GET /health on a fresh connection from 127.0.0.1: its status (0: none) and seconds.
std::pair<int, double> timed_health(int port) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(5);
  c.set_read_timeout(5);
  const auto t0 = Clock::now();
  auto r = c.Get("/health");
  return {r ? r->status : 0, seconds_since(t0)};
}

// ---- point 1: slowloris ------------------------------------------------------------------

// 200 connections from 50 addresses, each trickling its header a byte at a time, are held
// (under the default caps) while a normal client is answered at once, again and again.
// Before: 2 x parallel + 16 threads, all taken by the first 18 slow connections.
TEST(ServerSlowClients, TwoHundredSlowConnectionsDoNotLockOutOthers) {
  auto s = start({});
  ASSERT_TRUE(s);
  std::vector<int> slow;
  for (int a = 2; a < 52; ++a) {
    for (int k = 0; k < 4; ++k) {
      const int fd = connect_from("127.0.0." + std::to_string(a), s->port());
      ASSERT_GE(fd, 0) << "connection " << slow.size();
      ASSERT_TRUE(send_all(fd, "GET /health HTTP/1.1\r\nX-Slow: "));
      slow.push_back(fd);
    }
  }
  std::atomic<bool> done{false};
  std::thread trickle([&] {
    while (!done) {
      for (int fd : slow) (void)send(fd, "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
  });
  // Every slow connection is in (none refused, none closed yet).
  const auto t0 = Clock::now();
  while (s->stats().connections_open < 200 && seconds_since(t0) < 10) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(s->stats().connections_open, 200);
  EXPECT_EQ(s->stats().connections_refused, 0u);
  double worst = 0;
  for (int i = 0; i < 5; ++i) {
    const auto [status, secs] = timed_health(s->port());
    EXPECT_EQ(status, 200) << "request " << i;
    worst = std::max(worst, secs);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_LT(worst, 1.0) << "a legitimate client waited beside 200 slow connections";
  done = true;
  trickle.join();
  const auto stop0 = Clock::now();
  s->stop();
  EXPECT_LT(seconds_since(stop0), 5.0) << "stop() waited for the slow connections";
  for (int fd : slow) close(fd);
}

// Past max_connections_per_address, a connection from that address gets 429 at once (before
// sending anything); past max_connections in all, 503 at once; a slot freed is usable again.
TEST(ServerSlowClients, ConnectionsOverTheCapsAreRefusedAtOnce) {
  ServerOptions o;
  o.max_connections = 6;
  o.max_connections_per_address = 4;
  auto s = start(o);
  ASSERT_TRUE(s);
  std::vector<int> held;
  for (int k = 0; k < 4; ++k) held.push_back(connect_from("127.0.0.2", s->port()));
  for (int fd : held) ASSERT_GE(fd, 0);
  const auto t0 = Clock::now();
  while (s->stats().connections_open < 4 && seconds_since(t0) < 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const int fifth = connect_from("127.0.0.2", s->port());
  ASSERT_GE(fifth, 0);
  Received r = read_until_closed(fifth, std::chrono::milliseconds(3000));
  EXPECT_TRUE(r.closed);
  EXPECT_LT(r.seconds, 1.0);
  EXPECT_EQ(r.data.rfind("HTTP/1.1 429", 0), 0u) << r.data;
  EXPECT_NE(r.data.find("Retry-After: 1"), std::string::npos) << r.data;
  close(fifth);

  for (int k = 0; k < 2; ++k) held.push_back(connect_from("127.0.0.3", s->port()));
  while (s->stats().connections_open < 6 && seconds_since(t0) < 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const int seventh = connect_from("127.0.0.4", s->port());
  ASSERT_GE(seventh, 0);
  r = read_until_closed(seventh, std::chrono::milliseconds(3000));
  EXPECT_TRUE(r.closed);
  EXPECT_LT(r.seconds, 1.0);
  EXPECT_EQ(r.data.rfind("HTTP/1.1 503", 0), 0u) << r.data;
  close(seventh);
  EXPECT_EQ(s->stats().connections_refused, 2u);

  close(held.back());  // one slot free again
  held.pop_back();
  const auto t1 = Clock::now();
  while (s->stats().connections_open > 5 && seconds_since(t1) < 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(timed_health(s->port()).first, 200);
  for (int fd : held) close(fd);
}

// A header trickled a byte every 200 ms never trips a per-read timeout; the deadline for the
// whole header does: the server answers 408 and closes.
TEST(ServerSlowClients, AHeaderTrickledInTimesOutAsAWhole) {
  ServerOptions o;
  o.header_timeout_ms = 1000;
  auto s = start(o);
  ASSERT_TRUE(s);
  const int fd = connect_from("127.0.0.1", s->port());
  ASSERT_GE(fd, 0);
  std::atomic<bool> done{false};
  std::thread trickle([&] {
    const std::string header = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    for (size_t i = 0; !done; ++i) {
      const char c = i < header.size() ? header[i] : 'a';
      if (send(fd, &c, 1, MSG_NOSIGNAL) != 1) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  });
  const Received r = read_until_closed(fd, std::chrono::milliseconds(4000));
  done = true;
  trickle.join();
  close(fd);
  EXPECT_TRUE(r.closed) << "the trickled header was still being read after 4 s";
  EXPECT_GT(r.seconds, 0.8);
  EXPECT_LT(r.seconds, 3.0);
  EXPECT_EQ(s->stats().requests_timed_out, 1u);
}

// A header that stops half-way: 408 naming the header's deadline.
TEST(ServerSlowClients, AStalledHeaderGets408) {
  ServerOptions o;
  o.header_timeout_ms = 800;
  auto s = start(o);
  ASSERT_TRUE(s);
  const int fd = connect_from("127.0.0.1", s->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(send_all(fd, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  const Received r = read_until_closed(fd, std::chrono::milliseconds(4000));
  close(fd);
  EXPECT_TRUE(r.closed);
  EXPECT_LT(r.seconds, 3.0);
  EXPECT_EQ(r.data.rfind("HTTP/1.1 408", 0), 0u) << r.data;
  EXPECT_NE(r.data.find("header did not arrive within 800 ms"), std::string::npos) << r.data;
}

// A body that stops after its header (Content-Length promised, a few bytes sent): 408.
TEST(ServerSlowClients, AStalledBodyGets408) {
  ServerOptions o;
  o.body_timeout_ms = 800;
  auto s = start(o);
  ASSERT_TRUE(s);
  const int fd = connect_from("127.0.0.1", s->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(send_all(fd,
                       "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"model\""));
  const Received r = read_until_closed(fd, std::chrono::milliseconds(4000));
  close(fd);
  EXPECT_TRUE(r.closed);
  EXPECT_LT(r.seconds, 3.0);
  EXPECT_EQ(r.data.rfind("HTTP/1.1 408", 0), 0u) << r.data;
  EXPECT_NE(r.data.find("body did not arrive within 800 ms"), std::string::npos) << r.data;
}

// A kept-alive connection that sends nothing more is closed after keep_alive_idle_ms, and
// one that keeps asking is served every time.
TEST(ServerSlowClients, AnIdleKeptAliveConnectionIsClosed) {
  ServerOptions o;
  o.keep_alive_idle_ms = 500;
  auto s = start(o);
  ASSERT_TRUE(s);
  const int fd = connect_from("127.0.0.1", s->port());
  ASSERT_GE(fd, 0);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(send_all(fd, kHealth));
    EXPECT_EQ(read_response(fd).rfind("HTTP/1.1 200", 0), 0u) << "request " << i;
  }
  const Received r = read_until_closed(fd, std::chrono::milliseconds(3000));
  close(fd);
  EXPECT_TRUE(r.closed) << "idle for 3 s and still open";
  EXPECT_TRUE(r.data.empty()) << r.data;
  EXPECT_GT(r.seconds, 0.3);
  EXPECT_LT(r.seconds, 2.0);
}

// ---- point 6: TCP_NODELAY ----------------------------------------------------------------

// The server's side of an accepted connection has TCP_NODELAY (Nagle's algorithm held each
// kept-alive response until the client's delayed ACK: 44 ms).
TEST(ServerSlowClients, AcceptedSocketsHaveNoDelay) {
  auto s = start({});
  ASSERT_TRUE(s);
  const int fd = connect_from("127.0.0.1", s->port());
  ASSERT_GE(fd, 0);
  ASSERT_TRUE(send_all(fd, kHealth));
  ASSERT_EQ(read_response(fd).rfind("HTTP/1.1 200", 0), 0u);
  sockaddr_in local{};
  socklen_t len = sizeof(local);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len), 0);
  // This process holds both ends: the server's is the socket whose peer is this one.
  const int accepted = server::find_client_socket("127.0.0.1", ntohs(local.sin_port), s->port());
  ASSERT_GE(accepted, 0);
  int nodelay = 0;
  socklen_t size = sizeof(nodelay);
  ASSERT_EQ(getsockopt(accepted, IPPROTO_TCP, TCP_NODELAY, &nodelay, &size), 0);
  EXPECT_NE(nodelay, 0);
  close(fd);
}

}  // namespace
}  // namespace kvchat
