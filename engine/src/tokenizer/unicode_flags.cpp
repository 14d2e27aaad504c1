// unicode::flags: ASCII and the Basic Multilingual Plane from a flat table
// (built once from the generated ranges), the rest by binary search.
#include <algorithm>
#include <array>

#include "tokenizer/unicode_tables.h"

namespace kvchat::unicode {
namespace {

constexpr uint32_t kBmpSize = 0x10000;
constexpr uint32_t kMaxCodepoint = 0x10FFFF;

uint16_t search(uint32_t cp) {
  const CodepointRange* end = kCodepointRanges + kCodepointRangeCount;
  const CodepointRange* it = std::upper_bound(
      kCodepointRanges, end, cp, [](uint32_t c, const CodepointRange& r) { return c < r.first; });
  return (it - 1)->flags;  // the first range starts at 0, so it > kCodepointRanges
}

// (kBmpSize) flags of U+0000..U+FFFF.
const std::array<uint16_t, kBmpSize>& bmp_table() {
  static const auto* table = [] {
    auto* t = new std::array<uint16_t, kBmpSize>();
    for (size_t i = 0; i < kCodepointRangeCount; ++i) {
      const uint32_t first = kCodepointRanges[i].first;
      if (first >= kBmpSize) break;
      const uint32_t last = i + 1 < kCodepointRangeCount
                                ? std::min(kCodepointRanges[i + 1].first, kBmpSize)
                                : kBmpSize;
      std::fill(t->begin() + first, t->begin() + last, kCodepointRanges[i].flags);
    }
    return t;
  }();
  return *table;
}

}  // namespace

uint16_t flags(uint32_t cp) {
  if (cp < kBmpSize) return bmp_table()[cp];
  if (cp > kMaxCodepoint) return 0;
  return search(cp);
}

}  // namespace kvchat::unicode
