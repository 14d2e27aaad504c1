// The architectures of model/architecture.h: for each, the fast CPU backend against the
// reference backend (prefill and decode, every KV type); the new ops on hand-computed
// values (neox vs norm RoPE, GELU-tanh, soft-capping, Llama 3 frequency factors, YaRN);
// the sliding window by perturbation; one refusal listing every reason; the KV memory of
// a gemma2-like shape with and without its window, computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include "backend/cpu/cpu_ops.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "kv/memory_plan.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "model/model_hparams.h"
#include "model/rope_table.h"
#include "backend/cuda_capabilities.h"
#include "model/synthetic_model.h"
#include "support/run_command.h"
#include "support/gguf_patch.h"
#include "support/arch_cases.h"
#include "support/test_paths.h"
#include "support/test_tokens.h"

#include <nlohmann/json.hpp>

namespace kvchat {
namespace {

// |a - b| <= rel x |b|: the tables hold float32 rates.
#define EXPECT_REL(a, b, rel) EXPECT_NEAR((a), (b), (rel)*std::abs(static_cast<double>(b)))

std::shared_ptr<const Model> load_spec(const test::TempDir& dir, const SyntheticModelSpec& spec,
                                       const std::string& file) {
  const std::string path = dir.file(file);
  EXPECT_TRUE(write_synthetic_model(path, spec));
  auto model = Model::load(path);
  EXPECT_TRUE(model) << model.message();
  return model ? *model : nullptr;
}

// ---------------------------------------------------------------- fast vs reference

struct ArchCase {
  std::string arch;     // synthetic_arch_spec name, "qwen2-yarn" or "phi3-longrope-short"
  std::string kv_type;  // f32, f16, q8_0, q4_0
};

class ArchFastVsReference : public ::testing::TestWithParam<ArchCase> {};

TEST_P(ArchFastVsReference, PrefillAndDecodeAgree) {
  const ArchCase& c = GetParam();
  test::TempDir dir;
  auto spec = test::arch_case_spec(c.arch);
  ASSERT_TRUE(spec) << spec.message();
  spec->type = gguf::TensorType::F16;
  auto model = load_spec(dir, *spec, "m.gguf");
  ASSERT_TRUE(model);
  const int32_t nv = model->info().n_vocab;

  // 40 prompt tokens (five times the window of 8), then 5 decoded one by one.
  const std::vector<TokenId> prompt = test::test_ids(40, nv);
  SessionOptions fast_opts, ref_opts;
  fast_opts.n_threads = 2;
  fast_opts.kv_type = ref_opts.kv_type = c.kv_type;
  fast_opts.n_ctx = ref_opts.n_ctx = test::arch_case_ctx(c.arch);
  ref_opts.backend = "cpu-reference";
  auto fast = Session::create(model, fast_opts);
  auto ref = Session::create(model, ref_opts);
  ASSERT_TRUE(fast && ref);
  std::vector<float> fast_all, ref_all;
  ASSERT_TRUE((*fast)->eval(prompt, &fast_all));
  ASSERT_TRUE((*ref)->eval(prompt, &ref_all));
  // Nearly the same K/V bytes in both caches: the projections are summed in another order
  // (8 or 16 lanes), so a value at a rounding boundary of a quantized KV type can land one
  // code apart (max measured 2.04e-3 with the AVX-512 float dots, qwen2-yarn q8_0); the fast
  // path also dots quantized keys with its own kernel.
  const double tol = c.kv_type == "f32" || c.kv_type == "f16" ? 1e-4 : 3e-3;
  for (size_t p = 0; p < prompt.size(); ++p) {
    EXPECT_LE(test::max_rel_error(&fast_all[p * nv], &ref_all[p * nv], nv), tol) << "pos " << p;
  }
  for (int step = 0; step < 5; ++step) {
    const TokenId t = static_cast<TokenId>(100 + step);
    ASSERT_TRUE((*fast)->eval(std::span<const TokenId>(&t, 1)));
    ASSERT_TRUE((*ref)->eval(std::span<const TokenId>(&t, 1)));
    EXPECT_LE(test::max_rel_error((*fast)->last_logits(), (*ref)->last_logits(), nv), tol)
        << "step " << step;
  }
}

std::vector<ArchCase> arch_cases() {
  std::vector<ArchCase> cases;
  for (const std::string& a : test::arch_case_names()) {
    for (const char* kv : {"f32", "f16", "q8_0", "q4_0"}) cases.push_back({a, kv});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryArchAndKvType, ArchFastVsReference, ::testing::ValuesIn(arch_cases()),
                         [](const auto& info) {
                           std::string n = info.param.arch + "_" + info.param.kv_type;
                           for (char& ch : n)
                             ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return n;
                         });

// Prefill in one pass equals one token per pass through the cache (reference backend).
TEST(Architectures, PrefillEqualsDecodeForEveryArch) {
  for (const std::string& arch : synthetic_arch_names()) {
    SCOPED_TRACE(arch);
    test::TempDir dir;
    auto spec = synthetic_arch_spec(arch);
    ASSERT_TRUE(spec);
    auto model = load_spec(dir, *spec, "m.gguf");
    ASSERT_TRUE(model);
    const int32_t nv = model->info().n_vocab;
    const std::vector<TokenId> ids = test::test_ids(20, nv);
    SessionOptions o;
    o.kv_type = "f32";
    o.n_threads = 2;
    auto a = Session::create(model, o);
    auto b = Session::create(model, o);
    ASSERT_TRUE(a && b);
    std::vector<float> all;
    ASSERT_TRUE((*a)->eval(ids, &all));
    for (size_t k = 0; k < ids.size(); ++k) {
      ASSERT_TRUE((*b)->eval(std::span<const TokenId>(&ids[k], 1)));
      EXPECT_LE(test::max_rel_error((*b)->last_logits(), &all[k * nv], nv), 1e-5) << "pos " << k;
    }
  }
}

// ---------------------------------------------------------------- ops by hand

TEST(ArchitectureOps, NormAndNeoxRopeOnAHandComputedVector) {
  // head_dim 4, n_rot 4, base 10000: pair 0 turns by pos x 1, pair 1 by pos x 0.01.
  const RopeTable norm = make_rope_table(RopeStyle::Norm, 4, 10000.0f, RopeScaling{}, nullptr);
  const RopeTable neox = make_rope_table(RopeStyle::Neox, 4, 10000.0f, RopeScaling{}, nullptr);
  ASSERT_FLOAT_EQ(norm.inv_freq[0], 1.0f);
  ASSERT_FLOAT_EQ(norm.inv_freq[1], 0.01f);
  float a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 4};
  cpu::rope(a, 1, 4, norm, 1);
  cpu::rope(b, 1, 4, neox, 1);
  const double c1 = std::cos(1.0), s1 = std::sin(1.0), c2 = std::cos(0.01), s2 = std::sin(0.01);
  // norm: pairs (x0, x1) and (x2, x3)
  EXPECT_NEAR(a[0], 1 * c1 - 2 * s1, 1e-6);
  EXPECT_NEAR(a[1], 1 * s1 + 2 * c1, 1e-6);
  EXPECT_NEAR(a[2], 3 * c2 - 4 * s2, 1e-6);
  EXPECT_NEAR(a[3], 3 * s2 + 4 * c2, 1e-6);
  // neox: pairs (x0, x2) and (x1, x3)
  EXPECT_NEAR(b[0], 1 * c1 - 3 * s1, 1e-6);
  EXPECT_NEAR(b[2], 1 * s1 + 3 * c1, 1e-6);
  EXPECT_NEAR(b[1], 2 * c2 - 4 * s2, 1e-6);
  EXPECT_NEAR(b[3], 2 * s2 + 4 * c2, 1e-6);
  // Rotating back by the same positions (magnitude 1) restores the vector.
  cpu::rope(b, 1, 4, neox, -1, 1.0f);
  EXPECT_NEAR(b[0], 1, 1e-6);
  EXPECT_NEAR(b[1], 2, 1e-6);
  EXPECT_NEAR(b[2], 3, 1e-6);
  EXPECT_NEAR(b[3], 4, 1e-6);
}

TEST(ArchitectureOps, GeluTanhAndSoftcap) {
  // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), evaluated in float64 by hand.
  EXPECT_NEAR(cpu::gelu_tanh(1.0f), 0.8411919906082768, 1e-6);
  EXPECT_NEAR(cpu::gelu_tanh(-1.0f), -0.15880800939172324, 1e-6);
  EXPECT_NEAR(cpu::gelu_tanh(3.0f), 2.996362607918227, 1e-6);
  EXPECT_NEAR(cpu::gelu_tanh(0.5f), 0.34571400982514394, 1e-6);
  EXPECT_EQ(cpu::gelu_tanh(0.0f), 0.0f);
  float gate[2] = {1.0f, 3.0f};
  const float up[2] = {2.0f, -1.0f};
  cpu::gated_activation(FfnActivation::GeluTanhGlu, gate, up, 2);
  EXPECT_NEAR(gate[0], 2 * 0.8411919906082768, 1e-6);
  EXPECT_NEAR(gate[1], -2.996362607918227, 1e-6);
  // 30 tanh(30 / 30), 50 tanh(100 / 50); small values pass almost unchanged.
  float x[3] = {30.0f, 100.0f, 0.01f};
  cpu::softcap(x, 1, 30.0f);
  cpu::softcap(x + 1, 2, 50.0f);
  EXPECT_NEAR(x[0], 22.847824678672946, 1e-5);
  EXPECT_NEAR(x[1], 48.20137900379085, 1e-5);
  EXPECT_NEAR(x[2], 0.01, 1e-7);
}

TEST(ArchitectureOps, Llama3FrequencyFactors) {
  // n_rot 32, base 500000, factor 8, low 1, high 4, original context 8192. Wavelengths
  // 2 pi 500000^(i/16): pairs 0..7 are under 8192/4 = 2048 (factor 1), pairs 9.. over
  // 8192 (factor 8); pair 8 (wavelength 4442.88) is smoothed: s = (8192/4442.88 - 1)/3,
  // 1 / ((1 - s)/8 + s) = 2.69453.
  RopeScaling s;
  s.type = RopeScalingType::Llama3;
  s.factor = 8;
  s.orig_ctx = 8192;
  const std::vector<float> f = llama3_freq_factors(32, 500000.0f, s);
  ASSERT_EQ(f.size(), 16u);
  for (int i = 0; i < 8; ++i) EXPECT_FLOAT_EQ(f[i], 1.0f) << i;
  EXPECT_NEAR(f[8], 2.6945296878947333, 1e-5);
  for (int i = 9; i < 16; ++i) EXPECT_FLOAT_EQ(f[i], 8.0f) << i;
  // The table divides each base frequency by its factor and adds no magnitude.
  const RopeTable t = make_rope_table(RopeStyle::Norm, 32, 500000.0f, s, f.data());
  EXPECT_REL(t.inv_freq[8], std::pow(500000.0, -16.0 / 32) / 2.6945296878947333, 1e-6);
  EXPECT_FLOAT_EQ(t.mscale, 1.0f);
}

TEST(ArchitectureOps, YarnCorrectionRangeBlendAndMagnitude) {
  // n_rot 128, original context 32768, base 1e6, beta 32 and 1: correction dims
  // 128 ln(32768 / (beta 2 pi)) / (2 ln 1e6) = 23.596 and 39.651 -> [23, 40].
  float dims[2];
  yarn_correction_dims(128, 32768, 1e6f, 32, 1, dims);
  EXPECT_EQ(dims[0], 23.0f);
  EXPECT_EQ(dims[1], 40.0f);
  RopeScaling s;
  s.type = RopeScalingType::Yarn;
  s.factor = 4;
  s.orig_ctx = 32768;
  const RopeTable t = make_rope_table(RopeStyle::Neox, 128, 1e6f, s, nullptr);
  auto base_freq = [](int i) { return std::pow(1e6, -2.0 * i / 128); };
  EXPECT_REL(t.inv_freq[10], base_freq(10), 1e-6);      // below the range: extrapolated
  EXPECT_REL(t.inv_freq[50], base_freq(50) / 4, 1e-6);  // above: interpolated (x 1/4)
  // pair 30: ramp (30 - 23) / 17, mix 1 - 7/17 of extrapolation
  EXPECT_REL(t.inv_freq[30], base_freq(30) * (0.25 * 7 / 17 + 10.0 / 17), 1e-6);
  EXPECT_NEAR(t.mscale, 1 + 0.1 * std::log(4.0), 1e-6);  // 1.138629
}

TEST(ArchitectureOps, LoadedDescriptionsCarryTheirNumbers) {
  test::TempDir dir;
  auto g2 = load_spec(dir, *synthetic_arch_spec("gemma2"), "g2.gguf");
  ASSERT_TRUE(g2);
  const ModelHParams& h2 = g2->hparams();
  EXPECT_EQ(h2.head_dim, 64);  // key_length, not 128 / 4
  EXPECT_FLOAT_EQ(h2.embed_scale, std::sqrt(128.0f));
  EXPECT_FLOAT_EQ(h2.query_scale, 1.0f / 8.0f);
  EXPECT_EQ(h2.attn_softcap, 50.0f);
  EXPECT_EQ(h2.final_softcap, 30.0f);
  EXPECT_EQ(g2->info().windowed_layers, (std::vector<int32_t>{0, 2}));  // the even layers
  EXPECT_EQ(g2->info().rope_style, "neox");

  auto g3 = load_spec(dir, *synthetic_arch_spec("gemma3"), "g3.gguf");
  ASSERT_TRUE(g3);
  const ModelHParams& h3 = g3->hparams();
  EXPECT_EQ(g3->info().windowed_layers,
            (std::vector<int32_t>{0, 1, 2, 3, 4}));  // 5 local : 1 global
  EXPECT_EQ(h3.attn_softcap, 0.0f);
  // local layers: base 10000, unscaled; the global layer: base 1e6, linear x 1/8.
  EXPECT_REL(h3.rope(0, 0).inv_freq[1], std::pow(10000.0, -2.0 / 64), 1e-6);
  EXPECT_REL(h3.rope(5, 0).inv_freq[1], std::pow(1e6, -2.0 / 64) / 8, 1e-6);

  auto l3 = load_spec(dir, *synthetic_arch_spec("llama3-rope"), "l3.gguf");
  ASSERT_TRUE(l3);
  EXPECT_TRUE(l3->info().rope_freq_factors);
  EXPECT_EQ(l3->info().rope_style, "norm");
  EXPECT_REL(l3->hparams().rope(0, 0).inv_freq[15], std::pow(500000.0, -30.0 / 32) / 8, 1e-6);
}

// {arch}.attention.sliding_window_pattern, as llama.cpp reads it, over the architecture's
// default (gemma3: 5 local layers, then a global one).
TEST(SlidingWindowPattern, TheFilesPatternOverTheArchitecturesDefault) {
  test::TempDir dir;
  auto windowed = [&](std::vector<int32_t> pattern) {
    auto spec = synthetic_arch_spec("gemma3");
    spec->swa_pattern = std::move(pattern);
    auto m = load_spec(dir, *spec, "p.gguf");
    return m ? m->info().windowed_layers : std::vector<int32_t>{-1};
  };
  EXPECT_EQ(windowed({}), (std::vector<int32_t>{0, 1, 2, 3, 4}));  // no key: period 6
  EXPECT_EQ(windowed({3}), (std::vector<int32_t>{0, 1, 3, 4}));    // l % 3 < 2
  EXPECT_EQ(windowed({2}), (std::vector<int32_t>{0, 2, 4}));
  EXPECT_EQ(windowed({0}), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));        // 0: every layer
  EXPECT_EQ(windowed({1}), (std::vector<int32_t>{}));                        // 1: none
  EXPECT_EQ(windowed({0, 1, 1, 0, 0, 1}), (std::vector<int32_t>{1, 2, 5}));  // per layer
}

TEST(SlidingWindowPattern, ABadPatternIsRefusedByName) {
  test::TempDir dir;
  auto spec = synthetic_arch_spec("gemma3");
  spec->swa_pattern = {1, 0, 1};  // 3 values, 6 layers
  const std::string path = dir.file("bad.gguf");
  ASSERT_TRUE(write_synthetic_model(path, *spec));
  auto model = Model::load(path);
  ASSERT_FALSE(model);
  EXPECT_NE(model.message().find("gemma3.attention.sliding_window_pattern' has 3 values for 6"),
            std::string::npos)
      << model.message();
}

// The pattern reaches the forward pass: the file's own pattern equal to the default gives the
// same logits bit for bit, another pattern (its own windows and RoPE bases) other logits.
TEST(SlidingWindowPattern, ThePatternDecidesTheLogits) {
  test::TempDir dir;
  auto logits = [&](std::vector<int32_t> pattern, const char* file) {
    auto spec = synthetic_arch_spec("gemma3");
    spec->swa_pattern = std::move(pattern);
    auto m = load_spec(dir, *spec, file);
    SessionOptions o;
    o.kv_type = "f32";
    auto s = Session::create(m, o);
    std::vector<float> out;
    EXPECT_TRUE(s && (*s)->eval(test::test_ids(24, m->info().n_vocab), &out));
    return out;
  };
  const std::vector<float> by_default = logits({}, "d.gguf");
  const std::vector<float> same = logits({1, 1, 1, 1, 1, 0}, "s.gguf");
  const std::vector<float> other = logits({2}, "o.gguf");
  ASSERT_EQ(by_default.size(), other.size());
  EXPECT_EQ(by_default, same);
  const int64_t nv = static_cast<int64_t>(by_default.size()) / 24;
  EXPECT_GT(test::max_rel_error(&by_default[20 * nv], &other[20 * nv], nv), 1e-3);
}

// ---------------------------------------------------------------- LongRoPE

// The factors as stored in the file (n_rot/2 F32 values).
std::vector<float> file_factors(const std::string& path, const std::string& name) {
  auto f = gguf::GgufFile::open(path);
  EXPECT_TRUE(f);
  if (!f) return {};
  const gguf::TensorInfo* t = (*f)->find_tensor(name);
  EXPECT_TRUE(t) << name;
  if (!t) return {};
  std::vector<float> v(t->n_elements);
  std::memcpy(v.data(), (*f)->tensor_data(*t), v.size() * sizeof(float));
  return v;
}

// phi3-longrope: context 512, original context 64, n_rot 32, base 10000. A session of
// n_ctx <= 64 divides by the short factors, beyond 64 by the long ones; both multiply
// cos/sin by attn_factor = sqrt(1 + ln(512/64) / ln 64) = sqrt(1.5) (ln 8 / ln 64 = 1/2).
TEST(LongRope, TableChosenByTheContextInUse) {
  test::TempDir dir;
  auto m = load_spec(dir, *synthetic_arch_spec("phi3-longrope"), "p.gguf");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->info().rope_scaling, "longrope");
  EXPECT_EQ(m->info().rope_scaling_orig_ctx, 64);
  EXPECT_FLOAT_EQ(m->info().rope_scaling_factor, 8.0f);
  const std::vector<float> shorts = file_factors(dir.file("p.gguf"), "rope_factors_short.weight");
  const std::vector<float> longs = file_factors(dir.file("p.gguf"), "rope_factors_long.weight");
  ASSERT_EQ(shorts.size(), 16u);
  ASSERT_EQ(longs.size(), 16u);
  EXPECT_FLOAT_EQ(longs[15], 40.0f);  // like Phi-3.5's: long factors grow to tens
  const ModelHParams& hp = m->hparams();
  for (int32_t n_ctx : {1, 32, 64, 65, 256, 512, 0}) {
    SCOPED_TRACE(n_ctx);
    const bool is_long = n_ctx == 0 || n_ctx > 64;  // 0: the trained 512
    const RopeTable& t = hp.rope(2, n_ctx);
    ASSERT_EQ(t.inv_freq.size(), 16u);
    for (int i = 0; i < 16; ++i) {
      const double factor = is_long ? longs[i] : shorts[i];
      EXPECT_REL(t.inv_freq[i], std::pow(10000.0, -2.0 * i / 32) / factor, 1e-6) << "pair " << i;
    }
    EXPECT_NEAR(t.mscale, std::sqrt(1.5), 1e-6);
  }
  EXPECT_NE(shorts[15], longs[15]);
}

