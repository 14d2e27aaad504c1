#include "backend/cuda/device_memory.h"

#include "backend/cuda/cuda_check.h"

namespace kvchat::cuda {

std::string allocation_error(uint64_t bytes, cudaError_t err) {
  cudaGetLastError();  // an allocation failure is not sticky; clear it
  size_t free_bytes = 0, total_bytes = 0;
  std::string where;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
    where = " (free " + std::to_string(free_bytes) + " of " + std::to_string(total_bytes) +
            " bytes on the device)";
  }
  return "out of device memory: cudaMalloc of " + std::to_string(bytes) +
         " bytes failed: " + cudaGetErrorString(err) + where;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    reset();
    ptr_ = o.ptr_;
    bytes_ = o.bytes_;
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

Result<DeviceBuffer> DeviceBuffer::allocate(uint64_t bytes) {
  DeviceBuffer b;
  if (bytes == 0) return b;
  if (cudaError_t err = cudaMalloc(&b.ptr_, bytes); err != cudaSuccess) {
    b.ptr_ = nullptr;
    return Error{allocation_error(bytes, err)};
  }
  b.bytes_ = bytes;
  return b;
}

void DeviceBuffer::reset() {
  if (ptr_) cudaFree(ptr_);  // cannot fail usefully in a destructor; nothing to report to
  ptr_ = nullptr;
  bytes_ = 0;
}

PinnedBuffer::~PinnedBuffer() {
  if (ptr_) cudaFreeHost(ptr_);
}

Status PinnedBuffer::allocate(uint64_t bytes) {
  if (ptr_) cudaFreeHost(ptr_);
  ptr_ = nullptr;
  bytes_ = 0;
  KV_CUDA_TRY(cudaMallocHost(&ptr_, bytes));
  bytes_ = bytes;
  return {};
}

Result<uint8_t*> DeviceKvMemory::allocate(uint64_t bytes) {
  void* p = nullptr;
  if (cudaError_t err = cudaMalloc(&p, bytes); err != cudaSuccess)
    return Error{allocation_error(bytes, err)};
  auto* memory = static_cast<uint8_t*>(p);
  sizes_[memory] = bytes;
  held_ += bytes;
  return memory;
}

void DeviceKvMemory::release(uint8_t* memory) {
  auto it = sizes_.find(memory);
  if (it == sizes_.end()) return;
  held_ -= it->second;
  sizes_.erase(it);
  cudaFree(memory);
}

Status DeviceKvMemory::to_host(void* dst, const uint8_t* src, uint64_t bytes) const {
  KV_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  return {};
}

Status DeviceKvMemory::from_host(uint8_t* dst, const void* src, uint64_t bytes) {
  KV_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  return {};
}

}  // namespace kvchat::cuda
