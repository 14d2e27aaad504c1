// The KV cache: grows block by block as tokens arrive, never reserves the context up
// front, accounts bytes exactly, and gives the same logits however the tokens arrive.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <functional>
#include <string>

#include "kv/kv_cache.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "support/counting_kv_memory.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

KvCacheConfig small_config(KvType type = KvType::F32, int32_t chunk_blocks = 1) {
  KvCacheConfig c;
  c.n_layers = 3;
  c.n_kv_heads = 2;
  c.head_dim = 32;
  c.max_tokens = 100;
  c.block_tokens = 16;
  c.chunk_blocks = chunk_blocks;
  c.type = type;
  return c;
}

KvCache make_cache(const KvCacheConfig& c) {
  auto kv = KvCache::create(c);
  EXPECT_TRUE(kv) << kv.message();
  return std::move(kv.value());
}

TEST(KvCache, GrowsInBlocksOnDemand) {
  KvCache kv = make_cache(small_config());
  EXPECT_EQ(kv.allocated_bytes(), 0u);  // nothing reserved before the first token
  EXPECT_EQ(kv.pool_bytes(), 0u);
  EXPECT_EQ(kv.bytes_per_token(), 2u * 3 * 2 * 32 * 4);
  ASSERT_TRUE(kv.reserve(1));
  EXPECT_EQ(kv.blocks_in_use(), 1);
  EXPECT_EQ(kv.capacity(), 16);
  ASSERT_TRUE(kv.reserve(16));
  EXPECT_EQ(kv.blocks_in_use(), 1);
  ASSERT_TRUE(kv.reserve(17));
  EXPECT_EQ(kv.blocks_in_use(), 2);
  EXPECT_EQ(kv.allocated_bytes(), 2 * 16 * kv.bytes_per_token());
  kv.set_size(17);
  EXPECT_EQ(kv.used_bytes(), 17 * kv.bytes_per_token());
}

TEST(KvCache, PoolGrowsInChunks) {
  KvCache kv = make_cache(small_config(KvType::F16, 4));
  ASSERT_TRUE(kv.reserve(1));
  EXPECT_EQ(kv.blocks_in_use(), 1);
  EXPECT_EQ(kv.pool_bytes(), 4 * kv.block_bytes());  // one chunk of 4 blocks
  EXPECT_EQ(kv.free_blocks(), 3);
  ASSERT_TRUE(kv.reserve(65));  // 5 blocks: a second chunk
  EXPECT_EQ(kv.pool_bytes(), 8 * kv.block_bytes());
  EXPECT_EQ(kv.free_blocks(), 3);
}

TEST(KvCache, BytesPerTokenFollowsTheFormulaForEveryType) {
  // 2 x 3 layers x (2 heads x 32 head_dim) values x bytes per value; q8_0 34/32, q4_0 18/32.
  const uint64_t values = 2 * 3 * 64;
  EXPECT_EQ(make_cache(small_config(KvType::F32)).bytes_per_token(), values * 4);
  EXPECT_EQ(make_cache(small_config(KvType::F16)).bytes_per_token(), values * 2);
  EXPECT_EQ(make_cache(small_config(KvType::Q8_0)).bytes_per_token(), values / 32 * 34);
  EXPECT_EQ(make_cache(small_config(KvType::Q4_0)).bytes_per_token(), values / 32 * 18);
  KvCacheConfig odd = small_config(KvType::Q8_0);
  odd.head_dim = 48;
  auto bad = KvCache::create(odd);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("multiple of 32"), std::string::npos);
}

