// SentencePieceVocab against the real libsentencepiece: the same model loaded
// both ways must give identical ids and identical decoded text.
//
// Models: kjv-tok.model vs the vocab inside kjv-demo-f16.gguf, and Llama 2's
// tokenizer.model vs ggml-vocab-llama-spm.gguf. Texts: a fixed varied corpus,
// thousands of seeded pseudo-random strings, ill-formed UTF-8, very long
// lines. Decoding: random id sequences (control, unknown and byte pieces
// included). Edge semantics the real models never exercise (UNUSED and
// USER_DEFINED pieces, score ties, no byte fallback) are checked on small
// random vocabularies, serialized as SentencePiece model files for the library.
#include <gtest/gtest.h>
#include <sentencepiece_processor.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <ostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "support/load_vocab.h"
#include "tokenizer/sentencepiece_vocab.h"

namespace kvchat {
namespace {

const std::string kShared = KVCHAT_SHARED_DIR;
using Ids = std::vector<TokenId>;

using test::load_vocab;
using test::read_file;

std::string show(std::string_view s) {
  std::string out;
  for (const char c : s) {
    const auto b = static_cast<uint8_t>(c);
    if (b >= 0x20 && b < 0x7F && c != '\\') {
      out.push_back(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", b);
      out += buf;
    }
  }
  return out.size() > 300 ? out.substr(0, 300) + "..." : out;
}

std::string show(const Ids& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size() && i < 60; ++i) out += std::to_string(ids[i]) + " ";
  return ids.size() > 60 ? out + "..." : out;
}

// Compares encode and decode on every text; returns how many texts matched.
size_t compare_on(const sentencepiece::SentencePieceProcessor& sp, const SentencePieceVocab& ours,
                  const std::vector<std::string>& texts, bool check_round_trip) {
  size_t matched = 0;
  int reported = 0;
  for (const std::string& text : texts) {
    std::vector<int> want;
    const auto status = sp.Encode(text, &want);
    EXPECT_TRUE(status.ok()) << status.ToString();
    const Ids got = ours.encode(text, false);
    const Ids want_ids(want.begin(), want.end());
    std::string want_text;
    EXPECT_TRUE(sp.Decode(want, &want_text).ok());
    const std::string got_text = ours.decode(got);
    const bool same = got == want_ids && got_text == want_text;
    if (same) ++matched;
    if (!same && reported++ < 10) {
      ADD_FAILURE() << "text: \"" << show(text) << "\"\n  lib ids:  " << show(want_ids)
                    << "\n  our ids:  " << show(got) << "\n  lib text: \"" << show(want_text)
                    << "\"\n  our text: \"" << show(got_text) << "\"";
    }
    // decode(encode(s)) == s for well-formed text without a literal U+2581.
    if (check_round_trip && text.find("\xE2\x96\x81") == std::string::npos) {
      EXPECT_EQ(got_text, text);
    }
  }
  return matched;
}

// ---------------------------------------------------------------------------
// Corpora.

std::vector<std::string> fixed_corpus() {
  std::vector<std::string> c = {
      // KJV
      "In the beginning God created the heaven and the earth.",
      "And the earth was without form, and void; and darkness was upon the face of the deep. "
      "And the Spirit of God moved upon the face of the waters.",
      "And God said, Let there be light: and there was light.",
      "Genesis 1\n1 In the beginning God created the heaven and the earth.\n2 And the earth was "
      "without form, and void;",
      "For God so loved the world, that he gave his only begotten Son, that whosoever believeth "
      "in him should not perish, but have everlasting life.",
      "The LORD is my shepherd; I shall not want.",
      "He maketh me to lie down in green pastures: he leadeth me beside the still waters.",
      "Yea, though I walk through the valley of the shadow of death, I will fear no evil: for "
      "thou art with me; thy rod and thy staff they comfort me.",
      "Psalms 23\n1 The LORD is my shepherd; I shall not want.\n",
      "Jesus wept.",
      "And Elimelech Naomi's husband died; and she was left, and her two sons.",
      "Vanity of vanities, saith the Preacher; all is vanity.",
      "1 Corinthians 13:4 Charity suffereth long, and is kind; charity envieth not;",
      "Revelation 22\n21 The grace of our Lord Jesus Christ be with you all. Amen.",
      "Thou shalt not kill.\nThou shalt not commit adultery.\nThou shalt not steal.",
      // whitespace
      "",
      " ",
      "  ",
      "     ",
      "\t",
      "\t\t",
      "\n",
      "\n\n\n",
      "\r\n",
      " \t \n \t\t\n  ",
      "  leading spaces",
      "trailing spaces   ",
      "  both  ",
      "a  b   c    d     e",
      "line one\nline two\n\nline four\n",
      "tab\tseparated\tvalues\t1\t2\t3",
      "\n leading newline",
      // digits and numbers
      "0",
      "42",
      "3.14159265358979",
      "1,000,000 and 2.5e-10 and -7 and +8 and 0x1F",
      "1234567890123456789012345678901234567890",
      "Chapter 12, verses 1-24 (1611)",
      // punctuation
      "Hello, world!",
      "!!!!!!",
      "...?!;:'\"()[]{}<>/\\|@#$%^&*-_=+`~",
      "''''''```````\"\"\"\"......!!!!!!??????",
      "e-mail: someone@example.com; url: https://example.org/a?b=c&d=e#f",
      "<s> </s> <unk> <0x41> [INST] [/INST]",
      // non-ASCII Latin
      "\xC3\xA9t\xC3\xA9",  // été
      "Stra\xC3\x9F"
      "e",  // Straße
      "\xC3\x84pfel, \xC3\x96l und \xC3\x9C"
      "bel",  // Äpfel, Öl und Übel
      "na\xC3\xAFve caf\xC3\xA9 r\xC3\xA9sum\xC3\xA9 fa\xC3\xA7"
      "ade",
      "e\xCC\x81 (combining acute)",  // e + U+0301
      // Cyrillic, Greek, CJK, others
      "\xD0\x92 \xD0\xBD\xD0\xB0\xD1\x87\xD0\xB0\xD0\xBB\xD0\xB5 \xD0\xB1\xD1\x8B\xD0\xBB\xD0\xBE "
      "\xD0\xA1\xD0\xBB\xD0\xBE\xD0\xB2\xD0\xBE",  // В начале было Слово
      "\xCE\x95\xCE\xBD \xE1\xBC\x80\xCF\x81\xCF\x87\xE1\xBF\x87",  // Ἐν ἀρχῇ
      "\xE5\x9C\xA8\xE8\xB5\xB7\xE5\x88\x9D\xE7\xA5\x9E\xE5\x88\x9B\xE9\x80\xA0\xE5\xA4\xA9"
      "\xE5\x9C\xB0\xE3\x80\x82",                                       // 起初神创造天地。
      "\xE3\x81\x93\xE3\x82\x93\xE3\x81\xAB\xE3\x81\xA1\xE3\x81\xAF",   // こんにちは
      "\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4 \xED\x82\xA4\xEA\xB0\x92",  // 한국어 키값
      "\xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D \xD8\xB3\xD9\x84\xD8\xA7\xD9\x85",  // שלום سلام
      "\xE0\xA4\xA8\xE0\xA4\xAE\xE0\xA4\xB8\xE0\xA5\x8D\xE0\xA4\xA4\xE0\xA5\x87",  // नमस्ते
      // emoji (byte fallback)
      "\xF0\x9F\x98\x80",
      "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD thumbs",
      "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x91\xA7 family (ZWJ)",
      "\xF0\x9F\x87\xAB\xF0\x9F\x87\xB7 flag",
      "\xE2\x9C\x85 \xE2\x9D\xA4\xEF\xB8\x8F \xF0\x9F\xA6\x99",
      // mixed
      "Hello, y'all! How are you \xF0\x9F\x98\x81 ?\xE6\x88\x91\xE6\x83\xB3\xE5\x9C\xA8"
      "apple"
      "\xE5\xB7\xA5\xE4\xBD\x9C"
      "1314151\xE5\xA4\xA9\xEF\xBD\x9E",
      "C\xE1\xBB\xAD"
      "a Vi\xE1\xBB\x87t",
      "mixed\t\xC3\xA9\n\xD0\x96  \xE4\xB8\xAD\xF0\x9F\x98\x80 42",
      std::string("nul\0inside", 10),
      "\x01\x02\x1F\x7F control characters",
      "\xEF\xBF\xBD replacement character",
      "\xE2\x96\x81 literal lower one eighth block \xE2\x96\x81\xE2\x96\x81",
      "\xEF\xBB\xBF"
      "BOM at start",
      "\xE2\x80\xAF\xC2\xA0 narrow and no-break spaces\xE3\x80\x80ideographic",
  };
  // Very long lines.
  std::string verse =
      "And God saw the light, that it was good: and God divided the light from "
      "the darkness. ";
  std::string long_line;
  while (long_line.size() < 100000) long_line += verse;
  c.push_back(long_line);
  c.push_back(std::string(5000, ' ') + "x" + std::string(5000, '\n'));
  c.push_back(std::string(20000, 'a'));
  std::string cjk;
  for (int i = 0; i < 3000; ++i) cjk += "\xE5\x9C\xA8\xE8\xB5\xB7\xE5\x88\x9D\xF0\x9F\x98\x80";
  c.push_back(cjk);
  return c;
}

// Seeded pseudo-random strings: ASCII words, numbers, punctuation, runs of
// spaces/tabs/newlines, multibyte characters.
std::vector<std::string> random_corpus(uint32_t seed, int count) {
  static const std::vector<std::string> kAtoms = {
      "the",
      "LORD",
      "and",
      "said",
      "unto",
      "Moses",
      "thee",
      "thou",
      "hath",
      "begat",
      "Israel",
      "of",
      "a",
      "I",
      "light",
      "earth",
      "heaven",
      "water",
      "hello",
      "world",
      "token",
      "KV",
      "cache",
      "Hello",
      "HTTP",
      "don't",
      "it's",
      "x",
      "z",
      "qu",
      "ing",
      "tion",
      "pre",
      "un",
      "0",
      "1",
      "12",
      "365",
      "2024",
      "3.14",
      "1e9",
      ",",
      ".",
      ";",
      ":",
      "!",
      "?",
      "'",
      "\"",
      "(",
      ")",
      "-",
      "--",
      "...",
      "/",
      "\\",
      "#",
      "@",
      "&",
      "*",
      "_",
      " ",
      " ",
      " ",
      " ",
      "  ",
      "   ",
      "    ",
      "\t",
      "\t\t",
      "\n",
      "\n",
      "\n\n",
      "\r\n",
      " \n",
      "\xC3\xA9",
      "\xC3\x9F",
      "\xC3\x84",
      "\xC3\xB1",
      "\xC3\xB8",  // é ß Ä ñ ø
      "\xD0\x96",
      "\xD0\xB4\xD0\xB0",
      "\xD1\x8F",  // Ж да я
      "\xCE\xBB",
      "\xD7\x90",
      "\xD8\xB9",  // λ א ع
      "\xE4\xB8\xAD",
      "\xE6\x96\x87",
      "\xE3\x81\x82",
      "\xED\x95\x9C",  // 中 文 あ 한
      "\xE2\x82\xAC",
      "\xE2\x80\x94",
      "\xE2\x80\x9C",
      "\xE2\x96\x81",  // € — “ ▁
      "\xF0\x9F\x98\x80",
      "\xF0\x9F\x8E\x89",
      "\xF0\x9F\x91\x8D",
      "\xF0\x90\x8D\x88",  // 😀 🎉 👍 𐍈
      "\xCC\x81",
      "\xE2\x80\x8D",
      "\xEF\xB8\x8F",  // combining acute, ZWJ, VS16
  };
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  out.reserve(count);
  for (int i = 0; i < count; ++i) {
    const int n = std::uniform_int_distribution<int>(0, i % 10 == 0 ? 400 : 40)(rng);
    std::string s;
    for (int k = 0; k < n; ++k) s += kAtoms[rng() % kAtoms.size()];
    out.push_back(std::move(s));
  }
  return out;
}

// Random bytes, often ill-formed UTF-8.
std::vector<std::string> random_bytes_corpus(uint32_t seed, int count) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    std::string s;
    const int n = std::uniform_int_distribution<int>(1, 24)(rng);
    for (int k = 0; k < n; ++k) {
      const uint32_t r = rng();
      // Mostly high bytes (lead/continuation), some ASCII letters and spaces.
      s.push_back(static_cast<char>(r % 3 == 0 ? "ab  e\n"[r % 6] : 0x80 + (r >> 8) % 128));
    }
    out.push_back(std::move(s));
  }
  return out;
}

