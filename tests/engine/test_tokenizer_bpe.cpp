// Tests of BpeVocab (byte-level BPE, "gpt2" GGUF vocab) beyond llama.cpp's test
// vectors (test_tokenizer_vectors.cpp): merge order on tiny hand-made vocabs,
// special and user-defined tokens, streaming bytes, end-of-generation tokens,
// the unknown pre-tokenizer fallback, and loading errors. Expected ids of real
// vocabs are facts about those vocabs (Llama 3's chat-header ids, mpt's space
// tokens), not outputs of this code.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gguf/gguf_writer.h"
#include "session/text_stream.h"
#include "support/vocab_vectors.h"
#include "tokenizer/bpe_vocab.h"
#include "tokenizer/utf8.h"

namespace kvchat {
namespace {

using Ids = std::vector<TokenId>;
using test::load_any_tokenizer;
using test::parse_vocab_cases;
using test::read_file;

const std::string kVocab = std::string(KVCHAT_SHARED_DIR) + "/vocab/ggml-vocab-";

const BpeVocab& vocab(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Tokenizer>> cache;
  auto& slot = cache[name];
  if (!slot) slot = load_any_tokenizer(kVocab + name + ".gguf");
  const auto* bpe = dynamic_cast<const BpeVocab*>(slot.get());
  if (bpe == nullptr) std::abort();
  return *bpe;
}

TokenId id_of(const BpeVocab& v, const std::string& text) {
  const auto& t = v.data().tokens;
  const auto it = std::find(t.begin(), t.end(), text);
  return it == t.end() ? -1 : static_cast<TokenId>(it - t.begin());
}

// ---------------------------------------------------------------------------
// Tiny vocabs: merges worked out by hand.

BpeVocabData tiny(std::string pre, std::vector<std::string> merges) {
  BpeVocabData d;
  // 0..6: a b c ab bc abc aa; 7: Ġ (space); 8: Ġa; 9: control; 10: user-defined
  d.tokens = {"a",
              "b",
              "c",
              "ab",
              "bc",
              "abc",
              "aa",
              "\xC4\xA0",
              "\xC4\xA0"
              "a",
              "<|end|>",
              "<u>"};
  d.types.assign(d.tokens.size(), PieceType::NORMAL);
  d.types[9] = PieceType::CONTROL;
  d.types[10] = PieceType::USER_DEFINED;
  d.merges = std::move(merges);
  d.pre = std::move(pre);
  d.eos = 9;
  return d;
}

std::unique_ptr<BpeVocab> make(BpeVocabData d) {
  auto v = BpeVocab::create(std::move(d));
  EXPECT_TRUE(v.ok()) << v.message();
  return v.ok() ? std::move(v).value() : nullptr;
}

TEST(BpeTiny, LowestRankMergesFirst) {
  // "abc": (b,c) has rank 0, (a,b) rank 1: bc forms first, then (a,bc) rank 2.
  auto v = make(tiny("gpt-2", {"b c", "a b", "a bc", "\xC4\xA0 a"}));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->encode("abc", false), (Ids{5}));
  // " abc" is one word: (Ġ,a) rank 3 loses to (b,c) then (a,bc); Ġ stays alone.
  EXPECT_EQ(v->encode("abc abc", false), (Ids{5, 7, 5}));
  // With (a,b) first instead, "ab" forms and "ab c" is no merge.
  auto w = make(tiny("gpt-2", {"a b", "b c"}));
  ASSERT_TRUE(w);
  EXPECT_EQ(w->encode("abc", false), (Ids{3, 2}));
}

TEST(BpeTiny, EqualRanksGoLeftmostFirst) {
  auto v = make(tiny("gpt-2", {"a a"}));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->encode("aaa", false), (Ids{6, 0}));
  EXPECT_EQ(v->encode("aaaa", false), (Ids{6, 6}));
}

TEST(BpeTiny, IgnoreMergesTakesAWholeWordToken) {
  // No merges at all: gpt-2 leaves single bytes; llama3's ignore_merges finds "abc".
  EXPECT_EQ(make(tiny("gpt-2", {}))->encode("abc", false), (Ids{0, 1, 2}));
  EXPECT_EQ(make(tiny("llama3", {}))->encode("abc", false), (Ids{5}));
}

