// Tests of SentencePieceVocab (engine/src/tokenizer/).
//
// Truth comes from outside this code: llama.cpp's llama-spm test vectors
// (shared/vocab/*.inp/.out), the prompt ids and greedy texts of the kjv-demo
// references (computed by an independent implementation), facts checked by
// hand against libsentencepiece, and tiny vocabularies whose merges are
// worked out by hand below. The id-for-id comparison with libsentencepiece
// itself is test_tokenizer_vs_libsentencepiece.cpp.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "support/load_vocab.h"
#include "support/vocab_vectors.h"
#include "tokenizer/sentencepiece_vocab.h"

namespace kvchat {
namespace {

const std::string kShared = KVCHAT_SHARED_DIR;
const std::string kLlamaSpmGguf = kShared + "/vocab/ggml-vocab-llama-spm.gguf";
const std::string kKjvGguf = kShared + "/models/kjv-demo-f16.gguf";

using Ids = std::vector<TokenId>;

using test::load_vocab;
using test::read_file;

const SentencePieceVocab& llama_vocab() {
  static const std::unique_ptr<SentencePieceVocab> vocab = load_vocab(kLlamaSpmGguf);
  if (!vocab) std::abort();
  return *vocab;
}

std::string join_token_bytes(const Tokenizer& tok, const Ids& ids) {
  std::string s;
  for (const TokenId id : ids) s += tok.token_bytes(id);
  return s;
}

// ---------------------------------------------------------------------------
// llama.cpp's llama-spm vectors (the 32k Llama vocab).

TEST(TokenizerVectors, LlamaSpmEveryCaseMatches) {
  const auto cases = test::parse_vocab_cases(read_file(kLlamaSpmGguf + ".inp"));
  const auto expected = test::parse_vocab_expected(read_file(kLlamaSpmGguf + ".out"));
  ASSERT_EQ(cases.size(), 46u);
  ASSERT_EQ(expected.size(), cases.size());
  const SentencePieceVocab& vocab = llama_vocab();
  int passed = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Ids got = vocab.encode(cases[i], false);
    EXPECT_EQ(got, expected[i]) << "case " << i << ": \"" << cases[i] << "\"";
    if (got == expected[i]) ++passed;
    Ids with_bos = {vocab.bos()};
    with_bos.insert(with_bos.end(), expected[i].begin(), expected[i].end());
    EXPECT_EQ(vocab.encode(cases[i], true), with_bos) << "case " << i;
  }
  EXPECT_EQ(passed, 46);
}

TEST(TokenizerVectors, LlamaSpmCasesRoundTrip) {
  const SentencePieceVocab& vocab = llama_vocab();
  for (const std::string& text : test::parse_vocab_cases(read_file(kLlamaSpmGguf + ".inp"))) {
    EXPECT_EQ(vocab.decode(vocab.encode(text, false)), text);
    EXPECT_EQ(vocab.decode(vocab.encode(text, true)), text);
  }
}

// The kjv-demo references: ids = [BOS] + SentencePiece ids of the prompt, and
// greedy_text = the decoded greedy_ids.
TEST(TokenizerVectors, KjvReferencePromptsAndContinuations) {
  const auto kjv = load_vocab(kKjvGguf);
  ASSERT_TRUE(kjv);
  const auto ref =
      nlohmann::json::parse(read_file(kShared + "/reference/kjv-demo/kjv-demo-f32.ref.json"));
  ASSERT_GE(ref["cases"].size(), 4u);
  for (const auto& c : ref["cases"]) {
    const std::string prompt = c["prompt"];
    EXPECT_EQ(kjv->encode(prompt, true), c["ids"].get<Ids>()) << prompt;
    EXPECT_EQ(kjv->decode(c["ids"].get<Ids>()), prompt);
    EXPECT_EQ(kjv->decode(c["greedy_ids"].get<Ids>()), c["greedy_text"].get<std::string>());
  }
}

// ---------------------------------------------------------------------------
// Round trips and streaming.

TEST(TokenizerRoundTrip, VariedText) {
  const SentencePieceVocab& vocab = llama_vocab();
  const std::vector<std::string> texts = {
      "",
      " ",
      "\n",
      "a",
      "  leading and trailing  ",
      "tabs\tand\nnewlines\r\n",
      "\xC3\xA9t\xC3\xA9, Stra\xC3\x9F"
      "e, \xC3\x84pfel",                                   // été, Straße, Äpfel
      "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82",  // Привет
      "\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C",  // 你好世界
      "\xF0\x9F\x98\x80\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD",  // emoji + modifier
      std::string("nul\0byte", 8),
      "\xEF\xBF\xBD is the replacement character",
      "1234567890 3.14159 -42 1e10",
  };
  for (const std::string& text : texts) {
    const Ids ids = vocab.encode(text, false);
    EXPECT_EQ(vocab.decode(ids), text);
    // Streaming: every token's bytes joined give the text behind the dummy-prefix space.
    EXPECT_EQ(join_token_bytes(vocab, ids), text.empty() ? "" : " " + text);
  }
}

TEST(TokenizerRoundTrip, LongText) {
  const SentencePieceVocab& vocab = llama_vocab();
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    text += std::to_string(i) +
            " In the beginning God created the heaven and the earth. "
            "\xC3\xA9\xE4\xB8\x96\xF0\x9F\x98\x80\n\t  ";
  }
  const Ids ids = vocab.encode(text, false);
  EXPECT_GT(ids.size(), 20000u);
  EXPECT_EQ(vocab.decode(ids), text);
  // Encoding a prefix that ends at a line break gives a prefix of the ids.
  const size_t cut = text.find('\n', text.size() / 2);
  const Ids head = vocab.encode(text.substr(0, cut), false);
  ASSERT_LE(head.size(), ids.size());
  EXPECT_TRUE(std::equal(head.begin(), head.end(), ids.begin()));
}

