// Token ids and logits comparisons the engine tests share.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "kvchat/tokenizer.h"

namespace kvchat::test {

// n deterministic ids spread over the vocabulary: (i * 37 + 11 + salt * 101) % n_vocab.
inline std::vector<TokenId> test_ids(size_t n, int32_t n_vocab, int32_t salt = 0) {
  std::vector<TokenId> ids(n);
  for (size_t i = 0; i < n; ++i)
    ids[i] = static_cast<TokenId>((i * 37 + 11 + static_cast<size_t>(salt) * 101) % n_vocab);
  return ids;
}

// The same floats bit for bit (and not empty).
inline bool bit_identical(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && !a.empty() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace kvchat::test
