// Tokenizer interface: text <-> token ids, exactly as the model's own tokenizer.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kvchat {

using TokenId = int32_t;

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // Token ids of `text`; BOS first when add_bos is true.
  virtual std::vector<TokenId> encode(std::string_view text, bool add_bos) const = 0;
  // As encode(), but exact occurrences of special piece strings (control pieces such
  // as "<s>", "</s>", "<|im_start|>", and user-defined pieces) become their ids, the
  // leftmost first and the longest at a position; the text between them is encoded
  // as encode() does, each segment that starts the text or follows a special piece
  // with the dummy-prefix space (llama.cpp's parse_special rule). Rendered chat
  // templates go through this; user text that must not be interpreted uses encode().
  virtual std::vector<TokenId> encode_with_special(std::string_view text, bool add_bos) const = 0;
  // Like encode_with_special(text, false), for text that continues earlier text already
  // tokenized: its first segment gets no dummy-prefix space (it is not a text start).
  virtual std::vector<TokenId> encode_continuation(std::string_view text) const = 0;
  // Text of a whole sequence (control tokens dropped, byte tokens joined into
  // UTF-8, the dummy-prefix space of the first piece removed): decode(encode(s)) == s for
  // valid UTF-8 that the vocabulary can spell (a literal U+2581 comes back as a space from
  // a SentencePiece vocab, as libsentencepiece does; a byte a BPE vocab has no token for
  // is dropped).
  virtual std::string decode(std::span<const TokenId> ids) const = 0;
  // Raw bytes one token contributes when streamed after other tokens (a leading
  // space is kept; a byte token gives one byte, possibly part of a UTF-8 sequence).
  virtual std::string token_bytes(TokenId id) const = 0;
  // A token's text as the vocabulary writes it, special tokens as their markers ("<s>",
  // "<|begin_of_text|>"): what a chat template's bos_token and eos_token are. "" when
  // id is out of range.
  virtual std::string token_text(TokenId id) const = 0;

  virtual int32_t n_vocab() const = 0;
  virtual TokenId bos() const = 0;
  virtual TokenId eos() const = 0;
  virtual bool add_bos_by_default() const = 0;
  virtual bool is_control(TokenId id) const = 0;
  // End of generation: the eos token, tokenizer.ggml.eot_token_id/eom_token_id,
  // and control or user-defined tokens whose text is an end-of-turn marker
  // (<|eot_id|>, <|im_end|>, <|end|>, <end_of_turn>, <|endoftext|>, ...), as
  // llama.cpp builds the set. A generation stops at the first of them.
  virtual bool is_eog(TokenId id) const = 0;
  virtual std::span<const TokenId> eog_ids() const = 0;  // sorted
  // A problem found while loading that did not stop it (e.g. an unknown
  // pre-tokenizer name and the fallback taken), for tools to show; "" if none.
  virtual std::string_view warning() const { return {}; }
};

}  // namespace kvchat