TEST(BpeTiny, SpecialAndUserDefinedTokens) {
  auto v = make(tiny("gpt-2", {"a b", "ab c"}));
  ASSERT_TRUE(v);
  // encode(): user-defined tokens are cut out, control tokens are plain text.
  EXPECT_EQ(v->encode("a<u>b", false), (Ids{0, 10, 1}));
  const Ids plain = v->encode("<|end|>", false);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 9), 0);
  // encode_with_special(): both.
  EXPECT_EQ(v->encode_with_special("abc<|end|><u>", false), (Ids{5, 9, 10}));
  EXPECT_EQ(v->encode_continuation("abc<|end|>"), (Ids{5, 9}));
  // decode: control dropped, user-defined as written.
  EXPECT_EQ(v->decode(Ids{5, 9, 10, 7, 0}), "abc<u> a");
  EXPECT_EQ(v->token_bytes(9), "");
  EXPECT_EQ(v->token_bytes(10), "<u>");
  EXPECT_EQ(v->token_bytes(7), " ");
}

TEST(BpeTiny, MissingBytesAreDropped) {
  // 'z' has no token: it is dropped, as llama.cpp does.
  auto v = make(tiny("gpt-2", {}));
  EXPECT_EQ(v->encode("aza", false), (Ids{0, 0}));
}

TEST(BpeTiny, UnknownPreWarnsAndFallsBackToDefault) {
  auto v = make(tiny("no-such-pre", {}));
  ASSERT_TRUE(v);
  EXPECT_NE(v->warning().find("'no-such-pre'"), std::string_view::npos) << v->warning();
  EXPECT_NE(v->warning().find("default"), std::string_view::npos);
  EXPECT_EQ(v->pre_tokenizer().words("a+b"), (std::vector<std::string>{"a", "+", "b"}));
  EXPECT_TRUE(make(tiny("gpt-2", {}))->warning().empty());
  auto missing = make(tiny("", {}));
  EXPECT_NE(missing->warning().find("missing"), std::string_view::npos);
}

TEST(BpeTiny, CreateRejectsInconsistentData) {
  BpeVocabData d = tiny("gpt-2", {});
  d.types.pop_back();
  EXPECT_FALSE(BpeVocab::create(d).ok());
  d = tiny("gpt-2", {});
  d.bos = 99;
  EXPECT_NE(BpeVocab::create(d).message().find("bos id 99 is out of range"), std::string::npos);
  d = tiny("gpt-2", {"ab"});
  EXPECT_NE(BpeVocab::create(d).message().find("merge 0 \"ab\""), std::string::npos);
}

// ---------------------------------------------------------------------------
// Real vocabs.

TEST(BpeReal, Llama3ChatHeaderSpecials) {
  const BpeVocab& v = vocab("llama-bpe");
  EXPECT_TRUE(v.add_bos_by_default());
  EXPECT_EQ(v.bos(), 128000);
  EXPECT_EQ(v.eos(), 128001);
  const std::string header = "<|start_header_id|>system<|end_header_id|>\n\n";
  EXPECT_EQ(v.encode_with_special(header, true), (Ids{128000, 128006, 9125, 128007, 271}));
  EXPECT_EQ(v.encode_with_special("<|start_header_id|>user<|end_header_id|>", false),
            (Ids{128006, 882, 128007}));
  EXPECT_EQ(v.encode_with_special("<|start_header_id|>assistant<|end_header_id|>", false),
            (Ids{128006, 78191, 128007}));
  // Plain encode() never makes control tokens out of text.
  const Ids plain = v.encode(header, false);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 128006), 0);
  EXPECT_EQ(v.decode(plain), header);
  // Control tokens decode to nothing.
  EXPECT_EQ(v.decode(v.encode_with_special(header, true)), "system\n\n");
}