// The same prompt in sessions of 32 and 256 tokens: equal at position 0 (no turn, the
// same magnitude), different after it; 64 and 32 (both short) agree everywhere.
TEST(LongRope, ShortAndLongFactorsGiveDifferentLogits) {
  test::TempDir dir;
  auto m = load_spec(dir, *synthetic_arch_spec("phi3-longrope"), "p.gguf");
  ASSERT_TRUE(m);
  const int32_t nv = m->info().n_vocab;
  const std::vector<TokenId> ids = test::test_ids(20, nv);
  std::vector<float> logits[3];
  const int32_t ctx[3] = {32, 64, 256};
  for (int k = 0; k < 3; ++k) {
    for (const char* backend : {"cpu", "cpu-reference"}) {
      SessionOptions o;
      o.backend = backend;
      o.kv_type = "f32";
      o.n_ctx = ctx[k];
      auto s = Session::create(m, o);
      ASSERT_TRUE(s) << s.message();
      std::vector<float> all;
      ASSERT_TRUE((*s)->eval(ids, &all));
      if (logits[k].empty()) {
        logits[k] = all;
      } else {
        EXPECT_LE(test::max_rel_error(all.data(), logits[k].data(), all.size()), 1e-4) << backend;
      }
    }
  }
  EXPECT_LE(test::max_rel_error(&logits[2][0], &logits[0][0], nv), 1e-6);
  for (size_t p = 1; p < ids.size(); ++p) {
    EXPECT_GT(test::max_rel_error(&logits[2][p * nv], &logits[0][p * nv], nv), 1e-3) << "pos " << p;
    EXPECT_LE(test::max_rel_error(&logits[1][p * nv], &logits[0][p * nv], nv), 1e-6) << "pos " << p;
  }
}

