// The RAM tier (kvchat/kv_ram_tier.h): a parked session's cache holds the live one's
// blocks (KvCache::fork, reference-counted, copied on write), resuming it re-evaluates 0
// tokens and gives back the same logits bit for bit, a block counts once however many
// entries hold it and not while a live session holds it too, and the budget keeps the
// most recently parked entries (LRU) — checked against a model of the tier over 50 random
// switches between conversations of hand-counted block sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <list>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "kv/kv_cache.h"
#include "kvchat/chat_format.h"
#include "kvchat/conversation.h"
#include "kvchat/kv_ram_tier.h"
#include "kvchat/session.h"
#include "support/demo_model.h"
#include "support/small_kv_config.h"
#include "support/test_tokens.h"

namespace kvchat {
namespace {

using test::demo_model;

std::unique_ptr<Session> make_session(SessionOptions so = {}) {
  so.n_threads = 1;
  auto s = Session::create(demo_model(), so);
  EXPECT_TRUE(s) << s.message();
  return s ? std::move(s.value()) : nullptr;
}

Conversation make_conversation() {
  auto format = ChatFormat::for_model(*demo_model());
  EXPECT_TRUE(format) << format.message();
  return Conversation(make_session(), *format);
}

// Bytes of one KV block of the demo model's session (every block is one size).
uint64_t block_bytes(const Session& s) {
  const MemoryReport r = s.memory_report();
  return r.kv_blocks > 0 ? r.kv_allocated_bytes / static_cast<uint64_t>(r.kv_blocks) : 0;
}

int32_t blocks_of(int32_t tokens) { return (tokens + 15) / 16; }  // 16 tokens per block

// ---- KvCache::fork ---------------------------------------------------------------------

using test::small_kv_config;

void append(KvCache& kv, int32_t n, float salt) {
  const int32_t pos0 = kv.size();
  ASSERT_TRUE(kv.reserve(pos0 + n));
  for (int32_t p = pos0; p < pos0 + n; ++p) {
    for (int32_t l = 0; l < 2; ++l) {
      const float k[4] = {salt, float(l), float(p), 1.0f};
      const float v[4] = {salt, float(l), float(p), 2.0f};
      kv.write_key(l, p, k);
      kv.write_value(l, p, v);
    }
  }
  kv.set_size(pos0 + n);
}

std::vector<uint8_t> rows(const KvCache& kv, int32_t n) {
  std::vector<uint8_t> out(static_cast<size_t>(2 * n) * (kv.row_bytes(0) + kv.row_bytes(1)));
  uint8_t* p = out.data();
  for (int32_t l = 0; l < 2; ++l) {
    for (int32_t which = 0; which < 2; ++which) {
      EXPECT_TRUE(kv.export_rows(l, which, 0, n, p));
      p += static_cast<size_t>(n) * kv.row_bytes(which);
    }
  }
  return out;
}

TEST(KvCacheFork, SharesEveryBlockAndCopiesOnWrite) {
  auto made = KvCache::create(small_kv_config());
  ASSERT_TRUE(made) << made.message();
  KvCache live = std::move(made.value());
  append(live, 10, 1.0f);  // blocks [0,4) [4,8) [8,10)
  const std::vector<uint8_t> before = rows(live, 10);
  KvCache parked = live.fork();
  EXPECT_EQ(parked.size(), 10);
  for (int32_t b = 0; b < 3; ++b) EXPECT_EQ(live.block_refs(0, b), 2) << "block " << b;
  EXPECT_EQ(live.blocks_in_use(), 3);

  append(live, 3, 7.0f);  // writes into the shared partial block 2: copied first
  EXPECT_EQ(live.block_refs(0, 0), 2);
  EXPECT_EQ(live.block_refs(0, 1), 2);
  EXPECT_EQ(live.block_refs(0, 2), 1);
  EXPECT_EQ(parked.block_refs(0, 2), 1);
  EXPECT_EQ(rows(parked, 10), before);  // the parked rows did not move
  const std::vector<uint8_t> after = rows(live, 10);
  EXPECT_EQ(after, before);  // the live cache kept the same first 10 rows in its copy

  live.truncate(0);  // the parked cache alone holds its blocks now
  for (int32_t b = 0; b < 3; ++b) EXPECT_EQ(parked.block_refs(0, b), 1);
  EXPECT_EQ(rows(parked, 10), before);
}

// ---- Session::park / resume --------------------------------------------------------------

TEST(SessionPark, ResumeGivesBackTheSameStateAndEvaluatesNothing) {
  const int32_t n_vocab = demo_model()->info().n_vocab;
  const std::vector<TokenId> a = test::test_ids(100, n_vocab, 1);
  const std::vector<TokenId> b = test::test_ids(80, n_vocab, 2);
  auto s = make_session();
  ASSERT_TRUE(s->eval(a));
  const std::vector<float> logits_a(s->last_logits().begin(), s->last_logits().end());
  ParkedKvPtr parked = s->park();
  ASSERT_TRUE(parked);
  s->truncate(0);
  ASSERT_TRUE(s->eval(b));
  const uint64_t evaluated = s->tokens_evaluated();
  ASSERT_TRUE(s->resume(std::move(parked)));
  EXPECT_EQ(s->tokens(), a);
  EXPECT_TRUE(test::bit_identical(s->last_logits(), logits_a));
  auto again = s->eval_sequence(a);
  ASSERT_TRUE(again) << again.message();
  EXPECT_EQ(*again, 0);
  EXPECT_EQ(s->tokens_evaluated(), evaluated);

  // The next token's logits are those of a session that never left a.
  const TokenId next = 5;
  ASSERT_TRUE(s->eval(std::vector<TokenId>{next}));
  auto fresh = make_session();
  ASSERT_TRUE(fresh->eval(a));
  ASSERT_TRUE(fresh->eval(std::vector<TokenId>{next}));
  EXPECT_TRUE(test::bit_identical(s->last_logits(), fresh->last_logits()));
}

TEST(SessionPark, ResumeRefusesAnotherKvTypeAndLeavesTheSessionAsItWas) {
  const int32_t n_vocab = demo_model()->info().n_vocab;
  auto f16 = make_session();
  ASSERT_TRUE(f16->eval(test::test_ids(40, n_vocab, 3)));
  SessionOptions q8;
  q8.kv_type = "q8_0";
  auto other = make_session(q8);
  const std::vector<TokenId> held = test::test_ids(20, n_vocab, 4);
  ASSERT_TRUE(other->eval(held));
  const Status st = other->resume(f16->park());
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("KV type is f16, not q8_0"), std::string::npos) << st.message();
  EXPECT_EQ(other->tokens(), held);
  EXPECT_TRUE(f16->park());              // nothing of f16 was taken
  EXPECT_FALSE(make_session()->park());  // an empty session has nothing to park
}

// ---- bytes ---------------------------------------------------------------------------

TEST(KvRamTier, SharedBlocksCountOnceAndLiveBlocksNotAtAll) {
  const int32_t n_vocab = demo_model()->info().n_vocab;
  const std::vector<TokenId> prefix = test::test_ids(64, n_vocab, 5);  // 4 whole blocks
  std::vector<TokenId> branch_a = prefix, branch_b = prefix;
  const std::vector<TokenId> tail_a = test::test_ids(20, n_vocab, 6);  // 84: blocks 4, 5
  const std::vector<TokenId> tail_b = test::test_ids(30, n_vocab, 7);  // 94: blocks 4, 5
  branch_a.insert(branch_a.end(), tail_a.begin(), tail_a.end());
  branch_b.insert(branch_b.end(), tail_b.begin(), tail_b.end());

  KvRamTier tier(1ull << 30);
  auto s = make_session();
  ASSERT_TRUE(s->eval(branch_a));
  const uint64_t bb = block_bytes(*s);
  ASSERT_GT(bb, 0u);
  ASSERT_TRUE(tier.put("c1/a", KvTierKind::Branch, s->park()));
  KvRamTierStats st = tier.stats();
  EXPECT_EQ(st.used_bytes, 0u);  // every block is the live session's too
  EXPECT_EQ(st.shared_live_bytes, 6 * bb);

  s->truncate(64);
  ASSERT_TRUE(s->eval(tail_b));
  st = tier.stats();
  EXPECT_EQ(st.used_bytes, 2 * bb);  // branch a's own blocks 4 and 5
  EXPECT_EQ(st.shared_live_bytes, 4 * bb);

  ASSERT_TRUE(tier.put("c1/b", KvTierKind::Branch, s->park()));
  s->truncate(0);
  st = tier.stats();
  EXPECT_EQ(st.used_bytes, (4 + 2 + 2) * bb);  // the prefix once, each tail once
  EXPECT_EQ(st.shared_live_bytes, 0u);
  EXPECT_EQ(st.branches, 2);
  const std::vector<KvTierEntry> entries = tier.entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].key, "c1/b");
  EXPECT_EQ(entries[0].tokens, 94);
  EXPECT_EQ(entries[0].bytes, 6 * bb);
  EXPECT_EQ(entries[0].own_bytes, 2 * bb);  // evicting b frees its tail only

  // The budget falls to 7 blocks: a, the least recently used, goes; b (6 blocks) stays.
  tier.set_budget(7 * bb);
  ASSERT_EQ(tier.entries().size(), 1u);
  EXPECT_EQ(tier.entries()[0].key, "c1/b");
  EXPECT_EQ(tier.stats().used_bytes, 6 * bb);
  EXPECT_EQ(tier.stats().evictions, 1u);
}

