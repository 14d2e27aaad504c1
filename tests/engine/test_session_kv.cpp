// The session's management of the KV cache on the demo model: paging is invisible in
// the results, memory follows the formula at every step, edits reuse blocks and the
// shared prefix, the context policies do what their events say, no-cache mode gives
// the same output, and running out of KV memory leaves the conversation intact.
#include <gtest/gtest.h>

#include <random>

#include "kv/kv_type.h"
#include "kvchat/generate.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "model/synthetic_model.h"
#include "support/one_layer_model.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

std::shared_ptr<const Model> demo_model() {
  static std::shared_ptr<const Model> model = [] {
    auto m = Model::load(test::shared_path("models/kjv-demo-f16.gguf"));
    EXPECT_TRUE(m) << m.message();
    return m ? *m : nullptr;
  }();
  return model;
}

std::unique_ptr<Session> make(SessionOptions so,
                              std::shared_ptr<const Model> model = demo_model()) {
  auto s = Session::create(std::move(model), so);
  EXPECT_TRUE(s) << s.message();
  return s ? std::move(s.value()) : nullptr;
}

std::vector<TokenId> random_tokens(size_t n, uint32_t seed, TokenId n_vocab = 2048) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<TokenId> pick(3, n_vocab - 1);
  std::vector<TokenId> t(n);
  for (TokenId& x : t) x = pick(rng);
  return t;
}

std::vector<float> logits_of(const Session& s) {
  return {s.last_logits().begin(), s.last_logits().end()};
}

struct EventLog {
  std::vector<SessionEvent> events;
  SessionEventHandler handler() {
    return [this](const SessionEvent& e) { events.push_back(e); };
  }
  int count(SessionEvent::Kind k) const {
    int n = 0;
    for (const auto& e : events) n += e.kind == k;
    return n;
  }
};

TEST(SessionKv, PagedEqualsContiguousBitForBitInF32) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 4; ++trial) {
    const size_t n = std::uniform_int_distribution<size_t>(17, 300)(rng);
    const auto tokens = random_tokens(n, 100 + trial);
    SessionOptions contiguous;
    contiguous.kv_type = "f32";
    contiguous.kv_block_tokens = 512;  // one block holds the whole context
    auto ref = make(contiguous);
    ASSERT_TRUE(ref->eval(tokens));
    for (int block : {1, 3, 16, 37}) {
      SessionOptions paged = contiguous;
      paged.kv_block_tokens = block;
      auto s = make(paged);
      // Arrive in uneven pieces that cross block boundaries.
      size_t at = 0;
      while (at < n) {
        const size_t len = std::min(n - at, std::uniform_int_distribution<size_t>(1, 40)(rng));
        ASSERT_TRUE(s->eval(std::span<const TokenId>(tokens).subspan(at, len)));
        at += len;
      }
      EXPECT_EQ(s->memory_report().kv_blocks, static_cast<int32_t>((n + block - 1) / block));
      // The same batches through both layouts: identical arithmetic, identical bits. (Arriving
      // in pieces changes the kernels, decode vs prefill, so that is compared within 1e-5.)
      auto s_batch = make(paged);
      ASSERT_TRUE(s_batch->eval(tokens));
      EXPECT_EQ(logits_of(*s_batch), logits_of(*ref)) << "block " << block << " n " << n;
      EXPECT_LE(test::max_rel_error(logits_of(*s), logits_of(*ref), 2048), 1e-5);
    }
  }
}