// ---------------------------------------------------------------- sliding window

// One windowed gemma2 layer (window 8): the output at position p depends on tokens
// [p - 7, p] only. Changing token 0 must change positions 0..7 and leave 8.. exactly equal.
TEST(SlidingWindow, ATokenBeyondTheWindowDoesNotChangeTheOutput) {
  test::TempDir dir;
  auto spec = synthetic_arch_spec("gemma2");
  ASSERT_TRUE(spec);
  spec->n_layers = 1;
  auto model = load_spec(dir, *spec, "g.gguf");
  ASSERT_TRUE(model);
  ASSERT_EQ(model->info().windowed_layers, (std::vector<int32_t>{0}));
  const int32_t nv = model->info().n_vocab;
  std::vector<TokenId> a = test::test_ids(24, nv), b = a;
  b[0] = static_cast<TokenId>((a[0] + 100) % nv);
  for (const char* backend : {"cpu", "cpu-reference"}) {
    SCOPED_TRACE(backend);
    SessionOptions o;
    o.backend = backend;
    o.kv_type = "f32";
    auto sa = Session::create(model, o);
    auto sb = Session::create(model, o);
    ASSERT_TRUE(sa && sb);
    std::vector<float> la, lb;
    ASSERT_TRUE((*sa)->eval(a, &la));
    ASSERT_TRUE((*sb)->eval(b, &lb));
    for (int p = 0; p < 8; ++p) {
      EXPECT_GT(test::max_rel_error(&la[p * nv], &lb[p * nv], nv), 1e-4)
          << "pos " << p << " sees token 0";
    }
    for (int p = 8; p < 24; ++p) {
      EXPECT_EQ(test::max_rel_error(&la[p * nv], &lb[p * nv], nv), 0.0)
          << "pos " << p << " is past the window";
    }
  }
  // Without the window (a llama layer) token 0 reaches every position: the test can fail.
  auto llama = synthetic_arch_spec("llama");
  llama->n_layers = 1;
  auto lm = load_spec(dir, *llama, "l.gguf");
  SessionOptions o;
  o.kv_type = "f32";
  auto sa = Session::create(lm, o);
  auto sb = Session::create(lm, o);
  std::vector<float> la, lb;
  ASSERT_TRUE((*sa)->eval(a, &la));
  ASSERT_TRUE((*sb)->eval(b, &lb));
  EXPECT_GT(test::max_rel_error(&la[23 * nv], &lb[23 * nv], nv), 1e-6);
}

