#include "grammar/json_pattern.h"

#include "grammar/grammar.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

namespace kvchat::grammar {

namespace {

constexpr uint32_t kMaxCodePoint = 0x10FFFF;
// A count is written out as that many grammar elements: the grammar's repeat limit.
const int kMaxCount = static_cast<int>(GrammarLimits{}.max_repeat);

// A set of code points: sorted, disjoint, non-adjacent closed ranges.
using CharSet = std::vector<std::pair<uint32_t, uint32_t>>;

CharSet normalized(CharSet s) {
  std::sort(s.begin(), s.end());
  CharSet out;
  for (const auto& r : s) {
    if (!out.empty() && r.first <= out.back().second + 1) {
      out.back().second = std::max(out.back().second, r.second);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

// Every code point a JSON string can hold (surrogates are not characters) not in `s`.
CharSet complement(const CharSet& s) {
  CharSet out;
  uint32_t next = 0;
  for (const auto& [lo, hi] : normalized(s)) {
    if (lo > next) out.emplace_back(next, lo - 1);
    next = hi + 1;
  }
  if (next <= kMaxCodePoint) out.emplace_back(next, kMaxCodePoint);
  CharSet no_surrogates;
  for (const auto& [lo, hi] : out) {
    if (hi < 0xD800 || lo > 0xDFFF) {
      no_surrogates.emplace_back(lo, hi);
      continue;
    }
    if (lo < 0xD800) no_surrogates.emplace_back(lo, 0xD7FF);
    if (hi > 0xDFFF) no_surrogates.emplace_back(0xE000, hi);
  }
  return no_surrogates;
}

const CharSet kDigit = {{'0', '9'}};
const CharSet kWord = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
// ECMA-262 WhiteSpace and LineTerminator.
const CharSet kSpace = normalized({{0x09, 0x0D},
                                   {0x20, 0x20},
                                   {0xA0, 0xA0},
                                   {0x1680, 0x1680},
                                   {0x2000, 0x200A},
                                   {0x2028, 0x2029},
                                   {0x202F, 0x202F},
                                   {0x205F, 0x205F},
                                   {0x3000, 0x3000},
                                   {0xFEFF, 0xFEFF}});
const CharSet kLineTerminators = {{0x0A, 0x0A}, {0x0D, 0x0D}, {0x2028, 0x2029}};

std::string hex_escape(uint32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\U%08X", c);
  return buf;
}

// GBNF for one character of `s` as JSON text writes it.
std::string json_chars(const CharSet& set) {
  std::vector<std::string> alts;
  std::string raw;  // the class of characters written as themselves
  for (const auto& [lo, hi] : normalized(set)) {
    for (uint32_t c = lo; c <= std::min<uint32_t>(hi, 0x1F); ++c) {  // controls: escaped
      static const char* const kShort[] = {"", "",  "",  "",  "", "",  "",
                                           "", "b", "t", "n", "", "f", "r"};
      char buf[16];
      if (c < 14 && kShort[c][0]) {
        std::snprintf(buf, sizeof buf, "\"\\\\%s\"", kShort[c]);
      } else {
        std::snprintf(buf, sizeof buf, "\"\\\\u%04x\"", c);
      }
      alts.push_back(buf);
    }
    uint32_t a = std::max<uint32_t>(lo, 0x20);
    // '"' (0x22) and '\' (0x5C) are escaped; the rest of the range is raw.
    for (uint32_t special : {0x22u, 0x5Cu}) {
      if (a > hi || special < a || special > hi) continue;
      if (special > a) raw += hex_escape(a) + "-" + hex_escape(special - 1);
      alts.push_back(special == 0x22 ? "\"\\\\\\\"\"" : "\"\\\\\\\\\"");
      a = special + 1;
    }
    if (a <= hi) raw += a == hi ? hex_escape(a) : hex_escape(a) + "-" + hex_escape(hi);
  }
  if (!raw.empty()) alts.insert(alts.begin(), "[" + raw + "]");
  if (alts.empty()) return "";
  if (alts.size() == 1) return alts[0];
  std::string out = "(";
  for (size_t i = 0; i < alts.size(); ++i) out += (i ? " | " : " ") + alts[i];
  return out + " )";
}

class PatternParser {
 public:
  explicit PatternParser(std::string_view p) : p_(p) {}

  Result<std::string> run() {
    const bool anchored_start = !p_.empty() && p_[0] == '^';
    if (anchored_start) ++i_;
    std::string body = alternation();
    bool anchored_end = false;
    if (!error_ && i_ < p_.size() && p_[i_] == '$' && i_ + 1 == p_.size()) {
      anchored_end = true;
      ++i_;
    }
    if (!error_ && i_ < p_.size()) fail(std::string("unexpected '") + p_[i_] + "'");
    if (error_) return Error{*error_};
    const std::string any = "( " + json_chars(complement({})) + " )*";
    return "( " + (anchored_start ? "" : any + " ") + body + (anchored_end ? "" : " " + any) + " )";
  }

 private:
  void fail(const std::string& what) {
    if (!error_) error_ = "'pattern' at offset " + std::to_string(i_) + ": " + what;
  }
  bool at_end() const { return i_ >= p_.size(); }

  // Each parse function leaves in nullable_ whether what it returned can match "".
  std::string alternation() {
    std::vector<std::string> alts = {concatenation()};
    bool any_nullable = nullable_;
    while (!error_ && !at_end() && p_[i_] == '|') {
      ++i_;
      alts.push_back(concatenation());
      any_nullable = any_nullable || nullable_;
    }
    nullable_ = any_nullable;
    if (alts.size() == 1) return alts[0];
    std::string out = "(";
    for (size_t k = 0; k < alts.size(); ++k) out += (k ? " | " : " ") + alts[k];
    return out + " )";
  }

  std::string concatenation() {
    std::string out;
    bool all_nullable = true;
    while (!error_ && !at_end() && p_[i_] != '|' && p_[i_] != ')') {
      if (p_[i_] == '$' && i_ + 1 == p_.size()) break;  // the end anchor: run() takes it
      const std::string atom_text = quantified();
      all_nullable = all_nullable && nullable_;
      if (!atom_text.empty()) out += (out.empty() ? "" : " ") + atom_text;
    }
    nullable_ = all_nullable;
    return out.empty() ? "\"\"" : out;
  }

  // A quantifier: at least lo, at most hi (-1: no bound), as GBNF.
  struct Count {
    int lo = 0, hi = -1;
    size_t end = 0;  // the offset after it
    std::string gbnf() const {
      if (lo == 0 && hi < 0) return "*";
      if (lo == 1 && hi < 0) return "+";
      if (lo == 0 && hi == 1) return "?";
      return "{" + std::to_string(lo) + "," + (hi >= 0 ? std::to_string(hi) : "") + "}";
    }
  };

  std::string quantified() {
    std::string a = atom();
    if (error_ || at_end()) return a;
    const bool atom_nullable = nullable_;
    Count q;
    const char c = p_[i_];
    if (c == '*' || c == '+' || c == '?') {
      q = {c == '+' ? 1 : 0, c == '?' ? 1 : -1, ++i_};
    } else if (c == '{') {
      auto bounds = count();
      if (!bounds) return a;  // not a count: '{' is a literal (ECMA-262 Annex B)
      q = *bounds;
    } else {
      return a;
    }
    // The grammar engine refuses a loop over something that can match "" (it would never
    // have to advance); "(a|)*" is "a*", but such patterns are refused rather than rewritten.
    if (atom_nullable && q.hi < 0) {
      fail("an unbounded repetition of something that can match the empty string");
      return "";
    }
    nullable_ = atom_nullable || q.lo == 0;
    if (!at_end() && p_[i_] == '?') ++i_;  // lazy: the same language
    if (!at_end() &&
        (p_[i_] == '*' || p_[i_] == '+' || p_[i_] == '?' || (p_[i_] == '{' && count_at(i_)))) {
      fail("a quantifier after a quantifier");
    }
    return "( " + a + " )" + q.gbnf();
  }

  // "{n}", "{n,}" or "{n,m}" at `at` (a count above kMaxCount reads as kMaxCount + 1).
  std::optional<Count> count_at(size_t at) const {
    size_t j = at + 1;
    auto number = [&](int& out) {
      const size_t start = j;
      long long v = 0;
      while (j < p_.size() && p_[j] >= '0' && p_[j] <= '9' && v <= kMaxCount + 1)
        v = v * 10 + (p_[j++] - '0');
      while (j < p_.size() && p_[j] >= '0' && p_[j] <= '9') ++j, v = kMaxCount + 1;
      out = static_cast<int>(v);
      return j > start;
    };
    Count c;
    if (!number(c.lo)) return std::nullopt;
    if (j < p_.size() && p_[j] == ',') {
      ++j;
      if (!number(c.hi)) c.hi = -1;
    } else {
      c.hi = c.lo;
    }
    if (j >= p_.size() || p_[j] != '}') return std::nullopt;
    c.end = j + 1;
    return c;
  }

  // The count at i_, checked, i_ past it; nullopt when '{' does not start one.
  std::optional<Count> count() {
    auto c = count_at(i_);
    if (!c) return std::nullopt;
    if (c->lo > kMaxCount || c->hi > kMaxCount) {
      fail("a count above " + std::to_string(kMaxCount) + " is not supported");
    } else if (c->hi >= 0 && c->lo > c->hi) {
      fail("a count {n,m} with n greater than m");
    }
    i_ = c->end;
    return c;
  }

  std::string atom() {
    const char c = p_[i_];
    nullable_ = false;  // a character; a group says its own
    if (c == '(') return group();
    if (c == '[') {
      const CharSet set = char_class();
      if (set.empty() && !error_) fail("a class that matches no character");
      return error_ ? "" : json_chars(set);
    }
    if (c == '.') return ++i_, json_chars(complement(kLineTerminators));
    if (c == '\\') return escape_atom();
    if (c == '^' || c == '$') {
      fail(std::string("an anchor '") + c + "' inside the pattern is not supported");
      return "";
    }
    if (c == '*' || c == '+' || c == '?') {
      fail(std::string("nothing to repeat before '") + c + "'");
      return "";
    }
    if (c == ')' || c == ']' || c == '}' || c == '{') {
      ++i_;  // ECMA-262 Annex B: a literal
      return json_chars({{static_cast<uint32_t>(c), static_cast<uint32_t>(c)}});
    }
    const uint32_t cp = code_point();
    return json_chars({{cp, cp}});
  }

  // One UTF-8 code point of the pattern (an invalid byte is taken as itself).
  uint32_t code_point() {
    const auto b = static_cast<unsigned char>(p_[i_]);
    const int n = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
    if (n == 1 || i_ + n > p_.size()) return ++i_, b;
    uint32_t cp = b & (0xFF >> (n + 1));
    for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(p_[i_ + k]) & 0x3F);
    i_ += static_cast<size_t>(n);
    return cp;
  }

  std::string group() {
    ++i_;  // '('
    if (p_.substr(i_, 2) == "?:") {
      i_ += 2;
    } else if (p_.substr(i_, 2) == "?<" && p_.substr(i_, 3) != "?<=" && p_.substr(i_, 3) != "?<!") {
      const size_t close = p_.find('>', i_);
      if (close == std::string_view::npos) return fail("an unterminated group name"), "";
      i_ = close + 1;
    } else if (!at_end() && p_[i_] == '?') {
      fail("lookaround (?=, ?!, ?<=, ?<!) is not supported");
      return "";
    }
    std::string inner = alternation();
    if (error_) return "";
    if (at_end() || p_[i_] != ')') return fail("an unclosed group"), "";
    ++i_;
    return "( " + inner + " )";
  }

  // A class escape (\d \D \w \W \s \S) as its set, or nullopt for another escape.
  std::optional<CharSet> class_escape(char e) {
    switch (e) {
      case 'd': return kDigit;
      case 'D': return complement(kDigit);
      case 'w': return kWord;
      case 'W': return complement(kWord);
      case 's': return kSpace;
      case 'S': return complement(kSpace);
      default: return std::nullopt;
    }
  }

  // The character of an escape after '\' (i_ at the letter); nullopt after an error.
  std::optional<uint32_t> escaped_char(bool in_class) {
    const char e = p_[i_++];
    auto hex = [&](size_t digits) -> std::optional<uint32_t> {
      if (i_ + digits > p_.size()) return fail("a short \\x or \\u escape"), std::nullopt;
      uint32_t v = 0;
      for (size_t k = 0; k < digits; ++k) {
        const char h = p_[i_ + k];
        const int d = h >= '0' && h <= '9'   ? h - '0'
                      : h >= 'a' && h <= 'f' ? h - 'a' + 10
                      : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                             : -1;
        if (d < 0) return fail("a malformed \\x or \\u escape"), std::nullopt;
        v = v * 16 + static_cast<uint32_t>(d);
      }
      i_ += digits;
      return v;
    };
    switch (e) {
      case 't': return 0x09;
      case 'n': return 0x0A;
      case 'v': return 0x0B;
      case 'f': return 0x0C;
      case 'r': return 0x0D;
      case '0': return 0x00;
      case 'x': return hex(2);
      case 'u': {
        if (!at_end() && p_[i_] == '{') return fail("\\u{...} is not supported"), std::nullopt;
        auto v = hex(4);
        if (v && *v >= 0xD800 && *v <= 0xDFFF) return fail("a surrogate \\u escape"), std::nullopt;
        return v;
      }
      case 'b':
        if (in_class) return 0x08;
        return fail("a word boundary \\b is not supported"), std::nullopt;
      case 'B': return fail("a word boundary \\B is not supported"), std::nullopt;
      case 'c': return fail("a control escape \\c is not supported"), std::nullopt;
      case 'p':
      case 'P': return fail("a property escape \\p{...} is not supported"), std::nullopt;
      case 'k': return fail("a named backreference \\k is not supported"), std::nullopt;
      default: break;
    }
    if (e >= '1' && e <= '9') return fail("a backreference is not supported"), std::nullopt;
    --i_;
    return code_point();  // an identity escape: the character itself
  }

  std::string escape_atom() {
    ++i_;  // '\'
    if (at_end()) return fail("a pattern that ends with '\\'"), "";
    if (auto set = class_escape(p_[i_])) return ++i_, json_chars(*set);
    auto c = escaped_char(false);
    if (!c) return "";
    return json_chars({{*c, *c}});
  }

  CharSet char_class() {
    ++i_;  // '['
    bool negated = false;
    if (!at_end() && p_[i_] == '^') negated = true, ++i_;
    CharSet set;
    while (!error_ && !at_end() && p_[i_] != ']') {
      std::optional<uint32_t> lo = item(set);
      if (!lo) continue;  // a class escape (added) or an error
      if (i_ + 1 < p_.size() && p_[i_] == '-' && p_[i_ + 1] != ']') {
        ++i_;
        CharSet ignored;
        std::optional<uint32_t> hi = item(ignored);
        if (!hi) return fail("a range with a class escape"), CharSet{};
        if (*hi < *lo) return fail("a range out of order"), CharSet{};
        set.emplace_back(*lo, *hi);
      } else {
        set.emplace_back(*lo, *lo);
      }
    }
    if (at_end()) return fail("an unclosed class '['"), CharSet{};
    ++i_;  // ']'
    return negated ? complement(set) : normalized(set);
  }

  // One class item: its character, or nullopt when it was a class escape (added to `set`).
  std::optional<uint32_t> item(CharSet& set) {
    if (p_[i_] != '\\') return code_point();
    ++i_;
    if (at_end()) return fail("a pattern that ends with '\\'"), std::nullopt;
    if (auto s = class_escape(p_[i_])) {
      ++i_;
      set.insert(set.end(), s->begin(), s->end());
      return std::nullopt;
    }
    return escaped_char(true);
  }

  std::string_view p_;
  size_t i_ = 0;
  std::optional<std::string> error_;
  bool nullable_ = false;
};

}  // namespace

Result<std::string> pattern_to_gbnf(std::string_view pattern) {
  return PatternParser(pattern).run();
}

}  // namespace kvchat::grammar
