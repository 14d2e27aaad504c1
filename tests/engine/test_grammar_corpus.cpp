// Grammars of the kinds users bring from llama.cpp's grammars/ folder (our own texts in
// tests/data/grammars: arithmetic, list, chess, a small C, JSON): each compiles, agrees with
// an independent recognizer on hand-written sentences and non-sentences, and what the demo
// model writes under it is a sentence by that recognizer. The recognizers are written from
// the grammars' meaning as parser combinators over sets of byte positions: nothing of the
// GBNF parser or matcher is used; JSON is checked by nlohmann's parser.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "grammar/grammar.h"
#include "grammar/grammar_matcher.h"
#include "kvchat/generate.h"
#include "kvchat/grammar.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

// ---- a recognizer kit: a parser maps a start position to every position it can end at ----
using Ends = std::set<size_t>;
using Parser = std::function<Ends(const std::string&, size_t)>;

Parser lit(std::string s) {
  return [s](const std::string& t, size_t i) {
    return t.compare(i, s.size(), s) == 0 ? Ends{i + s.size()} : Ends{};
  };
}
// One byte for which `ok` holds.
Parser byte_if(std::function<bool(char)> ok) {
  return [ok](const std::string& t, size_t i) {
    return i < t.size() && ok(t[i]) ? Ends{i + 1} : Ends{};
  };
}
Parser chars(const std::string& set) {
  return byte_if([set](char c) { return set.find(c) != std::string::npos; });
}
// One UTF-8 code point other than '\n' (its bytes as they come).
Parser not_newline() {
  return [](const std::string& t, size_t i) -> Ends {
    if (i >= t.size() || t[i] == '\n') return {};
    const auto b = static_cast<unsigned char>(t[i]);
    const size_t n = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
    return i + n <= t.size() ? Ends{i + n} : Ends{};
  };
}
Parser seq(std::vector<Parser> ps) {
  return [ps](const std::string& t, size_t i) {
    Ends at{i};
    for (const Parser& p : ps) {
      Ends next;
      for (size_t a : at)
        for (size_t e : p(t, a)) next.insert(e);
      at = std::move(next);
      if (at.empty()) break;
    }
    return at;
  };
}
Parser alt(std::vector<Parser> ps) {
  return [ps](const std::string& t, size_t i) {
    Ends out;
    for (const Parser& p : ps) out.merge(p(t, i));
    return out;
  };
}
Parser rep(Parser p, size_t lo, size_t hi) {
  return [p, lo, hi](const std::string& t, size_t i) {
    Ends out, at{i};
    for (size_t n = 0; n <= hi && !at.empty(); ++n) {
      if (n >= lo) out.insert(at.begin(), at.end());
      Ends next;
      for (size_t a : at)
        for (size_t e : p(t, a))
          if (e > a) next.insert(e);  // no empty loops
      at = std::move(next);
    }
    return out;
  };
}
Parser opt(Parser p) { return rep(std::move(p), 0, 1); }
constexpr size_t kMany = 100000;
// A parser defined later (recursion).
struct Later {
  std::shared_ptr<Parser> p = std::make_shared<Parser>();
  Parser ref() const {
    auto q = p;
    return [q](const std::string& t, size_t i) { return (*q)(t, i); };
  }
};
bool whole(const Parser& p, const std::string& t) { return p(t, 0).count(t.size()) > 0; }

const std::string kDigits = "0123456789", kLower = "abcdefghijklmnopqrstuvwxyz";

Parser arithmetic() {
  Later expr;
  const Parser number =
      seq({rep(chars(kDigits), 1, 6), opt(seq({lit("."), rep(chars(kDigits), 1, 3)}))});
  const Parser name = seq({chars(kLower), rep(chars(kLower + kDigits + "_"), 0, 7)});
  const Parser sp = opt(lit(" "));
  Later factor;
  *factor.p =
      alt({number, name, seq({lit("("), expr.ref(), lit(")")}), seq({lit("-"), factor.ref()})});
  const Parser term = seq({factor.ref(), rep(seq({sp, chars("*/"), sp, factor.ref()}), 0, kMany)});
  *expr.p = seq({term, rep(seq({sp, chars("-+"), sp, term}), 0, kMany)});
  return rep(seq({expr.ref(), lit(" = "), number, lit("\n")}), 1, 4);
}

Parser list() { return rep(seq({lit("- "), rep(not_newline(), 1, 60), lit("\n")}), 1, 8); }

Parser chess() {
  const Parser square = seq({chars("abcdefgh"), chars("12345678")});
  const Parser castle = seq({lit("O-O"), opt(lit("-O"))});
  const Parser piece =
      seq({chars("KQRBN"), opt(chars("abcdefgh")), opt(chars("12345678")), opt(lit("x")), square});
  const Parser pawn =
      seq({opt(seq({chars("abcdefgh"), lit("x")})), square, opt(seq({lit("="), chars("QRBN")}))});
  const Parser move = seq({alt({castle, piece, pawn}), opt(chars("+#"))});
  const Parser turn =
      seq({chars("123456789"), opt(chars(kDigits)), lit(". "), move, lit(" "), move});
  return seq({turn, rep(seq({lit(" "), turn}), 0, 9)});
}