TEST(SessionKv, MemoryReportEqualsTheFormulaAtEveryStep) {
  for (KvType type : kAllKvTypes) {
    SessionOptions so;
    so.kv_type = std::string(kv_type_name(type));
    auto s = make(so);
    const auto prompt = demo_model()->tokenizer().encode("Genesis 1\n1 In the beginning", true);
    GenerateOptions go;
    go.max_tokens = 40;
    go.sampling.temperature = 0;
    int checks = 0;
    auto result = generate(*s, prompt, go, [&](std::string_view) {
      const MemoryReport r = s->memory_report();
      const uint64_t T = s->n_past();
      // 2 x 6 layers x T tokens x 2 kv_heads x 32 head_dim x bytes/element (block scales included)
      EXPECT_EQ(r.kv_used_bytes, kv_cache_bytes(type, 6, T, 2, 32));
      EXPECT_EQ(r.kv_used_bytes, 2 * 6 * T * kv_bytes(type, 64));
      EXPECT_EQ(r.kv_allocated_bytes, (T + 15) / 16 * 16 * r.kv_bytes_per_token);
      EXPECT_EQ(r.kv_fragmentation_bytes(), r.kv_allocated_bytes - r.kv_used_bytes);
      EXPECT_EQ(r.kv_used_bytes_per_layer() * 6, r.kv_used_bytes);
      EXPECT_EQ(r.kv_type, kv_type_name(type));
      EXPECT_GE(r.kv_pool_bytes, r.kv_allocated_bytes);
      EXPECT_GT(r.process_resident_bytes, 0u);
      ++checks;
      return true;
    });
    ASSERT_TRUE(result);
    EXPECT_GT(checks, 20);
  }
  // Hand-computed bytes per token for this model: 2 x 6 x 64 values.
  EXPECT_EQ(kv_cache_bytes(KvType::F16, 6, 1, 2, 32), 1536u);
  EXPECT_EQ(kv_cache_bytes(KvType::Q8_0, 6, 1, 2, 32), 2u * 6 * 2 * 34);
  EXPECT_EQ(kv_cache_bytes(KvType::Q4_0, 6, 1, 2, 32), 2u * 6 * 2 * 18);
}

TEST(SessionKv, EditAndRegenerateReuseBlocksAndThePrefix) {
  auto s = make({});
  const auto turn1 = random_tokens(100, 1), reply1 = random_tokens(30, 2);
  std::vector<TokenId> seq = turn1;
  auto n = s->eval_sequence(seq);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 100);
  seq.insert(seq.end(), reply1.begin(), reply1.end());
  n = s->eval_sequence(seq);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 30);  // only the new tokens
  const uint64_t pool = s->memory_report().kv_pool_bytes;
  const auto logits_before = logits_of(*s);

  // Edit a message at position 60 and resend: truncate to the fork, re-evaluate from there.
  for (int round = 0; round < 5; ++round) {
    std::vector<TokenId> edited(seq.begin(), seq.begin() + 60);
    const auto tail = random_tokens(70, 10 + round);
    edited.insert(edited.end(), tail.begin(), tail.end());
    n = s->eval_sequence(edited);
    ASSERT_TRUE(n);
    EXPECT_EQ(*n, 70);
    EXPECT_EQ(s->memory_report().kv_pool_bytes, pool);  // blocks reused, nothing new
  }
  // Back to the original sequence: again only the part after the fork is evaluated,
  // and the logits are the same as before the edits.
  n = s->eval_sequence(seq);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 70);
  EXPECT_LE(test::max_rel_error(logits_of(*s), logits_before, 2048), 1e-5);
  // Nothing new: nothing evaluated.
  n = s->eval_sequence(seq);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 0);
  // A new turn is marked where its evaluation starts (the fork point), once.
  auto more = seq;
  more.push_back(42);
  n = s->eval_sequence(more, /*starts_turn=*/true);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 1);
  EXPECT_EQ(s->turn_starts(), (std::vector<int32_t>{static_cast<int32_t>(seq.size())}));
  n = s->eval_sequence(more, /*starts_turn=*/true);
  EXPECT_EQ(s->turn_starts().size(), 1u);
}

TEST(SessionKv, PolicyStopRefusesAndKeepsTheConversation) {
  SessionOptions so;
  so.context_warn_fraction = 0.75f;
  auto s = make(so);
  EventLog log;
  s->set_event_handler(log.handler());
  const auto prompt = random_tokens(500, 3);
  ASSERT_TRUE(s->eval(prompt));
  EXPECT_EQ(log.count(SessionEvent::Kind::ContextWarning), 1);
  GenerateOptions go;
  go.max_tokens = 50;
  go.sampling.temperature = 0;
  auto r = generate(*s, {}, go);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->stop_reason, StopReason::ContextFull);
  EXPECT_EQ(s->n_past(), 512);
  EXPECT_EQ(r->ids.size(), 13u);  // 12 evaluated + the 13th sampled that had no room
  ASSERT_EQ(log.count(SessionEvent::Kind::ContextFull), 1);
  EXPECT_NE(log.events.back().message.find("policy stop"), std::string::npos);
  EXPECT_FALSE(s->last_logits().empty());
  EXPECT_EQ(std::vector<TokenId>(s->tokens().begin(), s->tokens().begin() + 500), prompt);
}

