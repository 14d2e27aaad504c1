// KvBlockPool: fixed-size KV blocks allocated in chunks as they are needed, never the
// whole context up front. Released blocks go to a free list and are handed out again
// before any new memory is taken. An optional budget caps the bytes the pool may hold.
// Chunks come from a KvMemory: host memory, or device memory for the CUDA backend.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kv/kv_memory.h"
#include "kvchat/result.h"

namespace kvchat {

class KvBlockPool {
 public:
  // block_bytes: bytes of one block; chunk_blocks: blocks allocated together when the
  // pool grows; budget_bytes: the most the pool may hold (0 = no limit); memory: where
  // the chunks live (null = host memory).
  KvBlockPool(uint64_t block_bytes, int32_t chunk_blocks, uint64_t budget_bytes,
              std::shared_ptr<KvMemory> memory = nullptr);
  ~KvBlockPool();
  KvBlockPool(KvBlockPool&& other) noexcept;
  KvBlockPool& operator=(KvBlockPool&& other) noexcept;
  KvBlockPool(const KvBlockPool&) = delete;
  KvBlockPool& operator=(const KvBlockPool&) = delete;

  // A free block id; grows the pool by a chunk (or what the budget still allows) when
  // none is free. Fails without side effects when memory or the budget runs out.
  // others_bytes: what other pools sharing the same budget hold (counted against it).
  Result<int32_t> acquire(uint64_t others_bytes = 0);
  void release(int32_t id);
  // Gives the chunks grown since the pool held `total_blocks` blocks back to the memory,
  // when none of their blocks is handed out (a caller undoing a failed reservation).
  void shrink_to(int32_t total_blocks);
  uint8_t* block(int32_t id) { return blocks_[id]; }
  const uint8_t* block(int32_t id) const { return blocks_[id]; }

  uint64_t block_bytes() const { return block_bytes_; }
  uint64_t pool_bytes() const { return block_bytes_ * blocks_.size(); }  // held + free
  int32_t total_blocks() const { return static_cast<int32_t>(blocks_.size()); }
  int32_t free_blocks() const { return static_cast<int32_t>(free_.size()); }
  uint64_t budget_bytes() const { return budget_bytes_; }
  KvMemory& memory() const { return *memory_; }

 private:
  Status grow(uint64_t others_bytes);
  void release_chunks();

  uint64_t block_bytes_;
  int32_t chunk_blocks_;
  uint64_t budget_bytes_;
  std::shared_ptr<KvMemory> memory_;
  std::vector<uint8_t*> chunks_;      // each holds several blocks
  std::vector<int32_t> chunk_first_;  // (chunks) the id of each chunk's first block
  std::vector<uint8_t*> blocks_;      // block id -> memory
  std::vector<int32_t> free_;         // ids not handed out
};

}  // namespace kvchat