Parser small_c() {
  const Parser type = alt({lit("int"), lit("char"), lit("float"), lit("void")});
  const Parser ident = seq({chars(kLower + "_"), rep(chars(kLower + kDigits + "_"), 0, 7)});
  Later expr;
  const Parser call = seq(
      {ident, lit("("), opt(seq({expr.ref(), rep(seq({lit(", "), expr.ref()}), 0, 2)})), lit(")")});
  const Parser operand = alt({call, ident, rep(chars(kDigits), 1, 5)});
  *expr.p = seq({operand, rep(seq({lit(" "), chars("-+*/"), lit(" "), operand}), 0, 4)});
  const Parser decl = seq({type, lit(" "), ident, opt(seq({lit(" = "), expr.ref()}))});
  const Parser assign = seq({ident, lit(" = "), expr.ref()});
  const Parser ret = seq({lit("return"), opt(seq({lit(" "), expr.ref()}))});
  const Parser statement = seq({lit("  "), alt({decl, assign, ret}), lit(";\n")});
  const Parser params =
      seq({type, lit(" "), ident, rep(seq({lit(", "), type, lit(" "), ident}), 0, 3)});
  const Parser function = seq({type, lit(" "), ident, lit("("), opt(params), lit(") {\n"),
                               rep(statement, 0, 6), lit("}\n")});
  return rep(function, 1, 3);
}

bool json_object(const std::string& t) {
  const auto j = nlohmann::json::parse(t, nullptr, false);
  // nlohmann allows blanks the grammar does not; the grammar's are a subset.
  return !j.is_discarded() && j.is_object();
}

struct Case {
  std::string file;
  std::function<bool(const std::string&)> recognize;
  std::vector<std::string> sentences, non_sentences;
};

std::vector<Case> cases() {
  auto by = [](Parser p) { return [p](const std::string& t) { return whole(p, t); }; };
  return {
      {"arithmetic.gbnf",
       by(arithmetic()),
       {"1 + 2 = 3\n", "(a*b)/-c - 4.5 = 0\n", "x = 1\n", "2*(3+4) = 14\n-1 = 1\n"},
       {"1 + = 3\n", "1 + 2 = x\n", "(1 = 1\n", "1 = 1"}},
      {"list.gbnf",
       by(list()),
       {"- milk\n", "- bread and butter\n- eggs\n", "- caf\xC3\xA9\n"},
       {"- \n", "milk\n", "- milk", "-milk\n"}},
      {"chess.gbnf",
       by(chess()),
       {"1. e4 e5", "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6", "12. O-O-O Qxd8+", "40. e8=Q# Kxe8"},
       {"1. e4", "1. e9 e5", "1.e4 e5", "1. Pe4 e5"}},
      {"c.gbnf",
       by(small_c()),
       {"int main() {\n  return 0;\n}\n",
        "void f(int a, char b) {\n  int x = g(a, 2) * b;\n  x = x + 1;\n  return;\n}\n"},
       {"int main() {\n  return 0\n}\n", "int main {\n}\n", "main() {\n}\n"}},
      {"json.gbnf",
       json_object,
       {R"({"a": [1, 2.5, -3e2], "b": {"c": null, "d": "\u00e9\n"}})", "{}", "{\n  \"k\": true\n}"},
       {"[1, 2]", R"({"a": 01})", R"({"a": "x)", "{'a': 1}"}},
  };
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::shared_ptr<const grammar::Grammar> load(const std::string& file) {
  auto g =
      compile_grammar(read_text(std::string(KVCHAT_SOURCE_DIR) + "/tests/data/grammars/" + file));
  EXPECT_TRUE(g) << file << ": " << g.message();
  return g ? *g : nullptr;
}

bool grammar_sentence(const std::shared_ptr<const grammar::Grammar>& g, const std::string& t) {
  auto m = grammar::GrammarMatcher::create(g);
  auto ok = m->accept(t);
  return ok && *ok && m->can_end();
}

TEST(GrammarCorpus, GrammarAndRecognizerAgreeOnHandWrittenTexts) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.file);
    const auto g = load(c.file);
    ASSERT_TRUE(g);
    for (const std::string& s : c.sentences) {
      EXPECT_TRUE(c.recognize(s)) << "recognizer refuses: " << s;
      EXPECT_TRUE(grammar_sentence(g, s)) << "grammar refuses: " << s;
    }
    for (const std::string& s : c.non_sentences) {
      EXPECT_FALSE(c.recognize(s)) << "recognizer accepts: " << s;
      EXPECT_FALSE(grammar_sentence(g, s)) << "grammar accepts: " << s;
    }
  }
}

// The demo model under each grammar (end-of-text favoured where the grammar may end, so
// that replies finish): every finished reply is a sentence by the recognizer.
TEST(GrammarCorpus, DemoModelRepliesAreSentences) {
  auto model = Model::load(test::shared_path("models/kjv-demo-f32.gguf"));
  ASSERT_TRUE(model) << model.message();
  const auto prompt = (*model)->tokenizer().encode("And the LORD spake unto Moses, saying,", true);
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.file);
    const auto g = load(c.file);
    ASSERT_TRUE(g);
    int finished = 0;
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      SessionOptions so;
      so.n_ctx = 1024;
      auto session = Session::create(*model, so);
      ASSERT_TRUE(session);
      GenerateOptions go;
      go.max_tokens = 600;
      go.sampling.temperature = 0.9f;
      go.sampling.seed = seed;
      go.sampling.logit_bias = {{(*model)->tokenizer().eos(), 8.0f}};
      go.grammar = g;
      auto reply = generate(**session, prompt, go);
      ASSERT_TRUE(reply) << reply.message();
      if (reply->stop_reason != StopReason::Eos) continue;
      ++finished;
      EXPECT_TRUE(c.recognize(reply->text)) << "seed " << seed << ":\n" << reply->text;
    }
    // JSON strings need a quote the demo model (the King James Bible has none) hardly writes.
    if (c.file != "json.gbnf") {
      EXPECT_GE(finished, 3);
    }
  }
}

}  // namespace
}  // namespace kvchat
