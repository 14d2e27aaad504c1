// Session::decode_together (Backend::forward_steps): the next tokens of several sessions in
// one forward pass give every session the logits, KV and state its own eval of that token
// gives, with sessions joining and leaving between steps; a failure changes no session.
#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "kvchat/model.h"
#include "kvchat/session.h"
#include "model/synthetic_model.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

constexpr double kMaxRel = 1e-5;  // max|batched - single| / max|single| per logits row

struct ModelCase {
  std::string name;  // a file of /work/shared/models, or a synthetic_arch_spec name
  bool synthetic;
  std::string other_kv = "q8_0";  // the odd sessions' KV type (the even ones': f16)
};

void PrintTo(const ModelCase& c, std::ostream* os) { *os << c.name << " (" << c.other_kv << ")"; }

std::string case_name(const ::testing::TestParamInfo<ModelCase>& info) {
  std::string s = info.param.name;
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return s;
}

std::shared_ptr<const Model> load_case(const ModelCase& c, const test::TempDir& dir) {
  std::string path = test::shared_path("models/" + c.name);
  if (c.synthetic) {
    auto spec = synthetic_arch_spec(c.name);
    EXPECT_TRUE(spec) << spec.message();
    if (!spec) return nullptr;
    path = dir.file(c.name + ".gguf");
    EXPECT_TRUE(write_synthetic_model(path, *spec));
  }
  auto model = Model::load(path);
  EXPECT_TRUE(model) << model.message();
  return model ? *model : nullptr;
}

// A token of the vocabulary that depends on the session and the step.
TokenId token_for(int32_t session, int32_t step, int32_t n_vocab) {
  return static_cast<TokenId>((session * 131 + step * 17 + 5) % n_vocab);
}

std::unique_ptr<Session> make_session(std::shared_ptr<const Model> model,
                                      const std::string& kv_type, const std::string& backend) {
  SessionOptions o;
  o.n_ctx = 96;
  o.kv_type = kv_type;
  o.backend = backend;
  auto s = Session::create(std::move(model), o);
  EXPECT_TRUE(s) << s.message();
  return s ? std::move(*s) : nullptr;
}

class BatchedDecode : public ::testing::TestWithParam<ModelCase> {};

// 8 sessions (f16 and q8_0 KV alternating, f32 for head_dim 8, prompts of 1..22 tokens), 24 batched
// steps: session i is active in steps [2i, 2i + 10) and again from 18 on, so the batch grows,
// shrinks and regrows. Beside each, a single session fed the same tokens one eval at a time.
TEST_P(BatchedDecode, EqualsEachSessionsOwnForward) {
  test::TempDir dir;
  auto model = load_case(GetParam(), dir);
  ASSERT_TRUE(model);
  const int32_t n_vocab = model->info().n_vocab;
  constexpr int32_t kSessions = 8, kSteps = 24;
  std::vector<std::unique_ptr<Session>> batched, single;
  for (int32_t i = 0; i < kSessions; ++i) {
    const std::string kv = i % 2 ? GetParam().other_kv : "f16";
    batched.push_back(make_session(model, kv, "cpu"));
    single.push_back(make_session(model, kv, "cpu"));
    ASSERT_TRUE(batched.back() && single.back());
    std::vector<TokenId> prompt(1 + 3 * i);
    for (size_t t = 0; t < prompt.size(); ++t)
      prompt[t] = token_for(i + 100, static_cast<int32_t>(t), n_vocab);
    ASSERT_TRUE(batched.back()->eval(prompt));
    ASSERT_TRUE(single.back()->eval(prompt));
  }
  double worst = 0;
  for (int32_t step = 0; step < kSteps; ++step) {
    std::vector<Session*> active;
    std::vector<TokenId> tokens;
    std::vector<int32_t> which;
    for (int32_t i = 0; i < kSessions; ++i) {
      if ((step >= 2 * i && step < 2 * i + 10) || step >= 18) {
        active.push_back(batched[i].get());
        tokens.push_back(token_for(i, step, n_vocab));
        which.push_back(i);
      }
    }
    ASSERT_FALSE(active.empty());
    ASSERT_TRUE(Session::decode_together(active, tokens)) << "step " << step;
    for (size_t a = 0; a < which.size(); ++a) {
      Session& s = *single[which[a]];
      ASSERT_TRUE(s.eval(std::span<const TokenId>(&tokens[a], 1)));
      const Session& b = *active[a];
      ASSERT_EQ(b.n_past(), s.n_past());
      ASSERT_EQ(b.kv_tokens(), s.kv_tokens());
      ASSERT_EQ(b.tokens(), s.tokens());
      ASSERT_EQ(b.tokens_evaluated(), s.tokens_evaluated());
      ASSERT_EQ(b.last_logits().size(), static_cast<size_t>(n_vocab));
      const double rel = test::max_rel_error(b.last_logits(), s.last_logits(), n_vocab);
      EXPECT_LE(rel, kMaxRel) << "step " << step << " session " << which[a] << " of "
                              << which.size();
      worst = std::max(worst, rel);
    }
  }
  // The cached K/V of every session is its single twin's: the next token's logits, each
  // session evaluated alone, agree.
  for (int32_t i = 0; i < kSessions; ++i) {
    const TokenId t = token_for(i, kSteps, n_vocab);
    ASSERT_TRUE(batched[i]->eval(std::span<const TokenId>(&t, 1)));
    ASSERT_TRUE(single[i]->eval(std::span<const TokenId>(&t, 1)));
    EXPECT_LE(test::max_rel_error(batched[i]->last_logits(), single[i]->last_logits(), n_vocab),
              kMaxRel)
        << "session " << i << " after the batched steps";
  }
  std::printf("%s: worst relative logits difference %.3g\n", GetParam().name.c_str(), worst);
}

