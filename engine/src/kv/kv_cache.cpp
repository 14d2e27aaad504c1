#include "kv/kv_cache.h"

#include <algorithm>
#include <new>
#include <string>

namespace kvchat {

KvCache::KvCache(const KvCacheShape& shape) : shape_(shape) {}

Status KvCache::reserve(int32_t n_tokens) {
  if (n_tokens > shape_.max_tokens) {
    return Error{"the context is full: " + std::to_string(n_tokens) + " tokens do not fit in " +
                 std::to_string(shape_.max_tokens)};
  }
  const int32_t need = (n_tokens + shape_.block_tokens - 1) / shape_.block_tokens;
  const size_t first_new = table_.size();
  while (static_cast<int32_t>(table_.size()) < need) {
    if (!free_blocks_.empty()) {
      table_.push_back(free_blocks_.back());
      free_blocks_.pop_back();
      continue;
    }
    const size_t n_floats = block_bytes() / sizeof(float);
    std::unique_ptr<float[]> block(new (std::nothrow) float[n_floats]);
    if (!block) {
      // Roll back: the cache is exactly as it was.
      while (table_.size() > first_new) {
        free_blocks_.push_back(table_.back());
        table_.pop_back();
      }
      return Error{"out of memory growing the KV cache to " + std::to_string(n_tokens) +
                   " tokens (" + std::to_string(block_bytes()) + " bytes per block)"};
    }
    pool_.push_back(std::move(block));
    table_.push_back(static_cast<int32_t>(pool_.size() - 1));
  }
  peak_allocated_ = std::max(peak_allocated_, allocated_bytes());
  return {};
}

void KvCache::set_size(int32_t n_tokens) { n_tokens_ = std::min(n_tokens, capacity()); }

void KvCache::truncate(int32_t n_tokens) {
  n_tokens_ = std::clamp(n_tokens, 0, n_tokens_);
  const size_t keep = (n_tokens_ + shape_.block_tokens - 1) / shape_.block_tokens;
  while (table_.size() > keep) {
    free_blocks_.push_back(table_.back());
    table_.pop_back();
  }
}

}  // namespace kvchat
