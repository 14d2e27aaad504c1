// The BPE pre-tokenizers (engine/src/tokenizer/pre_tokenizer*.cpp): for each
// family of splitting regexes, a text whose words were worked out by hand from
// the regex semantics (leftmost match, alternatives in order, greedy with
// backtracking; unmatched text kept as its own piece; passes applied in turn).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenizer/byte_level.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/unicode_tables.h"

namespace kvchat {
namespace {

using Words = std::vector<std::string>;

Words split(const std::string& pre, const std::string& text) {
  const auto spec = pre_tokenizer_spec(pre);
  EXPECT_TRUE(spec.has_value()) << pre;
  if (!spec) return {};
  return PreTokenizer(*spec).words(text);
}

TEST(PreTokenizer, Gpt2ContractionsLettersNumbersSpaces) {
  // "  12345": \s+(?!\S) gives back the space before the digits, which ' ?\p{N}+' takes.
  EXPECT_EQ(split("gpt-2", "Hello world's  12345 !!\n\n x"),
            (Words{"Hello", " world", "'s", " ", " 12345", " !!", "\n\n", " x"}));
  // Contractions are case-sensitive in gpt-2: "'S" is punctuation then a letter.
  EXPECT_EQ(split("gpt-2", "I'M"), (Words{"I", "'", "M"}));
  // Trailing whitespace stays whole.
  EXPECT_EQ(split("gpt-2", "a   "), (Words{"a", "   "}));
  // mpt, olmo, jais, phi-2 share the regex.
  for (const char* name : {"mpt", "olmo", "jais", "phi-2"}) {
    EXPECT_EQ(split(name, "It's 42"), (Words{"It", "'s", " 42"})) << name;
  }
}

TEST(PreTokenizer, Llama3DigitsInThreesCaseInsensitiveContractionsNewlines) {
  EXPECT_EQ(split("llama-bpe", "I'M 1234567 ok\r\n\n  x"),
            (Words{"I", "'M", " ", "123", "456", "7", " ok", "\r\n\n", " ", " x"}));
  // [^\r\n\p{L}\p{N}]? takes any one non-letter before letters, not only a space.
  EXPECT_EQ(split("llama3", "(hi) \"yo\""), (Words{"(hi", ")", " \"", "yo", "\""}));
  // ' ?[^\s\p{L}\p{N}]+[\r\n]*' keeps the newlines after punctuation.
  EXPECT_EQ(split("llama-v3", "end.\n\nNext"), (Words{"end", ".\n\n", "Next"}));
  for (const char* name : {"falcon3", "dbrx", "smaug-bpe", "chatglm-bpe"}) {
    EXPECT_EQ(split(name, "x 12345"), (Words{"x", " ", "123", "45"})) << name;
  }
}

TEST(PreTokenizer, Qwen2SingleDigits) {
  for (const char* name : {"qwen2", "deepseek-r1-qwen", "stablelm2"}) {
    EXPECT_EQ(split(name, "ab 123"), (Words{"ab", " ", "1", "2", "3"})) << name;
  }
  // seed-coder: single digits, and no [\r\n]* after punctuation.
  EXPECT_EQ(split("seed-coder", "x.\n12"), (Words{"x", ".", "\n", "1", "2"}));
}

TEST(PreTokenizer, DigitsFirstThenGpt2) {
  for (const char* name :
       {"starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b"}) {
    EXPECT_EQ(split(name, "a 123b"), (Words{"a", " ", "1", "2", "3", "b"})) << name;
  }
}

TEST(PreTokenizer, DefaultAndFalcon) {
  // default: punctuation runs and $+<=>^~| first, then gpt-2, \p{N}+, [0-9]{3}.
  EXPECT_EQ(split("default", "a+b=3.14"), (Words{"a", "+", "b", "=", "3", ".", "14"}));
  EXPECT_EQ(split("default", "1234567"), (Words{"123", "456", "7"}));
  // falcon: the same shape (the backtick too).
  EXPECT_EQ(split("falcon", "x`1234"), (Words{"x", "`", "123", "4"}));
}

TEST(PreTokenizer, DeepseekCoderCjkAndDigits) {
  // "\s?\p{L}+" takes " 你好" (Lo letters), then the CJK pass isolates the ideographs.
  EXPECT_EQ(split("deepseek-coder", "Hi \xE4\xBD\xA0\xE5\xA5\xBD 42\n"),
            (Words{"Hi", " ", "\xE4\xBD\xA0\xE5\xA5\xBD", " ", "4", "2", "\n"}));
}

TEST(PreTokenizer, DeepseekLlmRangesAndTrailingSpaces) {
  EXPECT_EQ(split("deepseek-llm", "Hello, World!  \n"),
            (Words{"Hello", ",", " World", "!", "  ", "\n"}));
  // Greek is in the letter ranges, so the space joins it; the U+0800..U+4E00 range of
  // the CJK pass then isolates a letter such as ώ (U+1F7D) from its space again.
  EXPECT_EQ(split("deepseek-llm", "a \xCE\xA9"), (Words{"a", " \xCE\xA9"}));
  EXPECT_EQ(split("deepseek-llm", "a \xE1\xBD\xBD"), (Words{"a", " ", "\xE1\xBD\xBD"}));
}

TEST(PreTokenizer, DeepseekV3PunctuationWordsAndSymbols) {
  EXPECT_EQ(split("deepseek-v3", "x+=1234 .Net"), (Words{"x", "+=", "123", "4", " .", "Net"}));
  // [punct][A-Za-z]+ comes first: ".Net" at a word start.
  EXPECT_EQ(split("deepseek-v3", ".Net"), (Words{".Net"}));
  // Kana and ideographs run together.
  EXPECT_EQ(split("deepseek-v3", "\xE3\x81\x82\xE4\xB8\x80x"),
            (Words{"\xE3\x81\x82\xE4\xB8\x80", "x"}));
}

TEST(PreTokenizer, Gpt4oCasedWords) {
  EXPECT_EQ(split("gpt-4o", "HelloWorld ABCdef don'T"),
            (Words{"Hello", "World", " ABCdef", " don'T"}));
  // All capitals: U*L+ fails, U+L* takes the run.
  EXPECT_EQ(split("gpt-4o", "NASA rocks"), (Words{"NASA", " rocks"}));
  EXPECT_EQ(split("gpt-4o", "12345/\n"), (Words{"123", "45", "/\n"}));
  // tekken: single digits, no contractions.
  EXPECT_EQ(split("tekken", "It's 12"), (Words{"It", "'s", " ", "1", "2"}));
}

TEST(PreTokenizer, BloomFamily) {
  // ' ?[^(\s|.,!?…。，、।۔،)]+': the excluded characters are left between words.
  for (const char* name : {"bloom", "gpt3-finnish", "poro-chat"}) {
    EXPECT_EQ(split(name, "Hello, world. (x)"), (Words{"Hello", ",", " world", ". (", "x", ")"}))
        << name;
  }
  EXPECT_EQ(split("viking", "ab12"), (Words{"ab", "1", "2"}));
}

TEST(PreTokenizer, WordsCoverTheTextExactly) {
  const std::string text =
      "Mixed: caf\xC3\xA9 \xD0\x9F\xD1\x80\xD0\xB8 \xF0\x9F\xA6\x99 12,345.6 \t\r\n  end  ";
  for (const std::string& name : known_pre_tokenizer_names()) {
    std::string joined;
    for (const std::string& w : split(name, text)) {
      EXPECT_FALSE(w.empty()) << name;
      joined += w;
    }
    EXPECT_EQ(joined, text) << name;
  }
}

TEST(PreTokenizer, EveryListedNameIsKnown) {
  for (const char* name : {"default",          "gpt-2",        "llama-bpe",
                           "llama3",           "llama-v3",     "qwen2",
                           "deepseek-r1-qwen", "deepseek-llm", "deepseek-coder",
                           "deepseek-v3",      "falcon",       "falcon3",
                           "starcoder",        "refact",       "mpt",
                           "smollm",           "gpt-4o",       "tekken",
                           "command-r",        "olmo",         "dbrx",
                           "stablelm2",        "jais",         "poro-chat",
                           "chatglm-bpe",      "viking",       "bloom",
                           "gpt3-finnish",     "exaone",       "minerva-7b",
                           "codeshell",        "seed-coder",   "phi-2"}) {
    EXPECT_TRUE(pre_tokenizer_spec(name).has_value()) << name;
  }
  EXPECT_FALSE(pre_tokenizer_spec("no-such-pre").has_value());
}

TEST(PreTokenizer, LongRunsStayLinear) {
  // A 1 MB run of spaces with a word after it is split in one scan per rule, not
  // one per start position (\s+$ of deepseek-llm and \s*[\r\n]+ remember where
  // they cannot match). This would take hours if quadratic.
  const std::string spaces(1 << 20, ' ');
  EXPECT_EQ(split("deepseek-llm", spaces + "x").size(), 2u);
  EXPECT_EQ(split("llama-bpe", spaces + "x"), (Words{spaces.substr(1), " x"}));
}

TEST(UnicodeTables, Categories) {
  using namespace unicode;
  EXPECT_EQ(flags('A'), kUppercase);
  EXPECT_EQ(flags('a'), kLowercase);
  EXPECT_EQ(flags('7'), kNumber);
  EXPECT_EQ(flags('!'), kPunctuation);
  EXPECT_EQ(flags('~'), kSymbol);
  EXPECT_EQ(flags(' '), kSeparator | kWhitespace);
  EXPECT_EQ(flags('\n'), kControl | kWhitespace);
  EXPECT_EQ(flags(0x3000), kSeparator | kWhitespace);  // ideographic space
  EXPECT_EQ(flags(0x85), kControl | kWhitespace);      // NEL
  EXPECT_EQ(flags(0x200D), kControl);                  // ZWJ is Cf, not \s
  EXPECT_EQ(flags(0x4F60), kOtherLetter);              // 你
  EXPECT_EQ(flags(0x0301), kMark);                     // combining acute
  EXPECT_EQ(flags(0x01C5), kTitlecase);                // ǅ
  EXPECT_EQ(flags(0x02B0), kModifier);                 // ʰ
  EXPECT_EQ(flags(0x1F999), kSymbol);                  // 🦙
  EXPECT_EQ(flags(0x10400), kUppercase);               // 𐐀 (above the BMP)
  EXPECT_EQ(flags(0x0378), 0);                         // unassigned
  EXPECT_EQ(flags(0x110000), 0);
}

TEST(ByteLevel, Gpt2Alphabet) {
  EXPECT_EQ(byte_level::encode_byte('a'), "a");
  EXPECT_EQ(byte_level::encode_byte(' '), "\xC4\xA0");   // Ġ U+0120
  EXPECT_EQ(byte_level::encode_byte('\n'), "\xC4\x8A");  // Ċ U+010A
  EXPECT_EQ(byte_level::encode_byte(0), "\xC4\x80");     // U+0100
  EXPECT_EQ(byte_level::encode_byte(0xAD), "\xC5\x83");  // soft hyphen: U+0143, the last
  EXPECT_EQ(byte_level::encode_byte(0xE9), "\xC3\xA9");  // é stands for itself
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  std::string encoded;
  byte_level::encode(all, encoded);
  std::string decoded;
  byte_level::decode(encoded, decoded);
  EXPECT_EQ(decoded, all);
}

}  // namespace
}  // namespace kvchat

