// KvRamTier (kvchat/kv_ram_tier.h): parked sessions and external holders within one
// budget, measured by the blocks only the tier holds, evicted least recently used first.
#include "kvchat/kv_ram_tier.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "kv/kv_cache.h"
#include "kv/kv_prefix_store.h"
#include "session/parked_kv.h"
#include "util/process_memory.h"

namespace kvchat {

std::string_view kv_tier_kind_name(KvTierKind kind) {
  switch (kind) {
    case KvTierKind::Conversation: return "conversation";
    case KvTierKind::Branch: return "branch";
    case KvTierKind::Summary: return "summary";
    case KvTierKind::ServerSession: return "server-session";
  }
  return "?";
}

struct KvRamTier::Item {
  std::string key;
  KvTierKind kind = KvTierKind::Conversation;
  uint64_t last_used = 0;
  ParkedKvPtr parked;  // null: an external holder
  int32_t external_tokens = 0;
  uint64_t external_bytes = 0;
  std::function<void()> evict;  // an external holder's

  int32_t tokens() const {
    return parked ? static_cast<int32_t>(parked->tokens.size()) : external_tokens;
  }
};

// Bytes per item (its blocks once; those no one else holds) and of the whole tier.
struct KvRamTier::Measure {
  uint64_t used = 0;
  uint64_t shared_live = 0;
  std::vector<uint64_t> bytes;  // (items)
  std::vector<uint64_t> own;    // (items)
};

namespace {

// One pool block of one store: (store, group, id).
struct BlockKey {
  const KvPrefixStore* store;
  int32_t g, id;
  bool operator==(const BlockKey&) const = default;
};
struct BlockKeyHash {
  size_t operator()(const BlockKey& k) const {
    return std::hash<const void*>()(k.store) ^
           (static_cast<size_t>(k.g) << 40 | static_cast<size_t>(static_cast<uint32_t>(k.id)));
  }
};

constexpr uint64_t kDefaultBudgetCap = 8ull << 30;

// Takes the parked state of items[it] out (it == end: none), counting a hit or a miss.
template <typename Items>
ParkedKvPtr take_item(Items& items, typename Items::iterator it, uint64_t& hits, uint64_t& misses) {
  if (it == items.end()) {
    ++misses;
    return nullptr;
  }
  ParkedKvPtr parked = std::move((*it)->parked);
  items.erase(it);
  ++(parked ? hits : misses);
  return parked;
}

}  // namespace

KvRamTier::KvRamTier(uint64_t budget_bytes) : budget_bytes_(budget_bytes) {}
KvRamTier::~KvRamTier() = default;

uint64_t KvRamTier::default_budget_bytes() {
  const uint64_t available = read_process_memory().available_bytes;
  return std::min(available / 4, kDefaultBudgetCap);
}

KvRamTier::Measure KvRamTier::measure_locked() const {
  Measure m;
  m.bytes.assign(items_.size(), 0);
  m.own.assign(items_.size(), 0);
  struct Holders {
    int32_t in_tier = 0;  // the items holding it
    int32_t refs = 0;     // every cache holding it (the store's count)
    uint64_t bytes = 0;
  };
  std::unordered_map<BlockKey, Holders, BlockKeyHash> blocks;
  const auto for_each_block = [](const Item& item, const auto& fn) {
    const KvPrefixStore* store = item.parked->kv->store().get();
    item.parked->kv->for_each_block([&](int32_t g, int32_t id, uint64_t bytes) {
      fn(BlockKey{store, g, id}, bytes);
    });
  };
  for (const auto& item : items_) {
    if (!item->parked) continue;
    for_each_block(*item, [&](const BlockKey& key, uint64_t bytes) {
      Holders& h = blocks[key];
      ++h.in_tier;
      h.bytes = bytes;
    });
  }
  for (auto& [key, h] : blocks) {
    h.refs = key.store->refs(key.g, key.id);
    (h.refs <= h.in_tier ? m.used : m.shared_live) += h.bytes;
  }
  for (size_t i = 0; i < items_.size(); ++i) {
    const Item& item = *items_[i];
    if (!item.parked) {
      m.bytes[i] = m.own[i] = item.external_bytes;
      m.used += item.external_bytes;
      continue;
    }
    for_each_block(item, [&](const BlockKey& key, uint64_t bytes) {
      m.bytes[i] += bytes;
      if (blocks[key].refs == 1) m.own[i] += bytes;
    });
  }
  return m;
}

bool KvRamTier::settle(std::unique_lock<std::mutex>& lock, const std::string& key) {
  std::vector<std::function<void()>> externals;
  std::vector<KvTierEntry> evicted;
  std::vector<std::shared_ptr<KvPrefixStore>> touched;
  for (;;) {
    const Measure m = measure_locked();
    if (m.used <= budget_bytes_ || items_.empty()) break;
    const auto lru =
        std::min_element(items_.begin(), items_.end(),
                         [](const auto& a, const auto& b) { return a->last_used < b->last_used; });
    const size_t i = static_cast<size_t>(lru - items_.begin());
    Item& item = **lru;
    evicted.push_back({item.key, item.kind, item.tokens(), m.bytes[i], m.own[i], item.last_used});
    if (item.parked) {
      touched.push_back(item.parked->kv->store());
    } else if (item.evict) {
      externals.push_back(std::move(item.evict));
    }
    items_.erase(lru);
    ++evictions_;
  }
  // The chunks that held only evicted blocks go back to the system (trailing ones: a
  // pool's block ids stay dense).
  for (const auto& store : touched) {
    for (int g = 0; g < KvPrefixStore::kGroups; ++g) store->shrink_to(g, 0);
  }
  const bool held = !key.empty() && std::any_of(items_.begin(), items_.end(),
                                                [&](const auto& i) { return i->key == key; });
  auto handler = on_evicted_;
  lock.unlock();
  for (auto& evict : externals) evict();
  if (handler) {
    for (const KvTierEntry& e : evicted) handler(e);
  }
  return held;
}

bool KvRamTier::insert(std::unique_lock<std::mutex>& lock, std::unique_ptr<Item> item) {
  std::erase_if(items_, [&](const auto& i) { return i->key == item->key; });
  item->last_used = ++clock_;
  const std::string key = item->key;
  items_.push_back(std::move(item));
  return settle(lock, key);
}

void KvRamTier::set_budget(uint64_t budget_bytes) {
  std::unique_lock<std::mutex> lock(mu_);
  budget_bytes_ = budget_bytes;
  settle(lock);
}

uint64_t KvRamTier::budget_bytes() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return budget_bytes_;
}

