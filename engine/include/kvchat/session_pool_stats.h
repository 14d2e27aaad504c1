// What one session of a pool (engine/src/serving/session_pool: the server's sessions,
// taken by the request whose prompt they share most of) holds and has done, for the
// server's /health and the window's memory panel.
#pragma once

#include <cstdint>

namespace kvchat {

struct PooledSessionStats {
  int32_t index = 0;
  bool busy = false;
  bool created = false;  // false: the slot holds no session yet (or it was dropped)
  int32_t tokens = 0;    // tokens whose history (and KV) the session holds
  uint64_t kv_allocated_bytes = 0;
  uint64_t kv_shared_bytes = 0;   // of those, blocks another session holds too
  int64_t last_used_unix_ms = 0;  // 0: never used
  uint64_t requests = 0;          // requests served on it
};

}  // namespace kvchat
