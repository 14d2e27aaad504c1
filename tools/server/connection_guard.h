// ConnectionGuard: admission of the server's TCP connections (issue 40, slowloris). It
// counts the connections open in total and from each peer address, and refuses one past
// either cap at once, before any byte of it is read; refused() writes the refusal.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace kvchat::server {

class ConnectionGuard {
 public:
  // Why a connection was let in or not.
  enum class Verdict { kAdmitted, kTooManyFromAddress, kTooMany };

  ConnectionGuard(int32_t max_total, int32_t max_per_address)
      : max_total_(max_total), max_per_address_(max_per_address) {}

  // Counts a connection from `address` unless that would pass a cap; kAdmitted means the
  // caller must release(address) when it closes.
  Verdict admit(const std::string& address);
  void release(const std::string& address);
  int32_t open() const;  // connections admitted and not yet released

 private:
  const int32_t max_total_;
  const int32_t max_per_address_;
  mutable std::mutex mu_;
  int32_t total_ = 0;
  std::unordered_map<std::string, int32_t> per_address_;
};

// Answers a refused connection without blocking: 429 (too many from its address) or 503
// (too many in all), JSON error body, Retry-After: 1, Connection: close. The caller closes.
void send_refusal(int fd, ConnectionGuard::Verdict verdict);

}  // namespace kvchat::server