TEST(SessionKv, PolicyShiftKeepsGeneratingAndRotatesKeysCorrectly) {
  // With one layer, every cached K/V depends only on its token and position, so after a
  // correct shift the cache equals what a fresh evaluation of the remaining tokens gives.
  test::TempDir dir;
  auto model = test::one_layer_model(dir, 128);
  ASSERT_TRUE(model);
  const TokenId n_vocab = model->info().n_vocab;
  SessionOptions so;
  so.kv_type = "f32";
  so.context_policy = ContextPolicy::Shift;
  auto s = make(so, model);
  EventLog log;
  s->set_event_handler(log.handler());
  const auto tokens = random_tokens(128, 4, n_vocab);
  std::vector<TokenId> pieces(tokens.begin(), tokens.begin() + 10);
  s->set_keep(10);  // a "system prompt" that must survive the shift
  ASSERT_TRUE(s->eval(pieces));
  for (size_t i = 10; i < tokens.size(); ++i)
    ASSERT_TRUE(s->eval(std::span<const TokenId>(&tokens[i], 1)));
  EXPECT_EQ(s->n_past(), 128);
  const TokenId extra[2] = {7, 8};
  ASSERT_TRUE(s->eval(extra));  // full: shifts instead of failing
  ASSERT_EQ(log.count(SessionEvent::Kind::ContextShifted), 1);
  const SessionEvent& e = log.events.back();
  EXPECT_EQ(e.tokens_before, 128);
  EXPECT_EQ(e.tokens_after, 128 - 59);  // half of the 118 movable tokens discarded
  EXPECT_EQ(s->n_past(), 128 - 59 + 2);
  EXPECT_EQ(std::vector<TokenId>(s->tokens().begin(), s->tokens().begin() + 10),
            std::vector<TokenId>(tokens.begin(), tokens.begin() + 10));
  auto fresh = make(so, model);
  ASSERT_TRUE(fresh->eval(s->tokens()));
  EXPECT_LE(test::max_rel_error(logits_of(*s), logits_of(*fresh), 320), 1e-4);
}

TEST(SessionKv, PolicySinkWindowKeepsTheSinksDropsWholeBlocksAndRotatesKeysCorrectly) {
  // As for shift: with one layer, a correct slide leaves the cache equal to a fresh
  // evaluation of the tokens kept (the 4 sinks, then the most recent ones).
  test::TempDir dir;
  auto model = test::one_layer_model(dir, 128);
  ASSERT_TRUE(model);
  const TokenId n_vocab = model->info().n_vocab;
  SessionOptions so;
  so.kv_type = "f32";
  so.kv_block_tokens = 16;
  so.context_policy = ContextPolicy::SinkWindow;
  ASSERT_EQ(so.sink_tokens, 4);
  auto s = make(so, model);
  EventLog log;
  s->set_event_handler(log.handler());
  const auto tokens = random_tokens(128 + 40, 5, n_vocab);
  for (size_t i = 0; i < 128; ++i)  // no system prompt: the sinks alone are kept
    ASSERT_TRUE(s->eval(std::span<const TokenId>(&tokens[i], 1)));
  const TokenId extra[2] = {7, 8};
  ASSERT_TRUE(s->eval(extra));  // full: one block of 16 dropped after the 4 sinks
  ASSERT_EQ(log.count(SessionEvent::Kind::ContextShifted), 1);
  const SessionEvent& e = log.events.back();
  EXPECT_EQ(e.tokens_before, 128);
  EXPECT_EQ(e.tokens_after, 128 - 16);
  EXPECT_EQ(e.tokens_reevaluated, 0);
  std::vector<TokenId> kept(tokens.begin(), tokens.begin() + 4);
  kept.insert(kept.end(), tokens.begin() + 20, tokens.begin() + 128);
  kept.insert(kept.end(), std::begin(extra), std::end(extra));
  EXPECT_EQ(s->tokens(), kept);
  // 40 more tokens, one at a time: three more slides of one block each, nothing re-evaluated.
  for (size_t i = 128; i < tokens.size(); ++i)
    ASSERT_TRUE(s->eval(std::span<const TokenId>(&tokens[i], 1)));
  EXPECT_EQ(log.count(SessionEvent::Kind::ContextShifted), 3);
  EXPECT_EQ(s->tokens_evaluated(), tokens.size() + 2);
  EXPECT_EQ(std::vector<TokenId>(s->tokens().begin(), s->tokens().begin() + 4),
            std::vector<TokenId>(tokens.begin(), tokens.begin() + 4));
  EXPECT_EQ(std::vector<TokenId>(s->tokens().end() - 40, s->tokens().end()),
            std::vector<TokenId>(tokens.end() - 40, tokens.end()));
  EXPECT_EQ(s->n_past(), 128 - 3 * 16 + 2 + 40);
  auto fresh = make(so, model);
  ASSERT_TRUE(fresh->eval(s->tokens()));
  EXPECT_LE(test::max_rel_error(logits_of(*s), logits_of(*fresh), 320), 1e-4);
}

