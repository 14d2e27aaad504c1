// EncodeMemo: the ids a word (or SentencePiece chunk) encoded to, remembered for the rest
// of one encode() call, so repeated words in a long text are merged once. Bounded: past
// kMaxEntries distinct words nothing more is remembered.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "kvchat/tokenizer.h"
#include "tokenizer/piece_table.h"

namespace kvchat {

class EncodeMemo {
 public:
  static constexpr size_t kMaxEntries = size_t{1} << 16;

  // Appends the remembered ids of `word` to `out`; false when it is not remembered.
  bool recall(std::string_view word, std::vector<TokenId>& out) const {
    const TokenId entry = keys_.find(word);
    if (entry < 0) return false;
    const auto [offset, count] = spans_[entry];
    out.insert(out.end(), ids_.begin() + offset, ids_.begin() + offset + count);
    return true;
  }

  // Remembers out[first_id, end) as the ids of `word`.
  void remember(std::string_view word, const std::vector<TokenId>& out, size_t first_id) {
    if (spans_.size() >= kMaxEntries) return;
    keys_.insert(word, static_cast<TokenId>(spans_.size()));
    spans_.emplace_back(ids_.size(), out.size() - first_id);
    ids_.insert(ids_.end(), out.begin() + first_id, out.end());
  }

 private:
  PieceTable keys_;                               // word -> index into spans_
  std::vector<std::pair<size_t, size_t>> spans_;  // (offset, count) in ids_
  std::vector<TokenId> ids_;
};

}  // namespace kvchat
