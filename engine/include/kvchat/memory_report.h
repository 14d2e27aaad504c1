// MemoryReport: where the bytes are. Produced after every token from counters the
// engine keeps up to date (O(1), no allocation beyond the small weights map).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace kvchat {

struct MemoryReport {
  std::string backend;                                    // "cpu"
  std::map<std::string, uint64_t> weights_bytes_by_type;  // "F16" -> bytes
  uint64_t weights_bytes = 0;

  std::string kv_type;               // element type of the cache: "f32", "f16", "q8_0", "q4_0"
  int32_t n_layers = 0;
  int32_t kv_tokens = 0;             // tokens whose K and V are cached
  int32_t kv_capacity_tokens = 0;    // tokens the blocks held can take
  int32_t kv_max_tokens = 0;         // the context length (never reserved up front)
  int32_t kv_block_tokens = 0;       // tokens per block
  int32_t kv_blocks = 0;             // blocks held by this conversation
  int32_t kv_free_blocks = 0;        // blocks in the pool, free for reuse
  uint64_t kv_bytes_per_token = 0;   // 2 x layers x kv_heads x head_dim x bytes/element
  uint64_t kv_used_bytes = 0;        // kv_tokens x kv_bytes_per_token
  uint64_t kv_allocated_bytes = 0;   // kv_blocks x block bytes
  uint64_t kv_pool_bytes = 0;        // every block allocated (held + free)
  uint64_t kv_budget_bytes = 0;      // the most the pool may hold; 0 = no limit
  uint64_t kv_peak_used_bytes = 0;
  uint64_t kv_peak_allocated_bytes = 0;

  uint64_t scratch_bytes = 0;        // activations and other per-session buffers

  // What the report is drawn from on this machine (0 where unknown).
  uint64_t process_resident_bytes = 0;  // resident set of the process (mapped weights included)
  uint64_t system_total_bytes = 0;      // RAM, or device memory for a GPU backend
  uint64_t system_available_bytes = 0;

  // A GPU backend's device memory (empty / 0 on the CPU backends).
  std::string device_name;               // "NVIDIA H200"
  uint64_t device_weights_bytes = 0;     // the weights, uploaded once
  uint64_t device_kv_bytes = 0;          // the KV block pool (held + free blocks)
  uint64_t device_scratch_bytes = 0;     // activations, attention partials, dequantized tiles
  uint64_t device_total_bytes = 0;       // cudaMemGetInfo: the device's memory
  uint64_t device_free_bytes = 0;        // cudaMemGetInfo: free now (all processes)

  // Allocated but not (yet) filled: the last block's empty tail.
  uint64_t kv_fragmentation_bytes() const { return kv_allocated_bytes - kv_used_bytes; }
  // Every layer holds the same share.
  uint64_t kv_used_bytes_per_layer() const { return n_layers ? kv_used_bytes / n_layers : 0; }
  uint64_t kv_allocated_bytes_per_layer() const { return n_layers ? kv_allocated_bytes / n_layers : 0; }
  uint64_t total_bytes() const { return weights_bytes + kv_pool_bytes + scratch_bytes; }
};

}  // namespace kvchat
