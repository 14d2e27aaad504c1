#include "kv/kv_memory.h"

#include <cstring>
#include <new>
#include <string>

namespace kvchat {

namespace {

class HostKvMemory final : public KvMemory {
 public:
  std::string_view name() const override { return "host"; }
  bool host_accessible() const override { return true; }

  Result<uint8_t*> allocate(uint64_t bytes) override {
    auto* p = new (std::nothrow) uint8_t[bytes];
    if (!p) return Error{"out of host memory allocating " + std::to_string(bytes) + " bytes"};
    return p;
  }
  void release(uint8_t* memory) override { delete[] memory; }

  Status to_host(void* dst, const uint8_t* src, uint64_t bytes) const override {
    std::memcpy(dst, src, bytes);
    return {};
  }
  Status from_host(uint8_t* dst, const void* src, uint64_t bytes) override {
    std::memcpy(dst, src, bytes);
    return {};
  }
};

}  // namespace

std::shared_ptr<KvMemory> host_kv_memory() {
  static const std::shared_ptr<KvMemory> memory = std::make_shared<HostKvMemory>();
  return memory;
}

}  // namespace kvchat