TEST(BpeReal, MptUserDefinedSpaceRunsInPlainEncode) {
  // mpt/gpt-neox have USER_DEFINED tokens for runs of 2..24 spaces (ids 50254 = 24
  // spaces down to 50276 = 2 spaces); they are cut out before pre-tokenizing.
  const BpeVocab& v = vocab("mpt");
  ASSERT_EQ(v.data().tokens[50254], std::string(24, ' '));
  ASSERT_EQ(v.data().tokens[50272], std::string(6, ' '));
  const std::string text = "a" + std::string(30, ' ') + "b";
  const Ids ids = v.encode(text, false);
  ASSERT_EQ(ids.size(), 4u);
  EXPECT_EQ(ids[1], 50254);
  EXPECT_EQ(ids[2], 50272);
  EXPECT_EQ(v.decode(ids), text);
}

TEST(BpeReal, StreamingMultiByteCharactersSplitAcrossTokens) {
  const BpeVocab& v = vocab("gpt-2");
  const std::string text = "llama \xF0\x9F\xA6\x99 and \xE4\xBD\xA0\xE5\xA5\xBD!";  // 🦙 你好
  const Ids ids = v.encode(text, false);
  std::string joined;
  bool some_token_is_partial = false;
  TextStream stream({});
  std::string shown;
  for (const TokenId id : ids) {
    const std::string bytes = v.token_bytes(id);
    joined += bytes;
    std::string check;
    utf8::append_replacing_invalid(bytes, check);
    if (check != bytes) some_token_is_partial = true;
    const std::string piece = stream.push(bytes);
    std::string valid;
    utf8::append_replacing_invalid(piece, valid);
    EXPECT_EQ(valid, piece) << "the stream showed a broken character";
    shown += piece;
  }
  shown += stream.finish();
  EXPECT_TRUE(some_token_is_partial) << "the test text should split a character across tokens";
  EXPECT_EQ(joined, text);
  EXPECT_EQ(shown, text);
  EXPECT_EQ(v.decode(ids), text);
}

TEST(BpeReal, InvalidUtf8) {
  const BpeVocab& v = vocab("gpt-2");
  // Input: each ill-formed byte becomes U+FFFD, as llama.cpp.
  EXPECT_EQ(v.decode(v.encode("a\xFF"
                              "b",
                              false)),
            "a\xEF\xBF\xBD"
            "b");
  // Output: a lone lead byte decodes as U+FFFD, while token_bytes keeps the raw byte.
  const Ids ids = v.encode("\xF0\x9F\xA6\x99", false);
  ASSERT_GE(ids.size(), 2u);
  EXPECT_EQ(v.decode(Ids{ids[0]}).find("\xEF\xBF\xBD"), 0u);
}

TEST(BpeReal, EndOfGeneration) {
  const BpeVocab& llama3 = vocab("llama-bpe");
  EXPECT_TRUE(llama3.is_eog(128001));  // <|end_of_text|> (eos)
  EXPECT_TRUE(llama3.is_eog(128009));  // <|eot_id|>
  EXPECT_FALSE(llama3.is_eog(128000));
  EXPECT_FALSE(llama3.is_eog(128006));
  EXPECT_FALSE(llama3.is_eog(id_of(llama3, "Hello")));
  EXPECT_EQ(llama3.decode(Ids{9906, 128009}), "Hello");
  EXPECT_EQ(llama3.token_bytes(128009), "");

  const BpeVocab& gpt2 = vocab("gpt-2");
  EXPECT_EQ(Ids(gpt2.eog_ids().begin(), gpt2.eog_ids().end()), (Ids{50256}));
  const BpeVocab& coder = vocab("deepseek-coder");
  EXPECT_TRUE(coder.is_eog(32014));  // <｜end▁of▁sentence｜>
  EXPECT_FALSE(coder.is_eog(32013));
  // StarCoder: <|endoftext|> (eos) and, as llama.cpp, the fill-in-the-middle pad token.
  const BpeVocab& star = vocab("starcoder");
  ASSERT_EQ(star.data().tokens[4], "<fim_pad>");
  EXPECT_EQ(Ids(star.eog_ids().begin(), star.eog_ids().end()), (Ids{0, 4}));
}

