// The splitting regexes of every tokenizer.ggml.pre name kvchat knows, as rule
// lists (pre_tokenizer.h). Each family's regex list is written once, with the
// regexes themselves in the comments; names map to families in kFamilies.
// Where llama.cpp adapted a regex for std::regex (the \p{Lu}.. classes of
// gpt-4o and tekken), the rules follow the original Hugging Face regex.
#include <array>

#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/unicode_tables.h"

namespace kvchat {
namespace {

namespace u = unicode;
using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;

// ---- character classes -----------------------------------------------------

CharClass cats(uint16_t categories) { return CharClass{categories, {}, false}; }
CharClass not_cats(uint16_t categories, Ranges also = {}) {
  return CharClass{categories, std::move(also), true};
}
CharClass chars(Ranges ranges, uint16_t categories = 0) {
  return CharClass{categories, std::move(ranges), false};
}

const CharClass kLetter = cats(u::kLetter);                                   // \p{L}
const CharClass kNumber = cats(u::kNumber);                                   // \p{N}
const CharClass kSpace = cats(u::kWhitespace);                                // \s
const CharClass kOther = not_cats(u::kWhitespace | u::kLetter | u::kNumber);  // [^\s\p{L}\p{N}]
const CharClass kWordPrefix = not_cats(u::kLetter | u::kNumber, {{'\r', '\r'}, {'\n', '\n'}});
const CharClass kSpaceChar = chars({{' ', ' '}});
const CharClass kCrLf = chars({{'\r', '\r'}, {'\n', '\n'}});
const CharClass kCrLfSlash = chars({{'\r', '\r'}, {'\n', '\n'}, {'/', '/'}});
const CharClass kAsciiDigit = chars({{'0', '9'}});

// ---- rule pieces -----------------------------------------------------------

Rule run(CharClass body, uint32_t min = 1, uint32_t max = UINT32_MAX) {
  Rule r;
  r.body = std::move(body);
  r.min = min;
  r.max = max;
  return r;
}
Rule prefixed(CharClass prefix, CharClass body) {  // prefix? body+
  Rule r = run(std::move(body));
  r.prefix = std::move(prefix);
  return r;
}
Rule with_trailing(Rule r, CharClass trailing) {
  r.trailing = std::move(trailing);
  return r;
}
Rule contraction(bool case_insensitive) {
  Rule r;
  r.kind = RuleKind::Contraction;
  r.case_insensitive = case_insensitive;
  return r;
}
Rule cased_word(bool upper_first, bool with_contraction) {
  Rule r;
  r.kind = RuleKind::CasedWord;
  r.upper_first = upper_first;
  r.with_contraction = with_contraction;
  return r;
}
Rule of_kind(RuleKind kind) {
  Rule r;
  r.kind = kind;
  return r;
}

// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
Pass gpt2_pass() {
  return {contraction(false),
          prefixed(kSpaceChar, kLetter),
          prefixed(kSpaceChar, kNumber),
          prefixed(kSpaceChar, kOther),
          of_kind(RuleKind::SpacesNotBeforeNonSpace),
          run(kSpace)};
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,max_digits}|
//  ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
Pass llama3_pass(uint32_t max_digits) {
  return {contraction(true),
          prefixed(kWordPrefix, kLetter),
          run(kNumber, 1, max_digits),
          with_trailing(prefixed(kSpaceChar, kOther), kCrLf),
          of_kind(RuleKind::SpacesToNewline),
          of_kind(RuleKind::SpacesNotBeforeNonSpace),
          run(kSpace)};
}

// The tail shared by gpt-4o and tekken:
// \p{N}{1,max_digits}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
void append_cased_tail(Pass& pass, uint32_t max_digits) {
  pass.push_back(run(kNumber, 1, max_digits));
  pass.push_back(with_trailing(prefixed(kSpaceChar, kOther), kCrLfSlash));
  pass.push_back(of_kind(RuleKind::SpacesToNewline));
  pass.push_back(of_kind(RuleKind::SpacesNotBeforeNonSpace));
  pass.push_back(run(kSpace));
}

// ---- families --------------------------------------------------------------

PreTokenizerSpec gpt2() { return {{gpt2_pass()}}; }

PreTokenizerSpec llama3() {
  PreTokenizerSpec s{{llama3_pass(3)}};
  s.ignore_merges = true;
  s.add_bos = true;
  return s;
}

// llama3's regex without llama3's loading flags (dbrx, smaug-bpe).
PreTokenizerSpec llama3_regex_only() { return {{llama3_pass(3)}}; }

// chatglm-bpe / glm4: llama3's regex, and no BOS token by default.
PreTokenizerSpec chatglm() {
  PreTokenizerSpec s{{llama3_pass(3)}};
  s.has_bos = false;
  return s;
}

// qwen2: llama3's regex with single digits.
PreTokenizerSpec qwen2() { return {{llama3_pass(1)}}; }

// seed-coder: (?i:'s|..)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+|
//  \s*[\r\n]+|\s+(?!\S)|\s+
PreTokenizerSpec seed_coder() {
  return {{{contraction(true), prefixed(kWordPrefix, kLetter), run(kNumber, 1, 1),
            prefixed(kSpaceChar, kOther), of_kind(RuleKind::SpacesToNewline),
            of_kind(RuleKind::SpacesNotBeforeNonSpace), run(kSpace)}}};
}

// starcoder and friends: \p{N}, then gpt2's regex.
PreTokenizerSpec digits_then_gpt2() { return {{{run(kNumber, 1, 1)}, gpt2_pass()}}; }

// falcon: [\p{P}\$\+<=>\^~\|`]+, gpt2's regex, [0-9][0-9][0-9]
PreTokenizerSpec falcon() {
  return {{{run(chars(
               {{'$', '$'}, {'+', '+'}, {'<', '>'}, {'^', '^'}, {'~', '~'}, {'|', '|'}, {'`', '`'}},
               u::kPunctuation))},
           gpt2_pass(),
           {run(kAsciiDigit, 3, 3)}}};
}

// default: [\p{P}\$\+<=>\^~\|]+, gpt2's regex, \p{N}+, [0-9][0-9][0-9]
PreTokenizerSpec default_spec() {
  return {{{run(chars({{'$', '$'}, {'+', '+'}, {'<', '>'}, {'^', '^'}, {'~', '~'}, {'|', '|'}},
                      u::kPunctuation))},
           gpt2_pass(),
           {run(kNumber)},
           {run(kAsciiDigit, 3, 3)}}};
}

// [一-龥ࠀ-一가-퟿]+  (CJK ideographs, U+0800..U+4E00, Hangul)
Rule cjk_hangul_run() { return run(chars({{0x4E00, 0x9FA5}, {0x0800, 0x4E00}, {0xAC00, 0xD7FF}})); }

// deepseek-llm: [\r\n], \s?[A-Za-zµÀ-ÖØ-öø-ƺ...]+, \s?[!-/:-~！-／：-～‘-‟　-。]+, \s+$,
// [一-龥ࠀ-一가-퟿]+, \p{N}+
PreTokenizerSpec deepseek_llm() {
  const CharClass letters = chars({
      {0x41, 0x5A},       {0x61, 0x7A},       {0xB5, 0xB5},       {0xC0, 0xD6},
      {0xD8, 0xF6},       {0xF8, 0x1BA},      {0x1BC, 0x1BF},     {0x1C4, 0x293},
      {0x295, 0x2AF},     {0x370, 0x373},     {0x376, 0x377},     {0x37B, 0x37D},
      {0x37F, 0x37F},     {0x386, 0x386},     {0x388, 0x38A},     {0x38C, 0x38C},
      {0x38E, 0x3A1},     {0x3A3, 0x3F5},     {0x3F7, 0x481},     {0x48A, 0x52F},
      {0x531, 0x556},     {0x10A0, 0x10C5},   {0x13A0, 0x13F5},   {0x13F8, 0x13FD},
      {0x1C90, 0x1CBA},   {0x1CBD, 0x1CBF},   {0x1D00, 0x1D2B},   {0x1D6B, 0x1D77},
      {0x1D79, 0x1D9A},   {0x1E00, 0x1F15},   {0x1F18, 0x1F1D},   {0x1F20, 0x1F45},
      {0x1F48, 0x1F4D},   {0x1F50, 0x1F57},   {0x1F59, 0x1F59},   {0x1F5B, 0x1F5B},
      {0x1F5D, 0x1F5D},   {0x1F5F, 0x1F7D},   {0x1F80, 0x1FB4},   {0x1FB6, 0x1FBC},
      {0x1FBE, 0x1FBE},   {0x1FC2, 0x1FC4},   {0x1FC6, 0x1FCC},   {0x1FD0, 0x1FD3},
      {0x1FD6, 0x1FDB},   {0x1FE0, 0x1FEC},   {0x1FF2, 0x1FF4},   {0x1FF6, 0x1FFC},
      {0x2102, 0x2102},   {0x2107, 0x2107},   {0x210A, 0x2113},   {0x2115, 0x2115},
      {0x2119, 0x211D},   {0x2124, 0x2124},   {0x2126, 0x2126},   {0x2128, 0x2128},
      {0x212A, 0x212D},   {0x212F, 0x2134},   {0x2139, 0x2139},   {0x213C, 0x213F},
      {0x2145, 0x2149},   {0x214E, 0x214E},   {0x2183, 0x2184},   {0x2C00, 0x2C7B},
      {0x2C7E, 0x2CE4},   {0x2CEB, 0x2CEE},   {0x2CF2, 0x2CF3},   {0xA640, 0xA66D},
      {0xA680, 0xA69B},   {0xA722, 0xA76F},   {0xA771, 0xA787},   {0xA78B, 0xA78E},
      {0xAB70, 0xABBF},   {0xFB00, 0xFB06},   {0xFB13, 0xFB17},   {0xFF21, 0xFF3A},
      {0xFF41, 0xFF5A},   {0x10400, 0x1044F}, {0x104B0, 0x104D3}, {0x104D8, 0x104FB},
      {0x10C80, 0x10CB2}, {0x10CC0, 0x10CF2}, {0x118A0, 0x118DF}, {0x1E900, 0x1E943},
  });
  const CharClass punct = chars({{0x21, 0x2F},
                                 {0x3A, 0x7E},
                                 {0xFF01, 0xFF0F},
                                 {0xFF1A, 0xFF5E},
                                 {0x2018, 0x201F},
                                 {0x3000, 0x3002}});
  return {{{run(kCrLf, 1, 1)},
           {prefixed(kSpace, letters)},
           {prefixed(kSpace, punct)},
           {of_kind(RuleKind::SpacesAtEnd)},
           {cjk_hangul_run()},
           {run(kNumber)}}};
}

// deepseek-coder: [\r\n], \s?\p{L}+, \s?\p{P}+, [一-龥ࠀ-一가-퟿]+, \p{N}
PreTokenizerSpec deepseek_coder() {
  return {{{run(kCrLf, 1, 1)},
           {prefixed(kSpace, kLetter)},
           {prefixed(kSpace, cats(u::kPunctuation))},
           {cjk_hangul_run()},
           {run(kNumber, 1, 1)}}};
}

// deepseek-v3: \p{N}{1,3}, [一-龥぀-ゟ゠-ヿ]+,
// [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+|
//  ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
PreTokenizerSpec deepseek_v3() {
  Rule punct_word = prefixed(chars({{0x21, 0x2F}, {0x3A, 0x40}, {0x5B, 0x60}, {0x7B, 0x7E}}),
                             chars({{'A', 'Z'}, {'a', 'z'}}));
  punct_word.prefix_optional = false;
  const CharClass letter_mark = cats(u::kLetter | u::kMark);
  const CharClass punct_symbol = cats(u::kPunctuation | u::kSymbol);
  return {
      {{run(kNumber, 1, 3)},
       {run(chars({{0x4E00, 0x9FA5}, {0x3040, 0x309F}, {0x30A0, 0x30FF}}))},
       {punct_word,
        prefixed(not_cats(u::kLetter | u::kPunctuation | u::kSymbol, {{'\r', '\r'}, {'\n', '\n'}}),
                 letter_mark),
        with_trailing(prefixed(kSpaceChar, punct_symbol), kCrLf),
        of_kind(RuleKind::SpacesToNewline), of_kind(RuleKind::SpacesNotBeforeNonSpace),
        run(kSpace)}}};
}

// bloom, gpt3-finnish, poro-chat:  ?[^(\s|.,!?…。，、।۔،)]+
Pass bloom_pass() {
  return {prefixed(kSpaceChar, not_cats(u::kWhitespace, {{'(', ')'},
                                                         {'|', '|'},
                                                         {'.', '.'},
                                                         {',', ','},
                                                         {'!', '!'},
                                                         {'?', '?'},
                                                         {0x2026, 0x2026},
                                                         {0x3002, 0x3002},
                                                         {0xFF0C, 0xFF0C},
                                                         {0x3001, 0x3001},
                                                         {0x0964, 0x0964},
                                                         {0x06D4, 0x06D4},
                                                         {0x060C, 0x060C}}))};
}
PreTokenizerSpec bloom() { return {{bloom_pass()}}; }
// viking: bloom's regex, then \p{N}
PreTokenizerSpec viking() { return {{bloom_pass(), {run(kNumber, 1, 1)}}}; }

// gpt-4o: [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|..)?|
//  [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|..)?|
//  \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
PreTokenizerSpec gpt4o() {
  Pass pass = {cased_word(false, true), cased_word(true, true)};
  append_cased_tail(pass, 3);
  return {{pass}};
}

// tekken: as gpt-4o without the contractions and with single digits.
PreTokenizerSpec tekken() {
  Pass pass = {cased_word(false, false), cased_word(true, false)};
  append_cased_tail(pass, 1);
  PreTokenizerSpec s{{pass}};
  s.ignore_merges = true;
  s.add_bos = true;
  return s;
}

struct Family {
  const char* name;
  PreTokenizerSpec (*make)();
};

// tokenizer.ggml.pre names -> families, as llama.cpp's llama-vocab.cpp groups them.
constexpr Family kFamilies[] = {
    {"default", default_spec},
    // gpt-2's regex
    {"gpt-2", gpt2},
    {"phi-2", gpt2},
    {"mpt", gpt2},
    {"olmo", gpt2},
    {"jais", gpt2},
    {"jina-es", gpt2},
    {"jina-de", gpt2},
    {"jina-v2-es", gpt2},
    {"jina-v2-de", gpt2},
    {"gigachat", gpt2},
    {"a.x-4.0", gpt2},
    {"mellum", gpt2},
    {"exaone4", gpt2},
    {"trillion", gpt2},
    {"granite-docling", gpt2},
    // llama3's regex, ignore_merges, BOS
    {"llama-bpe", llama3},
    {"llama3", llama3},
    {"llama-v3", llama3},
    {"falcon3", llama3},
    {"falcon-h1", llama3},
    {"pixtral", llama3},
    {"midm-2.0", llama3},
    {"lfm2", llama3},
    {"dbrx", llama3_regex_only},
    {"smaug-bpe", llama3_regex_only},
    {"chatglm-bpe", chatglm},
    {"glm4", chatglm},
    // llama3's regex with single digits
    {"qwen2", qwen2},
    {"deepseek-r1-qwen", qwen2},
    {"stablelm2", qwen2},
    {"megrez", qwen2},
    {"hunyuan", qwen2},
    {"kormo", qwen2},
    {"grok-2", qwen2},
    {"seed-coder", seed_coder},
    // \p{N} then gpt-2's regex
    {"starcoder", digits_then_gpt2},
    {"refact", digits_then_gpt2},
    {"command-r", digits_then_gpt2},
    {"smollm", digits_then_gpt2},
    {"codeshell", digits_then_gpt2},
    {"exaone", digits_then_gpt2},
    {"minerva-7b", digits_then_gpt2},
    {"mellum2", digits_then_gpt2},
    {"falcon", falcon},
    {"deepseek-llm", deepseek_llm},
    {"deepseek-coder", deepseek_coder},
    {"deepseek-v3", deepseek_v3},
    {"hunyuan-dense", deepseek_v3},
    {"bloom", bloom},
    {"gpt3-finnish", bloom},
    {"poro-chat", bloom},
    {"viking", viking},
    {"gpt-4o", gpt4o},
    {"llama4", gpt4o},
    {"tekken", tekken},
};

}  // namespace

std::optional<PreTokenizerSpec> pre_tokenizer_spec(std::string_view name) {
  for (const Family& f : kFamilies) {
    if (name == f.name) return f.make();
  }
  return std::nullopt;
}

PreTokenizerSpec default_pre_tokenizer_spec() { return default_spec(); }

std::vector<std::string> known_pre_tokenizer_names() {
  std::vector<std::string> names;
  for (const Family& f : kFamilies) names.emplace_back(f.name);
  return names;
}

}  // namespace kvchat
