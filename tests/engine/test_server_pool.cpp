// The session pool of kvchat serve (server/session_pool.h) on the demo model: the
// longest common prefix wins, else a fresh slot, else the least recently used idle
// session; every slot busy -> none; the KV budget drops idle sessions LRU first, and so
// does a RAM tier they share with other entries (kvchat/kv_ram_tier.h).
#include <gtest/gtest.h>

#include <thread>

#include "serving/session_pool.h"
#include "support/test_paths.h"

namespace kvchat::serving {
namespace {

std::shared_ptr<const Model> demo() {
  static auto model = Model::load(test::shared_path("models/kjv-demo-f16.gguf"));
  EXPECT_TRUE(model) << model.message();
  return model ? *model : nullptr;
}

std::unique_ptr<SessionPool> make_pool(int32_t n, uint64_t budget = 0) {
  SessionPoolOptions o;
  o.n_sessions = n;
  o.kv_budget_bytes = budget;
  o.session.n_ctx = 256;
  auto pool = SessionPool::create(demo(), o);
  EXPECT_TRUE(pool) << pool.message();
  return std::move(pool).value();
}

std::vector<TokenId> seq(std::initializer_list<TokenId> ids) { return ids; }

// Leases a session for `prompt`, evaluates it there, gives it back; returns the slot.
int32_t run(SessionPool& pool, const std::vector<TokenId>& prompt, int32_t* prefix = nullptr) {
  auto a = pool.acquire(prompt);
  EXPECT_TRUE(a) << a.message();
  EXPECT_TRUE(a->lease);
  if (!a || !a->lease) return -1;
  if (prefix) *prefix = a->lease->common_prefix();
  EXPECT_TRUE(a->lease->session().eval_sequence(prompt));
  std::this_thread::sleep_for(std::chrono::milliseconds(2));  // distinct last-used times
  return a->lease->index();
}

TEST(ServerPool, LongestCommonPrefixWins) {
  auto pool = make_pool(3);
  const int32_t a = run(*pool, seq({1, 10, 11, 12, 13}));
  const int32_t b = run(*pool, seq({1, 20, 21}));
  EXPECT_NE(a, b);  // a free slot rather than a session sharing only BOS (1 of its 5)
  int32_t prefix = -1;
  EXPECT_EQ(run(*pool, seq({1, 10, 11, 12, 99}), &prefix), a);
  EXPECT_EQ(prefix, 4);
  EXPECT_EQ(run(*pool, seq({1, 20, 21, 22}), &prefix), b);
  EXPECT_EQ(prefix, 3);
  // Every slot taken: the longest prefix wins even when it is short.
  const int32_t c = run(*pool, seq({2, 40}));
  EXPECT_NE(c, a);
  EXPECT_NE(c, b);
  EXPECT_EQ(run(*pool, seq({1, 10, 50, 51}), &prefix), a);
  EXPECT_EQ(prefix, 2);
}

TEST(ServerPool, LeastRecentlyUsedWhenNoPrefixAndNoFreeSlot) {
  auto pool = make_pool(2);
  const int32_t a = run(*pool, seq({5, 6, 7}));
  const int32_t b = run(*pool, seq({8, 9}));
  run(*pool, seq({5, 6, 7, 8}));  // a used again: b is now the least recently used
  int32_t prefix = -1;
  EXPECT_EQ(run(*pool, seq({30, 31}), &prefix), b);
  EXPECT_EQ(prefix, 0);
  (void)a;
}

TEST(ServerPool, BusyWhenEverySessionIsLeased) {
  auto pool = make_pool(2);
  auto first = pool->acquire(seq({1, 2}));
  auto second = pool->acquire(seq({1, 3}));
  ASSERT_TRUE(first && first->lease && second && second->lease);
  auto third = pool->acquire(seq({1, 4}));
  ASSERT_TRUE(third);
  EXPECT_TRUE(third->busy);
  EXPECT_FALSE(third->lease);
  auto stats = pool->stats();
  EXPECT_TRUE(stats[0].busy && stats[1].busy);
  first->lease.reset();  // back to the pool
  auto fourth = pool->acquire(seq({1, 4}));
  ASSERT_TRUE(fourth && fourth->lease);
  EXPECT_FALSE(fourth->busy);
}

TEST(ServerPool, BudgetDropsLeastRecentlyUsedIdleSessions) {
  // Measure one session's KV for a 40-token prompt, then allow a bit more than two.
  std::vector<TokenId> p1, p2, p3;
  for (TokenId i = 0; i < 40; ++i)
    p1.push_back(100 + i), p2.push_back(200 + i), p3.push_back(300 + i);
  uint64_t one = 0;
  {
    auto probe = make_pool(1);
    run(*probe, p1);
    one = probe->stats()[0].kv_allocated_bytes;
  }
  ASSERT_GT(one, 0u);
  auto pool = make_pool(3, one * 2 + one / 2);
  const int32_t a = run(*pool, p1);
  const int32_t b = run(*pool, p2);
  EXPECT_EQ(pool->kv_allocated_bytes(), 2 * one);
  const int32_t c = run(*pool, p3);  // three do not fit: a (least recently used) is dropped
  auto stats = pool->stats();
  EXPECT_EQ(pool->kv_allocated_bytes(), 2 * one);
  EXPECT_FALSE(stats[static_cast<size_t>(a)].created);
  EXPECT_EQ(stats[static_cast<size_t>(a)].tokens, 0);
  EXPECT_EQ(stats[static_cast<size_t>(b)].tokens, 40);
  EXPECT_EQ(stats[static_cast<size_t>(c)].tokens, 40);
  EXPECT_EQ(stats[static_cast<size_t>(c)].kv_allocated_bytes, one);
}

TEST(ServerPool, IdleSessionsCountInTheRamTierAndLeaveItLeastRecentlyUsedFirst) {
  std::vector<TokenId> p1, p2;
  for (TokenId i = 0; i < 40; ++i) p1.push_back(100 + i), p2.push_back(200 + i);
  auto tier = std::make_shared<KvRamTier>(1ull << 30);
  SessionPoolOptions o;
  o.n_sessions = 2;
  o.session.n_ctx = 256;
  o.ram_tier = tier;
  auto made = SessionPool::create(demo(), o);
  ASSERT_TRUE(made) << made.message();
  auto& pool = *made.value();
  const int32_t a = run(pool, p1);
  const uint64_t one = pool.stats()[static_cast<size_t>(a)].kv_allocated_bytes;
  ASSERT_GT(one, 0u);
  KvRamTierStats st = tier->stats();
  EXPECT_EQ(st.server_sessions, 1);
  EXPECT_EQ(st.used_bytes, one);
  {
    auto lease = pool.acquire(p1);  // leased: live, not idle, so out of the tier
    ASSERT_TRUE(lease && lease->lease);
    EXPECT_EQ(tier->stats().server_sessions, 0);
  }
  const int32_t b = run(pool, p2);
  EXPECT_NE(a, b);
  EXPECT_EQ(tier->stats().server_sessions, 2);
  // Another entry of the app (a parked conversation would do the same) needs room: the
  // least recently used idle session (a) goes, b stays.
  tier->hold_external("c1/live", KvTierKind::Conversation, 10, one, [] {});
  tier->set_budget(2 * one);
  auto stats = pool.stats();
  EXPECT_EQ(stats[static_cast<size_t>(a)].tokens, 0);
  EXPECT_FALSE(stats[static_cast<size_t>(a)].created);
  EXPECT_EQ(stats[static_cast<size_t>(b)].tokens, 40);
  EXPECT_EQ(tier->stats().server_sessions, 1);
  EXPECT_EQ(tier->stats().evictions, 1u);
  made.value().reset();  // a pool that goes takes its entries with it
  EXPECT_EQ(tier->stats().server_sessions, 0);
  EXPECT_EQ(tier->stats().conversations, 1);
}

}  // namespace
}  // namespace kvchat::serving
