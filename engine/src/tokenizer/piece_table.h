// Flat open-addressing hash tables for the tokenizer's hot loops: PieceTable
// maps piece strings to token ids, PairSet holds 64-bit keys. Both are built
// once and then only read; lookups do not allocate.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/tokenizer.h"

namespace kvchat {

// 64-bit hash of a short byte string (8 bytes per step, multiply-xorshift mixing).
uint64_t hash_bytes(std::string_view s);

class PieceTable {
 public:
  // Adds `piece` -> `id` unless `piece` is already present; returns whether it was added.
  bool insert(std::string_view piece, TokenId id);
  // The id of `piece`, or -1.
  TokenId find(std::string_view piece) const;
  bool contains(std::string_view piece) const { return find(piece) >= 0; }
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t offset = 0;  // into blob_
    uint32_t len = 0;
    TokenId id = -1;  // -1: empty slot
  };
  void grow();
  std::string_view key(const Slot& s) const {
    return std::string_view(blob_).substr(s.offset, s.len);
  }

  std::vector<Slot> slots_;  // power-of-two size, at most half full
  std::string blob_;         // every key, back to back
  size_t size_ = 0;
};

class PairSet {
 public:
  void insert(uint64_t key);
  bool contains(uint64_t key) const;

 private:
  void grow();
  std::vector<uint64_t> slots_;  // power-of-two size, at most half full; 0 = empty
  bool has_zero_ = false;        // key 0 is kept aside
  size_t size_ = 0;
};

}  // namespace kvchat