// ---------------------------------------------------------------------------
// Facts checked by hand against libsentencepiece (llama2-tokenizer.model).

TEST(TokenizerFacts, LlamaVocab) {
  const SentencePieceVocab& vocab = llama_vocab();
  EXPECT_EQ(vocab.n_vocab(), 32000);
  EXPECT_EQ(vocab.bos(), 1);
  EXPECT_EQ(vocab.eos(), 2);
  EXPECT_TRUE(vocab.add_bos_by_default());
  EXPECT_TRUE(vocab.is_control(1));
  EXPECT_TRUE(vocab.is_control(2));
  EXPECT_FALSE(vocab.is_control(0));
  EXPECT_FALSE(vocab.is_control(15043));
  EXPECT_FALSE(vocab.is_control(-1));
  EXPECT_FALSE(vocab.is_control(32000));
}

TEST(TokenizerFacts, EmptyTextAndBos) {
  const SentencePieceVocab& vocab = llama_vocab();
  EXPECT_EQ(vocab.encode("", false), Ids{});
  EXPECT_EQ(vocab.encode("", true), Ids{1});
  EXPECT_EQ(vocab.encode("Hello world", true), (Ids{1, 15043, 3186}));
  EXPECT_EQ(vocab.encode(" ", false), Ids{259});  // dummy prefix + space = "▁▁"
}

TEST(TokenizerFacts, TokenBytes) {
  const SentencePieceVocab& vocab = llama_vocab();
  EXPECT_EQ(vocab.token_bytes(3 + 0x0A), "\n");  // <0x0A>
  EXPECT_EQ(vocab.token_bytes(3 + 0xF0), "\xF0");
  EXPECT_EQ(vocab.token_bytes(1), "");                // <s>
  EXPECT_EQ(vocab.token_bytes(2), "");                // </s>
  EXPECT_EQ(vocab.token_bytes(0), " \xE2\x81\x87 ");  // <unk> renders " ⁇ "
  EXPECT_EQ(vocab.token_bytes(15043), " Hello");
  EXPECT_EQ(vocab.token_bytes(29871), " ");
  EXPECT_EQ(vocab.token_bytes(259), "  ");
  EXPECT_EQ(vocab.token_bytes(-5), "");
  EXPECT_EQ(vocab.token_bytes(32000), "");
}

