// KvCache: the K and V vectors of every processed token, per layer, stored in
// fixed-size blocks that are allocated as tokens arrive (never the whole context
// up front) and returned to a free list when the sequence is truncated.
//
// Block layout (f32): [n_layers][2 (K, V)][block_tokens][kv_dim], kv_dim = n_kv_heads*head_dim.
// The block table maps token block b = pos / block_tokens to a pool block.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kvchat/result.h"

namespace kvchat {

struct KvCacheShape {
  int32_t n_layers = 0;
  int32_t n_kv_heads = 0;
  int32_t head_dim = 0;
  int32_t max_tokens = 0;     // the context length: appending past it is an error
  int32_t block_tokens = 16;  // tokens per block

  int32_t kv_dim() const { return n_kv_heads * head_dim; }
};

class KvCache {
 public:
  explicit KvCache(const KvCacheShape& shape);

  const KvCacheShape& shape() const { return shape_; }
  int32_t size() const { return n_tokens_; }           // positions [0, size) hold valid K/V
  int32_t capacity() const { return static_cast<int32_t>(table_.size()) * shape_.block_tokens; }

  // Makes positions [0, n_tokens) writable, allocating blocks as needed. On failure
  // (beyond max_tokens, or out of memory) nothing changes and the error says why.
  Status reserve(int32_t n_tokens);
  // Marks [0, n_tokens) valid after a forward pass wrote them (n_tokens <= capacity()).
  void set_size(int32_t n_tokens);
  // Keeps [0, n_tokens), returns the blocks past it to the free list.
  void truncate(int32_t n_tokens);

  // K or V row of `layer` at `pos` (kv_dim floats). pos < capacity().
  float* key(int32_t layer, int32_t pos) { return row(layer, 0, pos); }
  float* value(int32_t layer, int32_t pos) { return row(layer, 1, pos); }
  const float* key(int32_t layer, int32_t pos) const { return const_cast<KvCache*>(this)->row(layer, 0, pos); }
  const float* value(int32_t layer, int32_t pos) const { return const_cast<KvCache*>(this)->row(layer, 1, pos); }

  uint64_t bytes_per_token() const { return 2ull * shape_.n_layers * shape_.kv_dim() * sizeof(float); }
  uint64_t block_bytes() const { return bytes_per_token() * shape_.block_tokens; }
  uint64_t used_bytes() const { return bytes_per_token() * n_tokens_; }
  uint64_t allocated_bytes() const { return block_bytes() * table_.size(); }
  uint64_t pool_bytes() const { return block_bytes() * pool_.size(); }  // held + free
  uint64_t peak_allocated_bytes() const { return peak_allocated_; }
  int32_t blocks_in_use() const { return static_cast<int32_t>(table_.size()); }

 private:
  float* row(int32_t layer, int32_t kv, int32_t pos) {
    float* block = pool_[table_[pos / shape_.block_tokens]].get();
    return block + ((static_cast<int64_t>(layer) * 2 + kv) * shape_.block_tokens +
                    pos % shape_.block_tokens) * shape_.kv_dim();
  }

  KvCacheShape shape_;
  std::vector<std::unique_ptr<float[]>> pool_;  // every block ever allocated
  std::vector<int32_t> free_blocks_;            // pool indices not in the table
  std::vector<int32_t> table_;                  // token block -> pool index
  int32_t n_tokens_ = 0;
  uint64_t peak_allocated_ = 0;
};

}  // namespace kvchat
