// DeadlineStream: one accepted connection as httplib reads and writes it, with the deadlines
// that keep a slow client from holding a thread (issue 40, slowloris). httplib's own
// stream times out per read, so a client sending a byte every few seconds keeps a request
// open for ever; here a request's header must arrive whole within header_timeout of its
// first byte, and its body within body_timeout of the header's end. Between requests a
// kept-alive connection waits at most keep_alive_idle for the next one.
#pragma once

#include <httplib.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace kvchat::server {

struct ConnectionLimits {
  std::chrono::milliseconds header_timeout{10000};
  std::chrono::milliseconds body_timeout{60000};
  std::chrono::milliseconds keep_alive_idle{5000};
  std::chrono::milliseconds write_timeout{10000};  // per write, as httplib's
};

class DeadlineStream final : public httplib::Stream {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Phase { Idle, Header, Body };

  // `running` is asked while waiting (a stopping server ends every wait within 0.1 s).
  DeadlineStream(int fd, const ConnectionLimits& limits, std::function<bool()> running);

  // Waits for the first byte of the next request (at most keep_alive_idle); its header's
  // deadline starts then. false: the connection went idle too long, closed, or the server
  // is stopping.
  bool await_request();
  // A read of the current request ran past its deadline: the phase it was in (Header or
  // Body), else Idle. Writes are refused from then on (the caller answers 408 itself).
  Phase timed_out() const { return timed_out_; }

  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return fd_; }

 private:
  // Polls fd_ for `events` until `until`, in slices that look at running_; true when ready.
  bool wait(short events, Clock::time_point until) const;
  // Notes the bytes handed to httplib: the header ends at its first empty line.
  void saw(const char* p, size_t n);

  int fd_;
  ConnectionLimits limits_;
  std::function<bool()> running_;
  std::string remote_ip_, local_ip_;
  int remote_port_ = 0, local_port_ = 0;
  std::array<char, 4096> buf_{};  // read ahead: httplib reads the header a byte at a time
  size_t off_ = 0, len_ = 0;      // buf_[off_, len_) not handed out yet
  Phase phase_ = Phase::Idle;
  Clock::time_point deadline_{};  // of the phase being read
  uint32_t last4_ = 0;            // the last 4 header bytes handed out ("\r\n\r\n" ends it)
  mutable Phase timed_out_ = Phase::Idle;
};

}  // namespace kvchat::server
