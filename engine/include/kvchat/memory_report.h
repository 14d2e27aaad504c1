// MemoryReport: where the bytes are, produced after every token (O(1): counters only).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace kvchat {

struct MemoryReport {
  std::string backend;                               // "cpu"
  std::map<std::string, uint64_t> weights_bytes_by_type;  // "F16" -> bytes
  uint64_t weights_bytes = 0;

  std::string kv_type;               // element type of the cache ("F32")
  int32_t kv_tokens = 0;             // tokens whose K and V are cached
  int32_t kv_capacity_tokens = 0;    // tokens the allocated blocks can hold
  int32_t kv_max_tokens = 0;         // the context length (never reserved up front)
  int32_t kv_block_tokens = 0;       // tokens per block
  int32_t kv_blocks = 0;             // blocks held
  uint64_t kv_bytes_per_token = 0;   // 2 x layers x kv_heads x head_dim x bytes/element
  uint64_t kv_used_bytes = 0;        // kv_tokens x kv_bytes_per_token
  uint64_t kv_allocated_bytes = 0;   // kv_blocks x block bytes
  uint64_t kv_peak_allocated_bytes = 0;

  uint64_t scratch_bytes = 0;        // activations and other per-session buffers

  uint64_t total_bytes() const { return weights_bytes + kv_allocated_bytes + scratch_bytes; }
};

}  // namespace kvchat
