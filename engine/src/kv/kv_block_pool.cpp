#include "kv/kv_block_pool.h"

#include <algorithm>
#include <string>

namespace kvchat {

KvBlockPool::KvBlockPool(uint64_t block_bytes, int32_t chunk_blocks, uint64_t budget_bytes,
                         std::shared_ptr<KvMemory> memory)
    : block_bytes_(block_bytes),
      chunk_blocks_(std::max(1, chunk_blocks)),
      budget_bytes_(budget_bytes),
      memory_(memory ? std::move(memory) : host_kv_memory()) {}

KvBlockPool::~KvBlockPool() { release_chunks(); }

KvBlockPool::KvBlockPool(KvBlockPool&& other) noexcept
    : block_bytes_(other.block_bytes_),
      chunk_blocks_(other.chunk_blocks_),
      budget_bytes_(other.budget_bytes_),
      memory_(other.memory_),
      chunks_(std::move(other.chunks_)),
      chunk_first_(std::move(other.chunk_first_)),
      blocks_(std::move(other.blocks_)),
      free_(std::move(other.free_)) {
  other.chunks_.clear();
  other.chunk_first_.clear();
  other.blocks_.clear();
  other.free_.clear();
}

KvBlockPool& KvBlockPool::operator=(KvBlockPool&& other) noexcept {
  if (this == &other) return *this;
  release_chunks();
  block_bytes_ = other.block_bytes_;
  chunk_blocks_ = other.chunk_blocks_;
  budget_bytes_ = other.budget_bytes_;
  memory_ = other.memory_;
  chunks_ = std::move(other.chunks_);
  chunk_first_ = std::move(other.chunk_first_);
  blocks_ = std::move(other.blocks_);
  free_ = std::move(other.free_);
  other.chunks_.clear();
  other.chunk_first_.clear();
  other.blocks_.clear();
  other.free_.clear();
  return *this;
}

void KvBlockPool::release_chunks() {
  for (uint8_t* chunk : chunks_) memory_->release(chunk);
  chunks_.clear();
  chunk_first_.clear();
}

Status KvBlockPool::grow(uint64_t others_bytes) {
  uint64_t n = static_cast<uint64_t>(chunk_blocks_);
  if (budget_bytes_ > 0) {
    const uint64_t held = pool_bytes() + others_bytes;
    const uint64_t room = budget_bytes_ > held ? (budget_bytes_ - held) / block_bytes_ : 0;
    n = std::min(n, room);
    if (n == 0) {
      return Error{"out of memory for the KV cache: its budget of " +
                   std::to_string(budget_bytes_) + " bytes is used up (" +
                   std::to_string(blocks_.size()) + " blocks of " + std::to_string(block_bytes_) +
                   " bytes" +
                   (others_bytes ? " and " + std::to_string(others_bytes) +
                                       " bytes held by the other layer groups' pools"
                                 : "") +
                   ")"};
    }
  }
  auto chunk = memory_->allocate(n * block_bytes_);
  if (!chunk) {
    return Error{"out of memory growing the KV cache by " + std::to_string(n * block_bytes_) +
                 " bytes (" + std::to_string(pool_bytes()) + " bytes held): " + chunk.message()};
  }
  chunk_first_.push_back(static_cast<int32_t>(blocks_.size()));
  for (uint64_t k = 0; k < n; ++k) {
    blocks_.push_back(*chunk + k * block_bytes_);
    free_.push_back(static_cast<int32_t>(blocks_.size() - 1));
  }
  // Hand out low ids first (the free list is used as a stack).
  std::reverse(free_.end() - static_cast<int64_t>(n), free_.end());
  chunks_.push_back(*chunk);
  return {};
}

Result<int32_t> KvBlockPool::acquire(uint64_t others_bytes) {
  if (free_.empty()) {
    if (auto s = grow(others_bytes); !s) return Error{s.message()};
  }
  const int32_t id = free_.back();
  free_.pop_back();
  return id;
}

void KvBlockPool::release(int32_t id) { free_.push_back(id); }

void KvBlockPool::shrink_to(int32_t total_blocks) {
  while (!chunks_.empty() && chunk_first_.back() >= total_blocks) {
    const int32_t first = chunk_first_.back();
    const auto in_chunk = [first](int32_t id) { return id >= first; };
    const auto free_in_chunk = std::count_if(free_.begin(), free_.end(), in_chunk);
    if (free_in_chunk != static_cast<int64_t>(blocks_.size()) - first) return;  // some handed out
    free_.erase(std::remove_if(free_.begin(), free_.end(), in_chunk), free_.end());
    blocks_.resize(static_cast<size_t>(first));
    memory_->release(chunks_.back());
    chunks_.pop_back();
    chunk_first_.pop_back();
  }
}

}  // namespace kvchat