TEST(TokenizerFacts, Decode) {
  const SentencePieceVocab& vocab = llama_vocab();
  EXPECT_EQ(vocab.decode(Ids{1, 15043, 2}), "Hello");
  EXPECT_EQ(vocab.decode(Ids{15043, 15043}), "Hello Hello");
  // Only the first piece's dummy prefix goes, even after a bare "▁".
  EXPECT_EQ(vocab.decode(Ids{29871, 15043}), " Hello");
  EXPECT_EQ(vocab.decode(Ids{1, 2, 15043}), "Hello");
  EXPECT_EQ(vocab.decode(Ids{259, 15043}), "  Hello");
  EXPECT_EQ(vocab.decode(Ids{2, 29871}), "");
  // <unk> is visible text, so the next piece keeps its space.
  EXPECT_EQ(vocab.decode(Ids{0, 15043}), " \xE2\x81\x87  Hello");
  // Byte pieces join into UTF-8; an incomplete sequence gives U+FFFD per byte.
  EXPECT_EQ(vocab.decode(Ids{243, 162, 155, 132}), "\xF0\x9F\x98\x81");  // 😁
  EXPECT_EQ(vocab.decode(Ids{3 + 0xE2, 3 + 0x82, 15043}), "\xEF\xBF\xBD\xEF\xBF\xBD Hello");
  EXPECT_EQ(vocab.decode(Ids{3 + 0x41, 15043}), "A Hello");
  EXPECT_EQ(vocab.decode(Ids{}), "");
  EXPECT_EQ(vocab.decode(Ids{-1, 99999, 15043}), "Hello");  // non-ids are skipped
}

// libsentencepiece replaces each ill-formed byte with U+FFFD before encoding
// (29871 "▁", 30140 "�", 26308 "��").
TEST(TokenizerFacts, InvalidUtf8BecomesReplacementCharacters) {
  const SentencePieceVocab& vocab = llama_vocab();
  EXPECT_EQ(vocab.encode("\xFF", false), (Ids{29871, 30140}));
  EXPECT_EQ(vocab.encode("a\xFF"
                         "b",
                         false),
            (Ids{263, 30140, 29890}));
  EXPECT_EQ(vocab.encode("\xE2\x82", false), (Ids{29871, 26308}));                 // truncated
  EXPECT_EQ(vocab.encode("\xED\xA0\x80", false), (Ids{29871, 26308, 30140}));      // surrogate
  EXPECT_EQ(vocab.encode("\xC0\x80", false), (Ids{29871, 26308}));                 // overlong
  EXPECT_EQ(vocab.encode("\xF4\x90\x80\x80", false), (Ids{29871, 26308, 26308}));  // > U+10FFFF
  EXPECT_EQ(vocab.encode("\xEF\xBF\xBD", false), (Ids{29871, 30140}));             // real U+FFFD
}

// U+2581 in the input is indistinguishable from an escaped space (as in
// libsentencepiece): it decodes as ' '.
TEST(TokenizerFacts, LowerOneEighthBlockDecodesAsSpace) {
  const SentencePieceVocab& vocab = llama_vocab();
  EXPECT_EQ(vocab.encode("a\xE2\x96\x81"
                         "b",
                         false),
            (Ids{263, 289}));
  EXPECT_EQ(vocab.decode(vocab.encode("a\xE2\x96\x81"
                                      "b",
                                      false)),
            "a b");
}

// ---------------------------------------------------------------------------
// Tiny vocabularies, merges worked out by hand.

constexpr const char* kSp = "\xE2\x96\x81";  // "▁"

struct TinyVocab {
  SentencePieceVocabData data;
  TokenId add(std::string piece, float score, PieceType type = PieceType::NORMAL) {
    data.pieces.push_back(std::move(piece));
    data.scores.push_back(score);
    data.types.push_back(type);
    return static_cast<TokenId>(data.pieces.size() - 1);
  }
  TinyVocab() {
    add("<unk>", 0, PieceType::UNKNOWN);
    add("<s>", 0, PieceType::CONTROL);
    add("</s>", 0, PieceType::CONTROL);
  }
  void add_bytes() {
    static const char* kHex = "0123456789ABCDEF";
    for (int b = 0; b < 256; ++b) {
      add(std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">", 0, PieceType::BYTE);
    }
  }
  std::unique_ptr<SentencePieceVocab> build() {
    auto v = SentencePieceVocab::create(data);
    EXPECT_TRUE(v.ok()) << (v.ok() ? "" : v.message());
    return v.ok() ? std::move(v).value() : nullptr;
  }
};

TEST(TokenizerTiny, HigherScoreMergesFirstAndTiesGoLeft) {
  TinyVocab t;
  const TokenId sp = t.add(kSp, -10);
  const TokenId a = t.add("a", -10);
  const TokenId b = t.add("b", -10);
  const TokenId sp_a = t.add(std::string(kSp) + "a", -5);
  const TokenId ab = t.add("ab", -1);
  const TokenId ba = t.add("ba", -1);
  auto v = t.build();
  ASSERT_TRUE(v);
  // "▁aba": pairs ▁a(-5), ab(-1), ba(-1). ab and ba tie; the left one (ab) merges,
  // leaving ▁|ab|a with no further pieces.
  EXPECT_EQ(v->encode("aba", false), (Ids{sp, ab, a}));
  // "▁bab": ba(-1) at 1 beats ab(-1) at 2: ▁|ba|b.
  EXPECT_EQ(v->encode("bab", false), (Ids{sp, ba, b}));
  // "▁a": only ▁a.
  EXPECT_EQ(v->encode("a", false), Ids{sp_a});
}