// ---- switching -------------------------------------------------------------------------

TEST(KvRamTier, LruOrderAndBudgetHoldOverFiftyRandomSwitches) {
  const int32_t n_vocab = demo_model()->info().n_vocab;
  const int32_t lengths[5] = {40, 70, 100, 130, 160};  // 3, 5, 7, 9, 10 blocks
  std::vector<std::vector<TokenId>> prompts;
  for (int i = 0; i < 5; ++i) prompts.push_back(test::test_ids(lengths[i], n_vocab, 10 + i));
  for (int i = 0; i < 5; ++i) {  // no two share a first token: nothing is shared
    for (int j = 0; j < i; ++j) ASSERT_NE(prompts[i][0], prompts[j][0]);
  }

  Conversation c = make_conversation();
  ASSERT_TRUE(c.session().eval(std::vector<TokenId>{1}));
  const uint64_t bb = block_bytes(c.session());
  c.session().truncate(0);
  const int32_t budget_blocks = 18;
  KvRamTier tier(budget_blocks * bb);

  std::list<int> lru;  // the tier's keys as the model expects them, most recent first
  std::mt19937 rng(46);
  int current = -1;
  int hits = 0;
  for (int step = 0; step < 50; ++step) {
    int next = static_cast<int>(rng() % 5);
    if (next == current) next = (next + 1) % 5;
    const std::string leave = current < 0 ? "" : "c" + std::to_string(current) + "/";
    const bool expect_ram = std::find(lru.begin(), lru.end(), next) != lru.end();
    const KvSwitch sw = switch_conversation_kv(tier, c, leave, "c" + std::to_string(next) + "/");

    // The model: the entered one leaves the tier, the left one comes in first, and the
    // least recently used go until the rest fit.
    lru.remove(next);
    if (current >= 0) lru.push_front(current);
    auto sum = [&] {
      int32_t n = 0;
      for (int k : lru) n += blocks_of(lengths[k]);
      return n;
    };
    while (!lru.empty() && sum() > budget_blocks) lru.pop_back();

    EXPECT_EQ(sw.from_ram, expect_ram) << "step " << step;
    EXPECT_EQ(sw.parked, current >= 0);
    hits += expect_ram;
    auto evaluated = c.session().eval_sequence(prompts[next]);
    ASSERT_TRUE(evaluated) << evaluated.message();
    EXPECT_EQ(*evaluated, expect_ram ? 0 : lengths[next]) << "step " << step;
    current = next;

    std::vector<std::string> expected;
    for (int k : lru) expected.push_back("c" + std::to_string(k) + "/");
    std::vector<std::string> got;
    for (const KvTierEntry& e : tier.entries()) got.push_back(e.key);
    EXPECT_EQ(got, expected) << "step " << step;
    const KvRamTierStats st = tier.stats();
    EXPECT_EQ(st.used_bytes, static_cast<uint64_t>(sum()) * bb) << "step " << step;
    EXPECT_LE(st.used_bytes, budget_blocks * bb);
    EXPECT_EQ(st.conversations, static_cast<int32_t>(lru.size()));
  }
  EXPECT_GT(hits, 10);  // the walk came back to kept conversations often
}

