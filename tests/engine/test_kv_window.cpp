// Sliding-window layers in the paged KV cache: windowed layers (gemma2/3) keep only
// their window (+ slack) of rows; blocks that fall out go back to the pool. Checked
// against a cache that never frees (window_slack < 0): allocated bytes by hand, logits
// bit for bit through prefill, decode, regenerate, snapshots, shift, drop-oldest and a
// KV type change; truncating into freed rows re-evaluates and equals a fresh evaluation;
// a model without windows allocates exactly as before.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kv/kv_cache.h"
#include "kv/kv_type.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "model/synthetic_model.h"
#include "support/counting_kv_memory.h"
#include "support/test_paths.h"
#include "support/test_tokens.h"

namespace kvchat {
namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// ------------------------------------------------------------ the cache by itself

// 3 layers, layers 0 and 2 windowed by 8, slack 4, blocks of 4 tokens, f32 rows of 4.
KvCacheConfig window_config(int32_t slack) {
  KvCacheConfig c;
  c.n_layers = 3;
  c.n_kv_heads = 1;
  c.head_dim = 4;
  c.max_tokens = 200;
  c.block_tokens = 4;
  c.chunk_blocks = 1;
  c.type = KvType::F32;
  c.windowed = {1, 0, 1};
  c.window = 8;
  c.window_slack = slack;
  c.poison_freed = true;
  return c;
}

// Row of (layer, pos, K/V): four values that name it.
std::vector<float> row_values(int32_t l, int32_t pos, int32_t which) {
  return {float(l), float(pos), float(which), float(l * 1000 + pos * 2 + which)};
}

void append(KvCache& kv, int32_t n) {
  const int32_t pos0 = kv.size();
  ASSERT_TRUE(kv.reserve(pos0 + n));
  for (int32_t p = pos0; p < pos0 + n; ++p) {
    for (int32_t l = 0; l < 3; ++l) {
      kv.write_key(l, p, row_values(l, p, 0).data());
      kv.write_value(l, p, row_values(l, p, 1).data());
    }
  }
  kv.set_size(pos0 + n);
}

TEST(KvWindowCache, AllocatedBytesFollowTheFormulaAtEveryLength) {
  auto kv = KvCache::create(window_config(4));
  ASSERT_TRUE(kv) << kv.message();
  const uint64_t row = 4 * sizeof(float);
  const uint64_t full_block = 2 * 1 * 4 * row, windowed_block = 2 * 2 * 4 * row;
  for (int32_t n = 1; n <= 60; ++n) {
    append(*kv, 1);
    // Windowed rows below n - (8 - 1) - 4 are not needed: whole blocks below it go.
    const int64_t first_kept = std::max<int64_t>(0, n - 7 - 4);
    const int64_t windowed_blocks = ceil_div(n, 4) - first_kept / 4;
    EXPECT_EQ(kv->allocated_bytes(), full_block * ceil_div(n, 4) + windowed_block * windowed_blocks)
        << n;
    EXPECT_EQ(kv->windowed_allocated_bytes(), windowed_block * windowed_blocks) << n;
    EXPECT_EQ(kv->window_freed_bytes(), windowed_block * static_cast<uint64_t>(first_kept / 4))
        << n;
    // Every row a next token reads is there, with its own values.
    for (int32_t p = std::max(0, n - 7); p < n; ++p) {
      for (int32_t l = 0; l < 3; ++l) {
        ASSERT_TRUE(kv->row_present(l, p));
        EXPECT_EQ(std::memcmp(kv->key_row(l, p), row_values(l, p, 0).data(), row), 0)
            << l << " " << p;
        EXPECT_EQ(std::memcmp(kv->value_row(l, p), row_values(l, p, 1).data(), row), 0)
            << l << " " << p;
      }
    }
  }
  EXPECT_TRUE(kv->row_present(1, 0));   // full layers keep everything
  EXPECT_FALSE(kv->row_present(0, 0));  // windowed layers do not
  // 60 tokens: the pool never held more than what the window needs plus a block or so.
  EXPECT_LT(kv->pool_bytes(), full_block * 15 + windowed_block * 6);
}

TEST(KvWindowCache, TruncationKeepsWhatTheWindowStillHasElseThePinnedPrefix) {
  auto kv = KvCache::create(window_config(4));
  ASSERT_TRUE(kv);
  kv->pin_prefix(6);
  append(*kv, 40);
  // Valid windowed rows: [0, 6) and [40 - 7 - 4, 40) = [29, 40).
  EXPECT_EQ(kv->window_head(), 6);
  EXPECT_EQ(kv->window_lo(), 29);
  EXPECT_EQ(kv->reusable_prefix(40), 40);
  EXPECT_EQ(kv->reusable_prefix(36), 36);  // its window [29, 36) is held
  EXPECT_EQ(kv->reusable_prefix(35), 6);   // [28, 35): row 28 was freed
  EXPECT_EQ(kv->reusable_prefix(5), 5);
  kv->truncate(36);
  EXPECT_EQ(kv->size(), 36);
  append(*kv, 10);  // positions 36..45 rewritten
  EXPECT_EQ(std::memcmp(kv->key_row(0, 45), row_values(0, 45, 0).data(), 16), 0);
  kv->truncate(20);  // into freed rows: back to the pinned prefix
  EXPECT_EQ(kv->size(), 6);
  EXPECT_EQ(kv->reusable_prefix(6), 6);
  append(*kv, 30);
  for (int32_t p = 29; p < 36; ++p)
    EXPECT_EQ(std::memcmp(kv->key_row(2, p), row_values(2, p, 0).data(), 16), 0);
}

TEST(KvWindowCache, NeverFreeingAndNoWindowKeepEveryBlock) {
  auto keep_all = KvCache::create(window_config(-1));
  KvCacheConfig plain_config = window_config(4);
  plain_config.windowed.clear();
  auto plain = KvCache::create(plain_config);
  ASSERT_TRUE(keep_all && plain);
  append(*keep_all, 50);
  append(*plain, 50);
  const uint64_t all_layers_block = 2 * 3 * 4 * 16;
  EXPECT_EQ(plain->allocated_bytes(), all_layers_block * 13);  // one group: as before
  EXPECT_EQ(plain->block_bytes(), all_layers_block);
  EXPECT_EQ(plain->blocks_in_use(), 13);
  EXPECT_EQ(keep_all->allocated_bytes(), all_layers_block * 13);  // two groups, same bytes
  EXPECT_EQ(keep_all->window_freed_bytes(), 0u);
  EXPECT_EQ(plain->used_bytes(), 50 * plain->bytes_per_token());
}

// Two caches hold the same: sizes, bytes, windowed ranges, and every layer's valid rows.
void expect_same_cache(const KvCache& a, const KvCache& b) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(a.capacity(), b.capacity());
  EXPECT_EQ(a.window_head(), b.window_head());
  EXPECT_EQ(a.window_lo(), b.window_lo());
  EXPECT_EQ(a.used_bytes(), b.used_bytes());
  EXPECT_EQ(a.allocated_bytes(), b.allocated_bytes());
  EXPECT_EQ(a.windowed_allocated_bytes(), b.windowed_allocated_bytes());
  EXPECT_EQ(a.window_freed_bytes(), b.window_freed_bytes());
  EXPECT_EQ(a.stable_rows(), b.stable_rows());
  const int32_t n = a.size();
  std::vector<uint8_t> ra(static_cast<size_t>(n) * std::max(a.row_bytes(0), a.row_bytes(1))),
      rb(ra.size());
  for (int32_t l = 0; l < a.config().n_layers; ++l) {
    for (int32_t p = 0; p < n; ++p) EXPECT_EQ(a.row_present(l, p), b.row_present(l, p)) << l;
    for (int32_t which : {0, 1}) {
      ASSERT_TRUE(a.export_valid_rows(l, which, 0, n, ra.data()));
      ASSERT_TRUE(b.export_valid_rows(l, which, 0, n, rb.data()));
      EXPECT_EQ(ra, rb) << "layer " << l << (which ? " V" : " K");
    }
  }
}

