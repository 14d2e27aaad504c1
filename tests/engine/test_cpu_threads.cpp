// The fast CPU backend gives bitwise the same logits at any thread count. Its parallel phases
// hand out chunks of weight rows (multiples of the kernel tile), whole heads and attention
// items from atomic counters, so which thread computes a row, and where the chunks of a
// product start, change with the thread count (1, 2, 3, 4, 5, 7; with 7 some threads get no
// chunk of the small matrices) and from run to run; a row's result must not. Covered: long
// chunks (one shared normalised input) and short ones (a private input per thread), every
// architecture's optional parts (biases, per-head norms, post-norms, soft-caps, sliding
// windows), the demo model's f32 and f16 files and integer (Q8_0, Q4_K) weights, checked
// against the reference backend as well so that the thread counts cannot agree on a wrong
// answer.
#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <vector>

#include "kvchat/model.h"
#include "kvchat/session.h"
#include "model/synthetic_model.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using gguf::TensorType;

// Whether two logit vectors hold the same bits; the first difference is reported.
::testing::AssertionResult same_bits(const std::vector<float>& got,
                                     const std::vector<float>& want) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << "sizes " << got.size() << " vs " << want.size();
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0) {
      return ::testing::AssertionFailure()
             << "first difference at " << i << ": " << got[i] << " vs " << want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

// Logits of: a 20-token prompt (every position), a 3-token chunk, then 2 single tokens.
std::vector<float> run_session(const std::shared_ptr<const Model>& model, int threads,
                               const std::string& kv_type) {
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
      EXPECT_TRUE(same_bits(run_session(*model, threads, kv_type), one)) << threads << " threads";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Archs, CpuThreads,
                         ::testing::Values("llama", "qwen2", "qwen3", "gemma2", "gemma3", "phi3"));

// Logits of a 40-token prefill (every position) and of 10 tokens decoded one by one after it,
// on `backend` with `threads` threads (f32 KV, so that only the products' split can differ).
std::vector<float> prefill_and_decode(const std::shared_ptr<const Model>& model,
                                      const std::string& backend, int threads) {
  SessionOptions o;
  o.backend = backend;
  o.n_threads = threads;
  o.kv_type = "f32";
  auto s = Session::create(model, o);
  EXPECT_TRUE(s) << s.message();
  if (!s) return {};
  const int32_t nv = model->info().n_vocab;
  std::vector<TokenId> prompt(40);
  for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<TokenId>((i * 53 + 7) % nv);
  std::vector<float> out;
  EXPECT_TRUE((*s)->eval(prompt, &out));
  for (int step = 0; step < 10; ++step) {
    const TokenId t = static_cast<TokenId>((step * 211 + 3) % nv);
    EXPECT_TRUE((*s)->eval(std::span<const TokenId>(&t, 1)));
    out.insert(out.end(), (*s)->last_logits().begin(), (*s)->last_logits().end());
  }
  return out;
}

// A model file, and how close the fast backend's logits must be to the reference's there.
struct ModelCase {
  std::string name;
  double ref_tol;
  friend void PrintTo(const ModelCase& c, std::ostream* os) { *os << c.name; }
};

class CpuThreadsBitwise : public ::testing::TestWithParam<ModelCase> {
 protected:
  // The model of the case: the demo files from the shared directory, or a synthetic one.
  std::shared_ptr<const Model> load() {
    const std::string& name = GetParam().name;
    if (name == "kjv-demo-f32" || name == "kjv-demo-f16") {
      auto m = Model::load(test::shared_path("models/" + name + ".gguf"));
      EXPECT_TRUE(m) << m.message();
      return m ? *m : nullptr;
    }
    // qwen2 (q/k/v biases) with Q8_0 matrices; gemma2 (post-norms, soft-caps, windows, tied
    // output) with Q4_K ones, in rows of whole 256-value super-blocks.
    auto spec = synthetic_arch_spec(name == "qwen2-q8_0" ? "qwen2" : "gemma2");
    EXPECT_TRUE(spec) << spec.message();
    if (!spec) return nullptr;
    if (name == "qwen2-q8_0") {
      spec->type = TensorType::Q8_0;
    } else {
      spec->type = TensorType::Q4_K;
      spec->n_embd = 256;
      spec->n_ff = 512;
    }
    spec->n_layers = 2;
    const std::string path = dir_.file("m.gguf");
    EXPECT_TRUE(write_synthetic_model(path, *spec));
    auto m = Model::load(path);
    EXPECT_TRUE(m) << m.message();
    return m ? *m : nullptr;
  }

  test::TempDir dir_;
};

TEST_P(CpuThreadsBitwise, PrefillAndDecodeLogitsSameBitsAtEveryThreadCount) {
  const std::shared_ptr<const Model> model = load();
  ASSERT_TRUE(model);
  const size_t nv = static_cast<size_t>(model->info().n_vocab);
  const std::vector<float> one = prefill_and_decode(model, "cpu", 1);
  ASSERT_EQ(one.size(), 50 * nv);
  for (int threads : {2, 3, 4, 7}) {
    EXPECT_TRUE(same_bits(prefill_and_decode(model, "cpu", threads), one)) << threads << " threads";
  }
  // The answer they agree on is the forward pass's: every position against the reference
  // backend, within test_fast_vs_reference's tolerances (float weights 1e-4; int8
  // activations 3e-2 per 32 values, 5e-2 per 256).
  const std::vector<float> ref = prefill_and_decode(model, "cpu-reference", 1);
  ASSERT_EQ(ref.size(), one.size());
  for (size_t p = 0; p < 50; ++p) {
    EXPECT_LE(test::max_rel_error(&one[p * nv], &ref[p * nv], nv), GetParam().ref_tol)
        << "position " << p;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, CpuThreadsBitwise,
                         ::testing::Values(ModelCase{"kjv-demo-f32", 1e-4},
                                           ModelCase{"kjv-demo-f16", 1e-4},
                                           ModelCase{"qwen2-q8_0", 3e-2},
                                           ModelCase{"gemma2-q4_k", 5e-2}),
                         [](const auto& info) {
                           std::string n = info.param.name;
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

}  // namespace
}  // namespace kvchat
