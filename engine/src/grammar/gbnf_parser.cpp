// GBNF (llama.cpp's grammar syntax) to the compiled Grammar of grammar.h:
//   rule      ::= name "::=" alternatives            (one per line; # comments)
//   alternatives: sequence ("|" sequence)*           (newlines allowed after "|" and inside
//                                                     parentheses)
//   element   ::= "literal" | [class] | [^class] | name | ( alternatives ) | .
//   postfix   ::= * | + | ? | {m} | {m,} | {m,n} | {,n}
// Literals and classes take UTF-8 and the escapes \t \n \r \\ \" \[ \] \- \xHH \uHHHH
// \UHHHHHHHH. A group becomes a rule; x{m,n} becomes m copies of x then a chain of
// optional ones (x* a rule R ::= x R | empty).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "grammar/grammar.h"

namespace kvchat::grammar {
namespace {

struct PElement {
  Element::Kind kind = Element::Kind::Chars;
  bool negated = false;
  std::vector<CodeRange> ranges;  // Chars
  uint32_t rule = 0;              // Rule
};
using PSeq = std::vector<PElement>;

struct PRule {
  std::string name;
  std::vector<PSeq> alts;
  bool defined = false;
  size_t first_use = 0;  // source offset of the first reference (for "undefined rule")
  std::string origin;    // the user's rule a group or repetition rule was made for
};

constexpr uint32_t kMaxCodePoint = 0x10FFFF;

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Parser {
 public:
  Parser(std::string_view src, const GrammarLimits& limits) : s_(src), limits_(limits) {}

  Result<Grammar> run() {
    if (s_.size() > limits_.max_text_bytes)
      return Error{"grammar of " + std::to_string(s_.size()) + " bytes (the limit is " +
                   std::to_string(limits_.max_text_bytes) + ")"};
    skip_space(true);
    while (!err_ && p_ < s_.size()) {
      if (!parse_rule()) break;
    }
    if (!err_) check_defined();
    if (err_) return Error{where(err_->first) + ": " + err_->second};
    return finish();
  }

 private:
  // ---- errors and positions ----
  bool fail(size_t at, std::string what) {
    if (!err_) err_ = std::make_pair(at, std::move(what));
    return false;
  }
  std::string where(size_t at) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line, col = 1;
      } else if ((static_cast<unsigned char>(s_[i]) & 0xC0) != 0x80) {
        ++col;  // one column per code point
      }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(col);
  }
  bool at_end() const { return p_ >= s_.size(); }
  char peek(size_t ahead = 0) const { return p_ + ahead < s_.size() ? s_[p_ + ahead] : '\0'; }

  void skip_space(bool newline_ok) {
    while (p_ < s_.size()) {
      const char c = s_[p_];
      if (c == ' ' || c == '\t') {
        ++p_;
      } else if (c == '#') {
        while (p_ < s_.size() && s_[p_] != '\n') ++p_;
      } else if (newline_ok && (c == '\n' || c == '\r')) {
        ++p_;
      } else {
        break;
      }
    }
  }

  // ---- rules ----
  uint32_t rule_id(const std::string& name, size_t used_at) {
    auto it = ids_.find(name);
    if (it != ids_.end()) return it->second;
    const auto id = static_cast<uint32_t>(rules_.size());
    rules_.push_back(PRule{name, {}, false, used_at, {}});
    ids_.emplace(name, id);
    return id;
  }
  // A rule for a group or a repetition inside `origin`: "origin#N" ('#' is not a name
  // character, so no rule defined later in the text can have the same name).
  uint32_t new_rule(const std::string& origin) {
    std::string name;
    do {
      name = origin + "#" + std::to_string(++synthetic_);
    } while (ids_.count(name));
    const uint32_t id = rule_id(name, p_);
    rules_[id].defined = true;
    rules_[id].origin = origin;
    return id;
  }
  bool count_elements(size_t n, size_t at) {
    n_elements_ += n;
    if (n_elements_ > limits_.max_elements)
      return fail(at, "the grammar expands to more than " + std::to_string(limits_.max_elements) +
                          " elements (repetitions are copied out)");
    return true;
  }

  bool parse_rule() {
    const size_t start = p_;
    std::string name;
    while (!at_end() && word_char(peek())) name += s_[p_++];
    if (name.empty()) return fail(start, "expected a rule name");
    skip_space(false);
    if (s_.substr(p_, 3) != "::=") return fail(p_, "expected '::=' after rule name '" + name + "'");
    p_ += 3;
    skip_space(true);
    const uint32_t id = rule_id(name, start);
    if (rules_[id].defined) return fail(start, "rule '" + name + "' is defined twice");
    rules_[id].defined = true;
    std::vector<PSeq> alts;
    if (!parse_alternatives(alts, name, false)) return false;
    rules_[id].alts = std::move(alts);
    if (!at_end() && peek() != '\n' && peek() != '\r')
      return fail(p_, std::string("unexpected '") + peek() + "' (expected the end of the line)");
    skip_space(true);
    return true;
  }

