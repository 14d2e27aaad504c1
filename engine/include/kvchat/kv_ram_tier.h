// KvRamTier: the KV of what is not being used right now — conversations and branches not
// shown, a summary job between runs, the local server's idle sessions — kept in RAM
// within one budget, between the live KV and the disk snapshots. Coming back to an entry
// re-evaluates 0 tokens (Session::resume); when the budget is reached the least recently
// used entries leave RAM (a conversation falls back to its disk snapshot, else to
// re-evaluation).
//
// Entries: a ParkedKv (Session::park: the session's state, its cache's blocks shared with
// it and reference-counted, nothing copied) under a key the owner chooses, or an external
// holder (the server's pool keeps its idle sessions itself and registers their bytes and
// a callback that drops their KV).
//
// Bytes: a block counts once however many entries hold it, and only while no session
// outside the tier holds it too (a branch parked beside the live one costs only the
// blocks where it differs): used_bytes is what dropping every entry would free.
// Measured again at every put, take and enforce().
//
// Thread-safe: the window's engine thread, the summary worker and the server's threads
// share one tier. Eviction callbacks run without the tier's lock held.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/session.h"

namespace kvchat {

enum class KvTierKind { Conversation, Branch, Summary, ServerSession };
std::string_view kv_tier_kind_name(KvTierKind kind);  // "conversation", "branch", ...

struct KvTierEntry {
  std::string key;
  KvTierKind kind = KvTierKind::Conversation;
  int32_t tokens = 0;
  uint64_t bytes = 0;      // its blocks (or an external holder's bytes)
  uint64_t own_bytes = 0;  // what evicting it alone frees: blocks nothing else holds
  uint64_t last_used = 0;  // the tier's clock at its last put (larger: more recent)
};

struct KvRamTierStats {
  uint64_t budget_bytes = 0;
  uint64_t used_bytes = 0;         // blocks only the tier holds, each once, + external bytes
  uint64_t shared_live_bytes = 0;  // blocks of entries a live session holds too (not in used)
  int32_t conversations = 0;
  int32_t branches = 0;
  int32_t summaries = 0;
  int32_t server_sessions = 0;
  uint64_t evictions = 0;  // entries evicted to keep the budget, since the tier was made
  uint64_t hits = 0;       // takes that found their entry
  uint64_t misses = 0;     // ... and that did not
};

class KvRamTier {
 public:
  explicit KvRamTier(uint64_t budget_bytes = default_budget_bytes());
  ~KvRamTier();
  KvRamTier(const KvRamTier&) = delete;
  KvRamTier& operator=(const KvRamTier&) = delete;

  // The smaller of 25% of the RAM available now and 8 GiB.
  static uint64_t default_budget_bytes();

  // A new budget (0: nothing is kept); evicts down to it.
  void set_budget(uint64_t budget_bytes);
  uint64_t budget_bytes() const;

  // Keeps `parked` under `key` (replacing the entry of that key) as the most recently
  // used, then evicts the least recently used entries until the tier fits its budget
  // (this one last: an entry that alone exceeds the budget is not kept). Returns whether
  // it was kept. A null `parked` just drops the key's entry.
  bool put(const std::string& key, KvTierKind kind, ParkedKvPtr parked);
  // Takes the entry of `key` out (null when the tier does not hold it; an external one is
  // only forgotten).
  ParkedKvPtr take(const std::string& key);
  // Among the entries whose key starts with `key_prefix`, takes the one whose tokens share
  // the longest prefix with `tokens`, when that is more than `more_than` tokens (the
  // caller's own); sets *common to it. Null when none does.
  ParkedKvPtr take_best(std::string_view key_prefix, std::span<const TokenId> tokens,
                        int32_t more_than, int32_t* common = nullptr);
  // Takes the most recently used entry whose key starts with `key_prefix` (null: none).
  ParkedKvPtr take_recent(std::string_view key_prefix);
  // An idle session someone else holds (the server's pool): counted with `bytes` against
  // the budget, evicted in LRU order with the others by calling `evict`, which drops
  // its KV. Replaces the key's entry.
  void hold_external(const std::string& key, KvTierKind kind, int32_t tokens, uint64_t bytes,
                     std::function<void()> evict);

  bool contains(const std::string& key) const;
  void erase(const std::string& key);
  void erase_prefix(std::string_view key_prefix);
  void clear();
  // Measures again and evicts down to the budget (the live sessions let go of blocks that
  // entries hold too, so those now count as the tier's).
  void enforce();

  KvRamTierStats stats() const;
  std::vector<KvTierEntry> entries() const;  // most recently used first
  // Called (without the tier's lock) with each entry evicted to keep the budget.
  void set_eviction_handler(std::function<void(const KvTierEntry&)> handler);

 private:
  struct Item;
  struct Measure;
  Measure measure_locked() const;
  // Evicts least recently used items until the budget holds, lets go of `lock`, then runs
  // the evicted external holders' callbacks and the eviction handler. Returns whether the
  // item of `key` was still held before the lock was let go.
  bool settle(std::unique_lock<std::mutex>& lock, const std::string& key = {});
  // Replaces the item of item->key by `item`, the most recently used, and settles.
  bool insert(std::unique_lock<std::mutex>& lock, std::unique_ptr<Item> item);

  mutable std::mutex mu_;
  uint64_t budget_bytes_;
  std::vector<std::unique_ptr<Item>> items_;
  uint64_t clock_ = 0;
  uint64_t evictions_ = 0;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  std::function<void(const KvTierEntry&)> on_evicted_;
};

}  // namespace kvchat
