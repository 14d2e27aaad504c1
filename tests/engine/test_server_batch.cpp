// The server's batched decode (server/decode_batcher.h) on the demo model: four
// generations whose steps share forward passes give the same tokens as each alone, every
// step of theirs in a pass of all four; a session that cannot grow its KV fails alone.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "kvchat/generate.h"
#include "serving/decode_batcher.h"
#include "support/test_paths.h"

namespace kvchat::serving {
namespace {

std::shared_ptr<const Model> demo() {
  static auto model = Model::load(test::shared_path("models/kjv-demo-f16.gguf"));
  EXPECT_TRUE(model) << model.message();
  return model ? *model : nullptr;
}

std::unique_ptr<Session> session(uint64_t kv_budget_bytes = 0) {
  SessionOptions o;
  o.n_ctx = 512;
  o.kv_budget_bytes = kv_budget_bytes;
  auto s = Session::create(demo(), o);
  EXPECT_TRUE(s) << s.message();
  return std::move(s).value();
}

const std::vector<std::string> kPrompts = {"In the beginning", "And God said, Let there be",
                                           "The LORD is my shepherd", "Jesus wept"};

GenerateOptions greedy(int32_t max_tokens) {
  GenerateOptions g;
  g.max_tokens = max_tokens;
  g.sampling.temperature = 0;  // greedy: the same logits give the same tokens
  return g;
}

std::vector<TokenId> prompt_of(const std::string& text) {
  return demo()->tokenizer().encode(text, /*add_bos=*/true);
}

TEST(DecodeBatcher, BatchedGenerationsEqualTheirSingleRuns) {
  constexpr int32_t kTokens = 48;
  std::vector<std::vector<TokenId>> alone;
  for (const std::string& p : kPrompts) {
    auto s = session();
    auto r = generate(*s, prompt_of(p), greedy(kTokens));
    ASSERT_TRUE(r) << r.message();
    alone.push_back(r->ids);
  }

  // Every generation joins before any starts: each round waits for all four tokens.
  DecodeBatcher batcher(std::chrono::seconds(5));
  for (size_t i = 0; i < kPrompts.size(); ++i) batcher.join();
  std::vector<std::vector<TokenId>> together(kPrompts.size());
  std::vector<std::string> errors(kPrompts.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < kPrompts.size(); ++i) {
    threads.emplace_back([&, i] {
      auto s = session();
      GenerateOptions g = greedy(kTokens);
      g.decode_step = [&](Session& ss, TokenId t) { return batcher.decode(ss, t); };
      auto r = generate(*s, prompt_of(kPrompts[i]), g);
      batcher.leave();
      if (r)
        together[i] = r->ids;
      else
        errors[i] = r.message();
    });
  }
  for (auto& t : threads) t.join();
  size_t steps = 0;
  for (size_t i = 0; i < kPrompts.size(); ++i) {
    EXPECT_EQ(errors[i], "");
    EXPECT_EQ(together[i], alone[i]) << kPrompts[i];
    steps += together[i].size() - 1;  // the first token comes from the prompt's logits
  }
  const DecodeBatchStats stats = batcher.stats();
  EXPECT_EQ(stats.steps, steps);
  EXPECT_EQ(stats.max_batch, 4);
  // While all four generate, every pass holds all four (rounds of fewer only after a
  // generation ended, by EOS, before the others).
  const size_t shortest =
      std::min({together[0].size(), together[1].size(), together[2].size(), together[3].size()}) -
      1;
  EXPECT_LE(stats.batches, steps - 3 * shortest);
}

// A session whose KV budget is reached fails its step; the others in the pass go on.
TEST(DecodeBatcher, ASessionThatCannotGrowFailsAlone) {
  auto roomy = session();
  auto probe = session();
  ASSERT_TRUE(probe->eval(prompt_of("Jesus wept")));
  auto tight = session(probe->memory_report().kv_allocated_bytes);  // what it holds now
  ASSERT_TRUE(tight->eval(prompt_of("Jesus wept")));
  ASSERT_TRUE(roomy->eval(prompt_of("In the beginning")));

  DecodeBatcher batcher(std::chrono::seconds(5));
  batcher.join();
  batcher.join();
  std::string tight_error, roomy_error;
  int32_t roomy_steps = 0;
  std::thread a([&] {
    for (int i = 0; i < 300; ++i) {
      if (auto st = batcher.decode(*tight, 5); !st) {
        tight_error = st.message();
        break;
      }
    }
    batcher.leave();
  });
  std::thread b([&] {
    for (int i = 0; i < 300; ++i) {
      if (auto st = batcher.decode(*roomy, 5); !st) {
        roomy_error = st.message();
        break;
      }
      ++roomy_steps;
    }
    batcher.leave();
  });
  a.join();
  b.join();
  EXPECT_NE(tight_error, "") << "the tight session never reached its budget";
  EXPECT_EQ(roomy_error, "");
  EXPECT_EQ(roomy_steps, 300);
  EXPECT_EQ(batcher.stats().max_batch, 2);
}

}  // namespace
}  // namespace kvchat::serving
