// Flat hash tables for the tokenizer (see piece_table.h).
#include "tokenizer/piece_table.h"

#include <cstring>

namespace kvchat {
namespace {

uint64_t mix(uint64_t h) {
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ull;
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ull;
  h ^= h >> 32;
  return h;
}

}  // namespace

uint64_t hash_bytes(std::string_view s) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (s.size() * 0xBF58476D1CE4E5B9ull);
  const char* p = s.data();
  size_t n = s.size();
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0x94D049BB133111EBull;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  uint64_t w = 0;
  std::memcpy(&w, p, n);
  return mix(h ^ w);
}

// ---------------------------------------------------------------------------

bool PieceTable::insert(std::string_view piece, TokenId id) {
  if ((size_ + 1) * 2 > slots_.size()) grow();
  const uint64_t h = hash_bytes(piece);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.id < 0) {
      s = Slot{h, static_cast<uint32_t>(blob_.size()), static_cast<uint32_t>(piece.size()), id};
      blob_.append(piece);
      ++size_;
      return true;
    }
    if (s.hash == h && key(s) == piece) return false;
  }
}

TokenId PieceTable::find(std::string_view piece) const {
  if (size_ == 0) return -1;
  const uint64_t h = hash_bytes(piece);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.id < 0) return -1;
    if (s.hash == h && s.len == piece.size() &&
        std::memcmp(blob_.data() + s.offset, piece.data(), piece.size()) == 0) {
      return s.id;
    }
  }
}

void PieceTable::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.id < 0) continue;
    size_t i = s.hash & mask;
    while (slots_[i].id >= 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

// ---------------------------------------------------------------------------

void PairSet::insert(uint64_t key) {
  if (key == 0) {
    has_zero_ = true;
    return;
  }
  if ((size_ + 1) * 2 > slots_.size()) grow();
  const size_t mask = slots_.size() - 1;
  for (size_t i = mix(key) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == key) return;
    if (slots_[i] == 0) {
      slots_[i] = key;
      ++size_;
      return;
    }
  }
}

bool PairSet::contains(uint64_t key) const {
  if (key == 0) return has_zero_;
  if (size_ == 0) return false;
  const size_t mask = slots_.size() - 1;
  for (size_t i = mix(key) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == key) return true;
    if (slots_[i] == 0) return false;
  }
}

void PairSet::grow() {
  std::vector<uint64_t> old = std::move(slots_);
  slots_.assign(old.empty() ? 16 : old.size() * 2, 0);
  const size_t mask = slots_.size() - 1;
  for (const uint64_t k : old) {
    if (k == 0) continue;
    size_t i = mix(k) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = k;
  }
}

}  // namespace kvchat
