// The KV cache: grows block by block as tokens arrive, never reserves the context up
// front, accounts bytes exactly, and gives the same logits however the tokens arrive.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>

#include "kv/kv_cache.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
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
    std::vector<uint8_t> rows(n * kv.row_bytes()), back(rows.size());
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
