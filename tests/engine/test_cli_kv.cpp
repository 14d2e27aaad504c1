// kvchat-cli's KV-cache options: --no-kv-cache, --context-policy, --kv-type, and
// bench --compare-no-cache (its deterministic parts: token counts and output parity).
#include <gtest/gtest.h>

#include "support/run_command.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using test::run_cli;
using test::sh_quote;

std::string demo() { return sh_quote(test::shared_path("models/kjv-demo-f16.gguf")); }

nlohmann::json generate_json(const std::string& extra, test::CommandResult* raw = nullptr) {
  auto r = run_cli("generate --json --temp 0 --model " + demo() +
                   " --prompt 'Ruth 1\n1 Now it came to pass' " + extra);
  if (raw) *raw = r;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json{};
}

TEST(CliKv, NoKvCacheGivesTheSameOutput) {
  const auto cached = generate_json("-n 30");
  const auto uncached = generate_json("-n 30 --no-kv-cache");
  EXPECT_EQ(cached["ids"], uncached["ids"]);
  EXPECT_EQ(cached["text"], uncached["text"]);
}

TEST(CliKv, ContextPolicies) {
  test::CommandResult raw;
  // stop: the reply ends when the 64-token context is full, and stderr says why.
  auto stop = generate_json("-n 100 --ctx 64 --context-policy stop", &raw);
  EXPECT_EQ(stop["stop_reason"], "context-full");
  EXPECT_NE(raw.err.find("[kvchat context-full]"), std::string::npos) << raw.err;
  EXPECT_NE(raw.err.find("[kvchat context-warning]"), std::string::npos) << raw.err;
  // shift: generation goes on past the context, announced.
  auto shift = generate_json("-n 100 --ctx 64 --context-policy shift", &raw);
  EXPECT_EQ(shift["stop_reason"], "max-tokens");
  EXPECT_EQ(shift["ids"].size(), 100u);
  EXPECT_NE(raw.err.find("[kvchat context-shifted]"), std::string::npos) << raw.err;
  // An unknown policy is an error.
  auto bad = run_cli("generate --model " + demo() + " --prompt x --context-policy lru");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("unknown context policy 'lru'"), std::string::npos);
}

TEST(CliKv, KvTypesAllGenerate) {
  for (const char* t : {"f32", "f16", "q8_0", "q4_0", "q8_0r", "q4_0r", "q8_0/q4_0"}) {
    const auto j = generate_json(std::string("-n 8 --kv-type ") + t);
    EXPECT_EQ(j["ids"].size(), 8u) << t;
  }
  // K and V typed apart by their own flags: the same as --kv-type K/V, token for token.
  EXPECT_EQ(generate_json("-n 8 --kv-type-k q8_0 --kv-type-v q4_0r")["ids"],
            generate_json("-n 8 --kv-type q8_0/q4_0r")["ids"]);
  auto bad = run_cli("generate --model " + demo() + " --prompt x --kv-type q5_k");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("unknown KV type 'q5_k'"), std::string::npos);
  bad = run_cli("generate --model " + demo() + " --prompt x --kv-type-v q3");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("unknown KV type 'q3' for --kv-type-v"), std::string::npos) << bad.err;
}

TEST(CliKv, CompareNoCacheCountsTheRecomputedTokens) {
  auto r = run_cli("bench --compare-no-cache --json --tg 4 --contexts 16,100 --model " + demo());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = nlohmann::json::parse(r.out)["compare_no_cache"];
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    const uint64_t L = row["context"], n = row["decode_tokens"];
    EXPECT_TRUE(row["identical_output"].get<bool>());
    EXPECT_EQ(row["cached_tokens_evaluated"].get<uint64_t>(), n);
    // Step i re-evaluates the L prompt tokens and the i + 1 generated so far.
    EXPECT_EQ(row["no_cache_tokens_evaluated"].get<uint64_t>(), n * L + n * (n + 1) / 2);
    EXPECT_GT(row["speedup"].get<double>(), 0);
  }
}

TEST(CliKv, BenchDecodesAtEachDepthFromZero) {
  // --contexts 0,40: decoding from an empty cache (no prefill to measure), then after 40 tokens.
  auto r = run_cli("bench --json --tg 3 --bw-mib 16 --contexts 0,40 --model " + demo());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto runs = nlohmann::json::parse(r.out)["runs"];
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["context"], 0);
  EXPECT_EQ(runs[0]["prefill_tokens_per_second"].get<double>(), 0.0);
  EXPECT_EQ(runs[1]["context"], 40);
  EXPECT_GT(runs[1]["prefill_tokens_per_second"].get<double>(), 0.0);
  for (const auto& run : runs) EXPECT_GT(run["decode_tokens_per_second"].get<double>(), 0.0);
  // KV read per decoded token grows with the depth.
  EXPECT_GT(runs[1]["kv_bytes_read_per_token_avg"].get<double>(),
            runs[0]["kv_bytes_read_per_token_avg"].get<double>());
  for (const char* bad : {"-1", "4,x", ""}) {
    auto b = run_cli(std::string("bench --tg 1 --contexts '") + bad + "' --model " + demo());
    EXPECT_NE(b.exit_code, 0) << bad;
  }
}

}  // namespace
}  // namespace kvchat
