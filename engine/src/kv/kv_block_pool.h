// KvBlockPool: fixed-size KV blocks allocated in chunks as they are needed, never the
// whole context up front. Released blocks go to a free list and are handed out again
// before any new memory is taken. An optional budget caps the bytes the pool may hold.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kvchat/result.h"

namespace kvchat {

class KvBlockPool {
 public:
  // block_bytes: bytes of one block; chunk_blocks: blocks allocated together when the
  // pool grows; budget_bytes: the most the pool may hold (0 = no limit).
  KvBlockPool(uint64_t block_bytes, int32_t chunk_blocks, uint64_t budget_bytes);

  // A free block id; grows the pool by a chunk (or what the budget still allows) when
  // none is free. Fails without side effects when memory or the budget runs out.
  Result<int32_t> acquire();
  void release(int32_t id);
  uint8_t* block(int32_t id) { return blocks_[id]; }
  const uint8_t* block(int32_t id) const { return blocks_[id]; }

  uint64_t block_bytes() const { return block_bytes_; }
  uint64_t pool_bytes() const { return block_bytes_ * blocks_.size(); }  // held + free
  int32_t total_blocks() const { return static_cast<int32_t>(blocks_.size()); }
  int32_t free_blocks() const { return static_cast<int32_t>(free_.size()); }
  uint64_t budget_bytes() const { return budget_bytes_; }

 private:
  Status grow();

  uint64_t block_bytes_;
  int32_t chunk_blocks_;
  uint64_t budget_bytes_;
  std::vector<std::unique_ptr<uint8_t[]>> chunks_;  // each holds several blocks
  std::vector<uint8_t*> blocks_;                    // block id -> memory
  std::vector<int32_t> free_;                       // ids not handed out
};

}  // namespace kvchat