// ---------------------------------------------------------------- refusal

// Rewrites a GGUF: metadata edited by `edit`, tensors in `drop` left out.
std::vector<uint8_t> rewrite(const gguf::GgufFile& f,
                             const std::function<void(gguf::GgufWriter&)>& edit,
                             const std::vector<std::string>& drop) {
  gguf::GgufWriter w;
  for (const auto& kv : f.metadata()) w.set(kv.key, kv.value);
  edit(w);
  for (const auto& t : f.tensors()) {
    if (std::find(drop.begin(), drop.end(), t.name) != drop.end()) continue;
    w.add_tensor(t.name, t.dims, t.type, std::span<const uint8_t>(f.tensor_data(t), t.n_bytes));
  }
  return w.to_bytes();
}

using test::set_tensor_type;

TEST(Refusal, OneMessageListsEveryReason) {
  test::TempDir dir;
  auto spec = synthetic_arch_spec("qwen2");
  ASSERT_TRUE(spec);
  spec->n_layers = 2;
  ASSERT_TRUE(write_synthetic_model(dir.file("ok.gguf"), *spec));
  auto f = gguf::GgufFile::open(dir.file("ok.gguf"));
  ASSERT_TRUE(f);

  // A supported architecture with: an unknown tokenizer, a missing bias and a missing
  // FFN matrix, and two tensors of types kvchat cannot compute with.
  std::vector<uint8_t> bytes =
      rewrite(**f, [](gguf::GgufWriter& w) { w.set_string("tokenizer.ggml.model", "mystery"); },
              {"blk.1.attn_k.bias", "blk.0.ffn_down.weight"});
  set_tensor_type(bytes, "blk.0.attn_q.weight", 16);  // IQ2_XXS
  set_tensor_type(bytes, "blk.1.ffn_up.weight", 21);  // IQ3_S
  const std::string path = dir.file("bad.gguf");
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  auto m = Model::load(path);
  ASSERT_FALSE(m);
  const std::string msg = m.message();
  for (const char* fragment :
       {"bad.gguf", "5 problems",
        "tensor 'blk.0.attn_q.weight': tensor type IQ2_XXS (id 16) is not supported",
        "tensor 'blk.1.ffn_up.weight': tensor type IQ3_S (id 21) is not supported",
        "missing required tensor 'blk.1.attn_k.bias'",
        "missing required tensor 'blk.0.ffn_down.weight'", "mystery"}) {
    EXPECT_NE(msg.find(fragment), std::string::npos) << fragment << "\n" << msg;
  }
  // A tensor of an unsupported type is reported once, not also as missing.
  EXPECT_EQ(msg.find("missing required tensor 'blk.0.attn_q.weight'"), std::string::npos) << msg;

  // An unknown architecture: said together with the tokenizer and the tensor types.
  std::vector<uint8_t> arch_bytes = rewrite(**f,
                                            [](gguf::GgufWriter& w) {
                                              w.set_string("general.architecture", "mamba");
                                              w.set_string("tokenizer.ggml.model", "mystery");
                                            },
                                            {});
  set_tensor_type(arch_bytes, "token_embd.weight", 16);
  const std::string path2 = dir.file("mamba.gguf");
  std::ofstream(path2, std::ios::binary)
      .write(reinterpret_cast<const char*>(arch_bytes.data()), arch_bytes.size());
  auto m2 = Model::load(path2);
  ASSERT_FALSE(m2);
  for (const char* fragment : {"3 problems", "architecture 'mamba' is not supported",
                               "llama, qwen2, qwen3, gemma2, gemma3, phi3",
                               "tensor 'token_embd.weight': tensor type IQ2_XXS", "mystery"}) {
    EXPECT_NE(m2.message().find(fragment), std::string::npos) << fragment << "\n" << m2.message();
  }
}

