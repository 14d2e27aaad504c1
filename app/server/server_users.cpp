#include "server/server_users.h"

namespace kvchat::app {

int64_t more_users_fit(uint64_t kv_budget_bytes, uint64_t available_bytes,
                       const std::vector<uint64_t>& session_kv_bytes) {
  uint64_t held = 0, users = 0;
  for (uint64_t b : session_kv_bytes) {
    if (b == 0) continue;
    held += b;
    ++users;
  }
  if (users == 0) return -1;
  const uint64_t average = held / users;
  uint64_t room = available_bytes;
  if (kv_budget_bytes > 0) room = kv_budget_bytes > held ? kv_budget_bytes - held : 0;
  return average > 0 ? static_cast<int64_t>(room / average) : -1;
}

}  // namespace kvchat::app
