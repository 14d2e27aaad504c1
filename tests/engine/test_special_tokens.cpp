// Tests of Tokenizer::encode_with_special (engine/src/tokenizer/sentencepiece_vocab.cpp):
// special pieces written as text become their ids, the text between them is encoded
// as encode() does, each segment with the dummy-prefix space (llama.cpp's
// parse_special rule for SentencePiece vocabs), and encode() itself never does this.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "support/load_vocab.h"
#include "tokenizer/sentencepiece_vocab.h"

namespace kvchat {
namespace {

using Ids = std::vector<TokenId>;
constexpr const char* kSp = "\xE2\x96\x81";  // U+2581

const SentencePieceVocab& llama_vocab() {
  static const std::unique_ptr<SentencePieceVocab> vocab =
      test::load_vocab(std::string(KVCHAT_SHARED_DIR) + "/vocab/ggml-vocab-llama-spm.gguf");
  if (!vocab) std::abort();
  return *vocab;
}

Ids concat(std::initializer_list<Ids> parts) {
  Ids out;
  for (const Ids& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(SpecialTokens, LlamaInstPrompt) {
  const SentencePieceVocab& v = llama_vocab();
  // Llama 2's published ids: "[INST]" after <s> is ▁[ INST ] = 518 25580 29962, and
  // " [/INST]" is ▁[ / INST ] = 518 29914 25580 29962.
  const Ids ids = v.encode_with_special("<s>[INST] hi [/INST]", false);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids[0], 1);
  EXPECT_EQ(ids, (Ids{1, 518, 25580, 29962, 7251, 518, 29914, 25580, 29962}));
  // The segment after <s> is encoded as encode() encodes it alone (with the dummy prefix).
  EXPECT_EQ(ids, concat({Ids{1}, v.encode("[INST] hi [/INST]", false)}));
}

TEST(SpecialTokens, EosInsideText) {
  const SentencePieceVocab& v = llama_vocab();
  const Ids ids = v.encode_with_special("Hello</s>world", false);
  EXPECT_EQ(ids, concat({v.encode("Hello", false), Ids{2}, v.encode("world", false)}));
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 2), 1);
  // Llama 2 chat: a reply ends with </s>, the next turn starts with <s>.
  const Ids turn = v.encode_with_special("[INST] a [/INST] b </s><s>[INST] c [/INST]", true);
  EXPECT_EQ(turn, concat({Ids{1}, v.encode("[INST] a [/INST] b ", false), Ids{2, 1},
                          v.encode("[INST] c [/INST]", false)}));
}

TEST(SpecialTokens, BosFlagAndEdges) {
  const SentencePieceVocab& v = llama_vocab();
  EXPECT_EQ(v.encode_with_special("", false), Ids{});
  EXPECT_EQ(v.encode_with_special("", true), Ids{1});
  EXPECT_EQ(v.encode_with_special("<s>", true), (Ids{1, 1}));
  EXPECT_EQ(v.encode_with_special("</s></s>", false), (Ids{2, 2}));
  // Text without special pieces encodes exactly as encode().
  for (const char* text : {"Hello world", " leading space", "tabs\tand\nnewlines", "caf\xC3\xA9"}) {
    EXPECT_EQ(v.encode_with_special(text, true), v.encode(text, true)) << text;
    EXPECT_EQ(v.encode_with_special(text, false), v.encode(text, false)) << text;
  }
  // Near misses stay text.
  EXPECT_EQ(v.encode_with_special("<s >", false), v.encode("<s >", false));
  EXPECT_EQ(v.encode_with_special("</s", false), v.encode("</s", false));
}

TEST(SpecialTokens, EncodeNeverParsesSpecialText) {
  const SentencePieceVocab& v = llama_vocab();
  const Ids ids = v.encode("<s>hi</s>", false);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 1), 0);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 2), 0);
  EXPECT_EQ(v.decode(ids), "<s>hi</s>");
}

TEST(SpecialTokens, DecodeDropsControlPieces) {
  const SentencePieceVocab& v = llama_vocab();
  EXPECT_EQ(v.decode(v.encode_with_special("<s>Hello</s>", false)), "Hello");
}

// A tiny vocab with ChatML markers: control and user-defined pieces, one the prefix
// of another (the longest wins), and the dummy prefix on every segment.
struct TinyVocab {
  SentencePieceVocabData data;
  TinyVocab() {
    add("<unk>", 0, PieceType::UNKNOWN);
    add("<s>", 0, PieceType::CONTROL);
    add("</s>", 0, PieceType::CONTROL);
  }
  TokenId add(const std::string& piece, float score, PieceType type = PieceType::NORMAL) {
    data.pieces.push_back(piece);
    data.scores.push_back(score);
    data.types.push_back(type);
    return static_cast<TokenId>(data.pieces.size() - 1);
  }
};

TEST(SpecialTokens, TinyChatMlVocab) {
  TinyVocab t;
  const TokenId start = t.add("<|im_start|>", 0, PieceType::CONTROL);
  const TokenId end = t.add("<|im_end|>", 0, PieceType::CONTROL);
  const TokenId im = t.add("<|im", 0, PieceType::USER_DEFINED);
  const TokenId sp = t.add(kSp, -10);
  const TokenId a = t.add("a", -10);
  const TokenId nl = t.add("\n", -10);
  const TokenId sp_a = t.add(std::string(kSp) + "a", -1);
  auto made = SentencePieceVocab::create(t.data);
  ASSERT_TRUE(made.ok()) << made.message();
  const SentencePieceVocab& v = **made;

  EXPECT_EQ(v.encode_with_special("<|im_start|>a\na<|im_end|>\n", false),
            (Ids{start, sp_a, nl, a, end, sp, nl}));
  // "<|im" alone is the shorter user-defined piece; text follows it with a prefix.
  EXPECT_EQ(v.encode_with_special("<|ima", true), (Ids{1, im, sp_a}));
  // Leftmost first: "a<|im_start|>" starts with text.
  EXPECT_EQ(v.encode_with_special("a<|im_start|>", false), (Ids{sp_a, start}));
  // encode() leaves control text alone (it is no piece: bytes are unknown here).
  const Ids plain = v.encode("<|im_end|>", false);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), end), 0);

  // Without add_space_prefix no segment gets the prefix.
  t.data.add_space_prefix = false;
  auto bare = SentencePieceVocab::create(t.data);
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ((*bare)->encode_with_special("a<|im_end|>a", false), (Ids{a, end, a}));
}

}  // namespace
}  // namespace kvchat