// The CUDA kernels implement every architecture the CPU runs: the check accepts every
// synthetic architecture (rope scalings, LongRoPE, windows, soft-caps, biases, norms,
// head_dim != n_embd / n_heads). What it still refuses, in every build (with or without
// CUDA, with or without a device), is a head size the attention kernels lack, said by
// number; backend 'auto' then runs on the CPU saying why.
TEST(Refusal, CudaAcceptsEveryArchitectureAndRefusesOnlyHeadSizesItsKernelsLack) {
  test::TempDir dir;
  std::vector<std::string> archs = synthetic_arch_names();
  archs.push_back("llama3-rope");
  archs.push_back("phi3-longrope");
  for (const std::string& arch : archs) {
    SCOPED_TRACE(arch);
    auto spec = synthetic_arch_spec(arch);
    ASSERT_TRUE(spec);
    auto m = load_spec(dir, *spec, arch + ".gguf");
    ASSERT_TRUE(m);
    EXPECT_TRUE(cuda_can_run(m->hparams())) << cuda_can_run(m->hparams()).message();
    EXPECT_TRUE(cuda_can_read_weights(m->weights()));
  }
  auto spec = *synthetic_arch_spec("llama");
  spec.n_embd = 96;  // 2 heads of 48
  spec.n_heads = 2;
  spec.n_kv_heads = 1;
  auto odd = load_spec(dir, spec, "hd48.gguf");
  ASSERT_TRUE(odd);
  SessionOptions o;
  o.backend = "cuda";
  auto cuda = Session::create(odd, o);
  ASSERT_FALSE(cuda);
  for (const char* fragment : {"architecture 'llama'", "head_dim 48", "multiples of 32"}) {
    EXPECT_NE(cuda.message().find(fragment), std::string::npos) << fragment << "\n"
                                                                << cuda.message();
  }
  o.backend = "auto";
  auto fallback = Session::create(odd, o);
  ASSERT_TRUE(fallback) << fallback.message();
  EXPECT_EQ((*fallback)->backend_name(), "cpu");
  EXPECT_NE((*fallback)->backend_note().find("head_dim 48"), std::string::npos)
      << (*fallback)->backend_note();
}

