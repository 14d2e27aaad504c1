// MergeTable: BPE merge rules keyed by the token ids of the pair, for the merge
// loop (flat open addressing; built once, then only read; lookups do not allocate).
#pragma once

#include <cstdint>
#include <vector>

#include "kvchat/tokenizer.h"

namespace kvchat {

struct Merge {
  int32_t rank = -1;  // position in tokenizer.ggml.merges: lower merges first
  TokenId result = -1;
};

class MergeTable {
 public:
  // Adds left+right -> merge unless the pair is already present (the first rank wins).
  void insert(TokenId left, TokenId right, Merge merge);
  // The merge of the pair; rank -1 when there is none.
  Merge find(TokenId left, TokenId right) const;
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t key = kEmpty;
    Merge merge;
  };
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  static uint64_t key(TokenId left, TokenId right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) |
           static_cast<uint32_t>(right);
  }
  static size_t slot_of(uint64_t key, size_t mask) {
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return static_cast<size_t>(h) & mask;
  }
  void grow();

  std::vector<Slot> slots_;  // power-of-two size, at most half full
  size_t size_ = 0;
};

inline Merge MergeTable::find(TokenId left, TokenId right) const {
  if (size_ == 0) return {};
  const uint64_t k = key(left, right);
  const size_t mask = slots_.size() - 1;
  for (size_t i = slot_of(k, mask);; i = (i + 1) & mask) {
    if (slots_[i].key == k) return slots_[i].merge;
    if (slots_[i].key == kEmpty) return {};
  }
}

}  // namespace kvchat