// Layers 0 and 2 windowed, split after layer k: the windowed layers on both sides free
// and take back their blocks exactly as one cache does, through appends, a pinned
// prefix, truncation into freed rows, a context shift and a set_size of imported rows.
TEST(KvWindowCache, SplitAtAnyLayerHoldsWhatOneCacheHolds) {
  for (int32_t k : {0, 1, 2}) {
    SCOPED_TRACE("memory_layers " + std::to_string(k));
    auto counting = std::make_shared<test::CountingKvMemory>();
    KvCacheConfig sc = window_config(4);
    sc.memory_layers = k;
    sc.memory = counting;
    auto split = KvCache::create(sc);
    auto plain = KvCache::create(window_config(4));
    ASSERT_TRUE(split && plain);
    // Layer 0 (windowed) and 1 (full): in the counting memory when below k.
    EXPECT_EQ(split->layer_group(0), k > 0 ? 1 : 3);
    EXPECT_EQ(split->layer_group(1), k > 1 ? 0 : 2);
    EXPECT_EQ(split->layer_group(2), 3);
    EXPECT_EQ(split->windowed_layers(), 2);
    const auto both = [&](const std::function<void(KvCache&)>& step) {
      step(*split);
      step(*plain);
      expect_same_cache(*split, *plain);
    };
    both([](KvCache& kv) { kv.pin_prefix(5); });
    for (int32_t i = 0; i < 30; ++i) both([](KvCache& kv) { append(kv, 1); });
    ASSERT_GT(split->window_freed_bytes(), 0u);
    // The windowed rows of layer 0 that are still held sit in the counting memory iff k > 0.
    EXPECT_EQ(counting->holds(split->key_row(0, 29), 16), k > 0);
    EXPECT_EQ(counting->holds(split->key_row(1, 0), 16), k > 1);
    EXPECT_FALSE(counting->holds(split->key_row(2, 29), 16));
    both([](KvCache& kv) { kv.mark_stable(); });
    both([](KvCache& kv) { kv.truncate(25); });  // its window is held
    both([](KvCache& kv) { append(kv, 3); });
    both([](KvCache& kv) { kv.truncate(12); });  // into freed rows: the pinned prefix
    both([](KvCache& kv) { append(kv, 40); });
    both([](KvCache& kv) {
      ASSERT_TRUE(kv.discard(5, 20, [](int32_t layer, uint8_t* rows, int32_t n) {
        float* f = reinterpret_cast<float*>(rows);
        for (int32_t i = 0; i < n * 4; ++i) f[i] += static_cast<float>(layer + 1);
      }));
    });
    both([](KvCache& kv) { append(kv, 9); });
    // A cache filled by import_rows: the windowed rows valid in [0, 3) and [20, 30).
    both([](KvCache& kv) {
      kv.truncate(0);
      ASSERT_TRUE(kv.reserve(30));
      for (int32_t l = 0; l < 3; ++l) {
        for (int32_t p = 0; p < 30; ++p) {
          if (kv.config().windowed[l] && p >= 3 && p < 20) continue;
          for (int32_t which : {0, 1}) {
            const std::vector<float> r = row_values(l, p, which);
            ASSERT_TRUE(kv.import_rows(l, which, p, 1, reinterpret_cast<const uint8_t*>(r.data())));
          }
        }
      }
      kv.set_size(30, 3, 20);
    });
  }
}