TEST(SessionKv, SinkWindowKeepsASystemPromptLongerThanTheSinks) {
  SessionOptions so;
  so.context_policy = ContextPolicy::SinkWindow;
  so.n_ctx = 128;
  auto s = make(so);
  const auto system = random_tokens(10, 6);
  ASSERT_TRUE(s->eval(system));
  s->set_keep(10);
  ASSERT_TRUE(s->eval(random_tokens(118, 7)));
  ASSERT_TRUE(s->eval(random_tokens(20, 8)));  // 20 more: two blocks of 16 dropped after the 10
  EXPECT_EQ(s->n_past(), 128 - 32 + 20);
  EXPECT_EQ(std::vector<TokenId>(s->tokens().begin(), s->tokens().begin() + 10), system);
  // More than the context less the kept prefix can never fit.
  EXPECT_FALSE(s->eval(random_tokens(119, 9)));
  EXPECT_EQ(s->n_past(), 128 - 32 + 20);
}

TEST(SessionKv, PolicyShiftOnTheDemoModelGeneratesPastTheContext) {
  SessionOptions so;
  so.context_policy = ContextPolicy::Shift;
  auto s = make(so);
  EventLog log;
  s->set_event_handler(log.handler());
  const auto prompt = demo_model()->tokenizer().encode("Genesis 1\n1 In the beginning", true);
  s->set_keep(static_cast<int32_t>(prompt.size()));
  GenerateOptions go;
  go.max_tokens = 700;
  go.sampling.temperature = 0.8f;
  go.sampling.seed = 3;
  auto r = generate(*s, prompt, go);
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ(r->ids.size(), 700u);
  EXPECT_EQ(r->stop_reason, StopReason::MaxTokens);
  EXPECT_GE(log.count(SessionEvent::Kind::ContextShifted), 1);
  EXPECT_GE(log.count(SessionEvent::Kind::ContextWarning), 1);
  EXPECT_LE(s->n_past(), 512);
  EXPECT_EQ(std::vector<TokenId>(s->tokens().begin(), s->tokens().begin() + prompt.size()), prompt);
  EXPECT_EQ(s->memory_report().kv_used_bytes, 1536u * s->n_past());
}

TEST(SessionKv, PolicyDropOldestDropsWholeTurnsAndReevaluates) {
  SessionOptions so;
  so.kv_type = "f32";
  so.context_policy = ContextPolicy::DropOldest;
  auto s = make(so);
  EventLog log;
  s->set_event_handler(log.handler());
  const auto system = random_tokens(20, 5);
  ASSERT_TRUE(s->eval(system));
  s->set_keep(20);
  std::vector<std::vector<TokenId>> turns;
  for (int t = 0; t < 5; ++t) {
    turns.push_back(random_tokens(95, 50 + t));
    s->mark_turn();
    ASSERT_TRUE(s->eval(turns.back()));
  }
  EXPECT_EQ(s->n_past(), 20 + 5 * 95);  // 495
  s->mark_turn();
  const auto next = random_tokens(40, 60);
  ASSERT_TRUE(s->eval(next));  // 535 > 512: the oldest turns go
  ASSERT_EQ(log.count(SessionEvent::Kind::TurnsDropped), 1);
  // Room for 40 with a quarter of 512 free needs 495 - dropped + 40 + 128 <= 512: 2 turns.
  std::vector<TokenId> want = system;
  for (int t = 2; t < 5; ++t) want.insert(want.end(), turns[t].begin(), turns[t].end());
  want.insert(want.end(), next.begin(), next.end());
  EXPECT_EQ(s->tokens(), want);
  EXPECT_EQ(log.events.back().tokens_reevaluated, 3 * 95);
  EXPECT_EQ(s->turn_starts(), (std::vector<int32_t>{20, 115, 210, 305}));
  auto fresh = make(so);
  ASSERT_TRUE(fresh->eval(want));
  EXPECT_LE(test::max_rel_error(logits_of(*s), logits_of(*fresh), 2048), 1e-5);
}

