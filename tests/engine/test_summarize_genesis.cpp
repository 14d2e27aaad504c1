// The end-to-end check: kvchat-cli summarize on the whole Book of Genesis (about
// 66,000 tokens, from `bible`, package bible-kjv) with the demo model at context 512.
// It completes, its plan has several merge levels, and the KV cache stays within the
// plan and the context. About 90 s of CPU; skipped where `bible` is not installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "support/run_command.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

TEST(SummarizeGenesis, WholeBookAtContext512) {
  if (std::system("command -v bible >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "`bible` (package bible-kjv) is missing";
  test::TempDir dir;
  const std::string genesis = dir.file("genesis.txt");
  const auto made = test::run_command("bible -f 'Genesis 1:1-50:26' > " + test::sh_quote(genesis));
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ASSERT_GT(std::filesystem::file_size(genesis), 200000u);

  const auto r = test::run_cli("summarize --model " +
                               test::sh_quote(test::shared_path("models/kjv-demo-f16.gguf")) +
                               " --file " + test::sh_quote(genesis) + " --ctx 512 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& plan = j.at("plan");
  std::cout << "plan: " << plan.at("description").get<std::string>() << "\npeak KV bytes "
            << j.at("peak_kv_bytes") << ", tokens evaluated " << j.at("tokens_evaluated") << "\n";
  EXPECT_GT(plan.at("document_tokens").get<int64_t>(), 60000);
  EXPECT_FALSE(plan.at("fits_whole").get<bool>());
  EXPECT_GE(plan.at("n_levels").get<int>(), 3);
  int level0 = 0, top = 0;
  for (const auto& c : j.at("chunks")) {
    level0 += c.at("level").get<int>() == 0;
    top = std::max(top, c.at("level").get<int>());
  }
  EXPECT_EQ(level0, plan.at("n_chunks").get<int>());
  EXPECT_EQ(top, plan.at("n_levels").get<int>());
  const auto peak = j.at("peak_kv_bytes").get<uint64_t>();
  EXPECT_LE(peak, plan.at("peak_kv_bytes").get<uint64_t>());
  EXPECT_LE(plan.at("peak_kv_bytes").get<uint64_t>(),
            512 * plan.at("kv_bytes_per_token").get<uint64_t>());
  EXPECT_LE(j.at("tokens_evaluated").get<int64_t>(), plan.at("tokens_to_process").get<int64_t>());
  EXPECT_GT(j.at("prompt_tokens_reused").get<int64_t>(), 0);
  EXPECT_FALSE(j.at("summary").get<std::string>().empty());
}

}  // namespace
}  // namespace kvchat
