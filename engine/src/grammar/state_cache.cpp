#include "grammar/state_cache.h"

namespace kvchat::grammar {

uint64_t StateCache::hash(const MatchState& s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the partial code point and the stacks
  const auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  mix(s.partial), mix(s.partial_left), mix(s.partial_len), mix(s.stacks.size());
  for (const auto& st : s.stacks) {
    mix(st.size());
    for (uint32_t pos : st) mix(pos);
  }
  return h;
}

void StateCache::trim() {
  if (states_.size() <= kMaxStates) return;
  states_.clear(), next_.clear(), ids_.clear();
}

int32_t StateCache::intern(const MatchState& s) {
  const uint64_t h = hash(s);
  for (auto [it, end] = ids_.equal_range(h); it != end; ++it) {
    if (states_[index(it->second)] == s) return it->second;
  }
  const auto id = static_cast<int32_t>(states_.size());
  states_.push_back(s);
  if (next_.size() < kMaxTables) next_.emplace_back().fill(kUnknown);
  ids_.emplace(h, id);
  return id;
}

Result<int32_t> StateCache::step(int32_t id, uint8_t byte) {
  const bool tabled = index(id) < next_.size();
  if (tabled && next_[index(id)][byte] != kUnknown) return next_[index(id)][byte];
  MatchState s = states_[index(id)];
  auto ok = matcher_.advance(s, byte);
  if (!ok) return ok.error();
  const int32_t to = *ok ? intern(s) : kDead;
  if (tabled) next_[index(id)][byte] = to;
  return to;
}

}  // namespace kvchat::grammar
