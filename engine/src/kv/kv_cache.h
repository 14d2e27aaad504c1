// KvCache: the K and V vectors of every processed token, per layer, in fixed-size
// blocks taken from a KvBlockPool as tokens arrive and returned when the sequence is
// truncated. Rows are stored in the cache's KvType (f32, f16, q8_0, q4_0, q8_0r, q4_0r): quantized
// on write, read through dot products and dequantization that understand the type.
//
// Block layout: [n_layers][K: block_tokens x key row bytes][V: block_tokens x value row
// bytes], where a row is the kv_dim = n_kv_heads * head_dim values of one token, encoded
// as K's or V's KvType (K and V may be typed apart: config.type_v).
// The block table maps token block b = pos / block_tokens to a pool block id.
//
// Layer groups: the layers are split into up to kGroups = 4 groups, each with its own
// blocks [group layers][2][block_tokens][row_bytes], its own block table and its own
// pool (the budget covers all pools together). Group g holds the layers with
//   windowed = g & 1: sliding-window layers (gemma2/3; config.windowed and a window);
//   on_host  = g >> 1: layers at or past config.memory_layers when that splits the model
//            (0 <= memory_layers < n_layers), kept in host memory; the others are in
//            config.memory.
// Every group covers the same token blocks [0, capacity() / block_tokens); reserve grows
// every non-empty group's table together. A model without windowed layers and without a
// split has one group (0), exactly as before.
//
// Sliding-window layers: a windowed layer at position pos reads [pos - window + 1, pos]
// only, so after each append the windowed groups' blocks that lie wholly before
// size() - (window - 1) - window_slack go back to the pool, except blocks holding the
// pinned prefix (the session's kept system prompt). The windowed rows that are still
// valid are [0, head) and [lo, size()) (all of [0, size()) when head == lo). Truncating
// to a length whose window is no longer present keeps the longest prefix that is still
// usable (the pinned one, or 0): the caller re-evaluates the rest (size() tells how much
// was kept).
//
// Partial offload: the layers [0, memory_layers) run on a device and keep their blocks in
// config.memory (the device's; groups 0 and 1, what its kernels index), the layers
// [memory_layers, n_layers) run on the CPU and keep theirs in host memory (groups 2 and
// 3, read in place through key_row). Host code moves rows of any layer with
// export_rows / import_rows; layer_on_host(layer) tells whether key_row may be used.
//
// Shared prefix blocks: a cache takes its blocks from a KvPrefixStore (kv_prefix_store.h),
// its own one unless create() is given the store of the sessions it shares with. A block
// may then be in several caches' tables (reference-counted): adopt_prefix() takes the
// indexed blocks of a token prefix, publish_prefix() indexes this cache's whole blocks.
// A shared block is never written: reserve() (for [size(), n_tokens)), discard() and
// import_rows() copy it first (copy on write); truncate, discard and the window's
// freeing drop references (the last one frees the block).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "kv/kv_block_pool.h"
#include "kv/kv_prefix_store.h"
#include "kv/kv_type.h"
#include "kvchat/result.h"

namespace kvchat {

struct ModelInfo;

struct KvCacheConfig {
  int32_t n_layers = 0;
  int32_t n_kv_heads = 0;
  int32_t head_dim = 0;
  int32_t max_tokens = 0;            // the context length: appending past it is an error
  int32_t block_tokens = 16;         // tokens per block
  int32_t chunk_blocks = 4;          // blocks allocated together when the pool grows
  uint64_t budget_bytes = 0;         // the most the pool may hold; 0 = no limit
  KvType type = KvType::F16;         // K's type, and V's unless type_v is set
  std::optional<KvType> type_v;      // V's type where it differs from K's
  std::shared_ptr<KvMemory> memory;  // where blocks live; null = host memory
  // Layers [0, memory_layers) keep their blocks in `memory`, layers [memory_layers,
  // n_layers) in host memory (host_kv_memory()). < 0 or >= n_layers: every layer in
  // `memory`.
  int32_t memory_layers = -1;
  // (n_layers) 1 = the layer attends to its last `window` positions; empty = none do.
  std::vector<uint8_t> windowed;
  int32_t window = 0;
  // Windowed rows kept beyond the window, so that a regenerate or an edit of the last
  // few hundred tokens still reuses the cache; < 0: never free windowed rows.
  int32_t window_slack = 256;
  // Tests: freed windowed blocks in host memory are filled with 0xff (NaN in f32/f16),
  // so that a read of a freed row cannot go unnoticed.
  bool poison_freed = false;

  int32_t kv_dim() const { return n_kv_heads * head_dim; }
  KvType value_type() const { return type_v.value_or(type); }
  // The row type of K (which = 0) or V (which = 1).
  KvType type_of(int32_t which) const { return which == 0 ? type : value_type(); }

