// KvCache: the K and V vectors of every processed token, per layer, in fixed-size
// blocks taken from a KvBlockPool as tokens arrive and returned when the sequence is
// truncated. Rows are stored in the cache's KvType (f32, f16, q8_0, q4_0): quantized on
// write, read through dot products and dequantization that understand the type.
//
// Block layout: [n_layers][2 (K, V)][block_tokens][row_bytes], where a row is the
// kv_dim = n_kv_heads * head_dim values of one token, encoded as the KvType.
// The block table maps token block b = pos / block_tokens to a pool block id.
//
// Sliding-window layers (gemma2/3): with config.windowed set, the windowed layers form a
// second group with its own blocks, [windowed layers][2][block_tokens][row_bytes], its
// own block table and its own pool (the budget covers both pools). A windowed layer at
// position pos reads [pos - window + 1, pos] only, so after each append the windowed
// group's blocks that lie wholly before size() - (window - 1) - window_slack go back to
// the pool, except blocks holding the pinned prefix (the session's kept system prompt).
// The windowed rows that are still valid are [0, head) and [lo, size()) (all of
// [0, size()) when head == lo). Truncating to a length whose window is no longer
// present keeps the longest prefix that is still usable (the pinned one, or 0): the
// caller re-evaluates the rest (size() tells how much was kept). Models without windowed
// layers have one group, exactly as before (token_block(b) is that group's block b).
//
// The blocks live in the config's KvMemory: host memory (the CPU backends read rows in
// place through key_row/key_head/write_key) or device memory (the CUDA backend's kernels
// read them; host code moves rows only through export_rows / import_rows).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "kv/kv_block_pool.h"
#include "kv/kv_type.h"
#include "kvchat/result.h"

namespace kvchat {

struct KvCacheConfig {
  int32_t n_layers = 0;
  int32_t n_kv_heads = 0;
  int32_t head_dim = 0;
  int32_t max_tokens = 0;     // the context length: appending past it is an error
  int32_t block_tokens = 16;  // tokens per block
  int32_t chunk_blocks = 4;   // blocks allocated together when the pool grows
  uint64_t budget_bytes = 0;  // the most the pool may hold; 0 = no limit
  KvType type = KvType::F16;
  std::shared_ptr<KvMemory> memory;  // where blocks live; null = host memory
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
};

class KvCache {
 public:
  // type must divide head_dim into whole blocks (head_dim % 32 == 0 for q8_0/q4_0).
  static Result<KvCache> create(const KvCacheConfig& config);

  const KvCacheConfig& config() const { return config_; }
  KvType type() const { return config_.type; }
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
  bool has_windowed_layers() const { return group_layers_[1] > 0; }
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
  // V (which = 1) to / from dst (n, row_bytes), one copy per block: works on any memory.
  Status export_rows(int32_t layer, int32_t which, int32_t pos0, int32_t n, uint8_t* dst) const;
  Status import_rows(int32_t layer, int32_t which, int32_t pos0, int32_t n, const uint8_t* src);

  // Layer groups, what a device kernel indexes: the layers that share one block table and
  // one pool (group 0: the full-attention layers, group 1: the windowed ones). A layer's
  // rows sit at index layer_index(layer) of its group's blocks, laid out
  // [group_layers(g)][2][block_tokens][row_bytes].
  static constexpr int32_t kGroups = 2;
  int32_t layer_group(int32_t layer) const { return group_[layer]; }
  int32_t layer_index(int32_t layer) const { return index_[layer]; }
  int32_t group_layers(int32_t g) const { return group_layers_[g]; }
  // The memory of token block b (b < capacity() / block_tokens) of group g; null when the
  // block was freed (windowed rows out of the window) or the group has no layers.
  uint8_t* group_block(int32_t g, int32_t b) {
    const int32_t id = group_layers_[g] > 0 ? tables_[g][b] : -1;
    return id < 0 ? nullptr : pools_[g].block(id);
  }
  // Token blocks covered by the tables (capacity() / block_tokens).
  int32_t token_blocks() const { return n_blocks_; }
  bool host_accessible() const { return pools_[0].memory().host_accessible(); }