TEST(KvCache, RowsOfDifferentPositionsAndLayersDoNotAlias) {
  KvCache kv = make_cache(small_config());
  ASSERT_TRUE(kv.reserve(40));
  const int32_t kv_dim = kv.config().kv_dim();
  std::vector<float> row(kv_dim), back(kv_dim);
  auto fill = [&](int32_t l, int32_t p, float sign) {
    for (int32_t i = 0; i < kv_dim; ++i)
      row[i] = sign * static_cast<float>(l * 100000 + p * 100 + i);
  };
  for (int32_t l = 0; l < 3; ++l)
    for (int32_t p = 0; p < 40; ++p) {
      fill(l, p, 1);
      kv.write_key(l, p, row.data());
      fill(l, p, -1);
      kv.write_value(l, p, row.data());
    }
  for (int32_t l = 0; l < 3; ++l)
    for (int32_t p = 0; p < 40; ++p) {
      fill(l, p, 1);
      ASSERT_TRUE(kv.export_rows(l, 0, p, 1, reinterpret_cast<uint8_t*>(back.data())));
      ASSERT_EQ(back, row);
      fill(l, p, -1);
      ASSERT_TRUE(kv.export_rows(l, 1, p, 1, reinterpret_cast<uint8_t*>(back.data())));
      ASSERT_EQ(back, row);
    }
}

// A memory the host may not dereference (as the CUDA backend's): the cache moves rows
// only through its copies, one per run of rows inside a block, and allocation failures
// are reported with the memory's own message.
class CopyOnlyMemory final : public KvMemory {
 public:
  std::string_view name() const override { return "copy-only"; }
  bool host_accessible() const override { return false; }
  Result<uint8_t*> allocate(uint64_t bytes) override {
    if (fail_next) return Error{"device full"};
    chunks.emplace_back(bytes);
    return chunks.back().data();
  }
  void release(uint8_t*) override { ++released; }
  Status to_host(void* dst, const uint8_t* src, uint64_t bytes) const override {
    ++copies;
    std::memcpy(dst, src, bytes);
    return {};
  }
  Status from_host(uint8_t* dst, const void* src, uint64_t bytes) override {
    ++copies;
    std::memcpy(dst, src, bytes);
    return {};
  }
  std::deque<std::vector<uint8_t>> chunks;
  mutable int copies = 0;
  int released = 0;
  bool fail_next = false;
};

TEST(KvCache, RowsMoveThroughTheMemorysCopiesBlockByBlock) {
  auto memory = std::make_shared<CopyOnlyMemory>();
  KvCacheConfig c = small_config(KvType::Q8_0, 2);
  c.memory = memory;
  {
    KvCache kv = make_cache(c);
    EXPECT_FALSE(kv.host_accessible());
    ASSERT_TRUE(kv.reserve(50));  // 4 blocks of 16
    const int32_t n = 45, pos0 = 3;
    std::vector<uint8_t> rows(n * kv.row_bytes(0)), back(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<uint8_t>(i * 131 + 7);
    memory->copies = 0;
    ASSERT_TRUE(kv.import_rows(2, 1, pos0, n, rows.data()));
    EXPECT_EQ(memory->copies, 3);  // positions 3..47 lie in blocks 0, 1, 2
    ASSERT_TRUE(kv.export_rows(2, 1, pos0, n, back.data()));
    EXPECT_EQ(back, rows);
    // The K rows of that layer and the V rows of other layers are elsewhere.
    ASSERT_TRUE(kv.export_rows(2, 0, pos0, n, back.data()));
    EXPECT_NE(back, rows);
    memory->fail_next = true;
    auto s = kv.reserve(100);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("device full"), std::string::npos) << s.message();
    EXPECT_EQ(kv.capacity(), 64);  // unchanged
  }
  EXPECT_EQ(memory->released, 2);  // both chunks of 2 blocks returned with the cache
}

TEST(KvCache, TruncateFreesBlocksAndReusesThem) {
  KvCache kv = make_cache(small_config());
  ASSERT_TRUE(kv.reserve(48));
  kv.set_size(48);
  EXPECT_EQ(kv.blocks_in_use(), 3);
  const uint64_t pool = kv.pool_bytes();
  kv.truncate(10);
  EXPECT_EQ(kv.size(), 10);
  EXPECT_EQ(kv.blocks_in_use(), 1);
  EXPECT_EQ(kv.allocated_bytes(), kv.block_bytes());
  EXPECT_EQ(kv.free_blocks(), 2);
  ASSERT_TRUE(kv.reserve(48));
  EXPECT_EQ(kv.pool_bytes(), pool);  // the freed blocks came back, nothing new allocated
  EXPECT_EQ(kv.peak_allocated_bytes(), 3 * kv.block_bytes());
}