  bool parse_alternatives(std::vector<PSeq>& alts, const std::string& rule, bool nested) {
    alts.emplace_back();
    if (!parse_sequence(alts.back(), rule, nested)) return false;
    while (peek() == '|') {
      ++p_;
      skip_space(true);
      alts.emplace_back();
      if (!parse_sequence(alts.back(), rule, nested)) return false;
    }
    return true;
  }

  bool parse_sequence(PSeq& seq, const std::string& rule, bool nested) {
    while (!at_end()) {
      const char c = peek();
      const size_t start = p_, first = seq.size();  // the element's span in seq
      if (c == '"') {
        if (!parse_literal(seq)) return false;
      } else if (c == '[') {
        PElement e;
        if (!parse_class(e)) return false;
        seq.push_back(std::move(e));
      } else if (c == '.') {
        ++p_;
        PElement e;
        e.negated = true;  // none of no ranges: any code point
        seq.push_back(std::move(e));
      } else if (word_char(c)) {
        std::string name;
        while (!at_end() && word_char(peek())) name += s_[p_++];
        PElement e;
        e.kind = Element::Kind::Rule;
        e.rule = rule_id(name, start);
        seq.push_back(std::move(e));
      } else if (c == '(') {
        ++p_;
        skip_space(true);
        const uint32_t id = new_rule(rule);
        std::vector<PSeq> alts;
        if (!parse_alternatives(alts, rule, true)) return false;
        if (peek() != ')') return fail(start, "'(' without its ')'");
        ++p_;
        rules_[id].alts = std::move(alts);
        PElement e;
        e.kind = Element::Kind::Rule;
        e.rule = id;
        seq.push_back(std::move(e));
      } else {
        break;  // '|', ')', the end of the line: the caller's
      }
      if (!count_elements(1, start)) return false;
      skip_space(nested);
      if (!parse_postfix(seq, first, rule)) return false;
      skip_space(nested);
    }
    return true;
  }