  // The shape of a model's cache: its layers, KV heads and head size, and its windowed
  // layers and window, for max_tokens tokens; every other field at its default.
  static KvCacheConfig for_model(const ModelInfo& info, int32_t max_tokens);
};

class KvCache {
 public:
  // type must divide head_dim into whole blocks (head_dim % 32 == 0 for q8_0/q4_0).
  // store: where the blocks come from (null: a store of its own); it must fit config.
  static Result<KvCache> create(const KvCacheConfig& config,
                                std::shared_ptr<KvPrefixStore> store = nullptr);
  ~KvCache();
  KvCache(KvCache&& other) noexcept;
  KvCache& operator=(KvCache&& other) noexcept;
  KvCache(const KvCache&) = delete;
  KvCache& operator=(const KvCache&) = delete;

  // Shared prefix blocks (the header comment). tokens: the sequence whose K/V this cache
  // holds or is about to hold ([0, size()) the cache's, then the rest).
  // adopt_prefix: when size() is block-aligned and every table ends there, takes the
  // indexed blocks that follow, whole blocks only and none past position `limit`, and
  // sets size() past them. Returns the tokens adopted (0: none).
  int32_t adopt_prefix(std::span<const int32_t> tokens, int32_t limit);
  // Indexes the whole blocks of [0, size()) (tokens.size() >= size()) not indexed yet.
  void publish_prefix(std::span<const int32_t> tokens);
  // The store scope adopt_prefix and publish_prefix use (KvPrefixStore: 0 by default).
  void set_share_scope(uint64_t scope) { share_scope_ = scope; }
  uint64_t share_scope() const { return share_scope_; }
  const std::shared_ptr<KvPrefixStore>& store() const { return store_; }
  // Bytes of this cache's blocks that another cache holds too.
  uint64_t shared_bytes() const;
  // Another cache holding the same blocks (each retained once more: nothing is copied) and
  // the same size, windows, pinned prefix and stable rows; a later write into a block both
  // hold copies it first (copy on write), so either may go on without changing the other.
  // What a RAM tier keeps of a session it parks (kvchat/kv_ram_tier.h).
  KvCache fork() const;
  // Calls fn(group, pool block id, block bytes) for every block the cache holds.
  void for_each_block(const std::function<void(int32_t g, int32_t id, uint64_t bytes)>& fn) const;
  // The holders of token block b of group g (0 when freed).
  int32_t block_refs(int32_t g, int32_t b) const;
  // The layers of group g and the bytes of one of its blocks, for `config`.
  static int32_t group_layers_of(const KvCacheConfig& config, int32_t g);
  static uint64_t group_block_bytes_of(const KvCacheConfig& config, int32_t g);

  const KvCacheConfig& config() const { return config_; }
  KvType key_type() const { return config_.type; }
  KvType value_type() const { return config_.value_type(); }
  // "q8_0", or "q8_0/q4_0" (K/V) when they differ.
  std::string type_name() const;
  int32_t size() const { return n_tokens_; }  // positions [0, size) hold valid K/V
  int32_t capacity() const { return n_blocks_ * config_.block_tokens; }

  // Makes positions [0, n_tokens) writable, taking blocks from the pool as needed. On
  // failure (beyond max_tokens, out of memory or budget) nothing changes.
  Status reserve(int32_t n_tokens);
  // Marks [0, n_tokens) valid after a forward pass wrote them (n_tokens <= capacity()).
  void set_size(int32_t n_tokens);
  // Keeps [0, m) with m = reusable_prefix(n_tokens) and returns the blocks past it to
  // the pool; size() is m afterwards (less than n_tokens when windowed rows the window
  // of position n_tokens needs were freed: the caller re-evaluates [m, n_tokens)).
  void truncate(int32_t n_tokens);
  // The longest m <= n (n <= size()) from which appending reads only valid rows.
  int32_t reusable_prefix(int32_t n) const;
  // Windowed rows of positions [0, n) are never freed (the kept prefix). Rows already
  // freed stay freed: the pinned prefix is what is still valid of [0, n).
  void pin_prefix(int32_t n);

  // Context shift: moves rows [keep + discard, size()) of every layer down to keep
  // (only the valid ones on windowed layers), calling rekey(layer, rows, count) on the
  // encoded keys of each layer (row_bytes each) before they are stored, and keeps
  // size() - discard tokens. On failure (no memory for a windowed block) nothing changes.
  Status discard(int32_t keep, int32_t discard,
                 const std::function<void(int32_t layer, uint8_t* rows, int32_t n)>& rekey);

