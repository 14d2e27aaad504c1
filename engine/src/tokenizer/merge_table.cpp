// MergeTable (see merge_table.h).
#include "tokenizer/merge_table.h"

namespace kvchat {

void MergeTable::insert(TokenId left, TokenId right, Merge merge) {
  if ((size_ + 1) * 2 > slots_.size()) grow();
  const uint64_t k = key(left, right);
  const size_t mask = slots_.size() - 1;
  for (size_t i = slot_of(k, mask);; i = (i + 1) & mask) {
    if (slots_[i].key == k) return;
    if (slots_[i].key == kEmpty) {
      slots_[i] = Slot{k, merge};
      ++size_;
      return;
    }
  }
}

void MergeTable::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.key == kEmpty) continue;
    size_t i = slot_of(s.key, mask);
    while (slots_[i].key != kEmpty) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

}  // namespace kvchat
