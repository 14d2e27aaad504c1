// A KV cache small enough to count by hand: 2 layers, 1 KV head of 4 f32 values (rows of
// 16 bytes), blocks of 4 tokens, one block per chunk, 64 tokens at most; freed blocks
// poisoned (a read of one cannot go unnoticed).
#pragma once

#include "kv/kv_cache.h"

namespace kvchat::test {

inline KvCacheConfig small_kv_config() {
  KvCacheConfig c;
  c.n_layers = 2;
  c.n_kv_heads = 1;
  c.head_dim = 4;
  c.max_tokens = 64;
  c.block_tokens = 4;
  c.chunk_blocks = 1;
  c.type = KvType::F32;
  c.poison_freed = true;
  return c;
}

}  // namespace kvchat::test
