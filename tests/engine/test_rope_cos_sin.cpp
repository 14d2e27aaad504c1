// RopeCosSin: the cached cos/sin give exactly the rotation cpu::rope computes on the fly
// (same floats, bit for bit), for both pair layouts, a YaRN-like mscale, partial rotation
// (n_rot < head_dim), and positions computed before and after the cache grows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "backend/cpu/cpu_ops.h"
#include "model/rope_table.h"

namespace kvchat {
namespace {

std::vector<float> test_vector(int32_t n, int32_t seed) {
  std::vector<float> v(n);
  for (int32_t i = 0; i < n; ++i)
    v[i] = std::sin(0.37f * static_cast<float>(i + 1) + static_cast<float>(seed));
  return v;
}

TEST(RopeCosSin, MatchesOnTheFlyRopeBitForBit) {
  const int32_t n_heads = 3, head_dim = 16;
  for (RopeStyle style : {RopeStyle::Norm, RopeStyle::Neox}) {
    for (int32_t n_rot : {16, 8}) {
      RopeScaling scaling;
      scaling.type = RopeScalingType::Yarn;
      scaling.factor = 4;
      scaling.orig_ctx = 64;
      const RopeTable table = make_rope_table(style, n_rot, 10000.0f, scaling, nullptr);
      ASSERT_NE(table.mscale, 1.0f);  // the cache must fold mscale in
      RopeCosSin cache(table);
      cache.cover(5);  // grows from a small size, later positions need more
      ASSERT_GE(cache.positions(), 5);
      const int32_t first_size = cache.positions();
      std::vector<float> early(cache.at(3), cache.at(3) + n_rot);
      cache.cover(1000);
      ASSERT_GE(cache.positions(), 1000);
      ASSERT_GT(cache.positions(), first_size);
      EXPECT_EQ(std::memcmp(early.data(), cache.at(3), n_rot * sizeof(float)), 0)
          << "rows kept on growth";
      for (int32_t pos : {0, 1, 3, 63, 64, 65, 511, 999}) {
        std::vector<float> expected = test_vector(n_heads * head_dim, pos);
        std::vector<float> got = expected;
        cpu::rope(expected.data(), n_heads, head_dim, table, pos);
        cpu::rope_cached(got.data(), n_heads, head_dim, table.style, table.n_rot, cache.at(pos));
        for (int32_t i = 0; i < n_heads * head_dim; ++i) {
          ASSERT_EQ(got[i], expected[i]) << "style " << static_cast<int>(style) << " n_rot "
                                         << n_rot << " pos " << pos << " i " << i;
        }
      }
    }
  }
}

// By hand: Norm layout, one pair, inv_freq 1 (n_rot 2), pos 1: (1, 0) turns by 1 radian.
TEST(RopeCosSin, OnePairByHand) {
  const RopeTable table = make_rope_table(RopeStyle::Norm, 2, 10000.0f, RopeScaling{}, nullptr);
  ASSERT_EQ(table.inv_freq[0], 1.0f);
  RopeCosSin cache(table);
  cache.cover(2);
  EXPECT_FLOAT_EQ(cache.at(1)[0], std::cos(1.0f));
  EXPECT_FLOAT_EQ(cache.at(1)[1], std::sin(1.0f));
  float v[2] = {1.0f, 0.0f};
  cpu::rope_cached(v, 1, 2, table.style, table.n_rot, cache.at(1));
  EXPECT_FLOAT_EQ(v[0], std::cos(1.0f));
  EXPECT_FLOAT_EQ(v[1], std::sin(1.0f));
}

}  // namespace
}  // namespace kvchat
