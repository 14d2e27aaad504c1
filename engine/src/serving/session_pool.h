// SessionPool: N sessions over one model for concurrent requests (no HTTP here).
// acquire(prompt) leases the idle session whose token history shares the longest prefix
// with the prompt (its KV for that prefix is reused; while a slot is free, only when that
// prefix is at least half of what the session holds), else an empty slot (a new
// session), else the least recently used idle one; none when every slot is busy (the caller says
// 503). Idle sessions keep their KV; when the KV allocated by all sessions exceeds the
// budget, the least recently used idle sessions are dropped until it fits.
// Client identities (the caller's: API key or address): a session's KV is reused, and its
// prefix blocks shared, only within the identity that last used it. Another identity may
// take it as the least recently used one, but it is emptied first (a full re-evaluation,
// nothing cached), and each identity's sessions share prefix blocks in a store scope of
// their own (Session::set_kv_share_scope), so which session a prompt gets and how much
// of it is evaluated never depends on another identity's prompts.
// RAM tier (kvchat/kv_ram_tier.h): with options.ram_tier, each idle session that holds KV
// is an external entry of that tier (its allocated KV bytes): the tier's budget, shared
// with the app's conversations, branches and summary jobs, drops the least recently used
// of them all; a leased session leaves the tier until it is released again.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kvchat/kv_ram_tier.h"
#include "kvchat/result.h"
#include "kvchat/session_pool_stats.h"
#include "kvchat/session.h"

namespace kvchat::serving {

struct SessionPoolOptions {
  int32_t n_sessions = 4;
  uint64_t kv_budget_bytes = 0;  // 0: no limit
  SessionOptions session;
  std::shared_ptr<KvRamTier> ram_tier;  // null: idle sessions are not counted in one
};

class SessionPool;

// A leased session; returns it to the pool (idle, KV kept) when destroyed.
class SessionLease {
 public:
  SessionLease(SessionLease&& other) noexcept;
  SessionLease& operator=(SessionLease&&) = delete;
  SessionLease(const SessionLease&) = delete;
  ~SessionLease();

  Session& session() { return *session_; }
  int32_t index() const { return index_; }
  // Tokens of the prompt the session already held when it was leased (its reusable prefix).
  int32_t common_prefix() const { return common_prefix_; }

 private:
  friend class SessionPool;
  SessionLease(SessionPool* pool, int32_t index, Session* session, int32_t common_prefix)
      : pool_(pool), index_(index), session_(session), common_prefix_(common_prefix) {}
  SessionPool* pool_;
  int32_t index_;
  Session* session_;
  int32_t common_prefix_;
};

class SessionPool {
 public:
  static Result<std::unique_ptr<SessionPool>> create(std::shared_ptr<const Model> model,
                                                     const SessionPoolOptions& options);
  ~SessionPool();
  SessionPool(const SessionPool&) = delete;
  SessionPool& operator=(const SessionPool&) = delete;

  // nullopt with busy = true when every session is busy; an Error when a new session
  // could not be created.
  struct Acquired {
    std::optional<SessionLease> lease;
    bool busy = false;
  };
  Result<Acquired> acquire(std::span<const TokenId> prompt, const std::string& identity = "");

  std::vector<PooledSessionStats> stats() const;
  // The sessions `identity` used last (the others are left out).
  std::vector<PooledSessionStats> stats_for(const std::string& identity) const;
  uint64_t kv_allocated_bytes() const;
  // The blocks shared between sessions, each counted once (as of the last release).
  uint64_t kv_shared_bytes() const;
  int32_t size() const { return static_cast<int32_t>(slots_.size()); }

 private:
  friend class SessionLease;
  struct Slot {
    std::unique_ptr<Session> session;
    bool busy = false;
    std::chrono::steady_clock::time_point last_used{};
    int64_t last_used_unix_ms = 0;
    uint64_t requests = 0;
    std::string owner;   // the identity that leased it last
    uint64_t scope = 0;  // its sessions' prefix-sharing scope (0: not yet leased)
    // Cached while idle (a busy session's are read only by its own thread).
    int32_t tokens = 0;
    uint64_t kv_bytes = 0;
    uint64_t kv_shared_bytes = 0;
    uint64_t leases = 0;  // acquires so far: a tier eviction applies to the lease it saw
  };
  // What the tier's eviction callbacks reach: the pool while it lives.
  struct TierLink {
    std::mutex mu;
    SessionPool* pool = nullptr;
  };
  SessionPool() = default;
  void release(int32_t index);
  void enforce_budget_locked();  // mu_ held
  // Takes an idle slot's session out (its KV blocks go with it; the slot makes a new
  // session when needed) and zeroes its cached figures.  mu_ held
  std::unique_ptr<Session> drop_session_locked(Slot& slot);
  // The tier evicted idle slot `index` (of lease `lease`): its session goes, when it is
  // still idle and not leased since.
  void evict_idle(int32_t index, uint64_t lease);
  std::string tier_key(int32_t index) const;
  // The share scope of `identity`: that of a slot it owns, else a new one.  mu_ held
  uint64_t scope_for_locked(const std::string& identity);

  std::shared_ptr<const Model> model_;
  SessionPoolOptions options_;
  mutable std::mutex mu_;
  std::vector<Slot> slots_;
  uint64_t store_shared_bytes_ = 0;  // MemoryReport::kv_store_shared_bytes at the last release
  uint64_t next_scope_ = 1;
  std::shared_ptr<TierLink> tier_link_;
  std::string tier_prefix_;  // "server/<pool number>/"
};

}  // namespace kvchat::serving