// ---------------------------------------------------------------------------
// The real models.

struct ModelPair {
  const char* name;
  std::string model_path;
  std::string gguf_path;
};

void PrintTo(const ModelPair& p, std::ostream* os) { *os << p.name; }

class VsLibSentencePiece : public ::testing::TestWithParam<ModelPair> {
 protected:
  void SetUp() override {
    const auto status = sp_.Load(GetParam().model_path);
    ASSERT_TRUE(status.ok()) << status.ToString();
    ours_ = load_vocab(GetParam().gguf_path);
    ASSERT_TRUE(ours_);
  }
  sentencepiece::SentencePieceProcessor sp_;
  std::unique_ptr<SentencePieceVocab> ours_;
};

TEST_P(VsLibSentencePiece, VocabulariesAgree) {
  ASSERT_EQ(ours_->n_vocab(), sp_.GetPieceSize());
  const SentencePieceVocabData& d = ours_->data();
  for (int id = 0; id < sp_.GetPieceSize(); ++id) {
    ASSERT_EQ(d.pieces[id], sp_.IdToPiece(id)) << id;
    ASSERT_EQ(d.scores[id], sp_.GetScore(id)) << id;
    const PieceType t = d.types[id];
    ASSERT_EQ(t == PieceType::CONTROL, sp_.IsControl(id)) << id;
    ASSERT_EQ(t == PieceType::UNKNOWN, sp_.IsUnknown(id)) << id;
    ASSERT_EQ(t == PieceType::BYTE, sp_.IsByte(id)) << id;
    ASSERT_EQ(t == PieceType::UNUSED, sp_.IsUnused(id)) << id;
  }
  EXPECT_EQ(ours_->bos(), sp_.bos_id());
  EXPECT_EQ(ours_->eos(), sp_.eos_id());
  EXPECT_EQ(d.unk, sp_.unk_id());
}

