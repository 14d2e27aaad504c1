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

  std::string kv_type;  // element type of the cache: "f16", ..., or "K/V" ("q8_0/q4_0")
  int32_t n_layers = 0;
  int32_t kv_tokens = 0;            // tokens whose K and V are cached
  int32_t kv_capacity_tokens = 0;   // tokens the blocks held can take
  int32_t kv_max_tokens = 0;        // the context length (never reserved up front)
  int32_t kv_block_tokens = 0;      // tokens per block
  int32_t kv_blocks = 0;            // blocks held by this conversation
  int32_t kv_free_blocks = 0;       // blocks in the pool, free for reuse
  uint64_t kv_bytes_per_token = 0;  // 2 x layers x kv_heads x head_dim x bytes/element
  // The rows held: kv_tokens x kv_bytes_per_token, less the windowed layers' freed rows.
  uint64_t kv_used_bytes = 0;
  uint64_t kv_allocated_bytes = 0;  // kv_blocks x block bytes
  uint64_t kv_pool_bytes = 0;       // every block allocated (held + free)
  uint64_t kv_budget_bytes = 0;     // the most the pool may hold; 0 = no limit
  uint64_t kv_peak_used_bytes = 0;
  uint64_t kv_peak_allocated_bytes = 0;

  // Sliding-window layers (gemma2/3; all 0 for models without them): they keep only
  // their last kv_window (+ kv_window_slack) tokens; their older blocks were freed.
  int32_t kv_window = 0;                     // tokens a windowed layer attends to
  int32_t kv_window_slack = 0;               // rows kept beyond the window (< 0: none freed)
  int32_t kv_windowed_layers = 0;            // of n_layers
  uint64_t kv_windowed_allocated_bytes = 0;  // part of kv_allocated_bytes
  uint64_t kv_window_freed_bytes = 0;        // windowed layers' blocks returned to the pool

  // Shared prefix blocks (SessionOptions::kv_share_prefix; 0 otherwise): the bytes of this
  // conversation's blocks that another conversation holds too (part of
  // kv_allocated_bytes), the tokens whose K/V it adopted instead of evaluating them, and
  // the bytes of every block its store shares between conversations (each counted once).
  uint64_t kv_shared_bytes = 0;
  uint64_t kv_prefix_hit_tokens = 0;
  uint64_t kv_store_shared_bytes = 0;

  uint64_t scratch_bytes = 0;  // activations and other per-session buffers

  // What the report is drawn from on this machine (0 where unknown).
  uint64_t process_resident_bytes = 0;  // resident set of the process (mapped weights included)
  uint64_t system_total_bytes = 0;      // RAM, or device memory for a GPU backend
  uint64_t system_available_bytes = 0;

  // A GPU backend's device memory (empty / 0 on the CPU backends).
  std::string device_name;            // "NVIDIA H200"
  uint64_t device_weights_bytes = 0;  // the weights, uploaded once
  uint64_t device_kv_bytes = 0;       // the KV block pool (held + free blocks)
  uint64_t device_scratch_bytes = 0;  // activations, attention partials, dequantized tiles
  uint64_t device_total_bytes = 0;    // cudaMemGetInfo: the device's memory
  uint64_t device_free_bytes = 0;     // cudaMemGetInfo: free now (all processes)

  // Partial offload (a GPU backend's report_device_memory sets gpu_layers; 0 on the CPU
  // backends): layers [0, gpu_layers) of n_layers run on the device, their weights and KV
  // in device_weights_bytes / device_kv_bytes; the host runs the others and the logits.
  int32_t gpu_layers = 0;
  uint64_t host_weights_bytes = 0;  // the weights the host runs from (all of them without a GPU)
  uint64_t host_kv_bytes = 0;       // the host layers' KV blocks (all of them without a GPU)
  bool layers_split() const { return gpu_layers > 0 && gpu_layers < n_layers; }

  // Allocated but not (yet) filled: the last block's empty tail.
  uint64_t kv_fragmentation_bytes() const { return kv_allocated_bytes - kv_used_bytes; }
  // What the KV would take if no windowed row were freed.
  uint64_t kv_bytes_without_window() const {
    return kv_bytes_per_token * static_cast<uint64_t>(kv_tokens);
  }
  // Every layer holds the same share (an average when windowed rows were freed).
  uint64_t kv_used_bytes_per_layer() const { return n_layers ? kv_used_bytes / n_layers : 0; }
  uint64_t kv_allocated_bytes_per_layer() const {
    return n_layers ? kv_allocated_bytes / n_layers : 0;
  }
  uint64_t total_bytes() const { return weights_bytes + kv_pool_bytes + scratch_bytes; }
};

}  // namespace kvchat
