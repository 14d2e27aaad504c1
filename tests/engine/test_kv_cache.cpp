// The KV cache: grows block by block as tokens arrive, never reserves the context up
// front, accounts bytes exactly, and gives the same logits however the tokens arrive.
#include <gtest/gtest.h>

#include "kv/kv_cache.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

KvCacheShape small_shape() {
  KvCacheShape s;
  s.n_layers = 3;
  s.n_kv_heads = 2;
  s.head_dim = 8;
  s.max_tokens = 100;
  s.block_tokens = 16;
  return s;
}

TEST(KvCache, GrowsInBlocksOnDemand) {
  KvCache kv(small_shape());
  EXPECT_EQ(kv.allocated_bytes(), 0u);  // nothing reserved before the first token
  EXPECT_EQ(kv.bytes_per_token(), 2u * 3 * 2 * 8 * 4);
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

TEST(KvCache, RowsOfDifferentPositionsAndLayersDoNotAlias) {
  KvCache kv(small_shape());
  ASSERT_TRUE(kv.reserve(40));
  const int32_t kv_dim = kv.shape().kv_dim();
  for (int32_t l = 0; l < 3; ++l)
    for (int32_t p = 0; p < 40; ++p)
      for (int32_t i = 0; i < kv_dim; ++i) {
        kv.key(l, p)[i] = static_cast<float>(l * 100000 + p * 100 + i);
        kv.value(l, p)[i] = -static_cast<float>(l * 100000 + p * 100 + i);
      }
  for (int32_t l = 0; l < 3; ++l)
    for (int32_t p = 0; p < 40; ++p)
      for (int32_t i = 0; i < kv_dim; ++i) {
        ASSERT_EQ(kv.key(l, p)[i], static_cast<float>(l * 100000 + p * 100 + i));
        ASSERT_EQ(kv.value(l, p)[i], -static_cast<float>(l * 100000 + p * 100 + i));
      }
}

TEST(KvCache, TruncateFreesBlocksAndReusesThem) {
  KvCache kv(small_shape());
  ASSERT_TRUE(kv.reserve(48));
  kv.set_size(48);
  EXPECT_EQ(kv.blocks_in_use(), 3);
  const uint64_t pool = kv.pool_bytes();
  kv.truncate(10);
  EXPECT_EQ(kv.size(), 10);
  EXPECT_EQ(kv.blocks_in_use(), 1);
  EXPECT_EQ(kv.allocated_bytes(), kv.block_bytes());
  ASSERT_TRUE(kv.reserve(48));
  EXPECT_EQ(kv.pool_bytes(), pool);  // the freed blocks came back, nothing new allocated
  EXPECT_EQ(kv.peak_allocated_bytes(), 3 * kv.block_bytes());
}

TEST(KvCache, RefusesToGrowPastTheContext) {
  KvCache kv(small_shape());
  ASSERT_TRUE(kv.reserve(100));
  auto s = kv.reserve(101);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("context is full"), std::string::npos);
  EXPECT_EQ(kv.capacity(), 112);  // unchanged by the refusal (7 blocks of 16)
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
  auto s = Session::create(model_, {});
  ASSERT_TRUE(s);
  MemoryReport r0 = (*s)->memory_report();
  EXPECT_EQ(r0.kv_allocated_bytes, 0u);
  EXPECT_EQ(r0.kv_max_tokens, 512);
  std::vector<TokenId> ids = model_->tokenizer().encode("Genesis 1\n1 In the beginning God created", true);
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
  auto batch = Session::create(model_, {});
  ASSERT_TRUE(batch);
  ASSERT_TRUE((*batch)->eval(ids));
  const std::vector<float> want((*batch)->last_logits().begin(), (*batch)->last_logits().end());

  SessionOptions small_blocks;
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