TEST_P(VsLibSentencePiece, FixedCorpus) {
  const auto corpus = fixed_corpus();
  ASSERT_GE(corpus.size(), 60u);
  const size_t matched = compare_on(sp_, *ours_, corpus, true);
  EXPECT_EQ(matched, corpus.size());
  std::printf("[%s] fixed corpus: %zu / %zu identical\n", GetParam().name, matched, corpus.size());
}

TEST_P(VsLibSentencePiece, RandomCorpus) {
  const auto corpus = random_corpus(20240611, 4000);
  const size_t matched = compare_on(sp_, *ours_, corpus, true);
  EXPECT_EQ(matched, corpus.size());
  std::printf("[%s] random corpus: %zu / %zu identical\n", GetParam().name, matched, corpus.size());
}

TEST_P(VsLibSentencePiece, IllFormedUtf8) {
  const auto corpus = random_bytes_corpus(7, 2000);
  const size_t matched = compare_on(sp_, *ours_, corpus, false);
  EXPECT_EQ(matched, corpus.size());
  std::printf("[%s] ill-formed UTF-8: %zu / %zu identical\n", GetParam().name, matched,
              corpus.size());
}

TEST_P(VsLibSentencePiece, DecodeRandomIds) {
  std::mt19937 rng(99);
  const int n_vocab = ours_->n_vocab();
  int matched = 0;
  const int kCases = 3000;
  for (int i = 0; i < kCases; ++i) {
    std::vector<int> ids(std::uniform_int_distribution<int>(0, 12)(rng));
    for (int& id : ids) {
      const uint32_t r = rng() % 10;
      // Favour the interesting ids: control/unknown (0..2) and byte pieces (3..258).
      id = r == 0  ? static_cast<int>(rng() % 3)
           : r < 5 ? 3 + static_cast<int>(rng() % 256)
                   : static_cast<int>(rng() % n_vocab);
    }
    std::string want;
    ASSERT_TRUE(sp_.Decode(ids, &want).ok());
    const std::string got = ours_->decode(Ids(ids.begin(), ids.end()));
    EXPECT_EQ(got, want) << show(Ids(ids.begin(), ids.end()));
    if (got == want) ++matched;
  }
  std::printf("[%s] decode of random ids: %d / %d identical\n", GetParam().name, matched, kCases);
}

