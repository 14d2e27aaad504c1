// The rotated KV types (q8_0r, q4_0r; kv/kv_rotation.h, kv/kv_codec.h): the rotation is a
// signed Walsh-Hadamard matrix (every entry +-1/sqrt(d), orthogonal, checked against a
// Sylvester matrix built here), it is undone exactly, the codec round trip loses what the
// layout loses, and a session keeps its quality through a context shift and a change of
// KV type.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kv/kv_codec.h"
#include "kv/kv_rotation.h"
#include "kv/kv_type.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "support/one_layer_model.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

// H (n x n), Sylvester's construction: H_1 = [1], H_2n = [[H, H], [H, -H]].
std::vector<std::vector<int>> sylvester(int n) {
  std::vector<std::vector<int>> h = {{1}};
  for (int m = 1; m < n; m *= 2) {
    std::vector<std::vector<int>> next(2 * m, std::vector<int>(2 * m));
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < m; ++j) {
        next[i][j] = next[i][j + m] = next[i + m][j] = h[i][j];
        next[i + m][j + m] = -h[i][j];
      }
    }
    h = std::move(next);
  }
  return h;
}

TEST(KvRotation, IsTheSylvesterHadamardMatrixTimesFixedSigns) {
  for (int n : {2, 8, 32, 64, 128, 256}) {
    const auto h = sylvester(n);
    // Column j of R is R e_j = H (d_j e_j) / sqrt(n) = d_j H[:, j] / sqrt(n).
    for (int j = 0; j < n; ++j) {
      std::vector<float> e(n, 0.0f);
      e[j] = 1.0f;
      rotate_heads(e.data(), 1, n);
      const double sign = e[0] * std::sqrt(static_cast<double>(n)) * h[0][j];  // d_j
      ASSERT_NEAR(std::fabs(sign), 1.0, 1e-6) << n;
      for (int i = 0; i < n; ++i)
        ASSERT_NEAR(e[i], sign * h[i][j] / std::sqrt(static_cast<double>(n)), 1e-6) << n;
    }
  }
}

TEST(KvRotation, IsOrthogonalAndUndoneExactlyHeadByHead) {
  std::mt19937 rng(3);
  std::normal_distribution<float> g;
  const int32_t heads = 3, hd = 64;
  std::vector<float> a(heads * hd), b(heads * hd);
  for (float& x : a) x = g(rng);
  for (float& x : b) x = g(rng);
  std::vector<float> ra = a, rb = b;
  rotate_heads(ra.data(), heads, hd);
  rotate_heads(rb.data(), heads, hd);
  for (int32_t h = 0; h < heads; ++h) {
    double dot = 0, rdot = 0;
    for (int32_t i = 0; i < hd; ++i) {
      dot += static_cast<double>(a[h * hd + i]) * b[h * hd + i];
      rdot += static_cast<double>(ra[h * hd + i]) * rb[h * hd + i];
    }
    EXPECT_NEAR(rdot, dot, 1e-4) << h;  // q.k = (Rq).(Rk), head by head
  }
  unrotate_heads(ra.data(), heads, hd);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(ra[i], a[i], 1e-5);
}

TEST(KvRotation, HeadSizesThatAreNoPowerOfTwoAreNamed) {
  EXPECT_TRUE(rotation_fits(32));
  EXPECT_TRUE(rotation_fits(256));
  EXPECT_FALSE(rotation_fits(96));
  EXPECT_FALSE(rotation_fits(80));
  EXPECT_FALSE(rotation_fits(2048));
  EXPECT_EQ(kv_type_unusable(KvType::Q4_0R, 128), "");
  EXPECT_NE(kv_type_unusable(KvType::Q4_0R, 96).find("power of two"), std::string::npos);
  EXPECT_EQ(kv_type_unusable(KvType::Q4_0, 96), "");  // 3 blocks of 32: plain q4_0 fits
  EXPECT_NE(kv_type_unusable(KvType::Q8_0R, 8).find("multiple of 32"), std::string::npos);
  EXPECT_EQ(parse_kv_type("q4_0r"), KvType::Q4_0R);
  EXPECT_EQ(kv_layout(KvType::Q4_0R), KvType::Q4_0);
  EXPECT_EQ(kv_bytes(KvType::Q4_0R, 64), kv_bytes(KvType::Q4_0, 64));  // the same memory
}