// ------------------------------------------------------------ sessions on gemma models

class KvWindowSession : public ::testing::Test {
 protected:
  void SetUp() override {
    auto spec = synthetic_arch_spec("gemma2");  // 3 layers, 0 and 2 windowed by 8
    ASSERT_TRUE(spec);
    ASSERT_TRUE(write_synthetic_model(dir_.file("g2.gguf"), *spec));
    auto m = Model::load(dir_.file("g2.gguf"));
    ASSERT_TRUE(m) << m.message();
    model_ = *m;
    ASSERT_EQ(model_->info().sliding_window, 8);
    ASSERT_EQ(model_->info().windowed_layers.size(), 2u);
  }
  std::unique_ptr<Session> session(int32_t slack, int32_t n_ctx = 256,
                                   ContextPolicy policy = ContextPolicy::Stop) {
    SessionOptions o;
    o.n_threads = 2;
    o.n_ctx = n_ctx;
    o.kv_block_tokens = 3;
    o.kv_chunk_blocks = 2;
    o.kv_window_slack = slack;
    o.kv_poison_freed = true;
    o.context_policy = policy;
    auto s = Session::create(model_, o);
    EXPECT_TRUE(s) << s.message();
    return s ? std::move(s.value()) : nullptr;
  }
  int32_t vocab() const { return model_->info().n_vocab; }

