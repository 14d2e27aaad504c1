#include "kv/kv_prefix_store.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>

#include "kv/kv_cache.h"
#include "kvchat/model.h"

namespace kvchat {

namespace {

constexpr uint64_t kChainSeed = 0x6b76636861696e31ull;  // hash(-1)

uint64_t mix(uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// hash(-1) of a scope's chains: the fixed seed for scope 0 (what tests pin), else mixed.
uint64_t chain_seed(uint64_t scope) {
  return scope == 0 ? kChainSeed : mix(kChainSeed ^ mix(scope));
}

uint64_t default_hash(uint64_t prev, std::span<const int32_t> block) {
  uint64_t h = mix(prev + 0x9e3779b97f4a7c15ull);
  for (int32_t t : block) h = mix(h ^ static_cast<uint32_t>(t));
  return h;
}

std::atomic<KvPrefixStore::HashFn> g_hash{nullptr};

uint64_t chain_hash(uint64_t prev, std::span<const int32_t> block) {
  const KvPrefixStore::HashFn fn = g_hash.load(std::memory_order_relaxed);
  return fn ? fn(prev, block) : default_hash(prev, block);
}

KvBlockPool make_pool(const KvCacheConfig& c, int g) {
  return KvBlockPool(KvCache::group_block_bytes_of(c, g), c.chunk_blocks, c.budget_bytes,
                     KvCache::group_on_host(g) ? host_kv_memory() : c.memory);
}

}  // namespace

KvPrefixStore::KvPrefixStore(const KvCacheConfig& c)
    : block_tokens_(c.block_tokens),
      pools_{make_pool(c, 0), make_pool(c, 1), make_pool(c, 2), make_pool(c, 3)} {
  for (int g = 0; g < kGroups; ++g) has_group_[g] = KvCache::group_layers_of(c, g) > 0;
}

bool KvPrefixStore::fits(const KvCacheConfig& c) const {
  if (c.block_tokens != block_tokens_) return false;
  for (int g = 0; g < kGroups; ++g) {
    if (KvCache::group_block_bytes_of(c, g) != pools_[g].block_bytes()) return false;
    if (has_group_[g] != (KvCache::group_layers_of(c, g) > 0)) return false;
    const KvMemory* memory = KvCache::group_on_host(g) ? host_kv_memory().get() : c.memory.get();
    if (!KvCache::group_on_host(g) && !memory) memory = host_kv_memory().get();
    if (memory != &pools_[g].memory()) return false;
  }
  return true;
}

KvPrefixStore::BlockState& KvPrefixStore::state(int g, int32_t id) {
  if (static_cast<size_t>(id) >= states_[g].size()) states_[g].resize(static_cast<size_t>(id) + 1);
  return states_[g][id];
}

Result<KvPrefixStore::Block> KvPrefixStore::acquire(int g) {
  const std::lock_guard<std::mutex> lock(mutex_);
  uint64_t others = 0;  // what the other pools hold, counted against the shared budget
  for (int h = 0; h < kGroups; ++h) others += h == g ? 0 : pools_[h].pool_bytes();
  auto id = pools_[g].acquire(others);
  if (!id) return id.error();
  BlockState& s = state(g, *id);
  s = BlockState{};
  s.refs = 1;
  return Block{*id, pools_[g].block(*id)};
}

void KvPrefixStore::retain(int g, int32_t id) {
  const std::lock_guard<std::mutex> lock(mutex_);
  BlockState& s = state(g, id);
  if (++s.refs == 2) shared_bytes_ += pools_[g].block_bytes();
}

void KvPrefixStore::release(int g, int32_t id, bool poison) {
  const std::lock_guard<std::mutex> lock(mutex_);
  BlockState& s = state(g, id);
  if (s.refs == 2) shared_bytes_ -= pools_[g].block_bytes();
  if (--s.refs > 0) return;
  if (s.indexed) unindex_locked(s.hash);
  if (poison && pools_[g].memory().host_accessible()) {
    std::memset(pools_[g].block(id), 0xff, pools_[g].block_bytes());
  }
  pools_[g].release(id);
}

int32_t KvPrefixStore::refs(int g, int32_t id) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<size_t>(id) < states_[g].size() ? states_[g][id].refs : 0;
}

int32_t KvPrefixStore::claim(int g, int32_t id) {
  const std::lock_guard<std::mutex> lock(mutex_);
  BlockState& s = state(g, id);
  if (s.refs == 1 && s.indexed) unindex_locked(s.hash);
  return s.refs;
}

void KvPrefixStore::shrink_to(int g, int32_t total_blocks) {
  const std::lock_guard<std::mutex> lock(mutex_);
  pools_[g].shrink_to(total_blocks);
}

void KvPrefixStore::unindex_locked(uint64_t hash) {
  auto it = index_.find(hash);
  if (it == index_.end()) return;
  for (int g = 0; g < kGroups; ++g) {
    if (it->second.block[g] >= 0) state(g, it->second.block[g]).indexed = false;
  }
  index_.erase(it);
}

std::vector<const KvPrefixStore::Entry*> KvPrefixStore::walk_locked(
    std::span<const int32_t> tokens, int32_t max_blocks, uint64_t scope,
    std::vector<uint64_t>* hashes) const {
  std::vector<const Entry*> chain;
  uint64_t h = chain_seed(scope), parent = 0;
  const int32_t whole = static_cast<int32_t>(tokens.size()) / block_tokens_;
  for (int32_t b = 0; b < std::min(whole, max_blocks); ++b) {
    const auto block = tokens.subspan(static_cast<size_t>(b) * block_tokens_, block_tokens_);
    h = chain_hash(h, block);
    if (hashes) hashes->push_back(h);
    auto it = index_.find(h);
    // Verified, never trusted: the same tokens after the same verified parent, same scope.
    if (it == index_.end() || it->second.parent != parent || it->second.scope != scope ||
        !std::equal(block.begin(), block.end(), it->second.tokens.begin(), it->second.tokens.end()))
      break;
    chain.push_back(&it->second);
    parent = it->second.id;
  }
  return chain;
}

int32_t KvPrefixStore::adopt(std::span<const int32_t> tokens, int32_t from_block,
                             int32_t max_blocks, std::vector<Block> out[kGroups], uint64_t scope) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::vector<const Entry*> chain = walk_locked(tokens, max_blocks, scope, nullptr);
  int32_t adopted = 0;
  for (size_t b = static_cast<size_t>(std::max(0, from_block)); b < chain.size(); ++b) {
    for (int g = 0; g < kGroups; ++g) {
      const int32_t id = chain[b]->block[g];
      if (id < 0) continue;
      BlockState& s = state(g, id);
      if (++s.refs == 2) shared_bytes_ += pools_[g].block_bytes();
      out[g].push_back(Block{id, pools_[g].block(id)});
    }
    ++adopted;
  }
  return adopted;
}