TEST(BpeReal, SentencePieceEndOfGeneration) {
  const auto spm = load_any_tokenizer(kVocab + "llama-spm.gguf");
  ASSERT_TRUE(spm);
  EXPECT_EQ(Ids(spm->eog_ids().begin(), spm->eog_ids().end()), (Ids{2}));
  const auto phi3 = load_any_tokenizer(kVocab + "phi-3.gguf");
  ASSERT_TRUE(phi3);
  EXPECT_TRUE(phi3->is_eog(32000));  // <|endoftext|>, the eos
  EXPECT_TRUE(phi3->is_eog(32007));  // <|end|>
  EXPECT_FALSE(phi3->is_eog(1));
}

TEST(BpeReal, GptNeoxLoadsWithAWarningAndRoundTrips) {
  const auto neox = load_any_tokenizer(kVocab + "gpt-neox.gguf");
  ASSERT_TRUE(neox);
  EXPECT_NE(neox->warning().find("tokenizer.ggml.pre is missing"), std::string_view::npos);
  EXPECT_EQ(neox->n_vocab(), 50432);
  for (const std::string& text : parse_vocab_cases(read_file(kVocab + "llama-bpe.gguf.inp"))) {
    EXPECT_EQ(neox->decode(neox->encode(text, false)), text);
  }
  // "Hello" is one token in the GPT-NeoX vocab.
  EXPECT_EQ(neox->encode("Hello", false).size(), 1u);
}

// ---------------------------------------------------------------------------
// load_tokenizer and from_gguf errors.

Result<std::unique_ptr<Tokenizer>> tokenizer_from(void (*edit)(gguf::GgufWriter&)) {
  gguf::GgufWriter w;
  w.set_string("tokenizer.ggml.model", "gpt2");
  w.set_string("tokenizer.ggml.pre", "gpt-2");
  w.set_strings("tokenizer.ggml.tokens", {"a", "b", "ab", "<|endoftext|>"});
  w.set_i32s("tokenizer.ggml.token_type", {1, 1, 1, 3});
  w.set_strings("tokenizer.ggml.merges", {"a b"});
  w.set_u32("tokenizer.ggml.eos_token_id", 3);
  edit(w);
  const std::vector<uint8_t> bytes = w.to_bytes();
  auto file = gguf::GgufFile::parse(bytes, "mem.gguf");
  if (!file.ok()) return file.error();
  return load_tokenizer(**file);
}

TEST(BpeLoad, FromGgufAndErrors) {
  auto ok = tokenizer_from([](gguf::GgufWriter&) {});
  ASSERT_TRUE(ok.ok()) << ok.message();
  EXPECT_EQ((*ok)->encode("abab", false), (Ids{2, 2}));
  EXPECT_FALSE((*ok)->add_bos_by_default());  // gpt-2: no BOS unless the key says so
  EXPECT_EQ((*ok)->bos(), -1);                // llama.cpp's default 11 is out of range here
  EXPECT_TRUE((*ok)->is_eog(3));

  auto bert =
      tokenizer_from([](gguf::GgufWriter& w) { w.set_string("tokenizer.ggml.model", "bert"); });
  ASSERT_FALSE(bert.ok());
  EXPECT_NE(bert.message().find("tokenizer.ggml.model 'bert' is not supported (kvchat reads llama "
                                "(SentencePiece) and gpt2 (BPE))"),
            std::string::npos)
      << bert.message();
  auto no_merges =
      tokenizer_from([](gguf::GgufWriter& w) { w.set_strings("tokenizer.ggml.merges", {}); });
  EXPECT_TRUE(no_merges.ok());
  auto bad_merges =
      tokenizer_from([](gguf::GgufWriter& w) { w.set_u32("tokenizer.ggml.merges", 1); });
  ASSERT_FALSE(bad_merges.ok());
  EXPECT_NE(bad_merges.message().find("tokenizer.ggml.merges must be an array of string"),
            std::string::npos)
      << bad_merges.message();
  auto bos_needed = tokenizer_from([](gguf::GgufWriter& w) {
    w.set_string("tokenizer.ggml.pre", "llama-bpe");  // add_bos defaults to true there
  });
  ASSERT_FALSE(bos_needed.ok());
  EXPECT_NE(bos_needed.message().find("no BOS token"), std::string::npos) << bos_needed.message();
}

}  // namespace
}  // namespace kvchat