TEST(SessionKv, DropOldestRefusesWhenTheCurrentTurnAloneIsTooLong) {
  SessionOptions so;
  so.n_ctx = 64;
  so.context_policy = ContextPolicy::DropOldest;
  auto s = make(so);
  EventLog log;
  s->set_event_handler(log.handler());
  s->mark_turn();
  ASSERT_TRUE(s->eval(random_tokens(60, 6)));
  auto st = s->eval(random_tokens(10, 7));
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("no whole turn can be dropped"), std::string::npos);
  EXPECT_EQ(s->n_past(), 60);
  EXPECT_EQ(log.count(SessionEvent::Kind::ContextFull), 1);
}

TEST(SessionKv, NoCacheModeGivesIdenticalOutput) {
  const auto prompt = demo_model()->tokenizer().encode("And God said, Let there be light", true);
  GenerateOptions go;
  go.max_tokens = 24;
  go.sampling.temperature = 0;
  auto cached = make({});
  SessionOptions nc;
  nc.no_kv_cache = true;
  auto uncached = make(nc);
  auto a = generate(*cached, prompt, go);
  auto b = generate(*uncached, prompt, go);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->ids, b->ids);
  EXPECT_EQ(a->text, b->text);
  // Cached: the prompt once, then one token per step. No cache: the whole sequence per step.
  const uint64_t P = prompt.size(),
                 N = a->ids.size() - 1;  // the last sampled token is not evaluated
  EXPECT_EQ(cached->tokens_evaluated(), P + N);
  EXPECT_EQ(uncached->tokens_evaluated(), P + N * P + N * (N + 1) / 2);
}

TEST(SessionKv, OutOfKvMemoryIsAnEventAndTheConversationSurvives) {
  SessionOptions so;
  so.kv_type = "f16";
  so.kv_chunk_blocks = 1;
  so.kv_budget_bytes = 4 * 16 * 1536;  // four blocks of 16 tokens x 1536 bytes
  auto s = make(so);
  EventLog log;
  s->set_event_handler(log.handler());
  const auto tokens = random_tokens(64, 8);
  ASSERT_TRUE(s->eval(tokens));
  const auto before = logits_of(*s);
  auto st = s->eval(random_tokens(5, 9));
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("budget"), std::string::npos);
  ASSERT_EQ(log.count(SessionEvent::Kind::KvOutOfMemory), 1);
  EXPECT_EQ(s->tokens(), tokens);
  EXPECT_EQ(logits_of(*s), before);
  EXPECT_EQ(s->memory_report().kv_pool_bytes, so.kv_budget_bytes);
  s->truncate(60);  // after an edit there is room again
  EXPECT_TRUE(s->eval(random_tokens(4, 10)));
}

TEST(SessionKv, ChangingTheKvTypeReencodesAndAnnounces) {
  auto s = make({});
  EventLog log;
  s->set_event_handler(log.handler());
  const auto prompt =
      demo_model()->tokenizer().encode("Psalms 23\n1 The LORD is my shepherd;", true);
  ASSERT_TRUE(s->eval(prompt));
  const uint64_t f16_bytes = s->memory_report().kv_used_bytes;
  ASSERT_TRUE(s->set_kv_type("q8_0"));
  ASSERT_EQ(log.count(SessionEvent::Kind::KvTypeChanged), 1);
  const MemoryReport r = s->memory_report();
  EXPECT_EQ(r.kv_type, "q8_0");
  EXPECT_EQ(r.kv_used_bytes * 64, f16_bytes * 34);  // 34/32 bytes per value instead of 2
  EXPECT_EQ(s->n_past(), static_cast<int32_t>(prompt.size()));
  // It keeps generating the same greedy continuation as a fresh q8_0 session.
  SessionOptions q8;
  q8.kv_type = "q8_0";
  auto fresh = make(q8);
  GenerateOptions go;
  go.max_tokens = 16;
  go.sampling.temperature = 0;
  auto a = generate(*s, {}, go);
  auto b = generate(*fresh, prompt, go);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->ids, b->ids);
  EXPECT_FALSE(s->set_kv_type("q5_k"));
}

}  // namespace
}  // namespace kvchat