TEST(TokenizerTiny, MergesChainToLongerPieces) {
  TinyVocab t;
  t.add(kSp, -10);
  t.add("h", -10);
  t.add("e", -10);
  t.add("y", -10);
  t.add("he", -3);
  const TokenId sp_he = t.add(std::string(kSp) + "he", -4);
  const TokenId ey = t.add("ey", -5);  // loses: "e" is taken by "he" first
  const TokenId sp_hey = t.add(std::string(kSp) + "hey", -6);
  auto v = t.build();
  ASSERT_TRUE(v);
  // ▁hey -> ▁|he|y -> ▁he|y -> ▁hey
  EXPECT_EQ(v->encode("hey", false), Ids{sp_hey});
  // ▁ey (no h): ey merges, ▁ey is no piece.
  EXPECT_EQ(v->encode("ey", false), (Ids{3, ey}));
  EXPECT_EQ(v->encode("he", false), Ids{sp_he});
}

TEST(TokenizerTiny, UnusedPiecesAreSplitBack) {
  TinyVocab t;
  const TokenId sp = t.add(kSp, -10);
  const TokenId a = t.add("a", -10);
  t.add("b", -10);
  t.add("c", -10);
  const TokenId bc = t.add("bc", -1);
  t.add("abc", -2, PieceType::UNUSED);
  const TokenId sp_abc = t.add(std::string(kSp) + "abc", -3);
  auto v = t.build();
  ASSERT_TRUE(v);
  // ▁abc -> ▁|a|bc -> ▁|abc (UNUSED) -> ▁abc: a normal piece, kept.
  EXPECT_EQ(v->encode("abc", false), Ids{sp_abc});
  // x▁abc... without the leading ▁ merge: "xabc" -> ▁|x|abc; x is unknown (no
  // byte pieces: <unk>), and the UNUSED abc goes back to a|bc.
  EXPECT_EQ(v->encode("xabc", false), (Ids{sp, 0, a, bc}));
}

TEST(TokenizerTiny, UserDefinedPiecesAreNeverMerged) {
  TinyVocab t;
  const TokenId sp = t.add(kSp, -10);
  const TokenId a = t.add("a", -10);
  const TokenId tag = t.add("<a>", 0, PieceType::USER_DEFINED);
  t.add("<", -10);
  t.add(">", -10);
  t.add("a>", -1);  // would merge across the user-defined piece's end
  t.add(">a", -1);
  auto v = t.build();
  ASSERT_TRUE(v);
  EXPECT_EQ(v->encode("<a>a", false), (Ids{sp, tag, a}));
  EXPECT_EQ(v->decode(v->encode("<a>a", false)), "<a>a");
}

TEST(TokenizerTiny, ByteFallbackAndUnknownRuns) {
  TinyVocab bytes;
  const TokenId sp = bytes.add(kSp, -10);
  bytes.add_bytes();
  auto with_bytes = bytes.build();
  ASSERT_TRUE(with_bytes);
  // "é" = C3 A9 -> <0xC3> <0xA9> (ids 3 + 1 + byte).
  EXPECT_EQ(with_bytes->encode("\xC3\xA9", false), (Ids{sp, 4 + 0xC3, 4 + 0xA9}));
  EXPECT_EQ(with_bytes->decode(with_bytes->encode("\xC3\xA9", false)), "\xC3\xA9");

  TinyVocab none;
  none.add(kSp, -10);
  none.add("a", -10);
  auto no_bytes = none.build();
  ASSERT_TRUE(no_bytes);
  // Without byte pieces, consecutive unknown characters become one <unk>.
  EXPECT_EQ(no_bytes->encode("xyz a", false), (Ids{3, 0, 3, 4}));
}

TEST(TokenizerTiny, NoSpacePrefix) {
  TinyVocab t;
  const TokenId sp = t.add(kSp, -10);
  const TokenId a = t.add("a", -10);
  t.data.add_space_prefix = false;
  auto v = t.build();
  ASSERT_TRUE(v);
  EXPECT_EQ(v->encode("a a", false), (Ids{a, sp, a}));
  EXPECT_EQ(v->decode(Ids{sp, a}), " a");  // no dummy prefix to strip
}