TEST(KvCache, RefusesToGrowPastTheContextOrTheBudget) {
  KvCache kv = make_cache(small_config());
  ASSERT_TRUE(kv.reserve(100));
  auto s = kv.reserve(101);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("context is full"), std::string::npos);
  EXPECT_EQ(kv.capacity(), 112);  // unchanged by the refusal (7 blocks of 16)

  KvCacheConfig c = small_config();
  c.budget_bytes = 2 * 2 * 3 * 16 * 64 * 4;  // exactly two blocks
  KvCache small = make_cache(c);
  ASSERT_TRUE(small.reserve(32));
  auto full = small.reserve(33);
  ASSERT_FALSE(full);
  EXPECT_NE(full.message().find("budget"), std::string::npos);
  EXPECT_EQ(small.blocks_in_use(), 2);  // the failed grow left nothing behind
  EXPECT_EQ(small.pool_bytes(), c.budget_bytes);
}

// ------------------------------------------------------------ a cache split at a layer

// 5 layers, rows of 2 x 32 f32 values, blocks of 4 tokens.
KvCacheConfig split_config(int32_t memory_layers, std::shared_ptr<KvMemory> memory) {
  KvCacheConfig c = small_config(KvType::F32, 1);
  c.n_layers = 5;
  c.block_tokens = 4;
  c.memory_layers = memory_layers;
  c.memory = std::move(memory);
  return c;
}

// The value i of the K (which = 0) or V row of (layer, pos): names all three.
float row_value(int32_t l, int32_t pos, int32_t which, int32_t i) {
  return static_cast<float>((which ? -1 : 1) * (l * 100000 + pos * 100 + i));
}

void write_rows(KvCache& kv, int32_t pos0, int32_t pos1) {
  const int32_t kv_dim = kv.config().kv_dim();
  for (int32_t l = 0; l < kv.config().n_layers; ++l) {
    for (int32_t p = pos0; p < pos1; ++p) {
      float* k = reinterpret_cast<float*>(kv.key_row(l, p));
      float* v = reinterpret_cast<float*>(kv.value_row(l, p));
      for (int32_t i = 0; i < kv_dim; ++i) {
        k[i] = row_value(l, p, 0, i);
        v[i] = row_value(l, p, 1, i);
      }
    }
  }
}

// Every layer's K and V rows [0, size()) of a and b, compared through export_rows.
void expect_same_rows(const KvCache& a, const KvCache& b) {
  ASSERT_EQ(a.size(), b.size());
  const size_t bytes = static_cast<size_t>(a.size()) * a.row_bytes(0);
  std::vector<uint8_t> ra(bytes), rb(bytes);
  for (int32_t l = 0; l < a.config().n_layers; ++l) {
    for (int32_t which : {0, 1}) {
      ASSERT_TRUE(a.export_rows(l, which, 0, a.size(), ra.data()));
      ASSERT_TRUE(b.export_rows(l, which, 0, b.size(), rb.data()));
      EXPECT_EQ(ra, rb) << "layer " << l << (which ? " V" : " K");
    }
  }
}

