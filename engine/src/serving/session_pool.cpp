#include "serving/session_pool.h"

#include <atomic>

#include <algorithm>

namespace kvchat::serving {
namespace {

int32_t common_prefix_length(std::span<const TokenId> a, std::span<const TokenId> b) {
  const auto end = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  return static_cast<int32_t>(end.first - a.begin());
}

int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

SessionLease::SessionLease(SessionLease&& other) noexcept
    : pool_(other.pool_),
      index_(other.index_),
      session_(other.session_),
      common_prefix_(other.common_prefix_) {
  other.pool_ = nullptr;
}

SessionLease::~SessionLease() {
  if (pool_) pool_->release(index_);
}

Result<std::unique_ptr<SessionPool>> SessionPool::create(std::shared_ptr<const Model> model,
                                                         const SessionPoolOptions& options) {
  if (!model) return Error{"no model"};
  if (options.n_sessions < 1) return Error{"the pool needs at least one session"};
  std::unique_ptr<SessionPool> pool(new SessionPool());
  pool->model_ = std::move(model);
  pool->options_ = options;
  pool->slots_.resize(static_cast<size_t>(options.n_sessions));
  if (options.ram_tier) {
    static std::atomic<uint64_t> pools{0};
    pool->tier_prefix_ = "server/" + std::to_string(++pools) + "/";
    pool->tier_link_ = std::make_shared<TierLink>();
    pool->tier_link_->pool = pool.get();
  }
  return pool;
}

SessionPool::~SessionPool() {
  if (!tier_link_) return;
  {
    const std::lock_guard<std::mutex> lock(tier_link_->mu);
    tier_link_->pool = nullptr;  // an eviction already under way waits for this
  }
  options_.ram_tier->erase_prefix(tier_prefix_);
}

std::string SessionPool::tier_key(int32_t index) const {
  return tier_prefix_ + std::to_string(index);
}

std::unique_ptr<Session> SessionPool::drop_session_locked(Slot& slot) {
  slot.tokens = 0;
  slot.kv_bytes = 0;
  slot.kv_shared_bytes = 0;
  return std::move(slot.session);
}

void SessionPool::evict_idle(int32_t index, uint64_t lease) {
  std::unique_ptr<Session> gone;  // freed after the lock is let go
  {
    std::lock_guard lock(mu_);
    Slot& slot = slots_[static_cast<size_t>(index)];
    if (slot.busy || slot.leases != lease || !slot.session) return;
    gone = drop_session_locked(slot);
  }
}

uint64_t SessionPool::scope_for_locked(const std::string& identity) {
  for (const Slot& s : slots_) {
    if (s.scope != 0 && s.owner == identity) return s.scope;
  }
  return next_scope_++;
}

Result<SessionPool::Acquired> SessionPool::acquire(std::span<const TokenId> prompt,
                                                   const std::string& identity) {
  std::unique_lock lock(mu_);
  int32_t best = -1, best_prefix = 0;  // this identity's idle session, longest common prefix
  int32_t empty = -1;                  // a slot without a session
  int32_t lru = -1;                    // the least recently used idle session
  for (int32_t i = 0; i < size(); ++i) {
    const Slot& s = slots_[static_cast<size_t>(i)];
    if (s.busy) continue;
    if (!s.session) {
      if (empty < 0) empty = i;
      continue;
    }
    if (lru < 0 || s.last_used < slots_[static_cast<size_t>(lru)].last_used) lru = i;
    if (s.owner != identity) continue;  // another client's KV: never a prefix to reuse
    const int32_t prefix = common_prefix_length(s.session->tokens(), prompt);
    if (prefix > best_prefix) best = i, best_prefix = prefix;
  }
  // With a free slot, a session is taken only when the prompt keeps at least half of what
  // it holds (a continued conversation): a prefix of only the template's header would
  // throw another conversation's KV away while a slot sits empty.
  if (best >= 0 && empty >= 0 &&
      2 * best_prefix < slots_[static_cast<size_t>(best)].session->n_past()) {
    best = -1;
  }
  const int32_t chosen = best >= 0 ? best : (empty >= 0 ? empty : lru);
  if (chosen < 0) return Acquired{std::nullopt, true};
  Slot& slot = slots_[static_cast<size_t>(chosen)];
  const uint64_t scope = scope_for_locked(identity);
  slot.busy = true;
  ++slot.leases;
  slot.owner = identity;
  slot.scope = scope;
  if (tier_link_) options_.ram_tier->erase(tier_key(chosen));  // live, not idle, now
  if (!slot.session) {
    lock.unlock();  // creating a session may take a while (the backend's weights)
    auto created = Session::create(model_, options_.session);
    lock.lock();
    if (!created) {
      slot.busy = false;
      return Error{created.message()};
    }
    slot.session = std::move(created).value();
  }
  // Another identity's session is emptied here (its KV released before anything adopts).
  slot.session->set_kv_share_scope(scope);
  ++slot.requests;
  return Acquired{SessionLease(this, chosen, slot.session.get(), best >= 0 ? best_prefix : 0),
                  false};
}

void SessionPool::release(int32_t index) {
  std::unique_lock lock(mu_);
  Slot& slot = slots_[static_cast<size_t>(index)];
  slot.busy = false;
  slot.last_used = std::chrono::steady_clock::now();
  slot.last_used_unix_ms = unix_ms_now();
  const MemoryReport report = slot.session ? slot.session->memory_report() : MemoryReport{};
  slot.tokens = slot.session ? slot.session->n_past() : 0;
  slot.kv_bytes = report.kv_allocated_bytes;
  slot.kv_shared_bytes = report.kv_shared_bytes;
  store_shared_bytes_ = report.kv_store_shared_bytes;
  enforce_budget_locked();
  if (!tier_link_ || slot.kv_bytes == 0) return;
  const int32_t tokens = slot.tokens;
  const uint64_t bytes = slot.kv_bytes;
  const uint64_t lease = slot.leases;
  lock.unlock();  // the tier may evict another idle slot of this pool: its callback locks mu_
  options_.ram_tier->hold_external(tier_key(index), KvTierKind::ServerSession, tokens, bytes,
                                   [link = tier_link_, index, lease] {
                                     const std::lock_guard<std::mutex> hold(link->mu);
                                     if (link->pool) link->pool->evict_idle(index, lease);
                                   });
}

void SessionPool::enforce_budget_locked() {
  if (options_.kv_budget_bytes == 0) return;
  auto total = [&] {
    uint64_t sum = 0;
    for (const Slot& s : slots_) sum += s.kv_bytes;
    return sum;
  };
  while (total() > options_.kv_budget_bytes) {
    Slot* victim = nullptr;
    for (Slot& s : slots_) {
      if (s.busy || !s.session || s.kv_bytes == 0) continue;
      if (!victim || s.last_used < victim->last_used) victim = &s;
    }
    if (!victim) return;  // only busy sessions hold KV
    drop_session_locked(*victim);
  }
}

std::vector<PooledSessionStats> SessionPool::stats() const {
  std::lock_guard lock(mu_);
  std::vector<PooledSessionStats> out;
  for (int32_t i = 0; i < size(); ++i) {
    const Slot& s = slots_[static_cast<size_t>(i)];
    PooledSessionStats st;
    st.index = i;
    st.busy = s.busy;
    st.created = s.session != nullptr;
    st.tokens = s.tokens;
    st.kv_allocated_bytes = s.kv_bytes;
    st.kv_shared_bytes = s.kv_shared_bytes;
    st.last_used_unix_ms = s.last_used_unix_ms;
    st.requests = s.requests;
    out.push_back(st);
  }
  return out;
}

std::vector<PooledSessionStats> SessionPool::stats_for(const std::string& identity) const {
  std::vector<PooledSessionStats> all = stats();
  std::vector<bool> mine(all.size(), false);
  {
    std::lock_guard lock(mu_);
    for (size_t i = 0; i < slots_.size() && i < all.size(); ++i) {
      mine[i] = slots_[i].scope != 0 && slots_[i].owner == identity;
    }
  }
  std::vector<PooledSessionStats> out;
  for (size_t i = 0; i < all.size(); ++i) {
    if (mine[i]) out.push_back(all[i]);
  }
  return out;
}

uint64_t SessionPool::kv_allocated_bytes() const {
  std::lock_guard lock(mu_);
  uint64_t sum = 0;
  for (const Slot& s : slots_) sum += s.kv_bytes;
  return sum;
}

uint64_t SessionPool::kv_shared_bytes() const {
  std::lock_guard lock(mu_);
  bool any = false;
  for (const Slot& s : slots_) any = any || s.kv_shared_bytes > 0;
  return any ? store_shared_bytes_ : 0;
}

}  // namespace kvchat::serving