bool KvRamTier::put(const std::string& key, KvTierKind kind, ParkedKvPtr parked) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!parked) {
    std::erase_if(items_, [&](const auto& item) { return item->key == key; });
    return false;
  }
  auto item = std::make_unique<Item>();
  item->key = key;
  item->kind = kind;
  item->parked = std::move(parked);
  return insert(lock, std::move(item));
}

void KvRamTier::hold_external(const std::string& key, KvTierKind kind, int32_t tokens,
                              uint64_t bytes, std::function<void()> evict) {
  std::unique_lock<std::mutex> lock(mu_);
  auto item = std::make_unique<Item>();
  item->key = key;
  item->kind = kind;
  item->external_tokens = tokens;
  item->external_bytes = bytes;
  item->evict = std::move(evict);
  insert(lock, std::move(item));
}

ParkedKvPtr KvRamTier::take(const std::string& key) {
  const std::lock_guard<std::mutex> lock(mu_);
  const auto it = std::find_if(items_.begin(), items_.end(),
                               [&](const auto& item) { return item->key == key; });
  return take_item(items_, it, hits_, misses_);
}

ParkedKvPtr KvRamTier::take_best(std::string_view key_prefix, std::span<const TokenId> tokens,
                                 int32_t more_than, int32_t* common) {
  const std::lock_guard<std::mutex> lock(mu_);
  auto best = items_.end();
  int32_t best_common = more_than;
  for (auto it = items_.begin(); it != items_.end(); ++it) {
    const Item& item = **it;
    if (!item.parked || !item.key.starts_with(key_prefix)) continue;
    const std::vector<TokenId>& held = item.parked->tokens;
    const auto n = static_cast<int32_t>(
        std::mismatch(held.begin(), held.end(), tokens.begin(), tokens.end()).first - held.begin());
    if (n > best_common) {
      best_common = n;
      best = it;
    }
  }
  if (common && best != items_.end()) *common = best_common;
  return take_item(items_, best, hits_, misses_);
}

ParkedKvPtr KvRamTier::take_recent(std::string_view key_prefix) {
  const std::lock_guard<std::mutex> lock(mu_);
  auto best = items_.end();
  for (auto it = items_.begin(); it != items_.end(); ++it) {
    if (!(*it)->parked || !(*it)->key.starts_with(key_prefix)) continue;
    if (best == items_.end() || (*it)->last_used > (*best)->last_used) best = it;
  }
  return take_item(items_, best, hits_, misses_);
}

bool KvRamTier::contains(const std::string& key) const {
  const std::lock_guard<std::mutex> lock(mu_);
  return std::any_of(items_.begin(), items_.end(),
                     [&](const auto& item) { return item->key == key; });
}

void KvRamTier::erase(const std::string& key) {
  const std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(items_, [&](const auto& item) { return item->key == key; });
}

void KvRamTier::erase_prefix(std::string_view key_prefix) {
  const std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(items_, [&](const auto& item) { return item->key.starts_with(key_prefix); });
}

void KvRamTier::clear() {
  const std::lock_guard<std::mutex> lock(mu_);
  items_.clear();
}

void KvRamTier::enforce() {
  std::unique_lock<std::mutex> lock(mu_);
  settle(lock);
}

KvRamTierStats KvRamTier::stats() const {
  const std::lock_guard<std::mutex> lock(mu_);
  const Measure m = measure_locked();
  KvRamTierStats s;
  s.budget_bytes = budget_bytes_;
  s.used_bytes = m.used;
  s.shared_live_bytes = m.shared_live;
  for (const auto& item : items_) {
    switch (item->kind) {
      case KvTierKind::Conversation: ++s.conversations; break;
      case KvTierKind::Branch: ++s.branches; break;
      case KvTierKind::Summary: ++s.summaries; break;
      case KvTierKind::ServerSession: ++s.server_sessions; break;
    }
  }
  s.evictions = evictions_;
  s.hits = hits_;
  s.misses = misses_;
  return s;
}

std::vector<KvTierEntry> KvRamTier::entries() const {
  const std::lock_guard<std::mutex> lock(mu_);
  const Measure m = measure_locked();
  std::vector<KvTierEntry> out;
  for (size_t i = 0; i < items_.size(); ++i) {
    const Item& item = *items_[i];
    out.push_back({item.key, item.kind, item.tokens(), m.bytes[i], m.own[i], item.last_used});
  }
  std::sort(out.begin(), out.end(),
            [](const KvTierEntry& a, const KvTierEntry& b) { return a.last_used > b.last_used; });
  return out;
}

void KvRamTier::set_eviction_handler(std::function<void(const KvTierEntry&)> handler) {
  const std::lock_guard<std::mutex> lock(mu_);
  on_evicted_ = std::move(handler);
}

}  // namespace kvchat