TEST(KvCacheSplit, RowsReadBackAndLiveOnTheirSideOfTheSplit) {
  for (int32_t k : {-1, 0, 1, 2, 4, 5, 9}) {
    SCOPED_TRACE("memory_layers " + std::to_string(k));
    auto counting = std::make_shared<test::CountingKvMemory>();
    KvCache kv = make_cache(split_config(k, counting));
    const int32_t in_memory = k < 0 || k >= 5 ? 5 : k;  // layers in the counting memory
    EXPECT_EQ(kv.memory_layers(), in_memory);
    ASSERT_TRUE(kv.reserve(10));  // 3 token blocks
    write_rows(kv, 0, 10);
    kv.set_size(10);
    const uint64_t row = kv.row_bytes(0);
    for (int32_t l = 0; l < 5; ++l) {
      const bool device_side = l < in_memory;
      EXPECT_EQ(kv.layer_group(l), device_side ? 0 : 2) << l;
      EXPECT_EQ(kv.layer_index(l), device_side ? l : l - in_memory) << l;
      EXPECT_TRUE(kv.layer_on_host(l));
      for (int32_t p = 0; p < 10; ++p) {
        EXPECT_EQ(counting->holds(kv.key_row(l, p), row), device_side) << l << " " << p;
        EXPECT_EQ(counting->holds(kv.value_row(l, p), row), device_side) << l << " " << p;
        const float* key = reinterpret_cast<const float*>(kv.key_row(l, p));
        const float* value = reinterpret_cast<const float*>(kv.value_row(l, p));
        for (int32_t i = 0; i < kv.config().kv_dim(); ++i) {
          ASSERT_EQ(key[i], row_value(l, p, 0, i)) << l << " " << p << " " << i;
          ASSERT_EQ(value[i], row_value(l, p, 1, i)) << l << " " << p << " " << i;
        }
      }
    }
    EXPECT_EQ(kv.group_layers(0), in_memory);
    EXPECT_EQ(kv.group_layers(2), 5 - in_memory);
    // The counting memory holds 3 blocks of the first layers: 2 x layers x 4 tokens x row.
    EXPECT_EQ(counting->live_bytes, 3ull * 2 * in_memory * 4 * row);
    EXPECT_EQ(kv.allocated_bytes(), 3ull * 2 * 5 * 4 * row);  // as an unsplit cache
    EXPECT_EQ(kv.block_bytes(), 2ull * 5 * 4 * row);
    EXPECT_EQ(kv.allocated_bytes_on(true), kv.allocated_bytes());  // both sides host memory
    EXPECT_TRUE(kv.host_accessible());
    for (int32_t b = 0; b < 3; ++b) {
      EXPECT_EQ(kv.group_block(0, b) != nullptr, in_memory > 0) << b;
      EXPECT_EQ(kv.group_block(1, b), nullptr);  // no windowed layers
    }
  }
}

TEST(KvCacheSplit, DeviceSideCountsApartAndOnlyTheHostSideIsReadInPlace) {
  auto device = std::make_shared<CopyOnlyMemory>();
  KvCache kv = make_cache(split_config(2, device));
  ASSERT_TRUE(kv.reserve(9));  // 3 token blocks
  const uint64_t row = kv.row_bytes(0);
  EXPECT_FALSE(kv.host_accessible());
  for (int32_t l = 0; l < 5; ++l) EXPECT_EQ(kv.layer_on_host(l), l >= 2) << l;
  EXPECT_EQ(kv.allocated_bytes_on(false), 3ull * 2 * 2 * 4 * row);  // layers 0, 1
  EXPECT_EQ(kv.allocated_bytes_on(true), 3ull * 2 * 3 * 4 * row);   // layers 2, 3, 4
  EXPECT_EQ(kv.pool_bytes_on(false) + kv.pool_bytes_on(true), kv.pool_bytes());
  EXPECT_EQ(kv.allocated_bytes(), 3ull * 2 * 5 * 4 * row);
  // Rows of every layer still move through export_rows / import_rows.
  std::vector<float> rows(9 * kv.config().kv_dim()), back(rows.size());
  for (int32_t l = 0; l < 5; ++l) {
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<float>(l * 1000 + i);
    ASSERT_TRUE(kv.import_rows(l, 1, 0, 9, reinterpret_cast<const uint8_t*>(rows.data())));
  }
  for (int32_t l = 0; l < 5; ++l) {
    for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<float>(l * 1000 + i);
    ASSERT_TRUE(kv.export_rows(l, 1, 0, 9, reinterpret_cast<uint8_t*>(back.data())));
    EXPECT_EQ(back, rows) << l;
  }
}