// ---------------------------------------------------------------------------
// Validation.

TEST(TokenizerErrors, CreateRejectsInconsistentData) {
  const auto error_of = [](SentencePieceVocabData d) {
    auto v = SentencePieceVocab::create(std::move(d));
    EXPECT_FALSE(v.ok());
    return v.ok() ? std::string() : v.message();
  };
  TinyVocab base;
  base.add("a", 0);

  EXPECT_NE(error_of(SentencePieceVocabData{}).find("no pieces"), std::string::npos);

  auto d = base.data;
  d.scores.pop_back();
  EXPECT_NE(error_of(d).find("3 scores for 4 pieces"), std::string::npos) << error_of(d);

  d = base.data;
  d.types.push_back(PieceType::NORMAL);
  EXPECT_NE(error_of(d).find("5 piece types for 4 pieces"), std::string::npos) << error_of(d);

  d = base.data;
  d.bos = 4;
  EXPECT_NE(error_of(d).find("bos id 4 is out of range"), std::string::npos) << error_of(d);

  d = base.data;
  d.unk = -1;
  EXPECT_NE(error_of(d).find("unk id -1"), std::string::npos) << error_of(d);

  d = base.data;
  d.types[3] = static_cast<PieceType>(7);
  EXPECT_NE(error_of(d).find("piece 3 has type 7"), std::string::npos) << error_of(d);

  d = base.data;
  d.types[3] = PieceType::BYTE;
  EXPECT_NE(error_of(d).find("byte piece 3 is \"a\""), std::string::npos) << error_of(d);

  EXPECT_TRUE(SentencePieceVocab::create(base.data).ok());
}