  test::TempDir dir_;
  std::shared_ptr<const Model> model_;
};

TEST_F(KvWindowSession, PrefillAndDecodePastTheWindowEqualANeverFreeingCacheBitForBit) {
  auto freeing = session(2), keeping = session(-1);
  ASSERT_TRUE(freeing && keeping);
  const auto prompt = test::test_ids(30, vocab());
  ASSERT_TRUE(freeing->eval(prompt));
  ASSERT_TRUE(keeping->eval(prompt));
  EXPECT_TRUE(test::bit_identical(freeing->last_logits(), keeping->last_logits()));
  const auto more = test::test_ids(60, vocab(), 1);
  const MemoryReport r0 = keeping->memory_report();
  const uint64_t row_pair = r0.kv_bytes_per_token / 3;  // K + V of one layer and token
  for (size_t i = 0; i < more.size(); ++i) {
    ASSERT_TRUE(freeing->eval({&more[i], 1}));
    ASSERT_TRUE(keeping->eval({&more[i], 1}));
    ASSERT_TRUE(test::bit_identical(freeing->last_logits(), keeping->last_logits()))
        << "step " << i;
    const int64_t n = freeing->n_past();
    const MemoryReport r = freeing->memory_report();
    // By hand: 1 full layer x all blocks + 2 windowed layers x the blocks from
    // (n - 7 - 2) on, 3 tokens a block.
    const int64_t first_kept = std::max<int64_t>(0, n - 7 - 2);
    const int64_t windowed_blocks = ceil_div(n, 3) - first_kept / 3;
    EXPECT_EQ(r.kv_allocated_bytes, row_pair * 3 * (ceil_div(n, 3) + 2 * windowed_blocks)) << n;
    EXPECT_EQ(r.kv_windowed_allocated_bytes, row_pair * 3 * 2 * windowed_blocks);
    EXPECT_EQ(r.kv_window_freed_bytes, row_pair * 3 * 2 * (first_kept / 3));
    EXPECT_EQ(r.kv_used_bytes, row_pair * (n + 2 * (n - first_kept)));
    EXPECT_EQ(r.kv_bytes_without_window(), row_pair * 3 * n);
    EXPECT_EQ(r.kv_window, 8);
    EXPECT_EQ(r.kv_windowed_layers, 2);
  }
  const MemoryReport k = keeping->memory_report();
  EXPECT_EQ(k.kv_allocated_bytes, row_pair * 3 * 3 * ceil_div(90, 3));
  EXPECT_EQ(k.kv_window_freed_bytes, 0u);
  EXPECT_EQ(freeing->tokens_evaluated(), keeping->tokens_evaluated());
}