GenerateOptions greedy(int n) {
  GenerateOptions o;
  o.max_tokens = n;
  o.sampling.temperature = 0;
  return o;
}

TEST(KvRamTier, ABranchSwitchBackReEvaluatesNothing) {
  KvRamTier tier(1ull << 30);
  Conversation c = make_conversation();
  auto first = c.reply_to("Genesis 1\n1 In the beginning", greedy(12));
  ASSERT_TRUE(first) << first.message();
  const std::vector<ChatMessage> branch_a = c.messages();
  const int32_t held_a = c.session().n_past();

  // The other branch: the first message edited.
  const std::vector<ChatMessage> branch_b_prompt = {{"user", "Exodus 2\n1 And there went"}};
  auto target_b = c.tokens_for("", branch_b_prompt);
  ASSERT_TRUE(target_b);
  KvSwitch sw = switch_branch_kv(tier, c, "c1/a", "c1/", *target_b);
  EXPECT_TRUE(sw.parked);
  EXPECT_FALSE(sw.from_ram);
  c.set_messages(branch_b_prompt);
  auto second = c.reply(greedy(12));
  ASSERT_TRUE(second) << second.message();

  // Back to a: its KV comes from RAM, and the next turn evaluates only what is new.
  auto target_a = c.tokens_for("", branch_a);
  ASSERT_TRUE(target_a);
  sw = switch_branch_kv(tier, c, "c1/b", "c1/", *target_a);
  EXPECT_TRUE(sw.from_ram) << sw.note;
  EXPECT_EQ(sw.held_tokens, held_a);
  c.set_messages(branch_a);
  const uint64_t before = c.session().tokens_evaluated();
  auto third = c.reply_to("2 And the earth was", greedy(4));
  ASSERT_TRUE(third) << third.message();
  EXPECT_EQ(third->prompt.reused_tokens, held_a);
  EXPECT_EQ(third->prompt.evaluated_tokens, third->prompt.prompt_tokens - held_a);
  EXPECT_GT(c.session().tokens_evaluated(), before);
  EXPECT_EQ(tier.stats().branches, 1);  // b waits in RAM
}