TEST_P(VsLibSentencePiece, OneMegabyteSpeed) {
  std::string text;
  for (const std::string& s : random_corpus(5, 100000)) {
    text += s;
    if (text.size() >= (1u << 20)) break;
  }
  text.resize(1u << 20);
  // Cut at a character boundary so the text stays well-formed.
  while (!text.empty() && (static_cast<uint8_t>(text.back()) & 0xC0) == 0x80) text.pop_back();
  if (!text.empty() && static_cast<uint8_t>(text.back()) >= 0xC0) text.pop_back();

  const auto t0 = std::chrono::steady_clock::now();
  const Ids got = ours_->encode(text, false);
  const auto t1 = std::chrono::steady_clock::now();
  std::vector<int> want;
  ASSERT_TRUE(sp_.Encode(text, &want).ok());
  const auto t2 = std::chrono::steady_clock::now();
  EXPECT_TRUE(got == Ids(want.begin(), want.end()));  // (no 1 MB failure messages)
  std::string want_text;
  ASSERT_TRUE(sp_.Decode(want, &want_text).ok());
  EXPECT_TRUE(ours_->decode(got) == want_text);
  const double ours_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  const double lib_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  std::printf("[%s] 1 MB: %zu tokens; ours %.1f ms, libsentencepiece %.1f ms\n", GetParam().name,
              got.size(), ours_ms, lib_ms);
  EXPECT_LT(ours_ms, 5000.0);  // generous: sanitizer builds are slow
}