TEST_F(KvWindowSession, RegenerateWithinTheSlackReusesBeyondItReevaluatesIdentically) {
  auto freeing = session(6), keeping = session(-1);
  ASSERT_TRUE(freeing && keeping);
  std::vector<TokenId> seq = test::test_ids(70, vocab());
  ASSERT_TRUE(freeing->eval(seq));
  ASSERT_TRUE(keeping->eval(seq));
  // Regenerate the last 5 tokens: windowed rows [70 - 7 - 6, 70) = [57, 70) are held, and
  // position 65 reads [58, 65].
  std::vector<TokenId> edit(seq.begin(), seq.begin() + 65);
  for (TokenId t : test::test_ids(5, vocab(), 2)) edit.push_back(t);
  auto a = freeing->eval_sequence(edit);
  auto b = keeping->eval_sequence(edit);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, 5);
  EXPECT_EQ(*b, 5);
  EXPECT_TRUE(test::bit_identical(freeing->last_logits(), keeping->last_logits()));
  // Edit at 30: the windowed rows there were freed, so everything is evaluated again.
  std::vector<TokenId> far(edit.begin(), edit.begin() + 30);
  for (TokenId t : test::test_ids(12, vocab(), 3)) far.push_back(t);
  auto c = freeing->eval_sequence(far);
  auto d = keeping->eval_sequence(far);
  ASSERT_TRUE(c && d);
  EXPECT_EQ(*c, 42);
  EXPECT_EQ(*d, 12);
  EXPECT_EQ(freeing->n_past(), 42);
  EXPECT_EQ(freeing->kv_tokens(), 42);
  // Equal to a fresh evaluation of the same sequence (the same batch from 0).
  auto fresh = session(6);
  ASSERT_TRUE(fresh->eval(far));
  EXPECT_TRUE(test::bit_identical(freeing->last_logits(), fresh->last_logits()));
  EXPECT_EQ(freeing->memory_report().kv_allocated_bytes, fresh->memory_report().kv_allocated_bytes);
  // A plain truncate into freed rows keeps the tokens; the next eval re-evaluates them.
  for (TokenId t : test::test_ids(30, vocab(), 4)) ASSERT_TRUE(freeing->eval({&t, 1}));
  freeing->truncate(40);
  EXPECT_EQ(freeing->n_past(), 40);
  EXPECT_EQ(freeing->kv_tokens(), 0);
  const TokenId next = 5;
  std::vector<float> all;
  ASSERT_TRUE(freeing->eval({&next, 1}, &all));
  EXPECT_EQ(all.size(), static_cast<size_t>(vocab()));
  std::vector<TokenId> expect(freeing->tokens());
  auto again = session(6);
  ASSERT_TRUE(again->eval(expect));
  EXPECT_TRUE(test::bit_identical(freeing->last_logits(), again->last_logits()));
  EXPECT_TRUE(test::bit_identical(all, again->last_logits()));
}

TEST_F(KvWindowSession, SnapshotOfFreedRowsRestoresAndContinuesBitForBit) {
  auto a = session(2);
  ASSERT_TRUE(a);
  a->set_keep(4);
  ASSERT_TRUE(a->eval(test::test_ids(50, vocab())));
  const MemoryReport before = a->memory_report();
  ASSERT_GT(before.kv_window_freed_bytes, 0u);
  const std::string path = dir_.file("w.kvsnap");
  ASSERT_TRUE(a->save_snapshot(path));
  auto b = session(2);
  ASSERT_TRUE(b);
  const Status loaded = b->load_snapshot(path);
  ASSERT_TRUE(loaded) << loaded.message();
  EXPECT_EQ(b->tokens_evaluated(), 0u);
  EXPECT_TRUE(test::bit_identical(a->last_logits(), b->last_logits()));
  const MemoryReport after = b->memory_report();
  EXPECT_EQ(after.kv_allocated_bytes, before.kv_allocated_bytes);
  EXPECT_EQ(after.kv_used_bytes, before.kv_used_bytes);
  EXPECT_EQ(after.kv_window_freed_bytes, before.kv_window_freed_bytes);
  for (TokenId t : test::test_ids(20, vocab(), 5)) {
    ASSERT_TRUE(a->eval({&t, 1}));
    ASSERT_TRUE(b->eval({&t, 1}));
    ASSERT_TRUE(test::bit_identical(a->last_logits(), b->last_logits()));
  }
  // The pinned prefix came back too: truncating into freed rows keeps it.
  b->truncate(20);
  EXPECT_EQ(b->kv_tokens(), 4);
}