// Only one of the two factor tensors: refused, saying LongRoPE needs both.
TEST(LongRope, HalfAFileIsRefusedAndCudaDeclines) {
  test::TempDir dir;
  ASSERT_TRUE(write_synthetic_model(dir.file("p.gguf"), *synthetic_arch_spec("phi3-longrope")));
  auto f = gguf::GgufFile::open(dir.file("p.gguf"));
  ASSERT_TRUE(f);
  std::vector<uint8_t> bytes =
      rewrite(**f, [](gguf::GgufWriter&) {}, {"rope_factors_short.weight"});
  const std::string path = dir.file("half.gguf");
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  auto half = Model::load(path);
  ASSERT_FALSE(half);
  EXPECT_NE(half.message().find("LongRoPE needs both"), std::string::npos) << half.message();
}

// ---------------------------------------------------------------- memory

// gemma2-2b's shape: 26 layers, 4 KV heads of 256, window 4096 on the 13 even layers.
// f16: one layer's K or V row is 4 x 256 x 2 = 2048 bytes; per token 2 x 26 x 2048 =
// 106,496 bytes; at 8192 tokens 872,415,232 bytes full; with the window
// 2 x 2048 x (13 x 8192 + 13 x 4096) = 654,311,424 bytes.
TEST(ArchitectureMemory, Gemma2ShapeFullAndWithWindowByHand) {
  MemoryPlanInput in;
  in.n_layers = 26;
  in.n_kv_heads = 4;
  in.head_dim = 256;
  in.n_ctx_train = 8192;
  in.ctx = 8192;
  in.kv_type = KvType::F16;
  in.sliding_window = 4096;
  in.n_windowed_layers = 13;
  auto plan = plan_memory(in);
  ASSERT_TRUE(plan) << plan.message();
  EXPECT_EQ(plan->chosen().bytes_per_token, 106496u);
  EXPECT_EQ(plan->chosen().used_bytes, 872415232u);
  EXPECT_EQ(plan->chosen().used_bytes_with_window, 654311424u);
  // Below the window both agree: 2 x 2048 x 26 x 1000.
  in.ctx = 1000;
  auto small = plan_memory(in);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->chosen().used_bytes_with_window, 106496000u);
  EXPECT_EQ(small->chosen().used_bytes, 106496000u);

  // The synthetic gemma2 (3 layers, 0 and 2 windowed by 8, 2 KV heads of 64): 256 values
  // per layer and token; at 24 tokens 256 x 3 x 24 = 18432 full, 256 x (24 + 2 x 8) = 10240.
  test::TempDir dir;
  auto g2 = load_spec(dir, *synthetic_arch_spec("gemma2"), "g2.gguf");
  ASSERT_TRUE(g2);
  EXPECT_EQ(g2->info().kv_elements_per_token() * 24, 18432u);
  EXPECT_EQ(g2->info().kv_elements_with_window(24), 10240u);
  EXPECT_EQ(g2->info().kv_elements_with_window(4), g2->info().kv_elements_per_token() * 4);
}

