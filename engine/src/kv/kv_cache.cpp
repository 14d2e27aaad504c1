#include "kv/kv_cache.h"

#include <algorithm>
#include <string>

#include "numeric/convert.h"

namespace kvchat {

Result<KvCache> KvCache::create(const KvCacheConfig& c) {
  if (c.n_layers < 1 || c.n_kv_heads < 1 || c.head_dim < 1 || c.max_tokens < 1) {
    return Error{"KV cache: layers, heads, head_dim and context must be positive"};
  }
  if (c.block_tokens < 1 || c.block_tokens > 4096) {
    return Error{"KV cache: block size must be between 1 and 4096 tokens"};
  }
  if (c.head_dim % kv_block_values(c.type) != 0) {
    return Error{"KV cache: " + std::string(kv_type_name(c.type)) + " needs head_dim to be a multiple of " +
                 std::to_string(kv_block_values(c.type)) + ", this model has " + std::to_string(c.head_dim)};
  }
  return KvCache(c);
}

KvCache::KvCache(const KvCacheConfig& c)
    : config_(c),
      row_bytes_(kv_bytes(c.type, static_cast<uint64_t>(c.kv_dim()))),
      head_bytes_(kv_bytes(c.type, static_cast<uint64_t>(c.head_dim))),
      pool_(2ull * c.n_layers * c.block_tokens * row_bytes_, c.chunk_blocks, c.budget_bytes, c.memory) {}

Status KvCache::reserve(int32_t n_tokens) {
  if (n_tokens > config_.max_tokens) {
    return Error{"the context is full: " + std::to_string(n_tokens) + " tokens do not fit in " +
                 std::to_string(config_.max_tokens)};
  }
  const size_t need = (n_tokens + config_.block_tokens - 1) / config_.block_tokens;
  const size_t had = table_.size();
  while (table_.size() < need) {
    auto id = pool_.acquire();
    if (!id) {
      while (table_.size() > had) {  // roll back: the cache is exactly as it was
        pool_.release(table_.back());
        table_.pop_back();
      }
      return Error{id.message()};
    }
    table_.push_back(*id);
  }
  peak_allocated_ = std::max(peak_allocated_, allocated_bytes());
  return {};
}

void KvCache::set_size(int32_t n_tokens) {
  n_tokens_ = std::clamp(n_tokens, 0, capacity());
  peak_used_ = std::max(peak_used_, used_bytes());
}

void KvCache::truncate(int32_t n_tokens) {
  n_tokens_ = std::clamp(n_tokens, 0, n_tokens_);
  const size_t keep = (n_tokens_ + config_.block_tokens - 1) / config_.block_tokens;
  while (table_.size() > keep) {
    pool_.release(table_.back());
    table_.pop_back();
  }
}

Status KvCache::export_rows(int32_t layer, int32_t which, int32_t pos0, int32_t n, uint8_t* dst) const {
  const int32_t bt = config_.block_tokens;
  for (int32_t pos = pos0; pos < pos0 + n;) {
    const int32_t run = std::min(pos0 + n - pos, bt - pos % bt);  // rows left in this block
    if (auto s = pool_.memory().to_host(dst, row(layer, which, pos), run * row_bytes_); !s) return s;
    dst += run * row_bytes_;
    pos += run;
  }
  return {};
}

Status KvCache::import_rows(int32_t layer, int32_t which, int32_t pos0, int32_t n, const uint8_t* src) {
  const int32_t bt = config_.block_tokens;
  for (int32_t pos = pos0; pos < pos0 + n;) {
    const int32_t run = std::min(pos0 + n - pos, bt - pos % bt);
    if (auto s = pool_.memory().from_host(row(layer, which, pos), src, run * row_bytes_); !s) return s;
    src += run * row_bytes_;
    pos += run;
  }
  return {};
}

void KvCache::write_key(int32_t layer, int32_t pos, const float* src) {
  quantize_row(kv_storage_type(config_.type), src, key_row(layer, pos), config_.kv_dim());
}
void KvCache::write_value(int32_t layer, int32_t pos, const float* src) {
  quantize_row(kv_storage_type(config_.type), src, value_row(layer, pos), config_.kv_dim());
}

}  // namespace kvchat