// A journal appended while the window frees rows (some of the appended ones already
// freed when saved): the restored cache frees the same blocks and continues bit for bit.
TEST_F(KvWindowSession, AppendedSnapshotAcrossFreedRowsRestoresAndContinuesBitForBit) {
  auto a = session(2);
  ASSERT_TRUE(a);
  a->set_keep(4);
  ASSERT_TRUE(a->eval(test::test_ids(30, vocab())));
  const std::string path = dir_.file("w.kvsnap");
  ASSERT_TRUE(a->save_snapshot(path));
  for (TokenId t : test::test_ids(25, vocab(), 3)) ASSERT_TRUE(a->eval({&t, 1}));
  ASSERT_TRUE(a->save_snapshot(path));
  ASSERT_FALSE(a->last_snapshot_save().rewritten) << a->last_snapshot_save().why_rewritten;
  EXPECT_EQ(a->last_snapshot_save().tokens_written, 25);
  auto b = session(2);
  ASSERT_TRUE(b);
  const Status loaded = b->load_snapshot(path);
  ASSERT_TRUE(loaded) << loaded.message();
  EXPECT_EQ(b->last_snapshot_load().records, 2);
  EXPECT_EQ(b->tokens_evaluated(), 0u);
  EXPECT_TRUE(test::bit_identical(a->last_logits(), b->last_logits()));
  EXPECT_EQ(b->memory_report().kv_allocated_bytes, a->memory_report().kv_allocated_bytes);
  EXPECT_EQ(b->memory_report().kv_window_freed_bytes, a->memory_report().kv_window_freed_bytes);
  for (TokenId t : test::test_ids(20, vocab(), 7)) {
    ASSERT_TRUE(a->eval({&t, 1}));
    ASSERT_TRUE(b->eval({&t, 1}));
    ASSERT_TRUE(test::bit_identical(a->last_logits(), b->last_logits()));
  }
}

TEST_F(KvWindowSession, KvTypeChangeWithFreedRowsEqualsANeverFreeingCache) {
  auto freeing = session(1), keeping = session(-1);
  ASSERT_TRUE(freeing && keeping);
  ASSERT_TRUE(freeing->eval(test::test_ids(40, vocab())));
  ASSERT_TRUE(keeping->eval(test::test_ids(40, vocab())));
  ASSERT_TRUE(freeing->set_kv_type("q8_0"));
  ASSERT_TRUE(keeping->set_kv_type("q8_0"));
  EXPECT_GT(freeing->memory_report().kv_window_freed_bytes, 0u);
  for (TokenId t : test::test_ids(20, vocab(), 6)) {
    ASSERT_TRUE(freeing->eval({&t, 1}));
    ASSERT_TRUE(keeping->eval({&t, 1}));
    ASSERT_TRUE(test::bit_identical(freeing->last_logits(), keeping->last_logits()));
  }
}

