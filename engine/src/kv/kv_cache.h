// KvCache: the K and V vectors of every processed token, per layer, in fixed-size
// blocks taken from a KvBlockPool as tokens arrive and returned when the sequence is
// truncated. Rows are stored in the cache's KvType (f32, f16, q8_0, q4_0): quantized on
// write, read through dot products and dequantization that understand the type.
//
// Block layout: [n_layers][2 (K, V)][block_tokens][row_bytes], where a row is the
// kv_dim = n_kv_heads * head_dim values of one token, encoded as the KvType.
// The block table maps token block b = pos / block_tokens to a pool block id.
//
// The blocks live in the config's KvMemory: host memory (the CPU backends read rows in
// place through key_row/key_head/write_key) or device memory (the CUDA backend's kernels
// read them; host code moves rows only through export_rows / import_rows).
#pragma once

#include <cstdint>
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
  int32_t max_tokens = 0;      // the context length: appending past it is an error
  int32_t block_tokens = 16;   // tokens per block
  int32_t chunk_blocks = 4;    // blocks allocated together when the pool grows
  uint64_t budget_bytes = 0;   // the most the pool may hold; 0 = no limit
  KvType type = KvType::F16;
  std::shared_ptr<KvMemory> memory;  // where blocks live; null = host memory

  int32_t kv_dim() const { return n_kv_heads * head_dim; }
};

class KvCache {
 public:
  // type must divide head_dim into whole blocks (head_dim % 32 == 0 for q8_0/q4_0).
  static Result<KvCache> create(const KvCacheConfig& config);

  const KvCacheConfig& config() const { return config_; }
  KvType type() const { return config_.type; }
  int32_t size() const { return n_tokens_; }  // positions [0, size) hold valid K/V
  int32_t capacity() const { return static_cast<int32_t>(table_.size()) * config_.block_tokens; }

  // Makes positions [0, n_tokens) writable, taking blocks from the pool as needed. On
  // failure (beyond max_tokens, out of memory or budget) nothing changes.
  Status reserve(int32_t n_tokens);
  // Marks [0, n_tokens) valid after a forward pass wrote them (n_tokens <= capacity()).
  void set_size(int32_t n_tokens);
  // Keeps [0, n_tokens) and returns the blocks past it to the pool.
  void truncate(int32_t n_tokens);

  // Copies the encoded rows of positions [pos0, pos0 + n) of one layer's K (which = 0) or
  // V (which = 1) to / from dst (n, row_bytes), one copy per block: works on any memory.
  Status export_rows(int32_t layer, int32_t which, int32_t pos0, int32_t n, uint8_t* dst) const;
  Status import_rows(int32_t layer, int32_t which, int32_t pos0, int32_t n, const uint8_t* src);

  // The memory of token block b (b < blocks_in_use()): what a device kernel indexes.
  uint8_t* token_block(int32_t b) { return pool_.block(table_[b]); }
  bool host_accessible() const { return pool_.memory().host_accessible(); }

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
  // 2 x layers x row_bytes: what one token costs, exactly.
  uint64_t bytes_per_token() const { return 2ull * config_.n_layers * row_bytes_; }
  uint64_t used_bytes() const { return bytes_per_token() * n_tokens_; }
  uint64_t allocated_bytes() const { return pool_.block_bytes() * table_.size(); }
  uint64_t pool_bytes() const { return pool_.pool_bytes(); }
  uint64_t block_bytes() const { return pool_.block_bytes(); }
  uint64_t peak_allocated_bytes() const { return peak_allocated_; }
  uint64_t peak_used_bytes() const { return peak_used_; }
  int32_t blocks_in_use() const { return static_cast<int32_t>(table_.size()); }
  int32_t free_blocks() const { return pool_.free_blocks(); }

 private:
  explicit KvCache(const KvCacheConfig& config);

  uint8_t* row(int32_t layer, int32_t kv, int32_t pos) const {
    uint8_t* block = const_cast<KvBlockPool&>(pool_).block(table_[pos / config_.block_tokens]);
    return block + ((static_cast<int64_t>(layer) * 2 + kv) * config_.block_tokens +
                    pos % config_.block_tokens) * row_bytes_;
  }

  KvCacheConfig config_;
  uint64_t row_bytes_;
  uint64_t head_bytes_;
  KvBlockPool pool_;
  std::vector<int32_t> table_;  // token block -> pool block id
  int32_t n_tokens_ = 0;
  uint64_t peak_allocated_ = 0;
  uint64_t peak_used_ = 0;
};

}  // namespace kvchat
