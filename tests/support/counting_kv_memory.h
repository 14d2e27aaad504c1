// A KvMemory for tests of a KV cache split between two memories: host memory that records
// the chunks it hands out, so that a test can tell which blocks came from it (the "device"
// side of a split that the host can still read) and how many bytes it holds.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <string_view>
#include <vector>

#include "kv/kv_memory.h"

namespace kvchat::test {

class CountingKvMemory final : public KvMemory {
 public:
  std::string_view name() const override { return "counting"; }
  bool host_accessible() const override { return true; }
  Result<uint8_t*> allocate(uint64_t bytes) override {
    chunks.emplace_back(bytes);
    ++allocations;
    live_bytes += bytes;
    return chunks.back().data();
  }
  void release(uint8_t* memory) override {
    for (auto it = chunks.begin(); it != chunks.end(); ++it) {
      if (it->data() != memory) continue;
      live_bytes -= it->size();
      chunks.erase(it);
      return;
    }
    ADD_FAILURE() << "released memory the counting memory did not hand out";
  }
  Status to_host(void* dst, const uint8_t* src, uint64_t bytes) const override {
    std::memcpy(dst, src, bytes);
    return {};
  }
  Status from_host(uint8_t* dst, const void* src, uint64_t bytes) override {
    std::memcpy(dst, src, bytes);
    return {};
  }
  // Whether [p, p + bytes) lies inside one of the live chunks.
  bool holds(const uint8_t* p, uint64_t bytes) const {
    for (const auto& c : chunks) {
      if (p >= c.data() && p + bytes <= c.data() + c.size()) return true;
    }
    return false;
  }

  std::deque<std::vector<uint8_t>> chunks;  // the live allocations, each its bytes
  int allocations = 0;                      // allocate() calls so far
  uint64_t live_bytes = 0;                  // bytes of the live allocations
};

}  // namespace kvchat::test