TEST_F(KvWindowSession, ShiftPastTheWindowEqualsANeverFreeingCacheWithoutReevaluation) {
  auto freeing = session(2, 48, ContextPolicy::Shift),
       keeping = session(-1, 48, ContextPolicy::Shift);
  ASSERT_TRUE(freeing && keeping);
  const auto system = test::test_ids(5, vocab(), 7);
  ASSERT_TRUE(freeing->eval(system));
  ASSERT_TRUE(keeping->eval(system));
  freeing->set_keep(5);
  keeping->set_keep(5);
  int shifts = 0;
  freeing->set_event_handler(
      [&](const SessionEvent& e) { shifts += e.kind == SessionEvent::Kind::ContextShifted; });
  for (TokenId t : test::test_ids(150, vocab(), 8)) {
    ASSERT_TRUE(freeing->eval({&t, 1}));
    ASSERT_TRUE(keeping->eval({&t, 1}));
    ASSERT_TRUE(test::bit_identical(freeing->last_logits(), keeping->last_logits()))
        << freeing->n_past();
    ASSERT_EQ(freeing->kv_tokens(), freeing->n_past());
  }
  EXPECT_GE(shifts, 3);
  EXPECT_EQ(freeing->tokens_evaluated(), keeping->tokens_evaluated());  // nothing re-evaluated
  EXPECT_EQ(freeing->tokens(), keeping->tokens());
  EXPECT_GT(freeing->memory_report().kv_window_freed_bytes, 0u);
}

TEST_F(KvWindowSession, SinkWindowPastTheWindowEqualsANeverFreeingCacheWithoutReevaluation) {
  // No system prompt: the 4 sinks alone are kept, their windowed rows pinned although the
  // windowed layers never attend to them again; the windowed layers hold their window.
  auto freeing = session(2, 48, ContextPolicy::SinkWindow),
       keeping = session(-1, 48, ContextPolicy::SinkWindow);
  ASSERT_TRUE(freeing && keeping);
  int slides = 0;
  freeing->set_event_handler([&](const SessionEvent& e) {
    slides += e.kind == SessionEvent::Kind::ContextShifted;
    EXPECT_EQ(e.tokens_reevaluated, 0);
  });
  const auto tokens = test::test_ids(150, vocab(), 11);
  for (TokenId t : tokens) {
    ASSERT_TRUE(freeing->eval({&t, 1}));
    ASSERT_TRUE(keeping->eval({&t, 1}));
    ASSERT_TRUE(test::bit_identical(freeing->last_logits(), keeping->last_logits()))
        << freeing->n_past();
    ASSERT_EQ(freeing->kv_tokens(), freeing->n_past());
  }
  EXPECT_GE(slides, 30);                         // one block of 3 tokens at a time
  EXPECT_EQ(freeing->tokens_evaluated(), 150u);  // nothing re-evaluated
  EXPECT_EQ(freeing->tokens(), keeping->tokens());
  EXPECT_EQ(std::vector<TokenId>(freeing->tokens().begin(), freeing->tokens().begin() + 4),
            std::vector<TokenId>(tokens.begin(), tokens.begin() + 4));
  // The windowed layers' accounting: of the 48-token context they hold the sinks' blocks
  // and the window with its slack, the rest was returned to the pool.
  const MemoryReport r = freeing->memory_report();
  EXPECT_EQ(r.kv_windowed_layers, 2);
  EXPECT_EQ(r.kv_window, 8);
  EXPECT_GT(r.kv_window_freed_bytes, 0u);
  EXPECT_LT(r.kv_used_bytes, keeping->memory_report().kv_used_bytes);
}

TEST_F(KvWindowSession, DropOldestPastTheWindowEqualsANeverFreeingCache) {
  auto freeing = session(2, 48, ContextPolicy::DropOldest),
       keeping = session(-1, 48, ContextPolicy::DropOldest);
  ASSERT_TRUE(freeing && keeping);
  const auto system = test::test_ids(5, vocab(), 9);
  ASSERT_TRUE(freeing->eval(system));
  ASSERT_TRUE(keeping->eval(system));
  freeing->set_keep(5);
  keeping->set_keep(5);
  int drops = 0;
  freeing->set_event_handler(
      [&](const SessionEvent& e) { drops += e.kind == SessionEvent::Kind::TurnsDropped; });
  for (int turn = 0; turn < 12; ++turn) {
    freeing->mark_turn();
    keeping->mark_turn();
    for (TokenId t : test::test_ids(9, vocab(), 10 + turn)) {
      ASSERT_TRUE(freeing->eval({&t, 1}));
      ASSERT_TRUE(keeping->eval({&t, 1}));
      ASSERT_TRUE(test::bit_identical(freeing->last_logits(), keeping->last_logits())) << turn;
    }
  }
  EXPECT_GE(drops, 2);
  EXPECT_EQ(freeing->tokens_evaluated(),
            keeping->tokens_evaluated());  // the system prompt stayed cached
  EXPECT_EQ(freeing->tokens(), keeping->tokens());
}

