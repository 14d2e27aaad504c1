// measure_kv_quality on the demo model against kvchat-cli perplexity (its own code) on
// the same text and window: the same mean KL, max KL and top-1 agreement per KV type;
// the ordering f32 < q8_0 < q4_0 that the cache's precision implies, and rotated 4-bit
// K/V (q4_0r) below plain q4_0 in mean and worst-position KL.
#include <gtest/gtest.h>

#include <fstream>

#include "kvchat/kv_quality.h"
#include "support/run_command.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

TEST(KvQuality, MatchesThePerplexityCommandOnTheSameWindow) {
  const std::string path = test::shared_path("models/kjv-demo-f16.gguf");
  auto model = Model::load(path);
  ASSERT_TRUE(model) << model.message();
  SessionOptions so;
  so.n_threads = 1;
  auto report = measure_kv_quality(*model, so, 4096);
  ASSERT_TRUE(report) << report.message();
  const auto ids = (*model)->tokenizer().encode(kv_quality_text(), true);
  ASSERT_GT(ids.size(), 100u);
  ASSERT_LE(ids.size(), 512u);  // one window of the demo model's context
  EXPECT_EQ(report->tokens, static_cast<int32_t>(ids.size()) - 1);
  EXPECT_EQ(report->model_identity, (*model)->info().identity);
  ASSERT_EQ(report->types.size(), 8u);

  test::TempDir dir;
  std::ofstream(dir.file("text.txt")) << kv_quality_text();
  for (const KvTypeQuality& q : report->types) {
    auto r =
        test::run_cli("perplexity --model " + test::sh_quote(path) + " --file " +
                      test::sh_quote(dir.file("text.txt")) + " --ctx " +
                      std::to_string(ids.size()) + " --threads 1 --json --kv-type " + q.kv_type);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["windows"], 1);
    ASSERT_EQ(j["tokens"].get<int>(), report->tokens);
    EXPECT_NEAR(q.mean_kl, j["mean_kl"].get<double>(), 1e-9 + 1e-6 * q.mean_kl) << q.kv_type;
    EXPECT_NEAR(q.max_kl, j["max_kl"].get<double>(), 1e-9 + 1e-6 * q.max_kl) << q.kv_type;
    EXPECT_DOUBLE_EQ(q.top1_agreement, j["top1_agreement"].get<double>()) << q.kv_type;
  }
  const auto& t = report->types;  // kv_type_costs() order: f32, q8_0, q4_0, q8_0r, q4_0r
  ASSERT_EQ(t.size(), 8u);        // then the pairs f16/q8_0, q8_0/q4_0, q8_0/q4_0r
  ASSERT_EQ(t[0].kv_type, "f32");
  ASSERT_EQ(t[1].kv_type, "q8_0");
  ASSERT_EQ(t[2].kv_type, "q4_0");
  ASSERT_EQ(t[3].kv_type, "q8_0r");
  ASSERT_EQ(t[4].kv_type, "q4_0r");
  EXPECT_LT(t[0].mean_kl, t[1].mean_kl);
  EXPECT_LT(t[1].mean_kl, t[2].mean_kl);
  EXPECT_GT(t[2].mean_kl, 0);
  EXPECT_LT(t[3].mean_kl, t[2].mean_kl);
  // The rotation (and the fitted scale) make 4-bit K/V better, most at the worst position.
  EXPECT_LT(t[4].mean_kl, t[2].mean_kl);
  EXPECT_LT(t[4].max_kl, t[2].max_kl);
  // K and V typed apart: finer keys with 4-bit values lose less than 4-bit both.
  ASSERT_EQ(t[6].kv_type, "q8_0/q4_0");
  ASSERT_EQ(t[7].kv_type, "q8_0/q4_0r");
  EXPECT_LT(t[6].mean_kl, t[2].mean_kl);
  EXPECT_LT(t[7].mean_kl, t[4].mean_kl);
  EXPECT_LT(t[5].mean_kl, t[6].mean_kl);  // f16/q8_0
}

// stories260K (head_dim 8): the block types (32 values) cannot hold its keys; they are
// listed as unusable with the reason and the rest is measured, instead of the whole
// measurement failing.
TEST(KvQuality, TypesTheModelCannotUseAreListedNotMeasured) {
  auto model = Model::load(test::shared_path("models/stories260K.gguf"));
  ASSERT_TRUE(model) << model.message();
  ASSERT_EQ((*model)->info().head_dim, 8);
  auto report = measure_kv_quality(*model, {}, 32);
  ASSERT_TRUE(report) << report.message();
  ASSERT_EQ(report->types.size(), 1u);
  EXPECT_EQ(report->types[0].kv_type, "f32");
  EXPECT_LT(report->types[0].mean_kl, 1e-3);
  ASSERT_EQ(report->unusable.size(), 7u);  // and the three pairs
  EXPECT_EQ(report->unusable[0].kv_type, "q8_0");
  EXPECT_EQ(report->unusable[1].kv_type, "q4_0");
  EXPECT_EQ(report->unusable[2].kv_type, "q8_0r");
  EXPECT_EQ(report->unusable[3].kv_type, "q4_0r");
  EXPECT_NE(report->unusable[0].reason.find("multiple of 32 (this model's is 8)"),
            std::string::npos)
      << report->unusable[0].reason;
}

TEST(KvQuality, CancelAndTinyLimitsFail) {
  auto model = Model::load(test::shared_path("models/kjv-demo-f16.gguf"));
  ASSERT_TRUE(model) << model.message();
  EXPECT_FALSE(measure_kv_quality(*model, {}, 1));
  EXPECT_FALSE(measure_kv_quality(*model, {}, 64, [] { return true; }));
  EXPECT_FALSE(measure_kv_quality(nullptr, {}));
}

}  // namespace
}  // namespace kvchat