  // Windowed layers: whether the row of pos (< size()) is held, and the valid ranges.
  bool has_windowed_layers() const { return windowed_layers() > 0; }
  bool row_present(int32_t layer, int32_t pos) const;
  int32_t window_head() const { return head_; }
  int32_t window_lo() const { return lo_; }
  // set_size for a cache filled by import_rows (a snapshot, another KV type): the valid
  // windowed rows are [0, head) and [lo, n_tokens) (all when head == lo); the blocks
  // between are freed.
  void set_size(int32_t n_tokens, int32_t head, int32_t lo);
  // Rows [0, size()) of one layer's K or V (size() x row_bytes); freed windowed rows
  // come out as zeros.
  Status export_layer(int32_t layer, int32_t which, uint8_t* dst) const;
  // Rows [pos0, pos0 + n) (within [0, size())) of one layer's K or V (n x row_bytes);
  // freed windowed rows come out as zeros.
  Status export_valid_rows(int32_t layer, int32_t which, int32_t pos0, int32_t n,
                           uint8_t* dst) const;

  // What a snapshot journal appends: rows [0, stable_rows()) are exactly as they were at
  // the last mark_stable() (truncate and discard lower it; appending never does). A new
  // cache starts at 0.
  int32_t stable_rows() const { return stable_; }
  void mark_stable() { stable_ = n_tokens_; }

  // Copies the encoded rows of positions [pos0, pos0 + n) of one layer's K (which = 0) or
  // V (which = 1) to / from dst (n, row_bytes(which)), one copy per block: any memory.
  Status export_rows(int32_t layer, int32_t which, int32_t pos0, int32_t n, uint8_t* dst) const;
  Status import_rows(int32_t layer, int32_t which, int32_t pos0, int32_t n, const uint8_t* src);

  // Layer groups, what a device kernel indexes (the header comment): the layers that share
  // one block table and one pool. Group g holds windowed layers when g & 1, layers past
  // the split (in host memory) when g >> 1: a device backend indexes groups 0 (full
  // attention) and 1 (windowed). A layer's rows sit at index layer_index(layer) of its
  // group's blocks, laid out [group_layers(g)][K rows][V rows] (block_tokens each).
  static constexpr int32_t kGroups = 4;
  static constexpr bool group_windowed(int32_t g) { return (g & 1) != 0; }
  static constexpr bool group_on_host(int32_t g) { return (g >> 1) != 0; }
  int32_t layer_group(int32_t layer) const { return group_[layer]; }
  int32_t layer_index(int32_t layer) const { return index_[layer]; }
  int32_t group_layers(int32_t g) const { return group_layers_[g]; }
  // The memory of token block b (b < capacity() / block_tokens) of group g; null when the
  // block was freed (windowed rows out of the window) or the group has no layers.
  uint8_t* group_block(int32_t g, int32_t b) {
    return group_layers_[g] > 0 ? ptrs_[g][b] : nullptr;
  }
  // Bytes of one block of group g: group_layers(g) x block_tokens x (K + V row bytes).
  uint64_t group_block_bytes(int32_t g) const { return pool(g).block_bytes(); }
  // Token blocks covered by the tables (capacity() / block_tokens).
  int32_t token_blocks() const { return n_blocks_; }
  // The layers [0, memory_layers()) keep their rows in config().memory, the others in host
  // memory (n_layers when the cache is not split).
  int32_t memory_layers() const { return memory_layers_; }
  // Whether host code may read and write the rows of `layer` in place (key_row, write_key).
  bool layer_on_host(int32_t layer) const { return pool(group_[layer]).memory().host_accessible(); }
  // Whether it may for every layer.
  bool host_accessible() const;

  // Layers on the host only (layer_on_host; the CPU backends). Encoded rows (row_bytes(0)
  // bytes for K, row_bytes(1) for V). pos < capacity().
  uint8_t* key_row(int32_t layer, int32_t pos) { return row(layer, 0, pos); }
  uint8_t* value_row(int32_t layer, int32_t pos) { return row(layer, 1, pos); }
  const uint8_t* key_row(int32_t layer, int32_t pos) const { return row(layer, 0, pos); }
  const uint8_t* value_row(int32_t layer, int32_t pos) const { return row(layer, 1, pos); }
  // The part of a row that belongs to KV head `kvh` (head_dim values).
  const uint8_t* key_head(int32_t layer, int32_t pos, int32_t kvh) const {
    return key_row(layer, pos) + kvh * head_bytes_[0];
  }
  const uint8_t* value_head(int32_t layer, int32_t pos, int32_t kvh) const {
    return value_row(layer, pos) + kvh * head_bytes_[1];
  }

  // Layers on the host only. Encodes one row of kv_dim f32 values.
  void write_key(int32_t layer, int32_t pos, const float* src);
  void write_value(int32_t layer, int32_t pos, const float* src);