TEST_F(KvWindowSession, Gemma3FiveWindowedLayersOfSix) {
  auto spec = synthetic_arch_spec("gemma3");
  ASSERT_TRUE(spec);
  ASSERT_TRUE(write_synthetic_model(dir_.file("g3.gguf"), *spec));
  auto m = Model::load(dir_.file("g3.gguf"));
  ASSERT_TRUE(m);
  SessionOptions o;
  o.n_threads = 2;
  o.n_ctx = 128;
  o.kv_block_tokens = 4;
  o.kv_window_slack = 0;
  o.kv_poison_freed = true;
  auto freeing = Session::create(*m, o);
  o.kv_window_slack = -1;
  auto keeping = Session::create(*m, o);
  ASSERT_TRUE(freeing && keeping);
  const auto seq = test::test_ids(64, (*m)->info().n_vocab);
  ASSERT_TRUE((*freeing)->eval({seq.data(), 20}));
  ASSERT_TRUE((*keeping)->eval({seq.data(), 20}));
  for (size_t i = 20; i < seq.size(); ++i) {
    ASSERT_TRUE((*freeing)->eval({&seq[i], 1}));
    ASSERT_TRUE((*keeping)->eval({&seq[i], 1}));
    ASSERT_TRUE(test::bit_identical((*freeing)->last_logits(), (*keeping)->last_logits())) << i;
  }
  const MemoryReport r = (*freeing)->memory_report();
  const uint64_t row_pair = r.kv_bytes_per_token / 6;
  // 64 tokens: 1 full layer x 16 blocks, 5 windowed layers x blocks from 64 - 7 = 57 on.
  EXPECT_EQ(r.kv_allocated_bytes, row_pair * 4 * (16 + 5 * (16 - 57 / 4)));
  EXPECT_EQ(r.kv_windowed_layers, 5);
}

TEST(KvWindowLlama, AllocationIsUnchanged) {
  test::TempDir dir;
  auto spec = synthetic_arch_spec("llama");
  ASSERT_TRUE(spec);
  ASSERT_TRUE(write_synthetic_model(dir.file("l.gguf"), *spec));
  auto m = Model::load(dir.file("l.gguf"));
  ASSERT_TRUE(m);
  SessionOptions o;
  o.n_threads = 2;
  o.n_ctx = 128;
  o.kv_block_tokens = 4;
  auto s = Session::create(*m, o);
  ASSERT_TRUE(s);
  ASSERT_TRUE((*s)->eval(test::test_ids(50, (*m)->info().n_vocab)));
  const MemoryReport r = (*s)->memory_report();
  const ModelInfo& info = (*m)->info();
  const uint64_t row =
      kv_bytes(KvType::F16, static_cast<uint64_t>(info.n_kv_heads) * info.head_dim);
  EXPECT_EQ(r.kv_allocated_bytes, 2ull * info.n_layers * 4 * row * 13);  // 13 blocks of all layers
  EXPECT_EQ(r.kv_blocks, 13);
  EXPECT_EQ(r.kv_used_bytes, 2ull * info.n_layers * row * 50);
  EXPECT_EQ(r.kv_window, 0);
  EXPECT_EQ(r.kv_windowed_allocated_bytes, 0u);
  EXPECT_EQ(r.kv_window_freed_bytes, 0u);
}

}  // namespace
}  // namespace kvchat
