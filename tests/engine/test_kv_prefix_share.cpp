// Shared prefix blocks (kv/kv_prefix_store.h): caches of one store hold the blocks of a
// common token prefix once, reference-counted, copied on write at the first different
// token. Checked by hand-counted refcounts and bytes, rows compared byte for byte through
// export_rows, and at the Session level against an unshared session bit for bit (the
// demo model and a windowed synthetic gemma2).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "kv/kv_cache.h"
#include "kv/kv_prefix_store.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "model/synthetic_model.h"
#include "support/small_kv_config.h"
#include "support/test_paths.h"
#include "support/test_tokens.h"

namespace kvchat {
namespace {

using test::small_kv_config;
constexpr uint64_t kRow = 4 * sizeof(float);
constexpr uint64_t kBlock = 2 * 2 * 4 * kRow;  // 2 layers x (K, V) x 4 tokens x row

// Row of (layer, pos, K/V) written by cache `salt`: values that name it.
std::vector<float> row_values(int32_t l, int32_t pos, int32_t which, int32_t salt) {
  return {float(l), float(pos), float(which), float(salt * 1000 + l * 100 + pos * 2 + which)};
}

void append(KvCache& kv, int32_t n, int32_t salt, int32_t n_layers = 2) {
  const int32_t pos0 = kv.size();
  ASSERT_TRUE(kv.reserve(pos0 + n));
  for (int32_t p = pos0; p < pos0 + n; ++p) {
    for (int32_t l = 0; l < n_layers; ++l) {
      kv.write_key(l, p, row_values(l, p, 0, salt).data());
      kv.write_value(l, p, row_values(l, p, 1, salt).data());
    }
  }
  kv.set_size(pos0 + n);
}

// Every row [0, n) of every layer, K then V (n_layers x 2 x n x kRow).
std::vector<uint8_t> all_rows(const KvCache& kv, int32_t n, int32_t n_layers = 2) {
  std::vector<uint8_t> out(static_cast<size_t>(n_layers) * 2 * n * kRow);
  uint8_t* p = out.data();
  for (int32_t l = 0; l < n_layers; ++l) {
    for (int32_t which : {0, 1}) {
      EXPECT_TRUE(kv.export_rows(l, which, 0, n, p));
      p += n * kRow;
    }
  }
  return out;
}

// The rows a cache written by `salt` for [0, n) holds, computed without any cache.
std::vector<uint8_t> expected_rows(int32_t n, const std::vector<int32_t>& salt_of_pos,
                                   int32_t n_layers = 2) {
  std::vector<uint8_t> out;
  for (int32_t l = 0; l < n_layers; ++l) {
    for (int32_t which : {0, 1}) {
      for (int32_t p = 0; p < n; ++p) {
        const std::vector<float> v = row_values(l, p, which, salt_of_pos[p]);
        const auto* b = reinterpret_cast<const uint8_t*>(v.data());
        out.insert(out.end(), b, b + kRow);
      }
    }
  }
  return out;
}

std::vector<int32_t> seq(int32_t n, int32_t salt) {
  std::vector<int32_t> t(n);
  for (int32_t i = 0; i < n; ++i) t[i] = 5 + i * 7 + salt * 1000;
  return t;
}

TEST(KvPrefixShare, TwoCachesHoldTheSharedBlocksOnceAndCopyOnWrite) {
  const KvCacheConfig c = small_kv_config();
  auto store = std::make_shared<KvPrefixStore>(c);
  auto a = KvCache::create(c, store);
  auto b = KvCache::create(c, store);
  ASSERT_TRUE(a && b);
  // A: 12 tokens (3 blocks), indexed.
  const std::vector<int32_t> ta = seq(12, 0);
  append(*a, 12, /*salt=*/1);
  a->publish_prefix(ta);
  EXPECT_EQ(store->indexed_blocks(), 3u);
  // B: the same first 8 tokens, then others: adopts blocks 0 and 1 only.
  std::vector<int32_t> tb = ta;
  tb[9] += 1;
  EXPECT_EQ(b->adopt_prefix(tb, 12), 8);
  EXPECT_EQ(b->size(), 8);
  for (int32_t blk : {0, 1}) {
    EXPECT_EQ(a->block_refs(0, blk), 2);
    EXPECT_EQ(b->block_refs(0, blk), 2);
  }
  EXPECT_EQ(a->block_refs(0, 2), 1);
  EXPECT_EQ(store->shared_bytes(), 2 * kBlock);
  EXPECT_EQ(b->shared_bytes(), 2 * kBlock);
  EXPECT_EQ(a->shared_bytes(), 2 * kBlock);
  // Allocated once: 3 blocks in the store's pool, not 5.
  EXPECT_EQ(a->pool_bytes(), 3 * kBlock);
  EXPECT_EQ(b->allocated_bytes(), 2 * kBlock);
  EXPECT_EQ(all_rows(*b, 8), expected_rows(8, std::vector<int32_t>(8, 1)));

  // B appends its own rows: a new block, A untouched.
  append(*b, 4, /*salt=*/2);
  EXPECT_EQ(a->pool_bytes(), 4 * kBlock);

  // Copy on write at the first different token: B goes back to 6 (inside shared block 1)
  // and writes positions 6, 7 again. Block 1 becomes B's own; A's rows stay byte for byte.
  const std::vector<uint8_t> a_before = all_rows(*a, 12);
  b->truncate(6);
  EXPECT_EQ(b->block_refs(0, 1), 2);  // still shared: nothing written yet
  append(*b, 2, /*salt=*/3);
  EXPECT_EQ(b->block_refs(0, 1), 1);
  EXPECT_EQ(a->block_refs(0, 1), 1);
  EXPECT_EQ(a->block_refs(0, 0), 2);  // block 0 is still shared
  EXPECT_EQ(all_rows(*a, 12), a_before);
  EXPECT_EQ(all_rows(*a, 12), expected_rows(12, std::vector<int32_t>(12, 1)));
  std::vector<int32_t> salts(8, 1);
  salts[6] = salts[7] = 3;
  EXPECT_EQ(all_rows(*b, 8), expected_rows(8, salts));
  EXPECT_EQ(store->shared_bytes(), kBlock);
}

TEST(KvPrefixShare, TheBudgetCountsASharedBlockOnce) {
  KvCacheConfig c = small_kv_config();
  c.budget_bytes = 4 * kBlock;
  auto store = std::make_shared<KvPrefixStore>(c);
  auto a = KvCache::create(c, store);
  auto b = KvCache::create(c, store);
  ASSERT_TRUE(a && b);
  const std::vector<int32_t> t = seq(16, 0);
  append(*a, 12, 1);
  a->publish_prefix(t);
  // B: 12 tokens, 8 of them adopted: 3 + 1 = 4 blocks, within the budget (unshared: 6).
  EXPECT_EQ(b->adopt_prefix(t, 12), 12);
  b->truncate(8);  // B keeps 2 shared blocks, then writes its own third
  append(*b, 4, 2);
  EXPECT_EQ(a->pool_bytes(), 4 * kBlock);
  // A fifth block does not fit.
  EXPECT_FALSE(a->reserve(16));
  EXPECT_EQ(a->size(), 12);
  // B dropping its blocks returns only its own one to the pool.
  b->truncate(0);
  EXPECT_EQ(a->free_blocks(), 1);
  EXPECT_TRUE(a->reserve(16));
}

TEST(KvPrefixShare, ThreeCachesAndTruncateAndDestroyDropReferences) {
  const KvCacheConfig c = small_kv_config();
  auto store = std::make_shared<KvPrefixStore>(c);
  auto a = KvCache::create(c, store);
  ASSERT_TRUE(a);
  const std::vector<int32_t> t = seq(8, 0);
  append(*a, 8, 1);
  a->publish_prefix(t);
  auto b = std::make_unique<KvCache>(std::move(KvCache::create(c, store).value()));
  auto cc = KvCache::create(c, store);
  ASSERT_TRUE(cc);
  EXPECT_EQ(b->adopt_prefix(t, 8), 8);
  EXPECT_EQ(cc->adopt_prefix(t, 8), 8);
  EXPECT_EQ(a->block_refs(0, 0), 3);
  EXPECT_EQ(store->shared_bytes(), 2 * kBlock);  // 2 blocks, each counted once
  b.reset();
  EXPECT_EQ(a->block_refs(0, 0), 2);
  a->truncate(0);
  EXPECT_EQ(cc->block_refs(0, 0), 1);
  EXPECT_EQ(store->shared_bytes(), 0u);
  // A freed nothing C holds (poison_freed would have filled a freed block with 0xff).
  EXPECT_EQ(all_rows(*cc, 8), expected_rows(8, std::vector<int32_t>(8, 1)));
  EXPECT_EQ(store->indexed_blocks(), 2u);  // C still holds them: still indexed
  // A new cache still adopts them from C.
  auto d = KvCache::create(c, store);
  EXPECT_EQ(d->adopt_prefix(t, 8), 8);
  // The last holders going frees the blocks and their entries.
  d->truncate(0);
  cc->truncate(0);
  EXPECT_EQ(store->indexed_blocks(), 0u);
  EXPECT_EQ(a->free_blocks(), 2);
}

TEST(KvPrefixShare, DiscardCopiesTheSharedBlocksItRewrites) {
  const KvCacheConfig c = small_kv_config();
  auto store = std::make_shared<KvPrefixStore>(c);
  auto a = KvCache::create(c, store);
  auto b = KvCache::create(c, store);
  ASSERT_TRUE(a && b);
  const std::vector<int32_t> t = seq(12, 0);
  append(*a, 12, 1);
  a->publish_prefix(t);
  EXPECT_EQ(b->adopt_prefix(t, 12), 12);
  const std::vector<uint8_t> a_before = all_rows(*a, 12);
  // B discards [2, 6): rows [6, 12) move to [2, 8).
  ASSERT_TRUE(b->discard(2, 4, nullptr));
  EXPECT_EQ(b->size(), 8);
  EXPECT_EQ(all_rows(*a, 12), a_before);
  std::vector<uint8_t> expect;
  for (int32_t l = 0; l < 2; ++l) {
    for (int32_t which : {0, 1}) {
      for (int32_t p : {0, 1, 6, 7, 8, 9, 10, 11}) {
        const std::vector<float> v = row_values(l, p, which, 1);
        const auto* bytes = reinterpret_cast<const uint8_t*>(v.data());
        expect.insert(expect.end(), bytes, bytes + kRow);
      }
    }
  }
  EXPECT_EQ(all_rows(*b, 8), expect);
  EXPECT_EQ(b->block_refs(0, 0), 1);  // rewritten from row 2: copied
  EXPECT_EQ(a->block_refs(0, 0), 1);
}

// 3 layers, layers 0 and 2 windowed by 8, blocks of 4.
KvCacheConfig window_config(int32_t slack) {
  KvCacheConfig c = small_kv_config();
  c.n_layers = 3;
  c.max_tokens = 200;
  c.windowed = {1, 0, 1};
  c.window = 8;
  c.window_slack = slack;
  return c;
}

TEST(KvPrefixShare, WindowedFreeingDropsReferencesOnly) {
  auto store = std::make_shared<KvPrefixStore>(window_config(-1));
  auto a = KvCache::create(window_config(-1), store);  // never frees windowed rows
  auto b = KvCache::create(window_config(0), store);   // frees all it can
  ASSERT_TRUE(a && b);
  const std::vector<int32_t> t = seq(40, 0);
  append(*a, 40, 1, 3);
  a->publish_prefix(t);
  EXPECT_EQ(store->indexed_blocks(), 10u);
  const std::vector<uint8_t> a_before = all_rows(*a, 40, 3);
  // B adopts 32 tokens; its window then frees the windowed blocks before 32 - 7: A keeps them.
  EXPECT_EQ(b->adopt_prefix(t, 32), 32);
  EXPECT_GT(b->window_freed_bytes(), 0u);
  EXPECT_EQ(b->block_refs(1, 0), 0);         // B dropped it
  EXPECT_EQ(a->block_refs(1, 0), 1);         // A holds it still
  EXPECT_EQ(b->block_refs(0, 0), 2);         // the full layer's block is shared
  EXPECT_EQ(all_rows(*a, 40, 3), a_before);  // nothing poisoned
  append(*b, 4, 2, 3);
  // A cache whose windowed blocks were freed offers only the chain up to them.
  auto s2 = std::make_shared<KvPrefixStore>(window_config(0));
  auto w = KvCache::create(window_config(0), s2);
  append(*w, 40, 1, 3);
  w->publish_prefix(t);
  EXPECT_EQ(s2->indexed_blocks(), 0u);  // block 0's windowed rows are gone
}

uint64_t constant_hash(uint64_t, std::span<const int32_t>) { return 42; }

TEST(KvPrefixShare, AHashCollisionDoesNotShare) {
  KvPrefixStore::set_hash_for_tests(constant_hash);
  const KvCacheConfig c = small_kv_config();
  auto store = std::make_shared<KvPrefixStore>(c);
  auto a = KvCache::create(c, store);
  auto b = KvCache::create(c, store);
  auto d = KvCache::create(c, store);
  ASSERT_TRUE(a && b && d);
  append(*a, 8, 1);
  a->publish_prefix(seq(8, 0));
  // Every block hashes alike: block 0 takes the slot, block 1 cannot be indexed.
  EXPECT_EQ(store->indexed_blocks(), 1u);
  // Other tokens with the same hash: verified, refused.
  EXPECT_EQ(b->adopt_prefix(seq(8, 1), 8), 0);
  EXPECT_EQ(b->block_refs(0, 0), 0);
  // The same tokens: block 0 only (block 1's hash names block 0's entry, whose parent
  // is not block 0).
  EXPECT_EQ(d->adopt_prefix(seq(8, 0), 8), 4);
  KvPrefixStore::set_hash_for_tests(nullptr);
}

// ------------------------------------------------------------------ sessions

// A evaluates prefix + 20 tokens; B prefix + 30 others: B adopts the prefix's 100 tokens
// (blocks of 4) and evaluates its 30; its logits through prefill and 5 greedy steps equal
// an unshared session's bit for bit.
void check_session_share(std::shared_ptr<const Model> model, const std::string& kv_type) {
  const int32_t nv = model->info().n_vocab;
  SessionOptions o;
  o.kv_type = kv_type;
  o.n_threads = 2;
  o.kv_block_tokens = 4;
  o.kv_share_prefix = true;
  SessionOptions alone = o;
  alone.kv_share_prefix = false;
  const std::vector<TokenId> prefix = test::test_ids(100, nv, 0);
  std::vector<TokenId> pa = prefix, pb = prefix;
  const std::vector<TokenId> ra = test::test_ids(20, nv, 1), rb = test::test_ids(30, nv, 2);
  pa.insert(pa.end(), ra.begin(), ra.end());
  pb.insert(pb.end(), rb.begin(), rb.end());

  auto a = Session::create(model, o);
  auto b = Session::create(model, o);
  auto u = Session::create(model, alone);
  ASSERT_TRUE(a && b && u);
  auto na = (*a)->eval_sequence(pa);
  ASSERT_TRUE(na) << na.message();
  EXPECT_EQ(*na, 120);
  auto nb = (*b)->eval_sequence(pb);
  ASSERT_TRUE(nb) << nb.message();
  EXPECT_EQ(*nb, 30);  // only the rest
  EXPECT_EQ((*b)->prefix_hit_tokens(), 100u);
  auto nu = (*u)->eval_sequence(pb);
  ASSERT_TRUE(nu);
  EXPECT_EQ(*nu, 130);
  EXPECT_TRUE(test::bit_identical((*b)->last_logits(), (*u)->last_logits()));
  const MemoryReport rb_report = (*b)->memory_report();
  const uint64_t block_bytes = rb_report.kv_bytes_per_token * 4;
  EXPECT_EQ(rb_report.kv_prefix_hit_tokens, 100u);
  if (model->info().sliding_window == 0) {
    EXPECT_EQ(rb_report.kv_shared_bytes, 25 * block_bytes);
    EXPECT_EQ(rb_report.kv_store_shared_bytes, 25 * block_bytes);
  } else {
    EXPECT_GT(rb_report.kv_shared_bytes, 0u);
  }
  EXPECT_EQ((*u)->memory_report().kv_shared_bytes, 0u);
  for (int step = 0; step < 5; ++step) {
    const auto lb = (*b)->last_logits();
    const TokenId next = static_cast<TokenId>(std::max_element(lb.begin(), lb.end()) - lb.begin());
    const TokenId one[1] = {next};
    ASSERT_TRUE((*b)->eval(one));
    ASSERT_TRUE((*u)->eval(one));
    EXPECT_TRUE(test::bit_identical((*b)->last_logits(), (*u)->last_logits())) << "step " << step;
  }
  // A still continues exactly like an unshared session of its own tokens.
  auto ua = Session::create(model, alone);
  ASSERT_TRUE(ua && (*ua)->eval_sequence(pa));
  const TokenId one[1] = {3};
  ASSERT_TRUE((*a)->eval(one));
  ASSERT_TRUE((*ua)->eval(one));
  EXPECT_TRUE(test::bit_identical((*a)->last_logits(), (*ua)->last_logits()));
  // A regenerates inside the shared prefix (copy on write): B is unchanged.
  (*a)->truncate(98);
  const std::vector<TokenId> other = test::test_ids(10, nv, 7);
  ASSERT_TRUE((*a)->eval(other));
  const TokenId two[1] = {5};
  ASSERT_TRUE((*b)->eval(two));
  ASSERT_TRUE((*u)->eval(two));
  EXPECT_TRUE(test::bit_identical((*b)->last_logits(), (*u)->last_logits()));
}

TEST(KvPrefixShareSession, DemoModelAdoptsThePrefixBitExact) {
  auto model = Model::load(test::shared_path("models/kjv-demo-f16.gguf"));
  ASSERT_TRUE(model) << model.message();
  check_session_share(*model, "f16");
}

TEST(KvPrefixShareSession, WindowedModelAdoptsThePrefixBitExact) {
  test::TempDir dir;
  auto spec = synthetic_arch_spec("gemma2");
  ASSERT_TRUE(spec);
  const std::string path = dir.file("g2.gguf");
  ASSERT_TRUE(write_synthetic_model(path, *spec));
  auto model = Model::load(path);
  ASSERT_TRUE(model) << model.message();
  ASSERT_GT((*model)->info().sliding_window, 0);
  check_session_share(*model, "f32");
}

TEST(KvPrefixShareSession, SessionsWithoutTheOptionOrOtherThreadsDoNotShare) {
  auto model = Model::load(test::shared_path("models/kjv-demo-f16.gguf"));
  ASSERT_TRUE(model);
  const int32_t nv = (*model)->info().n_vocab;
  SessionOptions o;
  o.n_threads = 2;
  o.kv_share_prefix = true;
  SessionOptions other_threads = o;
  other_threads.n_threads = 1;
  auto a = Session::create(*model, o);
  auto b = Session::create(*model, other_threads);
  ASSERT_TRUE(a && b);
  const std::vector<TokenId> p = test::test_ids(64, nv, 0);
  ASSERT_TRUE((*a)->eval_sequence(p));
  auto n = (*b)->eval_sequence(p);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 64);
  EXPECT_EQ((*b)->prefix_hit_tokens(), 0u);
}

}  // namespace
}  // namespace kvchat
