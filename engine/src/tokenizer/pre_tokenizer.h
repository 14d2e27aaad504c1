// Pre-tokenization for byte-level BPE vocabularies: the text is cut into words
// by the splitting regexes that GGUF files name in tokenizer.ggml.pre (the
// regexes of the model's Hugging Face tokenizer, as llama.cpp lists them).
//
// No regex engine: each regex is an ordered list of Rules, each a hand-written
// matcher for one regex shape (an optional one-character prefix, a run of a
// character class with bounds and a trailing run; a contraction; a cased word;
// three whitespace shapes). A name's regex list is a list of Passes applied in
// turn: every piece of the previous pass is searched for the leftmost match of
// the current regex (its alternatives tried in order), and both the matches
// and the text between them become pieces (the "Isolated" split of Hugging
// Face tokenizers, llama.cpp's unicode_regex_split). The specs per name live in
// pre_tokenizer_specs.cpp; every matcher is linear in the text it scans.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvchat {

// A set of code points: those with any of the `categories` flags
// (unicode_tables.h) or inside one of `ranges` (inclusive); its complement when
// `negated`.
struct CharClass {
  uint16_t categories = 0;
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  bool negated = false;

  bool contains(uint32_t cp, uint16_t flags) const;
};

enum class RuleKind : uint8_t {
  // [prefix]? body{min,max} trailing*   (prefix required when !prefix_optional)
  Run,
  // 's|'t|'re|'ve|'m|'ll|'d, ASCII case-insensitive when case_insensitive
  Contraction,
  // [^\r\n\p{L}\p{N}]? U* L+ (upper_first false) or U+ L* (upper_first true), with
  // U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] and L = [\p{Ll}\p{Lm}\p{Lo}\p{M}], then an
  // optional case-insensitive contraction when with_contraction.
  CasedWord,
  SpacesToNewline,          // \s*[\r\n]+
  SpacesNotBeforeNonSpace,  // \s+(?!\S)
  SpacesAtEnd,              // \s+$
};

struct Rule {
  RuleKind kind = RuleKind::Run;
  std::optional<CharClass> prefix;
  bool prefix_optional = true;
  CharClass body;
  uint32_t min = 1;
  uint32_t max = UINT32_MAX;
  std::optional<CharClass> trailing;
  bool case_insensitive = false;
  bool upper_first = false;
  bool with_contraction = false;
};

// One regex: its alternatives, in order.
using Pass = std::vector<Rule>;

struct PreTokenizerSpec {
  std::vector<Pass> passes;
  bool ignore_merges = false;  // a word that is itself a token is not merged (llama3 and others)
  bool add_bos = false;        // llama.cpp's add_bos default for this name (the GGUF key wins)
  bool has_bos = true;         // false: no BOS unless tokenizer.ggml.bos_token_id says so
};

// The spec of a tokenizer.ggml.pre name, or nullopt when the name is not known.
std::optional<PreTokenizerSpec> pre_tokenizer_spec(std::string_view name);
// The "default" spec (llama.cpp's split for unnamed BPE vocabs).
PreTokenizerSpec default_pre_tokenizer_spec();
// Every name pre_tokenizer_spec() knows, for documentation and tests.
std::vector<std::string> known_pre_tokenizer_names();

class PreTokenizer {
 public:
  explicit PreTokenizer(PreTokenizerSpec spec) : spec_(std::move(spec)) {}

  // Calls emit(word) for each word of `text` (well-formed UTF-8), in order; the
  // words are views into `text` and together are exactly `text`.
  void split(std::string_view text, const std::function<void(std::string_view)>& emit) const;
  // The words of `text` as strings (tests, tools).
  std::vector<std::string> words(std::string_view text) const;

  const PreTokenizerSpec& spec() const { return spec_; }

 private:
  void run_pass(size_t index, std::string_view piece,
                const std::function<void(std::string_view)>& emit) const;

  PreTokenizerSpec spec_;
};

}  // namespace kvchat
