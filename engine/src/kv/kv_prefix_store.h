// KvPrefixStore: the KV blocks of the caches of one model that share a KV configuration
// (element type, block size, layer groups, memory, budget) and a backend that computes
// the same K/V for the same tokens. It owns the block pools those caches allocate from,
// so that one block can be in several caches' block tables, with a reference count per
// block; and an index from a block-aligned token prefix to the blocks holding its K/V.
//
// Index: token block b of a sequence (tokens [b * block_tokens, (b + 1) * block_tokens))
// is keyed by a hash chain, hash(b) = H(hash(b - 1), the block_tokens token ids of b),
// hash(-1) = a fixed seed. An entry holds the block's token ids, the id of the entry of
// block b - 1 (0 for block 0) and the pool block of every non-empty layer group; a lookup
// walks the chain from block 0 and accepts an entry only when its tokens equal the
// sequence's and its parent is the entry matched for b - 1, so a hash collision never
// shares (the colliding prefix just is not indexed). Only whole blocks are indexed, and
// only while every group still holds them (a windowed block freed by its last holder
// takes its entry with it): an entry never keeps a block alive; a block whose last
// reference goes is freed and leaves the index. The K/V of a prefix do not depend on
// what follows it, so a cache that adopts an entry's blocks holds what it would have
// computed.
//
// Scopes: adopt and publish take a scope (0 by default); an entry published in one scope
// is found only by walks in the same scope (its chain starts from a seed derived from the
// scope, and the entry records the scope it was published in), so callers that must not
// see each other's prefixes (the server's clients) share blocks only within their own.
//
// Copy on write: a block held by more than one cache is never written; a cache about to
// write into one (KvCache::reserve, discard, import_rows) copies it first. A block with
// one holder that is indexed leaves the index before it is written.
//
// Budget: the store's pools share config.budget_bytes (every cache of the store
// together; a shared block is counted once). Memory: each group's blocks live in its own
// memory (config.memory or host memory past the split, as in KvCache); a copy on write
// goes through the memory's to_host / from_host, so it works on device memory too.
//
// Thread safety: the store's operations take its lock; a cache reads and writes the
// rows of its blocks without it (a shared block is only read; a private one is its own).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "kv/kv_block_pool.h"
#include "kvchat/result.h"

namespace kvchat {

struct KvCacheConfig;
class Model;

class KvPrefixStore {
 public:
  static constexpr int32_t kGroups = 4;  // KvCache::kGroups
  // A pool block: its id and its memory.
  struct Block {
    int32_t id = -1;
    uint8_t* data = nullptr;
  };

  // The pools of config's layer groups (KvCache's layout), sharing its budget.
  explicit KvPrefixStore(const KvCacheConfig& config);
  KvPrefixStore(const KvPrefixStore&) = delete;
  KvPrefixStore& operator=(const KvPrefixStore&) = delete;

  // Whether a cache of `config` may take its blocks from this store (same block bytes
  // and memory per group, same block size).
  bool fits(const KvCacheConfig& config) const;

  // Blocks of group g. acquire: a free block, reference count 1 (others_bytes = 0: the
  // store's other pools count against the budget). retain: one more holder. release: one
  // fewer; the last one frees it (0xff-filled first with poison, in host memory).
  Result<Block> acquire(int g);
  void retain(int g, int32_t id);
  void release(int g, int32_t id, bool poison);
  // The block's holders.
  int32_t refs(int g, int32_t id) const;
  // For a write into block id of group g: 1 when the caller is its only holder (the block
  // leaves the index), more when it must copy the block first.
  int32_t claim(int g, int32_t id);
  void shrink_to(int g, int32_t total_blocks);
  const KvBlockPool& pool(int g) const { return pools_[g]; }
  int32_t block_tokens() const { return block_tokens_; }

  // Prefix index. `tokens`: the sequence; `tables`: the cache's block ids per group ((kGroups)
  // x token blocks, -1 = freed; empty for a group without layers).
  // adopt: walks the chain of `tokens` from block 0; for the matched entries of blocks
  // [from_block, max_blocks) retains their blocks and appends them to out[g] (ids and
  // memory). Returns the blocks adopted (0 when the chain breaks before from_block).
  int32_t adopt(std::span<const int32_t> tokens, int32_t from_block, int32_t max_blocks,
                std::vector<Block> out[kGroups], uint64_t scope = 0);
  // Indexes the whole blocks [0, n_blocks) of tokens that are not indexed yet with the
  // cache's blocks (stopping at the first block a group no longer holds, or a hash slot
  // another prefix took). Returns the blocks the chain covers afterwards.
  int32_t publish(std::span<const int32_t> tokens, int32_t n_blocks,
                  const std::vector<int32_t> tables[kGroups], uint64_t scope = 0);

  // Bytes of the blocks held by more than one cache (each counted once), and the indexed
  // entries (tests).
  uint64_t shared_bytes() const;
  size_t indexed_blocks() const;
  // Tests: replaces H (nullptr: the default one) for every store of the process.
  using HashFn = uint64_t (*)(uint64_t prev, std::span<const int32_t> block);
  static void set_hash_for_tests(HashFn fn);

 private:
  struct Entry {
    uint64_t id = 0;                            // never reused; 0 = none
    uint64_t parent = 0;                        // the entry of the block before (0 for block 0)
    uint64_t scope = 0;                         // the scope it was published in
    std::vector<int32_t> tokens;                // (block_tokens) the block's token ids
    int32_t block[kGroups] = {-1, -1, -1, -1};  // pool block per group (-1: no layers)
  };
  struct BlockState {
    int32_t refs = 0;
    bool indexed = false;
    uint64_t hash = 0;  // the entry's key while indexed
  };
  BlockState& state(int g, int32_t id);
  void unindex_locked(uint64_t hash);
  // The entries matching tokens' blocks [0, ...) in order (at most max_blocks).
  std::vector<const Entry*> walk_locked(std::span<const int32_t> tokens, int32_t max_blocks,
                                        uint64_t scope, std::vector<uint64_t>* hashes) const;

  mutable std::mutex mutex_;
  int32_t block_tokens_;
  bool has_group_[kGroups] = {false, false, false, false};
  KvBlockPool pools_[kGroups];
  std::vector<BlockState> states_[kGroups];    // (pool blocks) per group
  std::unordered_map<uint64_t, Entry> index_;  // hash chain -> entry
  uint64_t next_entry_ = 1;
  uint64_t shared_bytes_ = 0;
};

// The store of `model` for caches of `config` whose K/V a backend described by
// `compute_tag` computes (its name and thread count: the same tag, the same K/V), kept
// while a session uses it (the model holds it weakly: a store without caches is freed).
std::shared_ptr<KvPrefixStore> shared_kv_prefix_store(const Model& model,
                                                      const KvCacheConfig& config,
                                                      const std::string& compute_tag);

}  // namespace kvchat