INSTANTIATE_TEST_SUITE_P(Models, BatchedDecode,
                         ::testing::Values(ModelCase{"kjv-demo-f16.gguf", false},
                                           ModelCase{"stories260K.gguf", false, "f32"},
                                           ModelCase{"llama", true}, ModelCase{"qwen2", true},
                                           ModelCase{"gemma2", true}, ModelCase{"phi3", true}),
                         case_name);

// The default Backend::forward_steps (a forward per step): sessions on the reference
// backend decode together as they decode alone.
TEST(BatchedDecodeDefault, ReferenceBackendSessions) {
  test::TempDir dir;
  auto model = load_case({"stories260K.gguf", false}, dir);
  ASSERT_TRUE(model);
  const int32_t n_vocab = model->info().n_vocab;
  auto a = make_session(model, "f16", "cpu-reference");
  auto b = make_session(model, "f16", "cpu-reference");
  auto a1 = make_session(model, "f16", "cpu-reference");
  auto b1 = make_session(model, "f16", "cpu-reference");
  const std::vector<TokenId> pa{1, 50, 60}, pb{1, 70};
  ASSERT_TRUE(a->eval(pa) && a1->eval(pa) && b->eval(pb) && b1->eval(pb));
  Session* both[] = {a.get(), b.get()};
  const TokenId next[] = {200, 300};
  ASSERT_TRUE(Session::decode_together(both, next));
  ASSERT_TRUE(a1->eval(std::span<const TokenId>(&next[0], 1)));
  ASSERT_TRUE(b1->eval(std::span<const TokenId>(&next[1], 1)));
  EXPECT_LE(test::max_rel_error(a->last_logits(), a1->last_logits(), n_vocab), kMaxRel);
  EXPECT_LE(test::max_rel_error(b->last_logits(), b1->last_logits(), n_vocab), kMaxRel);
}

// What a single eval refuses, decode_together refuses before any session changes.
TEST(BatchedDecodeErrors, FailureChangesNoSession) {
  test::TempDir dir;
  auto model = load_case({"stories260K.gguf", false}, dir);
  ASSERT_TRUE(model);
  auto ok = make_session(model, "f16", "cpu");
  // A KV budget of exactly one block of 16 tokens: the 17th position cannot be reserved.
  SessionOptions o;
  o.n_ctx = 96;
  o.kv_block_tokens = 16;
  o.kv_chunk_blocks = 1;
  auto probe = Session::create(model, o);
  ASSERT_TRUE(probe);
  o.kv_budget_bytes = (*probe)->memory_report().kv_bytes_per_token * 16;
  auto tight = Session::create(model, o);
  ASSERT_TRUE(tight) << tight.message();
  std::vector<TokenId> sixteen(16);
  for (int32_t t = 0; t < 16; ++t) sixteen[t] = 10 + t;
  ASSERT_TRUE(ok->eval(std::span<const TokenId>(sixteen.data(), 5)));
  ASSERT_TRUE((*tight)->eval(sixteen));
  const std::vector<float> ok_logits(ok->last_logits().begin(), ok->last_logits().end());
  const std::vector<float> tight_logits((*tight)->last_logits().begin(),
                                        (*tight)->last_logits().end());
  bool out_of_memory = false;
  (*tight)->set_event_handler(
      [&](const SessionEvent& e) { out_of_memory |= e.kind == SessionEvent::Kind::KvOutOfMemory; });

  Session* both[] = {ok.get(), tight->get()};
  const TokenId next[] = {40, 41};
  const Status st = Session::decode_together(both, next);
  EXPECT_FALSE(st);
  EXPECT_TRUE(out_of_memory);
  EXPECT_EQ(ok->n_past(), 5);
  EXPECT_EQ(ok->kv_tokens(), 5);
  EXPECT_EQ((*tight)->n_past(), 16);
  EXPECT_EQ((*tight)->kv_tokens(), 16);
  EXPECT_EQ(std::vector<float>(ok->last_logits().begin(), ok->last_logits().end()), ok_logits);
  EXPECT_EQ(std::vector<float>((*tight)->last_logits().begin(), (*tight)->last_logits().end()),
            tight_logits);

  // Refused before anything: a token outside the vocabulary, a session twice, a count
  // mismatch.
  const TokenId bad[] = {40, model->info().n_vocab};
  EXPECT_FALSE(Session::decode_together(both, bad));
  Session* twice[] = {ok.get(), ok.get()};
  EXPECT_FALSE(Session::decode_together(twice, next));
  EXPECT_FALSE(Session::decode_together(both, std::span<const TokenId>(next, 1)));
  EXPECT_EQ(ok->n_past(), 5);

  // The session that fits still decodes, alone.
  Session* one[] = {ok.get()};
  EXPECT_TRUE(Session::decode_together(one, std::span<const TokenId>(next, 1)));
  EXPECT_EQ(ok->n_past(), 6);
}

}  // namespace
}  // namespace kvchat
