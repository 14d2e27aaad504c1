// Matcher states interned, with their byte transitions computed once: what makes a mask
// cheap. Inside a JSON string, say, every ordinary character leads back to the same state,
// so a walk over the vocabulary's trie meets a handful of states, and each (state, byte)
// step is a table lookup after the first time. The cache lives with a generation: the
// grammar does not change, so the table stays valid from one decoding step to the next.
#pragma once

#include <array>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "grammar/grammar_matcher.h"
#include "kvchat/result.h"

namespace kvchat::grammar {

class StateCache {
 public:
  static constexpr int32_t kDead = -1;  // the byte cannot continue the text

  explicit StateCache(GrammarMatcher matcher) : matcher_(std::move(matcher)) {}

  // Empties the cache when it holds more than kMaxStates (call between walks: ids then
  // change).
  void trim();
  // The id of state s.
  int32_t intern(const MatchState& s);
  // The state after `byte` from state `id`, or kDead; an error when the grammar's limits
  // are hit.
  Result<int32_t> step(int32_t id, uint8_t byte);
  bool can_end(int32_t id) const { return GrammarMatcher::can_end(states_[index(id)]); }
  size_t size() const { return states_.size(); }

 private:
  static constexpr int32_t kUnknown = -2;
  static constexpr size_t kMaxTables = 4096;  // states with a transition table (1 KiB each)
  static constexpr size_t kMaxStates = 65536;
  static uint64_t hash(const MatchState& s);
  static size_t index(int32_t id) { return static_cast<size_t>(id); }

  GrammarMatcher matcher_;  // its grammar and limits (advance() does not use its state)
  std::vector<MatchState> states_;
  std::vector<std::array<int32_t, 256>> next_;      // (min(states, kMaxTables)): per byte
  std::unordered_multimap<uint64_t, int32_t> ids_;  // hash -> the ids with it
};

}  // namespace kvchat::grammar
