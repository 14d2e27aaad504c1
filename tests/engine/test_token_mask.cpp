// Grammar masks over real vocabularies (grammar/token_mask.h): kjv-demo's SentencePiece
// vocab (byte fallback), Llama 2's, and Llama 3's byte-level BPE. Every token's verdict is
// checked against a predicate over its bytes written by hand for the grammar (not the
// grammar engine), and constrained generations from random logits end in text that the
// same predicate accepts.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "grammar/grammar.h"
#include "grammar/token_mask.h"
#include "support/test_paths.h"
#include "support/vocab_vectors.h"

namespace kvchat::grammar {
namespace {

std::shared_ptr<const Grammar> compile(const std::string& text) {
  auto g = parse_gbnf(text);
  EXPECT_TRUE(g) << g.message();
  return g ? std::make_shared<const Grammar>(std::move(*g)) : nullptr;
}

struct Vocab {
  std::unique_ptr<Tokenizer> tok;
  std::shared_ptr<const TokenTrie> trie;
};

Vocab load(const std::string& rel) {
  Vocab v;
  v.tok = test::load_any_tokenizer(test::shared_path(rel));
  if (v.tok) v.trie = std::make_shared<const TokenTrie>(*v.tok);
  return v;
}

const char* const kVocabs[] = {"models/kjv-demo-f32.gguf", "vocab/ggml-vocab-llama-spm.gguf",
                               "vocab/ggml-vocab-llama-bpe.gguf"};

// A double-quoted string of lowercase letters and spaces: root ::= "\"" [a-z ]* "\"".
const char* const kQuoted = "root ::= \"\\\"\" [a-z ]* \"\\\"\"\n";
bool quoted_letters(const std::string& s) {  // the whole sentence
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return false;
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    if (!((s[i] >= 'a' && s[i] <= 'z') || s[i] == ' ')) return false;
  }
  return true;
}
bool quoted_prefix(const std::string& s) {  // can still become one
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (i == 0 ? c != '"'
               : !((c >= 'a' && c <= 'z') || c == ' ' || (c == '"' && i + 1 == s.size())))
      return false;
  }
  return true;
}

// Every token's verdict after `text` against want(text + token bytes); EOG against
// whole(text).
void expect_mask_matches(const Vocab& v, const std::shared_ptr<const Grammar>& g,
                         const std::string& text,
                         const std::function<bool(const std::string&)>& want,
                         const std::function<bool(const std::string&)>& whole) {
  auto m = GrammarMatcher::create(g);
  ASSERT_TRUE(*m->accept(text));
  std::vector<uint8_t> allowed;
  ASSERT_TRUE(allowed_tokens(*m, *v.trie, allowed));
  int n_allowed = 0;
  for (TokenId id = 0; id < v.tok->n_vocab(); ++id) {
    bool expect;
    if (v.tok->is_eog(id)) {
      expect = whole(text);
    } else if (v.tok->is_control(id) || v.tok->token_bytes(id).empty()) {
      expect = false;
    } else {
      expect = want(text + v.tok->token_bytes(id));
    }
    n_allowed += allowed[id];
    ASSERT_EQ(allowed[id] != 0, expect)
        << "token " << id << " '" << v.tok->token_bytes(id) << "' after '" << text << "'";
  }
  EXPECT_GT(n_allowed, 0);
}

TEST(TokenMask, EveryTokenAgreesWithAHandWrittenPredicate) {
  const auto g = compile(kQuoted);
  for (const char* rel : kVocabs) {
    SCOPED_TRACE(rel);
    const Vocab v = load(rel);
    ASSERT_TRUE(v.tok);
    for (const std::string text : {"", "\"", "\"in the beginning", "\"god said\""}) {
      expect_mask_matches(v, g, text, quoted_prefix, quoted_letters);
    }
  }
}

