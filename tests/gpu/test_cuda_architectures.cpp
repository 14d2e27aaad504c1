// The CUDA backend on every architecture the CPU runs (model/architecture.h), against the
// CPU backend: each `mkmodel --arch` model (qwen2 biases, qwen3/gemma3 q/k norms, gemma2/3
// post norms, GELU, soft-caps and sliding windows, phi3's fused tensors, Llama 3 frequency
// factors, LongRoPE short and long, YaRN), F32 weights, through a prefill of every position
// (five times the window of 8, the windowed blocks freed as the CPU frees them: no window
// slack) and decode steps — one token at a time (the CUDA graph) and five at once. Logits
// within 1e-3 x max|logit| of the CPU's. Every test skips without a CUDA device.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "cuda_test_support.h"
#include "kvchat/memory_report.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "model/synthetic_model.h"
#include "support/arch_cases.h"
#include "support/test_paths.h"
#include "support/test_tokens.h"

namespace kvchat {
namespace {

struct GpuArchCase {
  std::string arch;     // synthetic_arch_spec name, "qwen2-yarn" or "phi3-longrope-short"
  std::string kv_type;  // f32, f16, q8_0
};

class CudaArchitectures : public ::testing::TestWithParam<GpuArchCase> {};

TEST_P(CudaArchitectures, LogitsWithinOneThousandthOfTheCpu) {
  SKIP_WITHOUT_DEVICE();
  const GpuArchCase& c = GetParam();
  test::TempDir dir;
  auto spec = test::arch_case_spec(c.arch);
  ASSERT_TRUE(spec) << spec.message();
  spec->type = gguf::TensorType::F32;  // f32 GEMMs: no f16 rounding of the activations
  ASSERT_TRUE(write_synthetic_model(dir.file("m.gguf"), *spec));
  auto model = Model::load(dir.file("m.gguf"));
  ASSERT_TRUE(model) << model.message();
  const int32_t nv = (*model)->info().n_vocab;

  SessionOptions o;
  o.kv_type = c.kv_type;
  o.kv_window_slack = 0;  // free windowed blocks as soon as they leave the window
  o.backend_self_check = false;
  o.n_ctx = test::arch_case_ctx(c.arch);
  o.backend = "cpu";
  auto cpu = Session::create(*model, o);
  o.backend = "cuda";
  auto gpu = Session::create(*model, o);
  ASSERT_TRUE(cpu) << cpu.message();
  ASSERT_TRUE(gpu) << gpu.message();
  ASSERT_EQ((*gpu)->backend_name(), "cuda");

  const double tol = c.kv_type == "q8_0" ? 3e-3 : 1e-3;
  const std::vector<TokenId> prompt = test::test_ids(40, nv);
  std::vector<float> cpu_all, gpu_all;
  ASSERT_TRUE((*cpu)->eval(prompt, &cpu_all));
  ASSERT_TRUE((*gpu)->eval(prompt, &gpu_all));
  for (size_t p = 0; p < prompt.size(); ++p) {
    EXPECT_LE(test::max_rel_error(&gpu_all[p * nv], &cpu_all[p * nv], nv), tol) << "prefill " << p;
  }
  for (int step = 0; step < 12; ++step) {
    const TokenId t = static_cast<TokenId>((100 + 13 * step) % nv);
    ASSERT_TRUE((*cpu)->eval(std::span<const TokenId>(&t, 1)));
    ASSERT_TRUE((*gpu)->eval(std::span<const TokenId>(&t, 1)));
    EXPECT_LE(test::max_rel_error((*gpu)->last_logits(), (*cpu)->last_logits(), nv), tol)
        << "decode step " << step;
  }
  const std::vector<TokenId> five = test::test_ids(5, nv);
  ASSERT_TRUE((*cpu)->eval(five));
  ASSERT_TRUE((*gpu)->eval(five));
  EXPECT_LE(test::max_rel_error((*gpu)->last_logits(), (*cpu)->last_logits(), nv), tol)
      << "five tokens at once";
}

std::vector<GpuArchCase> gpu_arch_cases() {
  std::vector<GpuArchCase> cases;
  for (const std::string& a : test::arch_case_names()) {
    cases.push_back({a, "f32"});
    cases.push_back({a, "q8_0"});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryArchitecture, CudaArchitectures,
                         ::testing::ValuesIn(gpu_arch_cases()),
                         [](const ::testing::TestParamInfo<GpuArchCase>& info) {
                           std::string n = info.param.arch + "_" + info.param.kv_type;
                           for (char& ch : n)
                             if (ch == '-' || ch == '.') ch = '_';
                           return n;
                         });

// Partial offload: layers [0, g) on the device, the rest and the logits on the CPU backend,
// the KV of each part where it runs, against the CPU alone; a windowed model split inside
// its window pattern, and g = 1 and g = L - 1. The memory report says where each part is.
class CudaPartialOffload : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(CudaPartialOffload, SplitLayersAgreeWithTheCpu) {
  SKIP_WITHOUT_DEVICE();
  const auto [arch, which] = GetParam();
  test::TempDir dir;
  auto spec = synthetic_arch_spec(arch);
  ASSERT_TRUE(spec);
  spec->n_layers = 6;
  spec->type = gguf::TensorType::F32;
  ASSERT_TRUE(write_synthetic_model(dir.file("m.gguf"), *spec));
  auto model = Model::load(dir.file("m.gguf"));
  ASSERT_TRUE(model) << model.message();
  const int32_t L = (*model)->info().n_layers, nv = (*model)->info().n_vocab;
  const int32_t g = which == 0 ? 1 : which == 1 ? L / 2 : L - 1;
  SessionOptions o;
  o.kv_type = "f32";
  o.kv_window_slack = 0;
  o.backend_self_check = false;
  o.backend = "cpu";
  auto cpu = Session::create(*model, o);
  o.backend = "cuda";
  o.gpu_layers = g;
  auto gpu = Session::create(*model, o);
  ASSERT_TRUE(cpu && gpu) << gpu.message();
  const std::vector<TokenId> prompt = test::test_ids(40, nv);
  std::vector<float> cpu_all, gpu_all;
  ASSERT_TRUE((*cpu)->eval(prompt, &cpu_all));
  ASSERT_TRUE((*gpu)->eval(prompt, &gpu_all));
  for (size_t p = 0; p < prompt.size(); ++p)
    EXPECT_LE(test::max_rel_error(&gpu_all[p * nv], &cpu_all[p * nv], nv), 1e-3) << "prefill " << p;
  for (int step = 0; step < 8; ++step) {
    const TokenId t = static_cast<TokenId>((7 + 31 * step) % nv);
    ASSERT_TRUE((*cpu)->eval(std::span<const TokenId>(&t, 1)));
    ASSERT_TRUE((*gpu)->eval(std::span<const TokenId>(&t, 1)));
    EXPECT_LE(test::max_rel_error((*gpu)->last_logits(), (*cpu)->last_logits(), nv), 1e-3)
        << "decode step " << step;
  }
  const MemoryReport r = (*gpu)->memory_report();
  EXPECT_EQ(r.gpu_layers, g);
  EXPECT_EQ(r.n_layers, L);
  EXPECT_GT(r.device_kv_bytes, 0u);
  EXPECT_GT(r.host_kv_bytes, 0u);
  EXPECT_GT(r.host_weights_bytes, 0u);
  EXPECT_LT(r.device_weights_bytes, r.weights_bytes);
}

INSTANTIATE_TEST_SUITE_P(Splits, CudaPartialOffload,
                         ::testing::Combine(::testing::Values("llama", "qwen2", "gemma2", "gemma3"),
                                            ::testing::Values(0, 1, 2)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" +
                                  std::to_string(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace kvchat