  // Host memory only (the CPU backends). Encoded rows (row_bytes() each). pos < capacity().
  uint8_t* key_row(int32_t layer, int32_t pos) { return row(layer, 0, pos); }
  uint8_t* value_row(int32_t layer, int32_t pos) { return row(layer, 1, pos); }
  const uint8_t* key_row(int32_t layer, int32_t pos) const { return row(layer, 0, pos); }
  const uint8_t* value_row(int32_t layer, int32_t pos) const { return row(layer, 1, pos); }
  // The part of a row that belongs to KV head `kvh` (head_dim values).
  const uint8_t* key_head(int32_t layer, int32_t pos, int32_t kvh) const {
    return key_row(layer, pos) + kvh * head_bytes_;
  }
  const uint8_t* value_head(int32_t layer, int32_t pos, int32_t kvh) const {
    return value_row(layer, pos) + kvh * head_bytes_;
  }

  // Host memory only. Encodes one row of kv_dim f32 values.
  void write_key(int32_t layer, int32_t pos, const float* src);
  void write_value(int32_t layer, int32_t pos, const float* src);

  uint64_t row_bytes() const { return row_bytes_; }
  uint64_t head_bytes() const { return head_bytes_; }
  // 2 x layers x row_bytes: what one token costs, exactly (without freeing).
  uint64_t bytes_per_token() const { return 2ull * config_.n_layers * row_bytes_; }
  // The rows held: full layers x size() + windowed layers x valid windowed rows.
  uint64_t used_bytes() const;
  uint64_t allocated_bytes() const { return group_allocated_bytes(0) + group_allocated_bytes(1); }
  uint64_t pool_bytes() const { return pools_[0].pool_bytes() + pools_[1].pool_bytes(); }
  // A full-layer block (a windowed one when every layer is windowed).
  uint64_t block_bytes() const { return pools_[group_layers_[0] > 0 ? 0 : 1].block_bytes(); }
  uint64_t peak_allocated_bytes() const { return peak_allocated_; }
  uint64_t peak_used_bytes() const { return peak_used_; }
  // Blocks held by both groups; token blocks of the full-layer group (the CUDA table).
  int32_t blocks_in_use() const { return held_[0] + held_[1]; }
  int32_t free_blocks() const { return pools_[0].free_blocks() + pools_[1].free_blocks(); }
  // Windowed layers: their blocks, and the bytes of their blocks returned to the pool
  // (of the blocks covering [0, size()); what a cache that never frees would hold more).
  int32_t windowed_layers() const { return group_layers_[1]; }
  uint64_t windowed_allocated_bytes() const { return group_allocated_bytes(1); }
  uint64_t window_freed_bytes() const;

 private:
  explicit KvCache(const KvCacheConfig& config);

  uint8_t* row(int32_t layer, int32_t kv, int32_t pos) const {
    const int32_t g = group_[layer];
    uint8_t* block =
        const_cast<KvBlockPool&>(pools_[g]).block(tables_[g][pos / config_.block_tokens]);
    return block + ((static_cast<int64_t>(index_[layer]) * 2 + kv) * config_.block_tokens +
                    pos % config_.block_tokens) *
                       row_bytes_;
  }
  uint64_t group_allocated_bytes(int g) const { return pools_[g].block_bytes() * held_[g]; }
  int32_t valid_windowed_rows() const {
    return head_ == lo_ ? n_tokens_ : head_ + (n_tokens_ - lo_);
  }
  Result<int32_t> acquire(int g);
  void release(int g, int32_t b);
  void free_out_of_window();
  void free_gap();
  void note_peaks();

  KvCacheConfig config_;
  uint64_t row_bytes_;
  uint64_t head_bytes_;
  std::vector<int32_t> group_;  // (n_layers) 0 = full-layer group, 1 = windowed group
  std::vector<int32_t> index_;  // (n_layers) the layer's index within its group
  int32_t group_layers_[2] = {0, 0};
  KvBlockPool pools_[2];
  std::vector<int32_t> tables_[2];  // token block -> pool block id (-1: freed, windowed only)
  int32_t held_[2] = {0, 0};        // blocks held per group
  int32_t n_blocks_ = 0;            // token blocks covered (the tables' length)
  int32_t n_tokens_ = 0;
  int32_t pinned_ = 0;         // windowed rows of [0, pinned_) are never freed
  int32_t head_ = 0, lo_ = 0;  // valid windowed rows: [0, head_) and [lo_, n_tokens_)
  int32_t stable_ = 0;         // rows unchanged since mark_stable()
  uint64_t peak_allocated_ = 0;
  uint64_t peak_used_ = 0;
};

}  // namespace kvchat
