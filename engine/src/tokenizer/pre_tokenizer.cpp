// PreTokenizer: the pass driver and the rule matchers (see pre_tokenizer.h).
//
// Every matcher returns the end of the match that the regex engine would
// report at `pos` (the first success in backtracking order), or kNoMatch. The
// backtracking each shape needs is worked out below, so every matcher scans
// forward once or twice. A matcher that fails after scanning a whitespace run
// also says up to where it cannot match (fail_until), so a long run is never
// rescanned from each of its characters.
#include "tokenizer/pre_tokenizer.h"

#include <algorithm>

#include "tokenizer/unicode_tables.h"

namespace kvchat {
namespace {

using unicode::Char;
using unicode::char_at;

constexpr size_t kNoMatch = static_cast<size_t>(-1);

bool is_space(const Char& c) { return c.len != 0 && (c.flags & unicode::kWhitespace) != 0; }
bool is_cr_or_lf(const Char& c) { return c.len != 0 && (c.cp == '\r' || c.cp == '\n'); }

uint32_t ascii_lower(uint32_t cp) { return cp >= 'A' && cp <= 'Z' ? cp + ('a' - 'A') : cp; }

// Length of the contraction 's 't 're 've 'm 'll 'd at `pos`, or 0.
size_t contraction_length(std::string_view text, size_t pos, bool case_insensitive) {
  if (pos >= text.size() || text[pos] != '\'') return 0;
  auto letter = [&](size_t i) -> uint32_t {
    if (pos + i >= text.size()) return 0;
    const auto c = static_cast<uint8_t>(text[pos + i]);
    return case_insensitive ? ascii_lower(c) : c;
  };
  const uint32_t a = letter(1);
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
  const uint32_t b = letter(2);
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
  return 0;
}

constexpr uint16_t kUpperish = unicode::kUppercase | unicode::kTitlecase | unicode::kModifier |
                               unicode::kOtherLetter | unicode::kMark;
constexpr uint16_t kLowerish =
    unicode::kLowercase | unicode::kModifier | unicode::kOtherLetter | unicode::kMark;

bool in(const Char& c, uint16_t mask) { return c.len != 0 && (c.flags & mask) != 0; }

// [^\r\n\p{L}\p{N}]
bool is_word_prefix(const Char& c) {
  return c.len != 0 && !is_cr_or_lf(c) && (c.flags & (unicode::kLetter | unicode::kNumber)) == 0;
}

// U* L+ (or U+ L* when upper_first) at `pos`; kNoMatch when it fails there.
size_t cased_word_body(std::string_view text, size_t pos, bool upper_first) {
  // The run of U characters [pos, e), and the last character in it that is also in L.
  size_t e = pos;
  size_t last_lower_end = kNoMatch;
  for (Char c = char_at(text, e); in(c, kUpperish); c = char_at(text, e)) {
    e += c.len;
    if (in(c, kLowerish)) last_lower_end = e;
  }
  size_t f = e;  // the run of L characters that follows it
  for (Char c = char_at(text, f); in(c, kLowerish); c = char_at(text, f)) f += c.len;
  if (upper_first) return e > pos ? f : kNoMatch;
  if (f > e) return f;  // U* took the whole run, L+ the run after it
  // L+ found nothing after the run: U* gives back characters until one in L
  // starts L+, which then ends there (no later character of the run is in L).
  return last_lower_end;
}

size_t match_run(const Rule& r, std::string_view text, size_t pos) {
  auto body_from = [&](size_t p) -> size_t {
    uint32_t n = 0;
    Char c = char_at(text, p);
    while (n < r.max && c.len != 0 && r.body.contains(c.cp, c.flags)) {
      p += c.len;
      ++n;
      c = char_at(text, p);
    }
    if (n < r.min) return kNoMatch;
    if (r.trailing) {
      while (c.len != 0 && r.trailing->contains(c.cp, c.flags)) {
        p += c.len;
        c = char_at(text, p);
      }
    }
    return p;
  };
  if (r.prefix) {
    const Char c = char_at(text, pos);
    if (c.len != 0 && r.prefix->contains(c.cp, c.flags)) {
      const size_t end = body_from(pos + c.len);
      if (end != kNoMatch) return end;
    }
    if (!r.prefix_optional) return kNoMatch;
  }
  return body_from(pos);
}

size_t match_cased_word(const Rule& r, std::string_view text, size_t pos) {
  size_t end = kNoMatch;
  const Char c = char_at(text, pos);
  if (is_word_prefix(c)) end = cased_word_body(text, pos + c.len, r.upper_first);
  if (end == kNoMatch) end = cased_word_body(text, pos, r.upper_first);
  if (end != kNoMatch && r.with_contraction) end += contraction_length(text, end, true);
  return end;
}

// The whitespace run at `pos`: its end, the start of its last character, and the
// end of its last \r or \n (kNoMatch if none).
struct SpaceRun {
  size_t end;
  size_t last_start;
  size_t last_newline_end;
};

SpaceRun space_run(std::string_view text, size_t pos) {
  SpaceRun run{pos, kNoMatch, kNoMatch};
  for (Char c = char_at(text, pos); is_space(c); c = char_at(text, run.end)) {
    run.last_start = run.end;
    run.end += c.len;
    if (is_cr_or_lf(c)) run.last_newline_end = run.end;
  }
  return run;
}

size_t match_rule(const Rule& r, std::string_view text, size_t pos, size_t& fail_until) {
  switch (r.kind) {
    case RuleKind::Run: return match_run(r, text, pos);
    case RuleKind::Contraction: {
      const size_t n = contraction_length(text, pos, r.case_insensitive);
      return n ? pos + n : kNoMatch;
    }
    case RuleKind::CasedWord: return match_cased_word(r, text, pos);
    case RuleKind::SpacesToNewline: {
      // \s* backs off to the last \r or \n of the run; [\r\n]+ ends right after it.
      const SpaceRun run = space_run(text, pos);
      if (run.last_newline_end == kNoMatch)
        fail_until = run.end;  // so does every later start in the run
      return run.last_newline_end;
    }
    case RuleKind::SpacesNotBeforeNonSpace: {
      const SpaceRun run = space_run(text, pos);
      if (run.end == pos) return kNoMatch;
      if (run.end == text.size()) return run.end;               // nothing follows
      return run.last_start > pos ? run.last_start : kNoMatch;  // leave one before the \S
    }
    case RuleKind::SpacesAtEnd: {
      const SpaceRun run = space_run(text, pos);
      if (run.end == pos) return kNoMatch;
      if (run.end == text.size()) return run.end;
      fail_until = run.end;
      return kNoMatch;
    }
  }
  return kNoMatch;
}

}  // namespace

bool CharClass::contains(uint32_t cp, uint16_t flags) const {
  bool hit = (flags & categories) != 0;
  for (size_t i = 0; !hit && i < ranges.size(); ++i) {
    hit = cp >= ranges[i].first && cp <= ranges[i].second;
  }
  return hit != negated;
}

void PreTokenizer::split(std::string_view text,
                         const std::function<void(std::string_view)>& emit) const {
  if (text.empty()) return;
  run_pass(0, text, emit);
}

std::vector<std::string> PreTokenizer::words(std::string_view text) const {
  std::vector<std::string> out;
  split(text, [&](std::string_view w) { out.emplace_back(w); });
  return out;
}

void PreTokenizer::run_pass(size_t index, std::string_view piece,
                            const std::function<void(std::string_view)>& emit) const {
  if (index == spec_.passes.size()) {
    emit(piece);
    return;
  }
  const Pass& pass = spec_.passes[index];
  // Per rule: no match can start before this offset (see match_rule).
  size_t fail_until_small[8] = {};
  std::vector<size_t> fail_until_big;
  size_t* fail_until = fail_until_small;
  if (pass.size() > std::size(fail_until_small)) {
    fail_until_big.assign(pass.size(), 0);
    fail_until = fail_until_big.data();
  }

  size_t gap_start = 0;  // text no alternative matched, pending since here
  size_t pos = 0;
  while (pos < piece.size()) {
    size_t end = kNoMatch;
    for (size_t i = 0; i < pass.size() && end == kNoMatch; ++i) {
      if (pos < fail_until[i]) continue;
      end = match_rule(pass[i], piece, pos, fail_until[i]);
    }
    if (end == kNoMatch || end == pos) {
      pos += char_at(piece, pos).len;
      continue;
    }
    if (gap_start < pos) run_pass(index + 1, piece.substr(gap_start, pos - gap_start), emit);
    run_pass(index + 1, piece.substr(pos, end - pos), emit);
    pos = end;
    gap_start = end;
  }
  if (gap_start < piece.size()) run_pass(index + 1, piece.substr(gap_start), emit);
}

}  // namespace kvchat