TEST(KvCacheSplit, ReserveTruncateAndDiscardMatchAnUnsplitCache) {
  for (int32_t k : {0, 1, 3, 4}) {
    SCOPED_TRACE("memory_layers " + std::to_string(k));
    auto counting = std::make_shared<test::CountingKvMemory>();
    KvCache split = make_cache(split_config(k, counting));
    KvCache plain = make_cache(split_config(-1, nullptr));
    const auto both = [&](const std::function<void(KvCache&)>& step) {
      step(split);
      step(plain);
      EXPECT_EQ(split.size(), plain.size());
      EXPECT_EQ(split.capacity(), plain.capacity());
      EXPECT_EQ(split.used_bytes(), plain.used_bytes());
      EXPECT_EQ(split.allocated_bytes(), plain.allocated_bytes());
      EXPECT_EQ(split.pool_bytes(), plain.pool_bytes());
      EXPECT_EQ(split.stable_rows(), plain.stable_rows());
      // Groups 0 and 2 grow together (chunks of one block): the counting memory holds the
      // first k layers' share of every pool block.
      EXPECT_EQ(counting->live_bytes,
                split.pool_bytes() / split.block_bytes() * split.group_block_bytes(0));
      expect_same_rows(split, plain);
    };
    const auto append = [](int32_t n) {
      return [n](KvCache& kv) {
        const int32_t pos0 = kv.size();
        ASSERT_TRUE(kv.reserve(pos0 + n));
        write_rows(kv, pos0, pos0 + n);
        kv.set_size(pos0 + n);
      };
    };
    both(append(7));
    both([](KvCache& kv) { kv.mark_stable(); });
    both(append(13));
    both([](KvCache& kv) { kv.truncate(9); });
    both(append(1));
    // Context shift: drop [3, 8), re-keying every layer's keys by a function of the layer.
    both([](KvCache& kv) {
      ASSERT_TRUE(kv.discard(3, 5, [](int32_t layer, uint8_t* rows, int32_t n) {
        float* f = reinterpret_cast<float*>(rows);
        for (int32_t i = 0; i < n * 64; ++i) f[i] = f[i] * 2 + static_cast<float>(layer);
      }));
    });
    both(append(22));
    both([](KvCache& kv) { kv.truncate(0); });
    both(append(5));
  }
}

TEST(KvCacheSplit, ABudgetFailureLeavesBothSidesUnchanged) {
  for (int32_t k : {1, 3}) {
    SCOPED_TRACE("memory_layers " + std::to_string(k));
    auto counting = std::make_shared<test::CountingKvMemory>();
    KvCacheConfig c = split_config(k, counting);
    const uint64_t row = 2 * 32 * sizeof(float);
    const uint64_t device_block = 2ull * k * 4 * row, host_block = 2ull * (5 - k) * 4 * row;
    // Room for two token blocks and one more device block: the third token block's device
    // block fits, its host block does not.
    c.budget_bytes = 2 * (device_block + host_block) + device_block;
    KvCache kv = make_cache(c);
    ASSERT_TRUE(kv.reserve(8));
    write_rows(kv, 0, 8);
    kv.set_size(8);
    const std::vector<uint8_t> before_rows = [&] {
      std::vector<uint8_t> r(8 * kv.row_bytes(0));
      EXPECT_TRUE(kv.export_rows(k, 0, 0, 8, r.data()));
      return r;
    }();
    const int allocations = counting->allocations;
    const uint64_t device_bytes = counting->live_bytes;
    const uint64_t host_pool = kv.pool_bytes_on(true) - device_bytes;

    auto s = kv.reserve(9);
    ASSERT_FALSE(s);
    EXPECT_NE(s.message().find("budget"), std::string::npos) << s.message();
    EXPECT_EQ(kv.capacity(), 8);
    EXPECT_EQ(kv.token_blocks(), 2);
    EXPECT_EQ(kv.blocks_in_use(), 4);  // two per token block
    EXPECT_EQ(kv.free_blocks(), 0);
    EXPECT_EQ(counting->allocations, allocations + 1);  // it grew for the device block ...
    EXPECT_EQ(counting->live_bytes, device_bytes);      // ... and gave it back
    EXPECT_EQ(kv.pool_bytes_on(true) - counting->live_bytes, host_pool);
    EXPECT_EQ(kv.pool_bytes(), 2 * (device_block + host_block));
    std::vector<uint8_t> after_rows(before_rows.size());
    ASSERT_TRUE(kv.export_rows(k, 0, 0, 8, after_rows.data()));
    EXPECT_EQ(after_rows, before_rows);
    // What fits still does.
    ASSERT_TRUE(kv.reserve(8));
  }
}

