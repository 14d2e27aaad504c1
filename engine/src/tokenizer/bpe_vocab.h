// Byte-level BPE tokenizer ("gpt2" vocab in GGUF), as llama.cpp's BPE tokenizer
// and the Hugging Face tokenizers it mirrors: user-defined (and, with
// specials, control) tokens are cut out first, the rest is split into words by
// the pre-tokenizer tokenizer.ggml.pre names, each word's bytes are written in
// GPT-2's byte alphabet and merged by the ranks of tokenizer.ggml.merges (the
// lowest rank first, the leftmost on ties). Checked id for id against
// llama.cpp's test vectors (tests/engine/test_tokenizer_bpe.cpp).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kvchat/result.h"
#include "kvchat/tokenizer.h"
#include "tokenizer/merge_table.h"
#include "tokenizer/piece_table.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/token_type.h"

namespace kvchat::gguf {
class GgufFile;
}

namespace kvchat {

struct BpeVocabData {
  std::vector<std::string> tokens;  // (n_vocab) byte-level text; CONTROL/USER_DEFINED as written
  std::vector<PieceType> types;     // (n_vocab)
  std::vector<std::string> merges;  // "left right", in rank order
  std::string pre;                  // tokenizer.ggml.pre ("" when absent)
  TokenId bos = -1;                 // -1: none
  TokenId eos = -1;
  TokenId unk = -1;
  TokenId eot = -1;
  TokenId eom = -1;
  bool add_bos = false;
  bool add_eos = false;
};

class BpeVocab final : public Tokenizer {
 public:
  // Validates the data; an unknown or missing `pre` falls back to the default
  // split, and warning() says so.
  static Result<std::unique_ptr<BpeVocab>> create(BpeVocabData data);
  // Reads tokenizer.ggml.* (model must be "gpt2"), with llama.cpp's defaults
  // for the keys a file leaves out (bpe_vocab_gguf.cpp); errors name the key.
  static Result<std::unique_ptr<BpeVocab>> from_gguf(const gguf::GgufFile& file);

  // Plain text: user-defined tokens are still matched (llama.cpp and Hugging
  // Face cut them out before pre-tokenizing); control tokens are not.
  std::vector<TokenId> encode(std::string_view text, bool add_bos) const override;
  std::vector<TokenId> encode_with_special(std::string_view text, bool add_bos) const override;
  // BPE has no dummy-prefix space, so this is encode_with_special(text, false).
  std::vector<TokenId> encode_continuation(std::string_view text) const override;
  // Control and unknown tokens give nothing, user-defined tokens their text,
  // other tokens the bytes their byte-level text stands for; the bytes of the
  // whole sequence are joined and ill-formed UTF-8 becomes U+FFFD.
  std::string decode(std::span<const TokenId> ids) const override;
  // The raw bytes of one token (possibly part of a UTF-8 character).
  std::string token_bytes(TokenId id) const override;
  // CONTROL and USER_DEFINED tokens as written; others as token_bytes().
  std::string token_text(TokenId id) const override;

  int32_t n_vocab() const override { return static_cast<int32_t>(data_.tokens.size()); }
  TokenId bos() const override { return data_.bos; }
  TokenId eos() const override { return data_.eos; }
  bool add_bos_by_default() const override { return data_.add_bos; }
  bool is_control(TokenId id) const override;
  bool is_eog(TokenId id) const override;
  std::span<const TokenId> eog_ids() const override { return eog_ids_; }
  std::string_view warning() const override { return warning_; }

  bool add_eos_by_default() const { return data_.add_eos; }
  const BpeVocabData& data() const { return data_; }
  const PreTokenizer& pre_tokenizer() const { return pre_; }

 private:
  class Encoder;  // one encode() call's working state (bpe_vocab.cpp)

  BpeVocab(BpeVocabData data, PreTokenizerSpec spec, std::string warning);
  Status index_tokens();
  // Cuts `text` at the tokens of `specials` (leftmost, longest at a position) and
  // encodes the text between them.
  void encode_segments(std::string_view text, const PieceTable& specials,
                       const bool (&first_byte)[256], const std::vector<size_t>& lengths,
                       std::vector<TokenId>& ids) const;

  BpeVocabData data_;
  PreTokenizer pre_;
  std::string warning_;
  PieceTable token_to_id_;  // byte-level text of every token
  MergeTable merges_;
  TokenId byte_token_[256] = {};    // id of each byte's one-character token, -1 if none
  std::vector<std::string> bytes_;  // (n_vocab) token_bytes of each token
  std::vector<TokenId> eog_ids_;    // sorted
  // USER_DEFINED tokens (matched in every encode), and CONTROL + USER_DEFINED
  // (encode_with_special): which bytes can start one, their distinct lengths,
  // longest first.
  PieceTable user_defined_;
  bool user_defined_first_byte_[256] = {};
  std::vector<size_t> user_defined_lengths_;
  PieceTable special_;
  bool special_first_byte_[256] = {};
  std::vector<size_t> special_lengths_;
};

}  // namespace kvchat