  // Bytes of one token's K (which = 0) or V (which = 1) row, and of one head of it.
  uint64_t row_bytes(int32_t which) const { return row_bytes_[which]; }
  uint64_t head_bytes(int32_t which) const { return head_bytes_[which]; }
  // layers x (K row + V row): what one token costs, exactly (without freeing).
  uint64_t bytes_per_token() const {
    return static_cast<uint64_t>(config_.n_layers) * (row_bytes_[0] + row_bytes_[1]);
  }
  // The rows held: full layers x size() + windowed layers x valid windowed rows.
  uint64_t used_bytes() const;
  // Bytes of the blocks held by every group, and the blocks every pool holds (held + free).
  uint64_t allocated_bytes() const;
  uint64_t pool_bytes() const;
  // The same, of the groups whose memory host code may read (host = true: host memory) or
  // not (host = false: a device's): what a memory report gives as KV on either side.
  uint64_t allocated_bytes_on(bool host) const;
  uint64_t pool_bytes_on(bool host) const;
  // The blocks of one token block of the full-attention layers (of the windowed ones when
  // every layer is windowed), summed over the two sides of a split.
  uint64_t block_bytes() const;
  uint64_t peak_allocated_bytes() const { return peak_allocated_; }
  uint64_t peak_used_bytes() const { return peak_used_; }
  // Blocks held by every group; blocks free in every pool.
  int32_t blocks_in_use() const;
  int32_t free_blocks() const;
  // Windowed layers: their blocks, and the bytes of their blocks returned to the pool
  // (of the blocks covering [0, size()); what a cache that never frees would hold more).
  int32_t windowed_layers() const { return group_layers_[1] + group_layers_[3]; }
  uint64_t windowed_allocated_bytes() const {
    return group_allocated_bytes(1) + group_allocated_bytes(3);
  }
  uint64_t window_freed_bytes() const;

 private:
  KvCache(const KvCacheConfig& config, std::shared_ptr<KvPrefixStore> store);

  const KvBlockPool& pool(int g) const { return store_->pool(g); }
  // [layer index][K rows][V rows] within the group's block.
  uint8_t* row(int32_t layer, int32_t kv, int32_t pos) const {
    const int32_t g = group_[layer];
    const int64_t bt = config_.block_tokens;
    uint8_t* block = ptrs_[g][pos / config_.block_tokens];
    return block +
           bt * (static_cast<int64_t>(index_[layer]) * (row_bytes_[0] + row_bytes_[1]) +
                 (kv != 0 ? row_bytes_[0] : 0)) +
           (pos % bt) * row_bytes_[kv];
  }
  uint64_t group_allocated_bytes(int g) const { return pool(g).block_bytes() * held_[g]; }
  bool group_in_host_memory(int g) const { return pool(g).memory().host_accessible(); }
  int32_t valid_windowed_rows() const {
    return head_ == lo_ ? n_tokens_ : head_ + (n_tokens_ - lo_);
  }
  Result<KvPrefixStore::Block> acquire(int g);
  void release(int g, int32_t b);
  void release_all();
  // Makes the blocks holding [pos0, pos1) private (copy on write) before a write.
  Status make_writable(int32_t pos0, int32_t pos1);
  void free_out_of_window();
  void free_gap();
  void note_peaks();

  KvCacheConfig config_;
  uint64_t row_bytes_[2];       // K, V
  uint64_t head_bytes_[2];      // K, V
  int32_t memory_layers_;       // layers [0, memory_layers_) are in config_.memory
  std::vector<int32_t> group_;  // (n_layers) the layer's group (windowed | on_host << 1)
  std::vector<int32_t> index_;  // (n_layers) the layer's index within its group
  int32_t group_layers_[kGroups] = {0, 0, 0, 0};
  std::shared_ptr<KvPrefixStore> store_;  // the pools the blocks come from
  uint64_t share_scope_ = 0;              // the store scope of adopt/publish_prefix
  // (kGroups) token block -> pool block id (-1: freed, windowed groups only)
  std::vector<int32_t> tables_[kGroups];
  // (kGroups) token block -> the block's memory (null: freed); read without the store's lock
  std::vector<uint8_t*> ptrs_[kGroups];
  int32_t held_[kGroups] = {0, 0, 0, 0};  // blocks held per group
  int32_t n_blocks_ = 0;                  // token blocks covered (the tables' length)
  int32_t n_tokens_ = 0;
  int32_t pinned_ = 0;         // windowed rows of [0, pinned_) are never freed
  int32_t head_ = 0, lo_ = 0;  // valid windowed rows: [0, head_) and [lo_, n_tokens_)
  int32_t stable_ = 0;         // rows unchanged since mark_stable()
  uint64_t peak_allocated_ = 0;
  uint64_t peak_used_ = 0;
};

}  // namespace kvchat
