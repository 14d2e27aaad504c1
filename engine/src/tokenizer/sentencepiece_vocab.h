// SentencePiece tokenizer ("llama" vocab in GGUF): BPE merges by piece score,
// identity normalization, dummy-prefix space, whitespace escaped as U+2581,
// byte fallback (<0xXX>) for characters outside the vocab. Equal id-for-id to
// libsentencepiece on the same model (proved in tests/engine/test_tokenizer*.cpp).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kvchat/result.h"
#include "kvchat/tokenizer.h"
#include "tokenizer/piece_table.h"
#include "tokenizer/token_type.h"

namespace kvchat::gguf {
class GgufFile;
}

namespace kvchat {

struct SentencePieceVocabData {
  std::vector<std::string> pieces;  // (n_vocab) UTF-8, with U+2581 for spaces
  std::vector<float> scores;        // (n_vocab) merge priority: higher merges first
  std::vector<PieceType> types;     // (n_vocab)
  TokenId bos = 1;
  TokenId eos = 2;
  TokenId unk = 0;
  TokenId eot = -1;  // tokenizer.ggml.eot_token_id, -1 if absent
  TokenId eom = -1;  // tokenizer.ggml.eom_token_id, -1 if absent
  bool add_bos = true;
  bool add_space_prefix = true;  // SentencePiece add_dummy_prefix
};

class SentencePieceVocab final : public Tokenizer {
 public:
  static Result<std::unique_ptr<SentencePieceVocab>> create(SentencePieceVocabData data);
  // Reads tokenizer.ggml.* (model must be "llama"); errors name the key.
  static Result<std::unique_ptr<SentencePieceVocab>> from_gguf(const gguf::GgufFile& file);

  std::vector<TokenId> encode(std::string_view text, bool add_bos) const override;
  std::vector<TokenId> encode_with_special(std::string_view text, bool add_bos) const override;
  std::vector<TokenId> encode_continuation(std::string_view text) const override;
  std::string decode(std::span<const TokenId> ids) const override;
  std::string token_bytes(TokenId id) const override;
  // The piece as stored (U+2581 for spaces; "<s>" for control pieces).
  std::string token_text(TokenId id) const override;

  int32_t n_vocab() const override { return static_cast<int32_t>(data_.pieces.size()); }
  TokenId bos() const override { return data_.bos; }
  TokenId eos() const override { return data_.eos; }
  bool add_bos_by_default() const override { return data_.add_bos; }
  bool is_control(TokenId id) const override;
  bool is_eog(TokenId id) const override;
  std::span<const TokenId> eog_ids() const override { return eog_ids_; }

  const SentencePieceVocabData& data() const { return data_; }

 private:
  class Encoder;  // one encode() call's working state (sentencepiece_vocab.cpp)

  explicit SentencePieceVocab(SentencePieceVocabData data);
  void index_pieces();
  // Appends the ids of `text` (no BOS); dummy_prefix: add the U+2581 in front when
  // the vocab asks for it.
  void encode_segment(std::string_view text, bool dummy_prefix, std::vector<TokenId>& ids) const;
  // encode_with_special; the first segment takes the dummy prefix only if first_prefix.
  std::vector<TokenId> encode_special_segments(std::string_view text, bool add_bos,
                                               bool first_prefix) const;
  // Length of the special (CONTROL or USER_DEFINED) piece that is the longest prefix
  // of `text`, and its id; {0, -1} when none.
  std::pair<size_t, TokenId> match_special(std::string_view text) const;
  // Length of the USER_DEFINED piece that is the longest prefix of `text`, or 0.
  size_t match_user_defined(std::string_view text) const;
  // True when no piece can span the boundary between two adjacent characters.
  bool is_hard_boundary(std::string_view left_char, std::string_view right_char) const;

  SentencePieceVocabData data_;
  PieceTable piece_to_id_;        // NORMAL, USER_DEFINED, UNUSED: the pieces merges may form
  PieceTable reserved_to_id_;     // CONTROL, UNKNOWN, BYTE: matched only as whole symbols
  TokenId byte_token_[256] = {};  // <0xXX> ids, -1 if absent
  bool byte_fallback_ = false;    // the vocab has BYTE pieces
  bool has_unused_ = false;       // UNUSED pieces need whole-text merging (see Encoder)
  size_t max_piece_bytes_ = 0;    // longest mergeable piece
  // USER_DEFINED pieces (matched before splitting, never merged), which bytes
  // can start one, and their distinct lengths, longest first.
  PieceTable user_defined_;
  bool user_defined_first_byte_[256] = {};
  std::vector<size_t> user_defined_lengths_;
  // CONTROL and USER_DEFINED pieces, for encode_with_special (same layout as above).
  PieceTable special_;
  bool special_first_byte_[256] = {};
  std::vector<size_t> special_lengths_;
  // Pairs of adjacent characters inside some mergeable piece (packed, see
  // pair_key): a boundary between any other two characters is never merged across.
  PairSet inner_pairs_;
  std::vector<TokenId> eog_ids_;  // sorted (eog_set.h)
};

}  // namespace kvchat
