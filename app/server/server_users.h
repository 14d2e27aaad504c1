// How many more users the local server has room for: the memory left (the server's KV
// budget minus what its sessions hold, or without a budget the machine's available memory)
// over the average KV of a session that holds some. Pure, for the memory panel.
#pragma once

#include <cstdint>
#include <vector>

namespace kvchat::app {

// -1 when no session holds KV yet (nothing to average).
int64_t more_users_fit(uint64_t kv_budget_bytes, uint64_t available_bytes,
                       const std::vector<uint64_t>& session_kv_bytes);

}  // namespace kvchat::app