int32_t KvPrefixStore::publish(std::span<const int32_t> tokens, int32_t n_blocks,
                               const std::vector<int32_t> tables[kGroups], uint64_t scope) {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::vector<uint64_t> hashes;
  const std::vector<const Entry*> chain = walk_locked(tokens, n_blocks, scope, &hashes);
  int32_t covered = static_cast<int32_t>(chain.size());
  uint64_t parent = chain.empty() ? 0 : chain.back()->id;
  uint64_t h = chain.empty() ? chain_seed(scope) : hashes[chain.size() - 1];
  for (int32_t b = covered; b < n_blocks; ++b) {
    const auto block = tokens.subspan(static_cast<size_t>(b) * block_tokens_, block_tokens_);
    h = b < static_cast<int32_t>(hashes.size()) ? hashes[b] : chain_hash(h, block);
    if (index_.count(h)) break;  // another prefix holds the slot (a collision): not shared
    Entry e;
    bool whole = true;
    for (int g = 0; g < kGroups && whole; ++g) {
      if (!has_group_[g]) continue;
      const int32_t id = b < static_cast<int32_t>(tables[g].size()) ? tables[g][b] : -1;
      whole = id >= 0;
      e.block[g] = id;
    }
    if (!whole) break;  // freed windowed rows: the chain ends here
    // A block indexed under an entry no walk reaches any more (its parent left) moves here.
    for (int g = 0; g < kGroups; ++g) {
      if (e.block[g] >= 0 && state(g, e.block[g]).indexed)
        unindex_locked(state(g, e.block[g]).hash);
    }
    e.id = next_entry_++;
    e.parent = parent;
    e.scope = scope;
    e.tokens.assign(block.begin(), block.end());
    for (int g = 0; g < kGroups; ++g) {
      if (e.block[g] < 0) continue;
      BlockState& s = state(g, e.block[g]);
      s.indexed = true;
      s.hash = h;
    }
    parent = e.id;
    index_.emplace(h, std::move(e));
    covered = b + 1;
  }
  return covered;
}

uint64_t KvPrefixStore::shared_bytes() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return shared_bytes_;
}

size_t KvPrefixStore::indexed_blocks() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return index_.size();
}

void KvPrefixStore::set_hash_for_tests(HashFn fn) { g_hash.store(fn); }

namespace {

// The stores of one model, held weakly, by KV configuration and compute tag.
struct StoreRegistry {
  mutable std::mutex mutex;
  mutable std::map<std::string, std::weak_ptr<KvPrefixStore>> stores;
};

std::string store_key(const KvCacheConfig& c, const std::string& compute_tag) {
  std::string key = compute_tag;
  key += "|type=" + std::to_string(static_cast<int>(c.type)) + "/" +
         std::to_string(static_cast<int>(c.value_type()));
  key += "|layers=" + std::to_string(c.n_layers) + "x" + std::to_string(c.n_kv_heads) + "x" +
         std::to_string(c.head_dim);
  key += "|block=" + std::to_string(c.block_tokens) + "|chunk=" + std::to_string(c.chunk_blocks);
  key += "|budget=" + std::to_string(c.budget_bytes);
  key += "|memory=" + std::to_string(reinterpret_cast<uintptr_t>(c.memory.get()));
  key += "|split=" + std::to_string(c.memory_layers);
  key += "|window=" + std::to_string(c.window) + "|";
  for (uint8_t w : c.windowed) key += w ? '1' : '0';
  return key;
}

}  // namespace

std::shared_ptr<KvPrefixStore> shared_kv_prefix_store(const Model& model,
                                                      const KvCacheConfig& config,
                                                      const std::string& compute_tag) {
  const auto registry = std::static_pointer_cast<const StoreRegistry>(model.backend_state(
      "kv-prefix-stores", [] { return std::make_shared<const StoreRegistry>(); }));
  const std::lock_guard<std::mutex> lock(registry->mutex);
  std::weak_ptr<KvPrefixStore>& slot = registry->stores[store_key(config, compute_tag)];
  std::shared_ptr<KvPrefixStore> store = slot.lock();
  if (!store) {
    store = std::make_shared<KvPrefixStore>(config);
    slot = store;
  }
  return store;
}

}  // namespace kvchat