// "é" is C3 A9: a token ending inside it (a byte-fallback or byte-level token) is allowed,
// one that cannot lead to it is not.
TEST(TokenMask, TokensEndingInsideAUtf8SequenceAreAllowedWhereTheyCanContinue) {
  const auto g = compile("root ::= \"é\"+\n");
  const auto want = [](const std::string& s) {
    const std::string e = "\xC3\xA9";
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != e[i % 2]) return false;
    }
    return true;
  };
  const auto whole = [&](const std::string& s) {
    return !s.empty() && s.size() % 2 == 0 && want(s);
  };
  for (const char* rel : kVocabs) {
    SCOPED_TRACE(rel);
    const Vocab v = load(rel);
    ASSERT_TRUE(v.tok);
    expect_mask_matches(v, g, "", want, whole);
    expect_mask_matches(v, g, "\xC3", want, whole);
    expect_mask_matches(v, g, "\xC3\xA9", want, whole);
  }
}

// Greedy decoding of random logits under the mask: whatever the logits, the text is a
// sentence, and it ends with an end-of-generation token only where the grammar may end;
// each step's mask (from transitions cached over the steps) equals a fresh walk's.
TEST(TokenMask, ConstrainedGenerationAlwaysYieldsASentence) {
  const auto g = compile(kQuoted);
  for (const char* rel : kVocabs) {
    SCOPED_TRACE(rel);
    const Vocab v = load(rel);
    ASSERT_TRUE(v.tok);
    std::mt19937 rng(5);
    std::normal_distribution<float> noise(0.0f, 3.0f);
    for (int run = 0; run < 5; ++run) {
      auto c = GrammarConstraint::create(g, v.trie, *v.tok);
      ASSERT_TRUE(c);
      std::string text;
      bool ended = false;
      std::vector<float> logits(v.tok->n_vocab());
      for (int step = 0; step < 40 && !ended; ++step) {
        for (float& l : logits) l = noise(rng);
        // Push the end tokens up after a few steps so that generations finish.
        if (step > 6)
          for (TokenId id : v.tok->eog_ids()) logits[id] += 20.0f;
        ASSERT_TRUE(c->mask(logits));
        // The constraint's cached transitions (kept across steps) give the mask a fresh
        // walk gives.
        std::vector<uint8_t> fresh;
        ASSERT_TRUE(allowed_tokens(c->matcher(), *v.trie, fresh));
        for (size_t id = 0; id < fresh.size(); ++id) {
          ASSERT_EQ(fresh[id] != 0, logits[id] != -std::numeric_limits<float>::infinity())
              << "step " << step << " token " << id;
        }
        const auto best =
            static_cast<TokenId>(std::max_element(logits.begin(), logits.end()) - logits.begin());
        ASSERT_TRUE(*c->allows(best));
        ASSERT_TRUE(c->accept(best));
        if (v.tok->is_eog(best))
          ended = true;
        else
          text += v.tok->token_bytes(best);
      }
      EXPECT_TRUE(quoted_prefix(text)) << text;
      if (ended) {
        EXPECT_TRUE(quoted_letters(text)) << text;
      }
    }
    // A token the mask would refuse is refused by accept() too, and changes nothing.
    auto c = GrammarConstraint::create(g, v.trie, *v.tok);
    const TokenId eos = v.tok->eos();
    EXPECT_FALSE(*c->allows(eos));
    EXPECT_FALSE(c->accept(eos));
  }
}

// What a mask costs on Llama 3's 128k vocabulary inside a JSON string, where most tokens
// continue the text (informational; the speed target is checked by `bench`).
TEST(TokenMask, MaskCostInsideAJsonString) {
  const auto g = compile(R"G(root ::= "{" ws "\"a\":" ws string ws "}"
string ::= "\"" ([^"\\] | "\\" ["\\/bfnrt])* "\""
ws ::= [ \t\n]*
)G");
  const Vocab v = load("vocab/ggml-vocab-llama-bpe.gguf");
  ASSERT_TRUE(v.tok);
  auto m = GrammarMatcher::create(g);
  ASSERT_TRUE(*m->accept("{\"a\": \"some text"));
  std::vector<uint8_t> allowed;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(allowed_tokens(*m, *v.trie, allowed));
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / 5;
  int n = 0;
  for (uint8_t a : allowed) n += a;
  std::printf("mask inside a JSON string, %d of %d tokens allowed: %.2f ms (trie of %zu nodes)\n",
              n, v.tok->n_vocab(), ms, v.trie->nodes().size());
  EXPECT_GT(n, v.tok->n_vocab() / 2);
}

}  // namespace
}  // namespace kvchat::grammar