// A vocab-only GGUF, built in memory; `edit` changes the metadata before writing.
template <class Edit>
Result<std::unique_ptr<SentencePieceVocab>> vocab_from_gguf(Edit edit) {
  gguf::GgufWriter w;
  w.set_string("tokenizer.ggml.model", "llama");
  w.set_strings("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "\xE2\x96\x81", "a"});
  w.set_f32s("tokenizer.ggml.scores", {0, 0, 0, -1, -2});
  w.set_i32s("tokenizer.ggml.token_type", {2, 3, 3, 1, 1});
  w.set_u32("tokenizer.ggml.bos_token_id", 1);
  w.set_u32("tokenizer.ggml.eos_token_id", 2);
  w.set_u32("tokenizer.ggml.unknown_token_id", 0);
  edit(w);
  const std::vector<uint8_t> bytes = w.to_bytes();
  auto file = gguf::GgufFile::parse(bytes, "mem.gguf");
  if (!file.ok()) return file.error();
  return SentencePieceVocab::from_gguf(**file);
}

void expect_error(const Result<std::unique_ptr<SentencePieceVocab>>& r,
                  const std::vector<std::string>& fragments) {
  ASSERT_FALSE(r.ok());
  for (const std::string& f : fragments) {
    EXPECT_NE(r.message().find(f), std::string::npos) << r.message() << "\nlacks: " << f;
  }
}

TEST(TokenizerErrors, FromGguf) {
  auto ok = vocab_from_gguf([](gguf::GgufWriter&) {});
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ((*ok)->encode("a a", true), (Ids{1, 3, 4, 3, 4}));
  EXPECT_TRUE((*ok)->add_bos_by_default());

  expect_error(
      vocab_from_gguf([](gguf::GgufWriter& w) { w.set_string("tokenizer.ggml.model", "gpt2"); }),
      {"mem.gguf", "tokenizer.ggml.model", "gpt2 tokenizers are not supported yet"});
  expect_error(vocab_from_gguf([](gguf::GgufWriter& w) { w.set_u32("tokenizer.ggml.model", 3); }),
               {"mem.gguf", "tokenizer.ggml.model", "must be string"});
  expect_error(vocab_from_gguf([](gguf::GgufWriter& w) {
                 w.set_f32s("tokenizer.ggml.scores", {0, 0, 0});
               }),
               {"mem.gguf", "tokenizer.ggml.scores", "3 entries for 5 tokens"});
  expect_error(vocab_from_gguf([](gguf::GgufWriter& w) {
                 w.set_i32s("tokenizer.ggml.scores", {0, 0, 0, 0, 0});
               }),
               {"mem.gguf", "tokenizer.ggml.scores", "array of float32"});
  expect_error(vocab_from_gguf([](gguf::GgufWriter& w) {
                 w.set_i32s("tokenizer.ggml.token_type", {2, 3, 3, 1, 1, 1});
               }),
               {"mem.gguf", "tokenizer.ggml.token_type", "6 entries for 5 tokens"});
  expect_error(vocab_from_gguf([](gguf::GgufWriter& w) {
                 w.set_i32s("tokenizer.ggml.token_type", {2, 3, 3, 1, 9});
               }),
               {"mem.gguf", "tokenizer.ggml.token_type", "[4] = 9"});
  expect_error(
      vocab_from_gguf([](gguf::GgufWriter& w) { w.set_string("tokenizer.ggml.tokens", "abc"); }),
      {"mem.gguf", "tokenizer.ggml.tokens", "array of string"});
  expect_error(vocab_from_gguf(
                   [](gguf::GgufWriter& w) { w.set_string("tokenizer.ggml.bos_token_id", "1"); }),
               {"mem.gguf", "tokenizer.ggml.bos_token_id", "uint32"});
  expect_error(
      vocab_from_gguf([](gguf::GgufWriter& w) { w.set_u32("tokenizer.ggml.eos_token_id", 5); }),
      {"mem.gguf", "eos id 5 is out of range"});
  expect_error(
      vocab_from_gguf([](gguf::GgufWriter& w) { w.set_u32("tokenizer.ggml.add_bos_token", 1); }),
      {"mem.gguf", "tokenizer.ggml.add_bos_token", "bool"});
}

TEST(TokenizerErrors, FromGgufMissingKeys) {
  const char* required[] = {"tokenizer.ggml.model", "tokenizer.ggml.tokens",
                            "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"};
  for (const char* key : required) {
    gguf::GgufWriter w;
    if (std::string(key) != "tokenizer.ggml.model") w.set_string("tokenizer.ggml.model", "llama");
    if (std::string(key) != "tokenizer.ggml.tokens") {
      w.set_strings("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>"});
    }
    if (std::string(key) != "tokenizer.ggml.bos_token_id")
      w.set_u32("tokenizer.ggml.bos_token_id", 1);
    if (std::string(key) != "tokenizer.ggml.eos_token_id")
      w.set_u32("tokenizer.ggml.eos_token_id", 2);
    const std::vector<uint8_t> bytes = w.to_bytes();
    auto file = gguf::GgufFile::parse(bytes, "mem.gguf");
    ASSERT_TRUE(file.ok()) << file.message();
    expect_error(SentencePieceVocab::from_gguf(**file), {"mem.gguf", key, "missing"});
  }
}

TEST(TokenizerErrors, FromGgufOptionalKeysDefault) {
  gguf::GgufWriter w;
  w.set_string("tokenizer.ggml.model", "llama");
  w.set_strings("tokenizer.ggml.tokens", {"x", "<s>", "</s>", "<unk>"});
  w.set_u32("tokenizer.ggml.bos_token_id", 1);
  w.set_u32("tokenizer.ggml.eos_token_id", 2);
  w.set_bool("tokenizer.ggml.add_bos_token", false);
  const std::vector<uint8_t> bytes = w.to_bytes();
  auto file = gguf::GgufFile::parse(bytes, "mem.gguf");
  ASSERT_TRUE(file.ok()) << file.message();
  auto v = SentencePieceVocab::from_gguf(**file);
  ASSERT_TRUE(v.ok()) << v.message();
  EXPECT_FALSE((*v)->add_bos_by_default());
  EXPECT_TRUE((*v)->data().add_space_prefix);
  EXPECT_EQ((*v)->data().scores, std::vector<float>(4, 0.0f));
  EXPECT_EQ((*v)->data().types, std::vector<PieceType>(4, PieceType::NORMAL));
  EXPECT_EQ((*v)->data().unk, 0);  // no UNKNOWN piece: 0
}

TEST(TokenizerErrors, Gpt2VocabIsRefused) {
  auto file = gguf::GgufFile::open(kShared + "/vocab/ggml-vocab-gpt-2.gguf");
  ASSERT_TRUE(file.ok()) << file.message();
  expect_error(SentencePieceVocab::from_gguf(**file),
               {"ggml-vocab-gpt-2.gguf", "gpt2 tokenizers are not supported yet"});
}

}  // namespace
}  // namespace kvchat
