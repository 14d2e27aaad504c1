// Device memory for the CUDA backend: an owning buffer, and the KvMemory that puts the
// session's KV blocks in device memory (plain cudaMalloc per chunk, no managed memory).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "kv/kv_memory.h"
#include "kvchat/result.h"

namespace kvchat::cuda {

// "cudaMalloc of N bytes failed: ... (free F of T bytes on the device)".
std::string allocation_error(uint64_t bytes, cudaError_t err);

// One cudaMalloc'ed region, freed on destruction.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
    o.ptr_ = nullptr, o.bytes_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  static Result<DeviceBuffer> allocate(uint64_t bytes);
  void reset();

  template <typename T = uint8_t>
  T* get() const {
    return static_cast<T*>(ptr_);
  }
  uint64_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  uint64_t bytes_ = 0;
};

// Pinned host memory (cudaMallocHost) for asynchronous copies.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer();
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  Status allocate(uint64_t bytes);
  template <typename T = uint8_t>
  T* get() const {
    return static_cast<T*>(ptr_);
  }
  uint64_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  uint64_t bytes_ = 0;
};

// The KV block pool's memory on the device; counts what it holds for MemoryReport.
class DeviceKvMemory final : public KvMemory {
 public:
  std::string_view name() const override { return "cuda"; }
  bool host_accessible() const override { return false; }
  Result<uint8_t*> allocate(uint64_t bytes) override;
  void release(uint8_t* memory) override;
  Status to_host(void* dst, const uint8_t* src, uint64_t bytes) const override;
  Status from_host(uint8_t* dst, const void* src, uint64_t bytes) override;

  uint64_t bytes_held() const { return held_; }

 private:
  uint64_t held_ = 0;
  std::unordered_map<uint8_t*, uint64_t> sizes_;  // live allocations
};

}  // namespace kvchat::cuda