namespace kvchat {
namespace {

// Random text over characters that exercise every rule (spaces of several kinds,
// newlines, letters of each case class, marks, digits, punctuation, symbols, CJK,
// emoji, apostrophes): for every name the words are non-empty and join to the text.
TEST(PreTokenizer, RandomTextIsCoveredExactlyByEveryName) {
  const std::vector<std::string> alphabet = {
      " ",
      "  ",
      "\n",
      "\r",
      "\t",
      "a",
      "Z",
      "s",
      "T",
      "'",
      "1",
      "7",
      "!",
      ".",
      "/",
      "$",
      "~",
      "\xC3\xA9",          // é
      "\xCC\x81",          // combining acute
      "\xC7\x85",          // ǅ (Lt)
      "\xCA\xB0",          // ʰ (Lm)
      "\xE3\x80\x80",      // ideographic space
      "\xC2\xA0",          // no-break space
      "\xE4\xBD\xA0",      // 你
      "\xE3\x81\x82",      // あ
      "\xEA\xB0\x80",      // 가
      "\xE2\x80\xA6",      // …
      "\xD9\xA3",          // Arabic-Indic digit three
      "\xF0\x9F\xA6\x99",  // 🦙
      "\xE2\x80\x8D",      // ZWJ
  };
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<size_t>(state >> 33);
  };
  for (int round = 0; round < 200; ++round) {
    std::string text;
    const size_t n = next() % 40;
    for (size_t i = 0; i < n; ++i) text += alphabet[next() % alphabet.size()];
    for (const std::string& name : known_pre_tokenizer_names()) {
      std::string joined;
      for (const std::string& w : PreTokenizer(*pre_tokenizer_spec(name)).words(text)) {
        ASSERT_FALSE(w.empty()) << name;
        joined += w;
      }
      ASSERT_EQ(joined, text) << name;
    }
  }
}

}  // namespace
}  // namespace kvchat

#include <nlohmann/json.hpp>

#include "support/load_vocab.h"

namespace kvchat {
namespace {

// tests/data/pre_tokenizer_golden.json: the words Python's `regex` module gives for
// each family's regexes (scripts/gen_pre_tokenizer_golden.py), on fixed and random
// texts. An outside truth for the hand-written matchers.
TEST(PreTokenizer, MatchesTheRegexesAsPythonRegexSplitsThem) {
  const auto golden = nlohmann::json::parse(
      test::read_file(std::string(KVCHAT_SOURCE_DIR) + "/tests/data/pre_tokenizer_golden.json"));
  ASSERT_EQ(golden.size(), 14u);
  for (const auto& [name, cases] : golden.items()) {
    const auto spec = pre_tokenizer_spec(name);
    ASSERT_TRUE(spec.has_value()) << name;
    const PreTokenizer pre(*spec);
    size_t passed = 0;
    for (const auto& c : cases) {
      const std::string text = c[0];
      const Words expected = c[1];
      const Words got = pre.words(text);
      EXPECT_EQ(got, expected) << name << ": \"" << text << "\"";
      passed += got == expected;
    }
    EXPECT_EQ(passed, cases.size()) << name;
  }
}

}  // namespace
}  // namespace kvchat
