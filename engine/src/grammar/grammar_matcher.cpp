#include "grammar/grammar_matcher.h"

#include <algorithm>
#include <utility>

namespace kvchat::grammar {

namespace {

void sort_unique(std::vector<std::vector<uint32_t>>& stacks) {
  std::sort(stacks.begin(), stacks.end());
  stacks.erase(std::unique(stacks.begin(), stacks.end()), stacks.end());
}

// The lowest and highest code point a UTF-8 sequence of `len` bytes can encode.
constexpr uint32_t kMinOfLength[] = {0, 0, 0x80, 0x800, 0x10000};
constexpr uint32_t kMaxOfLength[] = {0, 0x7F, 0x7FF, 0xFFFF, 0x10FFFF};

}  // namespace

Result<GrammarMatcher> GrammarMatcher::create(std::shared_ptr<const Grammar> grammar,
                                              const MatcherLimits& limits) {
  GrammarMatcher m(std::move(grammar), limits);
  const Grammar& g = *m.grammar_;
  for (uint32_t alt : g.rules[g.root].alternatives) {
    if (!m.expand({alt}, m.state_.stacks)) return m.limit_error();
  }
  sort_unique(m.state_.stacks);
  return m;
}

Error GrammarMatcher::limit_error() const {
  return Error{"the grammar's parse state grew beyond " + std::to_string(limits_.max_stacks) +
               " stacks or " + std::to_string(limits_.max_depth) +
               " nested rules (too ambiguous, or nesting without bound)"};
}

bool GrammarMatcher::expand(std::vector<uint32_t> stack,
                            std::vector<std::vector<uint32_t>>& out) const {
  const Grammar& g = *grammar_;
  std::vector<std::vector<uint32_t>> work;
  work.push_back(std::move(stack));
  while (!work.empty()) {
    std::vector<uint32_t> s = std::move(work.back());
    work.pop_back();
    // Pop finished alternatives: their continuation is below.
    while (!s.empty() && g.elements[s.back()].kind == Element::Kind::End) s.pop_back();
    if (s.empty() || g.elements[s.back()].kind == Element::Kind::Chars) {
      out.push_back(std::move(s));
      if (out.size() > limits_.max_stacks) return false;
      continue;
    }
    const uint32_t top = s.back();
    const Rule& rule = g.rules[g.elements[top].rule];
    s.pop_back();
    // The continuation after the reference, unless it is the end of its alternative (a
    // right-recursive repetition then keeps its depth).
    if (g.elements[top + 1].kind != Element::Kind::End) s.push_back(top + 1);
    if (s.size() + 1 > limits_.max_depth) return false;
    for (uint32_t alt : rule.alternatives) {
      std::vector<uint32_t> next = s;
      next.push_back(alt);
      work.push_back(std::move(next));
      if (work.size() > limits_.max_stacks) return false;
    }
  }
  return true;
}

bool GrammarMatcher::step(const std::vector<std::vector<uint32_t>>& in, uint32_t cp,
                          std::vector<std::vector<uint32_t>>& out) const {
  const Grammar& g = *grammar_;
  out.clear();
  for (const auto& s : in) {
    if (s.empty() || !g.matches(s.back(), cp)) continue;
    std::vector<uint32_t> next = s;
    next.back() += 1;
    if (!expand(std::move(next), out)) return false;
  }
  sort_unique(out);
  return out.size() <= limits_.max_stacks;
}

Result<bool> GrammarMatcher::advance(MatchState& s, uint8_t byte) const {
  uint32_t cp = 0;
  if (s.partial_left == 0) {
    const int len = byte < 0x80             ? 1
                    : (byte & 0xE0) == 0xC0 ? 2
                    : (byte & 0xF0) == 0xE0 ? 3
                    : (byte & 0xF8) == 0xF0 ? 4
                                            : 0;
    if (len == 0) return false;  // a continuation byte first, or 0xF8..0xFF
    if (len > 1) {
      s.partial = byte & (0x7F >> len);
      s.partial_left = static_cast<uint8_t>(len - 1);
      s.partial_len = static_cast<uint8_t>(len);
    } else {
      cp = byte;
    }
  } else {
    if ((byte & 0xC0) != 0x80) return false;
    s.partial = (s.partial << 6) | (byte & 0x3F);
    --s.partial_left;
    if (s.partial_left == 0) cp = s.partial;
  }
  if (s.partial_left > 0) {
    // Partly read: some stack must accept a code point this prefix can still become.
    const int bits = 6 * s.partial_left;
    const uint32_t lo = std::max(s.partial << bits, kMinOfLength[s.partial_len]);
    const uint32_t hi = std::min(((s.partial + 1) << bits) - 1, kMaxOfLength[s.partial_len]);
    // The code points it can become, less the surrogates (never valid UTF-8): a token
    // ending in ED A0 must not be let in when no continuation can complete it.
    const auto viable = [&](uint32_t a, uint32_t b) {
      if (a > b) return false;
      for (const auto& st : s.stacks) {
        if (!st.empty() && grammar_->matches_any(st.back(), a, b)) return true;
      }
      return false;
    };
    return viable(lo, std::min(hi, 0xD7FFu)) || viable(std::max(lo, 0xE000u), hi);
  }
  if (s.partial_len > 1) {
    const bool overlong = cp < kMinOfLength[s.partial_len];
    s.partial = 0, s.partial_len = 0;
    if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return false;
  }
  std::vector<std::vector<uint32_t>> next;
  if (!step(s.stacks, cp, next)) return limit_error();
  if (next.empty()) return false;
  s.stacks = std::move(next);
  return true;
}

Result<bool> GrammarMatcher::accept(std::string_view bytes) {
  MatchState s = state_;
  for (char c : bytes) {
    auto ok = advance(s, static_cast<uint8_t>(c));
    if (!ok) return ok.error();
    if (!*ok) return false;
  }
  state_ = std::move(s);
  return true;
}

bool GrammarMatcher::can_end(const MatchState& s) {
  if (s.partial_left > 0) return false;
  return std::any_of(s.stacks.begin(), s.stacks.end(), [](const auto& st) { return st.empty(); });
}

}  // namespace kvchat::grammar
