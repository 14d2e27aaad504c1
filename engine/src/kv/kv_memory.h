// KvMemory: where the KV block pool's chunks live. Host memory by default; the CUDA
// backend supplies device memory, so the same paged cache (block table, free list,
// budget, MemoryReport) runs on either. Code outside a backend's kernels moves rows
// with the copy functions, never by dereferencing block pointers of device memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "kvchat/result.h"

namespace kvchat {

class KvMemory {
 public:
  virtual ~KvMemory() = default;
  virtual std::string_view name() const = 0;  // "host", "cuda"
  // True when block pointers may be dereferenced by host code (the CPU backends).
  virtual bool host_accessible() const = 0;

  // `bytes` of fresh memory, or an error that says how much could not be had.
  virtual Result<uint8_t*> allocate(uint64_t bytes) = 0;
  virtual void release(uint8_t* memory) = 0;

  // Copies between this memory and the host (and within this memory).
  virtual Status to_host(void* dst, const uint8_t* src, uint64_t bytes) const = 0;
  virtual Status from_host(uint8_t* dst, const void* src, uint64_t bytes) = 0;
};

// Plain host memory (new[] / delete[]).
std::shared_ptr<KvMemory> host_kv_memory();

}  // namespace kvchat