class SessionKv : public ::testing::Test {
 protected:
  void SetUp() override {
    auto m = Model::load(test::shared_path("models/kjv-demo-f32.gguf"));
    ASSERT_TRUE(m) << m.message();
    model_ = *m;
  }
  std::shared_ptr<const Model> model_;
};

TEST_F(SessionKv, MemoryReportFollowsTheFormulaExactly) {
  SessionOptions so;
  so.kv_type = "f32";
  auto s = Session::create(model_, so);
  ASSERT_TRUE(s);
  MemoryReport r0 = (*s)->memory_report();
  EXPECT_EQ(r0.kv_allocated_bytes, 0u);
  EXPECT_EQ(r0.kv_max_tokens, 512);
  std::vector<TokenId> ids =
      model_->tokenizer().encode("Genesis 1\n1 In the beginning God created", true);
  ASSERT_TRUE((*s)->eval(ids));
  const MemoryReport r = (*s)->memory_report();
  const uint64_t T = ids.size();
  // 2 (K and V) x 6 layers x T tokens x 2 kv heads x 32 head_dim x 4 bytes (f32)
  EXPECT_EQ(r.kv_used_bytes, 2u * 6 * T * 2 * 32 * 4);
  EXPECT_EQ(r.kv_bytes_per_token, 2u * 6 * 2 * 32 * 4);
  EXPECT_EQ(r.kv_tokens, static_cast<int32_t>(T));
  EXPECT_EQ(r.kv_blocks, static_cast<int32_t>((T + 15) / 16));
  EXPECT_EQ(r.kv_allocated_bytes, r.kv_blocks * 16 * r.kv_bytes_per_token);
  EXPECT_GE(r.kv_allocated_bytes, r.kv_used_bytes);
  EXPECT_EQ(r.weights_bytes, 2755008u * 4);  // every parameter in f32
  EXPECT_GT(r.scratch_bytes, 0u);
}

TEST_F(SessionKv, TokenByTokenEqualsBatchAndTruncateRecomputesTheSame) {
  std::vector<TokenId> ids =
      model_->tokenizer().encode("Psalms 23\n1 The LORD is my shepherd; I shall not want.", true);
  ASSERT_GT(ids.size(), 17u);  // crosses a block boundary
  SessionOptions f32;
  f32.kv_type = "f32";
  auto batch = Session::create(model_, f32);
  ASSERT_TRUE(batch);
  ASSERT_TRUE((*batch)->eval(ids));
  const std::vector<float> want((*batch)->last_logits().begin(), (*batch)->last_logits().end());

  SessionOptions small_blocks = f32;
  small_blocks.kv_block_tokens = 3;  // many blocks, odd size
  auto step = Session::create(model_, small_blocks);
  ASSERT_TRUE(step);
  for (TokenId t : ids) ASSERT_TRUE((*step)->eval(std::span<const TokenId>(&t, 1)));
  EXPECT_LE(test::max_rel_error((*step)->last_logits(), want, want.size()), 1e-5);

  // Fork: keep 5 tokens, evaluate the rest again; the result is the same.
  (*batch)->truncate(5);
  EXPECT_EQ((*batch)->memory_report().kv_tokens, 5);
  ASSERT_TRUE((*batch)->eval(std::span<const TokenId>(ids).subspan(5)));
  EXPECT_LE(test::max_rel_error((*batch)->last_logits(), want, want.size()), 1e-5);
}

TEST_F(SessionKv, ContextFullIsAnErrorThatKeepsTheSession) {
  SessionOptions so;
  so.n_ctx = 20;
  auto s = Session::create(model_, so);
  ASSERT_TRUE(s);
  std::vector<TokenId> ids(15, 300);
  ASSERT_TRUE((*s)->eval(ids));
  const std::vector<float> before((*s)->last_logits().begin(), (*s)->last_logits().end());
  auto st = (*s)->eval(std::vector<TokenId>(6, 300));
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find("context is full"), std::string::npos);
  EXPECT_EQ((*s)->n_past(), 15);
  EXPECT_EQ(std::vector<float>((*s)->last_logits().begin(), (*s)->last_logits().end()), before);
  EXPECT_TRUE((*s)->eval(std::vector<TokenId>(5, 300)));  // exactly fills it
}

}  // namespace
}  // namespace kvchat