  // ---- literals and classes ----
  // One code point of a literal or class at p_ (an escape or UTF-8).
  std::optional<uint32_t> parse_char() {
    const size_t start = p_;
    const auto c = static_cast<unsigned char>(s_[p_]);
    if (c == '\\') {
      if (p_ + 1 >= s_.size()) return fail(start, "'\\' at the end of the grammar"), std::nullopt;
      const char e = s_[p_ + 1];
      p_ += 2;
      switch (e) {
        case 't': return '\t';
        case 'n': return '\n';
        case 'r': return '\r';
        case '\\':
        case '"':
        case '[':
        case ']':
        case '-':
        case '/':
        case '\'': return e;
        case 'x': return parse_hex(start, 2);
        case 'u': return parse_hex(start, 4);
        case 'U': return parse_hex(start, 8);
        default: fail(start, std::string("unknown escape '\\") + e + "'"); return std::nullopt;
      }
    }
    int len = c < 0x80             ? 1
              : (c & 0xE0) == 0xC0 ? 2
              : (c & 0xF0) == 0xE0 ? 3
              : (c & 0xF8) == 0xF0 ? 4
                                   : 0;
    if (len == 0 || p_ + len > s_.size()) return fail(start, "invalid UTF-8"), std::nullopt;
    uint32_t cp = len == 1 ? c : c & (0x7F >> len);
    for (int i = 1; i < len; ++i) {
      const auto b = static_cast<unsigned char>(s_[p_ + i]);
      if ((b & 0xC0) != 0x80) return fail(start, "invalid UTF-8"), std::nullopt;
      cp = (cp << 6) | (b & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > kMaxCodePoint || (cp >= 0xD800 && cp <= 0xDFFF))
      return fail(start, "invalid UTF-8"), std::nullopt;
    p_ += len;
    return cp;
  }
  std::optional<uint32_t> parse_hex(size_t start, int digits) {
    uint32_t v = 0;
    for (int i = 0; i < digits; ++i) {
      const int h = hex_value(peek());
      if (h < 0)
        return fail(start, "expected " + std::to_string(digits) + " hex digits"), std::nullopt;
      v = v * 16 + static_cast<uint32_t>(h);
      ++p_;
    }
    if (v > kMaxCodePoint) return fail(start, "code point beyond U+10FFFF"), std::nullopt;
    return v;
  }

  bool parse_literal(PSeq& seq) {
    const size_t start = p_++;
    while (true) {
      if (at_end() || peek() == '\n') return fail(start, "unterminated string literal");
      if (peek() == '"') break;
      const auto cp = parse_char();
      if (!cp) return false;
      PElement e;
      e.ranges.push_back({*cp, *cp});
      seq.push_back(std::move(e));
      if (!count_elements(1, start)) return false;
    }
    ++p_;
    return true;
  }

  bool parse_class(PElement& e) {
    const size_t start = p_++;
    if (peek() == '^') e.negated = true, ++p_;
    while (true) {
      if (at_end() || peek() == '\n') return fail(start, "unterminated character class");
      if (peek() == ']') break;
      const auto lo = parse_char();
      if (!lo) return false;
      uint32_t hi = *lo;
      if (peek() == '-' && peek(1) != ']' && peek(1) != '\0') {
        const size_t dash = p_++;
        const auto h = parse_char();
        if (!h) return false;
        if (*h < *lo) return fail(dash, "character range from a higher to a lower code point");
        hi = *h;
      }
      e.ranges.push_back({*lo, hi});
    }
    ++p_;
    return true;
  }

  // ---- repetition ----
  // A postfix operator after the element that starts at seq[first] (a literal's characters
  // all together, as llama.cpp reads it).
  bool parse_postfix(PSeq& seq, size_t first, const std::string& rule) {
    const char c = peek();
    if (c != '*' && c != '+' && c != '?' && c != '{') return true;
    const size_t start = p_;
    uint32_t min = 0, max = 0;
    bool unbounded = false;
    if (c == '{') {
      ++p_;
      skip_space(false);
      const auto m = parse_count();
      skip_space(false);
      if (peek() == ',') {
        ++p_;
        skip_space(false);
        const auto n = parse_count();
        min = m.value_or(0);
        unbounded = !n.has_value();
        max = n.value_or(0);
      } else {
        if (!m) return fail(start, "expected a count in '{...}'");
        min = max = *m;
      }
      skip_space(false);
      if (peek() != '}') return fail(start, "'{' without its '}'");
      ++p_;
      if (err_) return false;
      if (!unbounded && max < min) return fail(start, "repetition {m,n} with n < m");
    } else {
      ++p_;
      min = c == '+' ? 1 : 0;
      max = c == '?' ? 1 : 0;
      unbounded = c != '?';
    }
    if (seq.size() == first) return true;  // "" repeated: still the empty string
    return expand_repetition(seq, first, rule, min, max, unbounded, start);
  }
  std::optional<uint32_t> parse_count() {
    const size_t start = p_;
    if (peek() < '0' || peek() > '9') return std::nullopt;
    uint64_t v = 0;
    while (peek() >= '0' && peek() <= '9') {
      v = v * 10 + static_cast<uint64_t>(peek() - '0');
      ++p_;
      if (v > limits_.max_repeat) {
        fail(start, "repetition count above " + std::to_string(limits_.max_repeat));
        return 0;
      }
    }
    return static_cast<uint32_t>(v);
  }

  static PElement ref(uint32_t id) {
    PElement e;
    e.kind = Element::Kind::Rule;
    e.rule = id;
    return e;
  }

  // seq[first..] (one element, or a literal's characters) repeated min to max times.
  bool expand_repetition(PSeq& seq, size_t first, const std::string& rule, uint32_t min,
                         uint32_t max, bool unbounded, size_t at) {
    PElement x;
    if (seq.size() - first == 1) {
      x = seq.back();
    } else {  // a literal of several characters: a rule of its own
      const uint32_t id = new_rule(rule);
      rules_[id].alts = {PSeq(seq.begin() + static_cast<std::ptrdiff_t>(first), seq.end())};
      x = ref(id);
    }
    seq.resize(first);
    if (!count_elements(size_t{min} + (unbounded ? 2 : 2 * size_t{max - min}), at)) return false;
    for (uint32_t i = 0; i < min; ++i) seq.push_back(x);
    if (unbounded) {  // R ::= x R | empty
      const uint32_t id = new_rule(rule);
      rules_[id].alts = {PSeq{x, ref(id)}, PSeq{}};
      seq.push_back(ref(id));
      return true;
    }
    // R_1 ::= x | empty, R_k ::= x R_{k-1} | empty: up to max - min more.
    uint32_t prev = 0;
    for (uint32_t k = 1; k <= max - min; ++k) {
      const uint32_t id = new_rule(rule);
      rules_[id].alts = k == 1 ? std::vector<PSeq>{PSeq{x}, PSeq{}}
                               : std::vector<PSeq>{PSeq{x, ref(prev)}, PSeq{}};
      prev = id;
    }
    if (max > min) seq.push_back(ref(prev));
    return true;
  }

  // ---- checks and the compiled form ----
  void check_defined() {
    for (const PRule& r : rules_) {
      if (!r.defined) {
        fail(r.first_use, "undefined rule '" + r.name + "'");
        return;
      }
    }
    if (!ids_.count("root")) fail(s_.size(), "no rule named 'root'");
  }

  Result<Grammar> finish() {
    Grammar g;
    g.root = ids_.at("root");
    for (const PRule& r : rules_) {
      Rule out{r.name, {}};
      for (const PSeq& seq : r.alts) {
        out.alternatives.push_back(static_cast<uint32_t>(g.elements.size()));
        for (const PElement& pe : seq) {
          Element e;
          e.kind = pe.kind;
          e.negated = pe.negated;
          e.rule = pe.rule;
          e.first_range = static_cast<uint32_t>(g.ranges.size());
          e.n_ranges = static_cast<uint32_t>(pe.ranges.size());
          g.ranges.insert(g.ranges.end(), pe.ranges.begin(), pe.ranges.end());
          g.elements.push_back(e);
        }
        g.elements.push_back(Element{});  // End
      }
      g.rules.push_back(std::move(out));
    }
    if (auto bad = left_recursive_rule(g)) {
      const PRule& r = rules_[*bad];
      return Error{"rule '" + (r.origin.empty() ? r.name : r.origin) + "' is left-recursive" +
                   (r.origin.empty() ? ""
                                     : " (through a group or a repetition of something "
                                       "that can match the empty string)") +
                   ": a rule must match a character before it refers to itself again"};
    }
    return g;
  }

  // A rule that can reach itself without matching a character (the matcher would expand
  // it forever), or none.
  static std::optional<uint32_t> left_recursive_rule(const Grammar& g) {
    const size_t n = g.rules.size();
    std::vector<char> nullable(n, 0);
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t r = 0; r < n; ++r) {
        if (nullable[r]) continue;
        for (uint32_t pos : g.rules[r].alternatives) {
          bool all = true;
          for (uint32_t i = pos; g.elements[i].kind != Element::Kind::End && all; ++i)
            all = g.elements[i].kind == Element::Kind::Rule && nullable[g.elements[i].rule];
          if (all) {
            nullable[r] = 1, changed = true;
            break;
          }
        }
      }
    }
    // Edges r -> s where s can be the first thing r expands to.
    std::vector<std::vector<uint32_t>> first(n);
    for (size_t r = 0; r < n; ++r) {
      for (uint32_t pos : g.rules[r].alternatives) {
        for (uint32_t i = pos; g.elements[i].kind == Element::Kind::Rule; ++i) {
          first[r].push_back(g.elements[i].rule);
          if (!nullable[g.elements[i].rule]) break;
        }
      }
    }
    std::vector<char> state(n, 0);  // 0 unseen, 1 on the path, 2 done
    std::optional<uint32_t> found;
    std::vector<std::pair<uint32_t, size_t>> stack;
    for (uint32_t start = 0; start < n && !found; ++start) {
      if (state[start]) continue;
      stack.push_back({start, 0});
      state[start] = 1;
      while (!stack.empty() && !found) {
        auto& [r, next] = stack.back();
        if (next == first[r].size()) {
          state[r] = 2;
          stack.pop_back();
          continue;
        }
        const uint32_t s = first[r][next++];
        if (state[s] == 1)
          found = s;
        else if (state[s] == 0)
          state[s] = 1, stack.push_back({s, 0});
      }
    }
    return found;
  }

  std::string_view s_;
  GrammarLimits limits_;
  size_t p_ = 0;
  std::vector<PRule> rules_;
  std::unordered_map<std::string, uint32_t> ids_;
  size_t n_elements_ = 0;
  uint32_t synthetic_ = 0;
  std::optional<std::pair<size_t, std::string>> err_;
};

}  // namespace