INSTANTIATE_TEST_SUITE_P(Models, VsLibSentencePiece,
                         ::testing::Values(ModelPair{"kjv", kShared + "/models/kjv-tok.model",
                                                     kShared + "/models/kjv-demo-f16.gguf"},
                                           ModelPair{"llama2",
                                                     kShared + "/models/llama2-tokenizer.model",
                                                     kShared + "/vocab/ggml-vocab-llama-spm.gguf"}),
                         [](const auto& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------
// Small random vocabularies, given to the library as serialized ModelProtos.
//
// The kjv model's proto supplies trainer_spec (BPE, byte_fallback) and
// normalizer_spec (identity, dummy prefix, no whitespace removal); its pieces
// (field 1) are replaced. Protobuf wire format: a field is a varint key
// (number << 3 | wire type) then its payload.

void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(0x80 | (v & 0x7F)));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

uint64_t get_varint(const std::string& in, size_t& pos) {
  uint64_t v = 0;
  for (int shift = 0; pos < in.size(); shift += 7) {
    const auto b = static_cast<uint8_t>(in[pos++]);
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) break;
  }
  return v;
}

void put_bytes_field(std::string& out, int field, const std::string& bytes) {
  put_varint(out, static_cast<uint64_t>(field) << 3 | 2);
  put_varint(out, bytes.size());
  out += bytes;
}

// The model proto without its pieces (every top-level field here is length-delimited).
std::string proto_without_pieces(const std::string& proto) {
  std::string out;
  size_t pos = 0;
  while (pos < proto.size()) {
    const size_t start = pos;
    const uint64_t key = get_varint(proto, pos);
    EXPECT_EQ(key & 7, 2u) << "unexpected wire type in the model proto";
    const uint64_t len = get_varint(proto, pos);
    pos += len;
    if ((key >> 3) != 1) out += proto.substr(start, pos - start);
  }
  return out;
}

std::string serialize_model(const std::string& base, const SentencePieceVocabData& d,
                            bool byte_fallback) {
  std::string out = base;
  for (size_t i = 0; i < d.pieces.size(); ++i) {
    std::string piece;
    put_bytes_field(piece, 1, d.pieces[i]);
    piece.push_back(0x15);  // field 2, fixed32: score
    const float score = d.scores[i];
    piece.append(reinterpret_cast<const char*>(&score), 4);  // little-endian host
    piece.push_back(0x18);                                   // field 3, varint: type
    put_varint(piece, static_cast<uint64_t>(d.types[i]));
    put_bytes_field(out, 1, piece);
  }
  // trainer_spec (field 2) is merged field by field: override byte_fallback (35).
  std::string trainer;
  put_varint(trainer, 35 << 3 | 0);
  put_varint(trainer, byte_fallback ? 1 : 0);
  put_bytes_field(out, 2, trainer);
  return out;
}

struct RandomVocab {
  SentencePieceVocabData data;
  bool byte_fallback = true;
};

const std::vector<std::string> kTinyChars = {
    "a", "b", "c", "d", "\xE2\x96\x81", "\xC3\xA9", "\xD0\xB6", "\xE4\xB8\xAD", "\xF0\x9F\x98\x80"};