// ---- external holders and the default budget ----------------------------------------------

TEST(KvRamTier, ExternalHoldersAreEvictedInLruOrderWithoutTheLock) {
  KvRamTier tier(250);
  std::vector<std::string> evicted;
  tier.hold_external("server/0", KvTierKind::ServerSession, 10, 100, [&] {
    evicted.push_back("server/0");
    tier.stats();
  });
  tier.hold_external("server/1", KvTierKind::ServerSession, 10, 100,
                     [&] { evicted.push_back("server/1"); });
  EXPECT_TRUE(evicted.empty());
  tier.hold_external("server/2", KvTierKind::ServerSession, 10, 100,
                     [&] { evicted.push_back("server/2"); });
  EXPECT_EQ(evicted, std::vector<std::string>{"server/0"});
  EXPECT_EQ(tier.stats().used_bytes, 200u);
  EXPECT_EQ(tier.stats().server_sessions, 2);
  tier.hold_external("server/1", KvTierKind::ServerSession, 10, 100, [&] {});  // used again
  tier.set_budget(150);
  EXPECT_EQ(evicted, (std::vector<std::string>{"server/0", "server/2"}));
  EXPECT_FALSE(tier.take("server/1"));  // an external entry is only forgotten
  EXPECT_EQ(tier.stats().used_bytes, 0u);
}

TEST(KvRamTier, DefaultBudgetIsAQuarterOfAvailableRamAtMostEightGiB) {
  const uint64_t b = KvRamTier::default_budget_bytes();
  EXPECT_GT(b, 0u);
  EXPECT_LE(b, 8ull << 30);
}

}  // namespace
}  // namespace kvchat