// ---------------------------------------------------------------- kvchat-cli

// mkmodel --arch, logits --decode (one token per pass) against the prefill, info's numbers.
TEST(ArchitectureCli, MkmodelLogitsDecodeAndInfo) {
  test::TempDir dir;
  const std::string model = dir.file("g2.gguf");
  auto mk = test::run_cli("mkmodel --arch gemma2 --out " + test::sh_quote(model));
  ASSERT_EQ(mk.exit_code, 0) << mk.err;
  EXPECT_NE(
      test::run_cli("mkmodel --arch mamba --out " + test::sh_quote(dir.file("x.gguf"))).exit_code,
      0);

  std::string ids;
  for (TokenId t : test::test_ids(20, 384)) ids += (ids.empty() ? "" : " ") + std::to_string(t);
  for (const char* backend : {"cpu", "cpu-reference"}) {
    SCOPED_TRACE(backend);
    const std::string base = "logits --model " + test::sh_quote(model) + " --ids " +
                             test::sh_quote(ids) + " --all --backend " + backend;
    auto prefill = test::run_cli(base);
    auto decode = test::run_cli(base + " --decode");
    ASSERT_EQ(prefill.exit_code, 0) << prefill.err;
    ASSERT_EQ(decode.exit_code, 0) << decode.err;
    const auto a = nlohmann::json::parse(prefill.out)["logits"];
    const auto b = nlohmann::json::parse(decode.out)["logits"];
    ASSERT_EQ(a.size(), 20u);
    ASSERT_EQ(b.size(), 20u);
    for (size_t p = 0; p < 20; ++p) {
      const auto x = a[p].get<std::vector<double>>(), y = b[p].get<std::vector<double>>();
      EXPECT_LE(test::max_rel_error(y, x, x.size()), 1e-5) << "pos " << p;
    }
  }

  auto info = test::run_cli("info --json --model " + test::sh_quote(model));
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const auto j = nlohmann::json::parse(info.out);
  EXPECT_EQ(j["architecture"], "gemma2");
  EXPECT_EQ(j["head_dim"], 64);
  EXPECT_EQ(j["sliding_window"], 8);
  EXPECT_EQ(j["windowed_layers"], nlohmann::json::array({0, 2}));
  EXPECT_EQ(j["final_softcap"], 30.0);
  // 512 trained tokens: 256 values per layer and token -> 3 x 512 full, 512 + 2 x 8 windowed.
  EXPECT_EQ(j["kv_elements_at_train_ctx"], 256u * 3 * 512);
  EXPECT_EQ(j["kv_elements_at_train_ctx_with_window"], 256u * (512 + 2 * 8));

  auto mem =
      test::run_cli("memory --json --kv-type f32 --ctx 100 --model " + test::sh_quote(model));
  ASSERT_EQ(mem.exit_code, 0) << mem.err;
  const auto m = nlohmann::json::parse(mem.out);
  EXPECT_EQ(m["kv_bytes"], 4u * 256 * 3 * 100);
  EXPECT_EQ(m["kv_bytes_with_window"], 4u * 256 * (100 + 2 * 8));

  // The gemma2-2b preset: the numbers of ArchitectureMemory.Gemma2ShapeFullAndWithWindowByHand.
  auto preset = test::run_cli("memory --json --preset gemma2-2b --kv-type f16");
  ASSERT_EQ(preset.exit_code, 0) << preset.err;
  const auto p = nlohmann::json::parse(preset.out);
  EXPECT_EQ(p["ctx"], 8192);
  EXPECT_EQ(p["n_windowed_layers"], 13);
  EXPECT_EQ(p["kv_bytes"], 872415232u);
  EXPECT_EQ(p["kv_bytes_with_window"], 654311424u);
}

}  // namespace
}  // namespace kvchat