// UNUSED pieces make our encoder merge the whole text at once (see
// sentencepiece_vocab.cpp), so half the vocabularies go without them to test
// chunked merging and the per-call memo.
RandomVocab make_random_vocab(std::mt19937& rng, bool byte_fallback, bool with_unused) {
  RandomVocab v;
  v.byte_fallback = byte_fallback;
  SentencePieceVocabData& d = v.data;
  std::set<std::string> seen;
  const auto add = [&](const std::string& p, float score, PieceType t) {
    if (!seen.insert(p).second) return;
    d.pieces.push_back(p);
    d.scores.push_back(score);
    d.types.push_back(t);
  };
  add("<unk>", 0, PieceType::UNKNOWN);
  add("<s>", 0, PieceType::CONTROL);
  add("</s>", 0, PieceType::CONTROL);
  if (byte_fallback) {
    static const char* kHex = "0123456789ABCDEF";
    for (int b = 0; b < 256; ++b) {
      add(std::string("<0x") + kHex[b >> 4] + kHex[b & 15] + ">", 0, PieceType::BYTE);
    }
  }
  for (const std::string& c : kTinyChars) {
    if (rng() % 6 != 0) add(c, -100, PieceType::NORMAL);  // some characters left out
  }
  const int n_multi = 10 + static_cast<int>(rng() % 50);
  for (int i = 0; i < n_multi; ++i) {
    std::string p;
    const int len = 2 + static_cast<int>(rng() % 4);
    for (int k = 0; k < len; ++k) p += kTinyChars[rng() % (rng() % 2 ? 4 : kTinyChars.size())];
    const float score = -static_cast<float>(rng() % 8);  // few distinct scores: many ties
    const uint32_t r = rng() % 10;
    const PieceType type = r < 7   ? PieceType::NORMAL
                           : r < 9 ? (with_unused ? PieceType::UNUSED : PieceType::NORMAL)
                                   : PieceType::USER_DEFINED;
    add(p, score, type);
  }
  return v;
}

std::vector<std::string> tiny_texts(std::mt19937& rng, int count) {
  static const std::vector<std::string> kExtra = {" ", " ", "x", "\xC3\xBC", "\xF0\x9F\x8E\x89"};
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    std::string s;
    const int n = static_cast<int>(rng() % (i % 10 == 0 ? 400 : 30));  // some long: memo hits
    for (int k = 0; k < n; ++k) {
      s += rng() % 5 == 0 ? kExtra[rng() % kExtra.size()] : kTinyChars[rng() % kTinyChars.size()];
    }
    out.push_back(std::move(s));
  }
  return out;
}

TEST(VsLibSentencePieceSynthetic, RandomVocabularies) {
  const std::string base = proto_without_pieces(read_file(kShared + "/models/kjv-tok.model"));
  ASSERT_FALSE(base.empty());
  std::mt19937 rng(12345);
  size_t total = 0;
  size_t matched = 0;
  for (int round = 0; round < 400; ++round) {
    const RandomVocab v = make_random_vocab(rng, round % 4 < 2, round % 2 == 0);
    sentencepiece::SentencePieceProcessor sp;
    const auto status = sp.LoadFromSerializedProto(serialize_model(base, v.data, v.byte_fallback));
    ASSERT_TRUE(status.ok()) << status.ToString();
    ASSERT_EQ(sp.GetPieceSize(), static_cast<int>(v.data.pieces.size()));
    auto ours = SentencePieceVocab::create(v.data);
    ASSERT_TRUE(ours.ok()) << ours.message();
    const auto texts = tiny_texts(rng, 200);
    const size_t m = compare_on(sp, **ours, texts, false);
    total += texts.size();
    matched += m;
    if (m != texts.size()) {
      std::string desc;
      for (size_t i = 0; i < v.data.pieces.size(); ++i) {
        if (v.data.types[i] == PieceType::BYTE) continue;
        desc += std::to_string(i) + ":" + show(v.data.pieces[i]) + "/" +
                std::to_string(v.data.scores[i]) + "/" +
                std::to_string(static_cast<int>(v.data.types[i])) + " ";
      }
      ADD_FAILURE() << "round " << round << " vocab: " << desc;
      break;
    }
  }
  EXPECT_EQ(matched, total);
  std::printf("[synthetic] %zu / %zu texts identical over random vocabularies\n", matched, total);
}

}  // namespace
}  // namespace kvchat
