// Grammar-constrained sampling over a vocabulary: which tokens' bytes can continue the
// text a GrammarMatcher has followed so far.
//
// TokenTrie holds every token that has bytes (Tokenizer::token_bytes: SentencePiece
// pieces with their spaces and byte-fallback tokens as one byte each, byte-level BPE
// decoded to bytes), built once per vocabulary and shared. A mask walks the trie from
// the matcher's state, one byte per edge, and leaves a subtree as soon as its prefix cannot
// continue the grammar: a step visits only viable prefixes. A token may span several
// grammar elements (its bytes go through the automaton one by one) or end inside a UTF-8
// sequence (allowed if the sequence can still become a code point the grammar takes).
// Control tokens have no bytes the grammar could see: never allowed. End-of-generation
// tokens are allowed exactly where the text is a whole sentence.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "grammar/grammar_matcher.h"
#include "grammar/state_cache.h"
#include "kvchat/result.h"
#include "kvchat/tokenizer.h"

namespace kvchat::grammar {

class TokenTrie {
 public:
  explicit TokenTrie(const Tokenizer& tokenizer);

  struct Node {
    uint32_t first_child = 0, n_children = 0;  // nodes[first_child, + n_children), by byte
    uint32_t first_token = 0, n_tokens = 0;    // tokens[first_token, + n_tokens) end here
    uint8_t byte = 0;                          // the edge into this node
  };
  const std::vector<Node>& nodes() const { return nodes_; }  // nodes_[0]: the root
  const std::vector<TokenId>& tokens() const { return tokens_; }
  std::span<const TokenId> eog() const { return eog_; }
  int32_t n_vocab() const { return n_vocab_; }

 private:
  std::vector<Node> nodes_;
  std::vector<TokenId> tokens_;
  std::vector<TokenId> eog_;
  int32_t n_vocab_ = 0;
};

// allowed[id] = 1 for each token that can come next from the matcher's state, else 0
// (allowed is resized to the vocabulary). An error when the grammar's limits are hit.
Status allowed_tokens(const GrammarMatcher& matcher, const TokenTrie& trie,
                      std::vector<uint8_t>& allowed);
// The same from state `start` of a cache that outlives the call (its transitions reused).
Status allowed_tokens(StateCache& cache, int32_t start, const TokenTrie& trie,
                      std::vector<uint8_t>& allowed);

// A grammar applied to one generation: mask the logits, accept the chosen token.
class GrammarConstraint {
 public:
  static Result<GrammarConstraint> create(std::shared_ptr<const Grammar> grammar,
                                          std::shared_ptr<const TokenTrie> trie,
                                          const Tokenizer& tokenizer,
                                          const MatcherLimits& limits = {});

  // Whether `id` can come next (its bytes continue the text; an end-of-generation token
  // where the text is a sentence). Cheap: one token's bytes.
  Result<bool> allows(TokenId id) const;
  // logits[id] = -inf for every token that cannot come next.        logits: (n_vocab)
  Status mask(std::span<float> logits);
  // Advances past `id`; an error if it cannot come next.
  Status accept(TokenId id);
  // Advances past text (a lazy grammar's trigger and what followed it in the same token);
  // an error, the state unchanged, if the text cannot continue the grammar.
  Status accept_text(std::string_view bytes);
  // Special tokens (control tokens, which have no bytes) that count as their text here:
  // a tool call's marker such as [TOOL_CALLS]. Other control tokens are never allowed.
  void set_special_texts(std::vector<std::pair<TokenId, std::string>> texts) {
    special_texts_ = std::move(texts);
  }
  // Whether the text so far is a whole sentence.
  bool can_end() const { return matcher_.can_end(); }
  const GrammarMatcher& matcher() const { return matcher_; }

 private:
  GrammarConstraint(GrammarMatcher m, std::shared_ptr<const TokenTrie> trie,
                    const Tokenizer& tokenizer)
      : matcher_(std::move(m)),
        trie_(std::move(trie)),
        tokenizer_(&tokenizer),
        cache_(std::make_unique<StateCache>(matcher_)),
        state_id_(cache_->intern(matcher_.state())) {}
  // The current state's id in the cache (trimmed first when it grew too large).
  int32_t current() const;
  // The bytes a token contributes to the text the grammar sees.
  std::string bytes_of(TokenId id) const;

  GrammarMatcher matcher_;
  std::shared_ptr<const TokenTrie> trie_;
  const Tokenizer* tokenizer_;
  std::unique_ptr<StateCache> cache_;  // transitions seen so far, reused step after step
  mutable int32_t state_id_;
  std::vector<uint8_t> allowed_;  // scratch of mask()
  std::vector<std::pair<TokenId, std::string>> special_texts_;
};

}  // namespace kvchat::grammar
