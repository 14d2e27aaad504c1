// The fast CPU backend gives the same logits at any thread count: its parallel phases
// split weight rows, heads and attention items differently for 1, 2, 3 and 5 threads
// (with 5, some threads get no rows of the small matrices), in long chunks (one shared
// normalised input) and short ones (a private input per thread), on every architecture's
// optional parts (biases, per-head norms, post-norms, soft-caps, sliding windows).
#include <gtest/gtest.h>

#include <vector>

#include "kvchat/model.h"
#include "kvchat/session.h"
#include "model/synthetic_model.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

// Logits of: a 20-token prompt (every position), a 3-token chunk, then 2 single tokens.
std::vector<float> run_session(const std::shared_ptr<const Model>& model, int threads, const std::string& kv_type) {
  SessionOptions o;
  o.n_threads = threads;
  o.kv_type = kv_type;
  auto s = Session::create(model, o);
  EXPECT_TRUE(s) << s.message();
  if (!s) return {};
  const int32_t nv = model->info().n_vocab;
  std::vector<TokenId> prompt(20);
  for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<TokenId>((i * 37 + 11) % nv);
  std::vector<float> out;
  EXPECT_TRUE((*s)->eval(prompt, &out));
  const TokenId chunk[3] = {5, 77, 123};
  EXPECT_TRUE((*s)->eval(chunk));
  out.insert(out.end(), (*s)->last_logits().begin(), (*s)->last_logits().end());
  for (TokenId t : {TokenId{42}, TokenId{9}}) {
    EXPECT_TRUE((*s)->eval(std::span<const TokenId>(&t, 1)));
    out.insert(out.end(), (*s)->last_logits().begin(), (*s)->last_logits().end());
  }
  return out;
}

class CpuThreads : public ::testing::TestWithParam<std::string> {};

TEST_P(CpuThreads, LogitsIndependentOfThreadCount) {
  test::TempDir dir;
  auto spec = synthetic_arch_spec(GetParam());
  ASSERT_TRUE(spec) << spec.message();
  const std::string path = dir.file("m.gguf");
  ASSERT_TRUE(write_synthetic_model(path, *spec));
  auto model = Model::load(path);
  ASSERT_TRUE(model) << model.message();
  for (const char* kv_type : {"f16", "q8_0"}) {
    SCOPED_TRACE(kv_type);
    const std::vector<float> one = run_session(*model, 1, kv_type);
    ASSERT_EQ(one.size(), size_t{23} * (*model)->info().n_vocab);
    for (int threads : {2, 3, 5}) {
      const std::vector<float> many = run_session(*model, threads, kv_type);
      ASSERT_EQ(many.size(), one.size());
      // Only the split of prefill row tiles may change which kernel sums a row.
      EXPECT_LE(test::max_rel_error(many, one, one.size()), 1e-5) << threads << " threads";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Archs, CpuThreads, ::testing::Values("llama", "qwen2", "qwen3", "gemma2", "gemma3", "phi3"));

}  // namespace
}  // namespace kvchat
