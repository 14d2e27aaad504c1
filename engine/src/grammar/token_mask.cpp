#include "grammar/token_mask.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <string>
#include <utility>

namespace kvchat::grammar {

TokenTrie::TokenTrie(const Tokenizer& tokenizer) : n_vocab_(tokenizer.n_vocab()) {
  std::vector<std::pair<std::string, TokenId>> entries;  // (bytes, id), sorted by bytes
  for (TokenId id = 0; id < n_vocab_; ++id) {
    if (tokenizer.is_eog(id)) {
      eog_.push_back(id);
      continue;
    }
    if (tokenizer.is_control(id)) continue;
    std::string bytes = tokenizer.token_bytes(id);
    if (!bytes.empty()) entries.emplace_back(std::move(bytes), id);
  }
  std::sort(entries.begin(), entries.end());
  // Breadth first, so that each node's children are contiguous: the node, its entries
  // [lo, hi) (all sharing the node's `depth` first bytes).
  struct Pending {
    uint32_t node;
    size_t lo, hi, depth;
  };
  nodes_.push_back(Node{});
  std::deque<Pending> queue{{0, 0, entries.size(), 0}};
  while (!queue.empty()) {
    const Pending p = queue.front();
    queue.pop_front();
    size_t i = p.lo;
    nodes_[p.node].first_token = static_cast<uint32_t>(tokens_.size());
    for (; i < p.hi && entries[i].first.size() == p.depth; ++i)
      tokens_.push_back(entries[i].second);
    nodes_[p.node].n_tokens = static_cast<uint32_t>(tokens_.size()) - nodes_[p.node].first_token;
    nodes_[p.node].first_child = static_cast<uint32_t>(nodes_.size());
    while (i < p.hi) {
      const auto byte = static_cast<uint8_t>(entries[i].first[p.depth]);
      size_t j = i;
      while (j < p.hi && static_cast<uint8_t>(entries[j].first[p.depth]) == byte) ++j;
      Node child;
      child.byte = byte;
      queue.push_back({static_cast<uint32_t>(nodes_.size()), i, j, p.depth + 1});
      nodes_.push_back(child);
      i = j;
    }
    nodes_[p.node].n_children = static_cast<uint32_t>(nodes_.size()) - nodes_[p.node].first_child;
  }
}

Status allowed_tokens(StateCache& cache, int32_t start, const TokenTrie& trie,
                      std::vector<uint8_t>& allowed) {
  allowed.assign(static_cast<size_t>(trie.n_vocab()), 0);
  if (cache.can_end(start)) {
    for (TokenId id : trie.eog()) allowed[id] = 1;
  }
  const auto& nodes = trie.nodes();
  const auto& tokens = trie.tokens();
  // Depth first: (node, the state its bytes lead to).
  std::vector<std::pair<uint32_t, int32_t>> todo{{0u, start}};
  while (!todo.empty()) {
    const auto [n, state] = todo.back();
    todo.pop_back();
    const TokenTrie::Node& node = nodes[n];
    for (uint32_t c = node.first_child; c < node.first_child + node.n_children; ++c) {
      const TokenTrie::Node& child = nodes[c];
      auto next = cache.step(state, child.byte);
      if (!next) return next.error();
      if (*next == StateCache::kDead) continue;  // no token below continues the text
      for (uint32_t t = child.first_token; t < child.first_token + child.n_tokens; ++t)
        allowed[tokens[t]] = 1;
      if (child.n_children > 0) todo.emplace_back(c, *next);
    }
  }
  return Status::Ok();
}

Status allowed_tokens(const GrammarMatcher& matcher, const TokenTrie& trie,
                      std::vector<uint8_t>& allowed) {
  StateCache cache(matcher);
  return allowed_tokens(cache, cache.intern(matcher.state()), trie, allowed);
}

Result<GrammarConstraint> GrammarConstraint::create(std::shared_ptr<const Grammar> grammar,
                                                    std::shared_ptr<const TokenTrie> trie,
                                                    const Tokenizer& tokenizer,
                                                    const MatcherLimits& limits) {
  auto m = GrammarMatcher::create(std::move(grammar), limits);
  if (!m) return m.error();
  return GrammarConstraint(std::move(*m), std::move(trie), tokenizer);
}

int32_t GrammarConstraint::current() const {
  const size_t before = cache_->size();
  cache_->trim();
  if (cache_->size() < before) state_id_ = cache_->intern(matcher_.state());
  return state_id_;
}

std::string GrammarConstraint::bytes_of(TokenId id) const {
  for (const auto& [special, text] : special_texts_)
    if (special == id) return text;
  if (tokenizer_->is_control(id)) return {};
  return tokenizer_->token_bytes(id);
}

Result<bool> GrammarConstraint::allows(TokenId id) const {
  if (id < 0 || id >= tokenizer_->n_vocab()) return false;
  if (tokenizer_->is_eog(id)) return matcher_.can_end();
  const std::string bytes = bytes_of(id);
  if (bytes.empty()) return false;
  int32_t state = current();
  for (char c : bytes) {
    auto next = cache_->step(state, static_cast<uint8_t>(c));
    if (!next) return next.error();
    if (*next == StateCache::kDead) return false;
    state = *next;
  }
  return true;
}

Status GrammarConstraint::mask(std::span<float> logits) {
  if (Status s = allowed_tokens(*cache_, current(), *trie_, allowed_); !s) return s;
  for (const auto& [special, text] : special_texts_) {  // not in the trie: no bytes of their own
    if (static_cast<size_t>(special) >= allowed_.size()) continue;
    auto ok = allows(special);
    if (!ok) return ok.error();
    allowed_[static_cast<size_t>(special)] = *ok ? 1 : 0;
  }
  bool any = false;
  const size_t n = std::min(logits.size(), allowed_.size());
  for (size_t i = 0; i < n; ++i) {
    if (allowed_[i]) {
      any = true;
    } else {
      logits[i] = -std::numeric_limits<float>::infinity();
    }
  }
  for (size_t i = n; i < logits.size(); ++i) logits[i] = -std::numeric_limits<float>::infinity();
  if (!any) return Error{"no token of the vocabulary can continue the grammar here"};
  return Status::Ok();
}

Status GrammarConstraint::accept(TokenId id) {
  auto ok = allows(id);
  if (!ok) return ok.error();
  if (!*ok) {
    return Error{"token " + std::to_string(id) + " ('" + tokenizer_->token_text(id) +
                 "') cannot continue the grammar here"};
  }
  if (tokenizer_->is_eog(id)) return Status::Ok();
  return accept_text(bytes_of(id));
}

Status GrammarConstraint::accept_text(std::string_view bytes) {
  auto advanced = matcher_.accept(bytes);
  if (!advanced) return advanced.error();
  if (!*advanced) return Error{"the text cannot continue the grammar here"};
  state_id_ = cache_->intern(matcher_.state());
  return Status::Ok();
}

}  // namespace kvchat::grammar