// A head with one large value (the outlier rotated KV is made for): plain q4_0 spends its
// 16 levels on the outlier and rounds the rest to a few; rotated, the error is spread.
TEST(KvRotation, CodecRoundTripSpreadsAnOutliersError) {
  std::mt19937 rng(5);
  std::normal_distribution<float> g;
  const int32_t hd = 64;
  std::vector<float> x(hd);
  for (float& v : x) v = 0.1f * g(rng);
  x[7] = 4.0f;
  auto error = [&](KvType t) {
    std::vector<uint8_t> row(kv_bytes(t, hd));
    std::vector<float> back(hd);
    encode_kv_heads(t, x.data(), 1, hd, row.data());
    decode_kv_heads(t, row.data(), back.data(), 1, hd);
    double e = 0;
    for (int32_t i = 0; i < hd; ++i) e += (back[i] - x[i]) * (back[i] - x[i]);
    return std::sqrt(e / hd);
  };
  EXPECT_LT(error(KvType::Q4_0R), 0.5 * error(KvType::Q4_0));
  EXPECT_LT(error(KvType::Q8_0R), 0.5 * error(KvType::Q8_0));
  // Converting rows to another type goes through the decoded values.
  std::vector<uint8_t> r4(kv_bytes(KvType::Q4_0R, hd)), f(kv_bytes(KvType::F32, hd));
  encode_kv_heads(KvType::Q4_0R, x.data(), 1, hd, r4.data());
  convert_kv_rows(KvType::Q4_0R, r4.data(), KvType::F32, f.data(), 1, 1, hd);
  std::vector<float> back(hd);
  decode_kv_heads(KvType::Q4_0R, r4.data(), back.data(), 1, hd);
  EXPECT_EQ(std::vector<float>(reinterpret_cast<float*>(f.data()),
                               reinterpret_cast<float*>(f.data()) + hd),
            back);
}

std::vector<TokenId> ids(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<TokenId> pick(3, 255);
  std::vector<TokenId> t(n);
  for (TokenId& x : t) x = pick(rng);
  return t;
}

// Under shift and sink-window the kept keys are decoded, rotated back by RoPE and encoded
// again: on one layer the result must be what a fresh evaluation of the kept tokens
// stores, up to the layout's rounding (q8_0r: well under 1%).
TEST(KvRotation, AShiftedRotatedCacheEqualsAFreshEvaluation) {
  test::TempDir dir;
  auto model = test::one_layer_model(dir, 96);
  ASSERT_TRUE(model);
  for (ContextPolicy policy : {ContextPolicy::Shift, ContextPolicy::SinkWindow}) {
    SessionOptions so;
    so.kv_type = "q8_0r";
    so.context_policy = policy;
    auto s = Session::create(model, so);
    ASSERT_TRUE(s) << s.message();
    for (TokenId t : ids(120, 9)) ASSERT_TRUE((*s)->eval({&t, 1}));
    EXPECT_LT((*s)->n_past(), 120);
    auto fresh = Session::create(model, so);
    ASSERT_TRUE(fresh);
    ASSERT_TRUE((*fresh)->eval((*s)->tokens()));
    EXPECT_LT(test::max_rel_error((*s)->last_logits(), (*fresh)->last_logits(), 320), 1e-2)
        << context_policy_name(policy);
  }
}

// Re-encoding a live conversation into a rotated type and back: the logits after it are
// those of a session that evaluated everything in the final type's precision or better.
TEST(KvRotation, ChangingToAndFromARotatedTypeKeepsTheConversation) {
  auto model = Model::load(test::shared_path("models/kjv-demo-f16.gguf"));
  ASSERT_TRUE(model) << model.message();
  SessionOptions so;
  auto s = Session::create(*model, so);
  ASSERT_TRUE(s);
  const auto prompt = (*model)->tokenizer().encode("Genesis 1\n1 In the beginning God", true);
  ASSERT_TRUE((*s)->eval(prompt));
  ASSERT_TRUE((*s)->set_kv_type("q8_0r"));
  EXPECT_EQ((*s)->memory_report().kv_type, "q8_0r");
  const TokenId next = 262;
  ASSERT_TRUE((*s)->eval({&next, 1}));
  so.kv_type = "q8_0r";
  auto direct = Session::create(*model, so);
  ASSERT_TRUE(direct);
  ASSERT_TRUE((*direct)->eval((*s)->tokens()));
  EXPECT_LT(test::max_rel_error((*s)->last_logits(), (*direct)->last_logits(), 320), 2e-2);
  ASSERT_TRUE((*s)->set_kv_type("f16"));
  ASSERT_TRUE((*s)->eval({&next, 1}));
  EXPECT_EQ((*s)->memory_report().kv_type, "f16");
}

}  // namespace
}  // namespace kvchat