bool Grammar::matches(uint32_t pos, uint32_t cp) const { return matches_any(pos, cp, cp); }

bool Grammar::matches_any(uint32_t pos, uint32_t lo, uint32_t hi) const {
  const Element& e = elements[pos];
  if (e.kind != Element::Kind::Chars) return false;
  if (!e.negated) {
    for (uint32_t i = 0; i < e.n_ranges; ++i) {
      const CodeRange& r = ranges[e.first_range + i];
      if (r.lo <= hi && lo <= r.hi) return true;
    }
    return false;
  }
  // Negated: some code point in [lo, hi] lies outside every range. Walk [lo, hi] past the
  // ranges that cover its start (ranges are few; a class rarely has more than a dozen).
  uint32_t at = lo;
  for (bool moved = true; moved && at <= hi;) {
    moved = false;
    for (uint32_t i = 0; i < e.n_ranges; ++i) {
      const CodeRange& r = ranges[e.first_range + i];
      if (r.lo <= at && at <= r.hi) {
        if (r.hi >= hi) return false;
        at = r.hi + 1, moved = true;
      }
    }
  }
  return at <= hi;
}

Result<Grammar> parse_gbnf(std::string_view text, const GrammarLimits& limits) {
  return Parser(text, limits).run();
}

}  // namespace kvchat::grammar
