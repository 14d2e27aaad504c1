// Partial offload, the CPU side: the CPU backend's embed -> forward_layers(0, k) ->
// forward_layers(k, L) -> output_logits equals its forward() bit for bit (the same backend,
// the same threads), over a prefill of more than one chunk (256 tokens) and decode steps,
// with the KV cache split at k (layers [0, k) in a distinct counting memory); the split
// cache's rows equal the unsplit one's. Models: the demo model, stories260K and synthetic
// ones of several architectures (gemma2/gemma3: windowed layers; qwen2/qwen3: biases,
// per-head norms). Then a session on a backend that splits (registered as the CUDA kind):
// the session puts the KV of the layers past kv_memory_layers() in host memory and its
// logits, through prefill, decode and a context shift, equal a CPU session's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "kv/kv_cache.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "model/synthetic_model.h"
#include "support/counting_kv_memory.h"
#include "support/synthetic_model_file.h"
#include "support/test_paths.h"
#include "support/test_tokens.h"

namespace kvchat {
namespace {

constexpr int32_t kPrefill = 300;  // more than the CPU backend's 256-token chunk
constexpr int32_t kDecode = 4;
constexpr int32_t kCtx = 320;

bool bit_identical(const float* a, const float* b, size_t n) {
  return std::memcmp(a, b, n * sizeof(float)) == 0;
}

// The session's KV configuration for `info`, split at memory_layers (layers below it in
// `memory`); a small window slack, so that windowed rows are freed during the run.
KvCacheConfig kv_config(const ModelInfo& info, int32_t memory_layers,
                        std::shared_ptr<KvMemory> memory) {
  KvCacheConfig c = KvCacheConfig::for_model(info, kCtx);
  c.type = KvType::F16;
  c.memory = std::move(memory);
  c.memory_layers = memory_layers;
  c.poison_freed = true;
  c.window_slack = 4;
  return c;
}

KvCache make_cache(const KvCacheConfig& c) {
  auto kv = KvCache::create(c);
  EXPECT_TRUE(kv) << kv.message();
  return std::move(kv.value());
}

// Every layer's valid K and V rows of a and b, compared through export_valid_rows.
void expect_same_rows(const KvCache& a, const KvCache& b) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(a.window_head(), b.window_head());
  EXPECT_EQ(a.window_lo(), b.window_lo());
  EXPECT_EQ(a.allocated_bytes(), b.allocated_bytes());
  std::vector<uint8_t> ra(static_cast<size_t>(a.size()) * std::max(a.row_bytes(0), a.row_bytes(1))),
      rb(ra.size());
  for (int32_t l = 0; l < a.config().n_layers; ++l) {
    for (int32_t which : {0, 1}) {
      ASSERT_TRUE(a.export_valid_rows(l, which, 0, a.size(), ra.data()));
      ASSERT_TRUE(b.export_valid_rows(l, which, 0, b.size(), rb.data()));
      EXPECT_TRUE(ra == rb) << "layer " << l << (which ? " V" : " K");
    }
  }
}

struct ModelCase {
  std::string name;  // a file of /work/shared/models, or a synthetic_arch_spec name
  bool synthetic;
};

class LayerSplit : public ::testing::TestWithParam<ModelCase> {
 protected:
  void SetUp() override {
    const ModelCase& c = GetParam();
    std::string path = test::shared_path("models/" + c.name);
    if (c.synthetic) {
      auto spec = synthetic_arch_spec(c.name);
      ASSERT_TRUE(spec) << spec.message();
      path = dir_.file(c.name + ".gguf");
      ASSERT_TRUE(write_synthetic_model(path, *spec));
    }
    auto m = Model::load(path);
    ASSERT_TRUE(m) << m.message();
    model_ = *m;
    ASSERT_GE(model_->info().n_ctx_train, kCtx);
  }
  void check_split_equals_forward(int32_t threads);

  test::TempDir dir_;
  std::shared_ptr<const Model> model_;
};

TEST_P(LayerSplit, EmbedLayerRangesAndLogitsEqualForwardBitForBit) {
  // 2 threads, and the default (a tiny model decodes on the caller's thread alone).
  for (int32_t threads : {2, 0}) {
    SCOPED_TRACE("n_threads " + std::to_string(threads));
    check_split_equals_forward(threads);
  }
}

void LayerSplit::check_split_equals_forward(int32_t threads) {
  const ModelInfo& info = model_->info();
  const int32_t L = info.n_layers, nv = info.n_vocab, dim = info.n_embd;
  BackendOptions bo;
  bo.n_threads = threads;
  bo.n_ctx = kCtx;
  auto backend = cpu::make_cpu_backend(*model_, bo);
  ASSERT_TRUE(backend) << backend.message();
  Backend& cpu = **backend;
  const std::vector<TokenId> prompt = test::test_ids(kPrefill, nv);
  const std::vector<TokenId> more = test::test_ids(kDecode, nv, 1);

  // The whole forward, as the session runs it: reserve, forward, set_size.
  KvCache whole = make_cache(kv_config(info, -1, nullptr));
  std::vector<float> want_prefill(static_cast<size_t>(kPrefill) * nv);
  ASSERT_TRUE(whole.reserve(kPrefill));
  ASSERT_TRUE(cpu.forward(prompt, 0, whole, want_prefill.data(), true));
  whole.set_size(kPrefill);
  std::vector<std::vector<float>> want_decode;
  for (int32_t i = 0; i < kDecode; ++i) {
    const int32_t pos = whole.size();
    want_decode.emplace_back(nv);
    ASSERT_TRUE(whole.reserve(pos + 1));
    ASSERT_TRUE(cpu.forward({&more[i], 1}, pos, whole, want_decode.back().data(), false));
    whole.set_size(pos + 1);
  }
  // The prefill's last row alone, as forward() computes it without every row's.
  std::vector<float> want_last(nv);
  {
    KvCache last_only = make_cache(kv_config(info, -1, nullptr));
    ASSERT_TRUE(last_only.reserve(kPrefill));
    ASSERT_TRUE(cpu.forward(prompt, 0, last_only, want_last.data(), false));
  }
  if (!info.windowed_layers.empty()) {
    ASSERT_GT(whole.window_freed_bytes(), 0u);  // the windowed layers freed rows
  }

  for (int32_t k : std::set<int32_t>{0, 1, L / 2, L}) {
    SCOPED_TRACE("split at layer " + std::to_string(k) + " of " + std::to_string(L));
    auto counting = std::make_shared<test::CountingKvMemory>();
    KvCache split = make_cache(kv_config(info, k, counting));
    // Prefill: every row's logits.
    std::vector<float> x(static_cast<size_t>(kPrefill) * dim);  // (n, n_embd), the caller's
    std::vector<float> logits(static_cast<size_t>(kPrefill) * nv);
    ASSERT_TRUE(split.reserve(kPrefill));
    ASSERT_TRUE(cpu.embed(prompt, x.data()));
    ASSERT_TRUE(cpu.forward_layers(x.data(), kPrefill, 0, 0, k, split));
    ASSERT_TRUE(cpu.forward_layers(x.data(), kPrefill, 0, k, L, split));
    ASSERT_TRUE(cpu.output_logits(x.data(), kPrefill, logits.data(), true));
    split.set_size(kPrefill);
    EXPECT_TRUE(bit_identical(logits.data(), want_prefill.data(), logits.size()));
    ASSERT_TRUE(cpu.output_logits(x.data(), kPrefill, logits.data(), false));
    EXPECT_TRUE(bit_identical(logits.data(), want_last.data(), nv));
    // Decode: the last row's logits.
    for (int32_t i = 0; i < kDecode; ++i) {
      const int32_t pos = split.size();
      ASSERT_TRUE(split.reserve(pos + 1));
      ASSERT_TRUE(cpu.embed({&more[i], 1}, x.data()));
      ASSERT_TRUE(cpu.forward_layers(x.data(), 1, pos, 0, k, split));
      ASSERT_TRUE(cpu.forward_layers(x.data(), 1, pos, k, L, split));
      ASSERT_TRUE(cpu.output_logits(x.data(), 1, logits.data(), false));
      split.set_size(pos + 1);
      EXPECT_TRUE(bit_identical(logits.data(), want_decode[i].data(), nv)) << "step " << i;
    }
    expect_same_rows(split, whole);
    // The first k layers' rows are in the counting memory, the others are not.
    const int32_t last = split.size() - 1;
    for (int32_t l = 0; l < L; ++l) {
      EXPECT_EQ(counting->holds(split.key_row(l, last), split.row_bytes(0)), l < k) << l;
    }
    EXPECT_EQ(counting->live_bytes > 0, k > 0);
  }
}

// forward_layers refuses a layer whose K/V the host cannot read, and a bad range.
TEST_P(LayerSplit, RefusesLayersItCannotRun) {
  const ModelInfo& info = model_->info();
  const int32_t L = info.n_layers;
  BackendOptions bo;
  bo.n_threads = 2;
  auto backend = cpu::make_cpu_backend(*model_, bo);
  ASSERT_TRUE(backend);
  // A memory the host may not dereference, for the first layer.
  class DeviceOnly final : public KvMemory {
   public:
    std::string_view name() const override { return "device-only"; }
    bool host_accessible() const override { return false; }
    Result<uint8_t*> allocate(uint64_t bytes) override { return host_kv_memory()->allocate(bytes); }
    void release(uint8_t* m) override { host_kv_memory()->release(m); }
    Status to_host(void* dst, const uint8_t* src, uint64_t bytes) const override {
      return host_kv_memory()->to_host(dst, src, bytes);
    }
    Status from_host(uint8_t* dst, const void* src, uint64_t bytes) override {
      return host_kv_memory()->from_host(dst, src, bytes);
    }
  };
  KvCache kv = make_cache(kv_config(info, 1, std::make_shared<DeviceOnly>()));
  ASSERT_TRUE(kv.reserve(4));
  std::vector<float> x(4 * static_cast<size_t>(info.n_embd));
  ASSERT_TRUE((*backend)->embed(test::test_ids(4, info.n_vocab), x.data()));
  auto refused = (*backend)->forward_layers(x.data(), 4, 0, 0, L, kv);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.message().find("layer 0"), std::string::npos) << refused.message();
  EXPECT_TRUE((*backend)->forward_layers(x.data(), 4, 0, 1, L, kv));
  EXPECT_FALSE((*backend)->forward_layers(x.data(), 4, 0, 1, L + 1, kv));
  // Past the reservation (refused before x is read).
  EXPECT_FALSE((*backend)->forward_layers(x.data(), kv.capacity() + 1, 0, 1, L, kv));
  EXPECT_FALSE((*backend)->embed(std::vector<TokenId>{info.n_vocab}, x.data()));
}

INSTANTIATE_TEST_SUITE_P(Models, LayerSplit,
                         ::testing::Values(ModelCase{"kjv-demo-f32.gguf", false},
                                           ModelCase{"stories260K.gguf", false},
                                           ModelCase{"llama", true}, ModelCase{"gemma2", true},
                                           ModelCase{"gemma3", true}, ModelCase{"qwen2", true},
                                           ModelCase{"qwen3", true}),
                         [](const auto& info) {
                           std::string n = info.param.name.substr(0, info.param.name.find('.'));
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// ------------------------------------------------------------ a session on a split backend

// A backend that runs layers [0, k) and [k, L) as two ranges of the CPU backend, with the
// first k layers' KV in a counting memory: what a CUDA backend with k layers on the
// device does, seen from the session. Registered as the CUDA kind.
struct SplitBackendSetup {
  int32_t memory_layers = 0;
  std::shared_ptr<test::CountingKvMemory> memory;
};

SplitBackendSetup& split_setup() {
  static SplitBackendSetup setup;
  return setup;
}

class SplitBackend final : public Backend {
 public:
  SplitBackend(std::unique_ptr<Backend> cpu, const ModelInfo& info)
      : cpu_(std::move(cpu)),
        n_layers_(info.n_layers),
        n_embd_(info.n_embd),
        k_(split_setup().memory_layers),
        memory_(split_setup().memory) {}
  std::string_view name() const override { return "split"; }
  int32_t threads() const override { return cpu_->threads(); }
  int32_t decode_threads() const override { return cpu_->decode_threads(); }
  Status forward(std::span<const TokenId> tokens, int32_t pos0, KvCache& kv, float* logits,
                 bool all_logits) override {
    const int32_t n = static_cast<int32_t>(tokens.size());
    x_.resize(static_cast<size_t>(n) * n_embd_);  // (n, n_embd)
    if (auto s = cpu_->embed(tokens, x_.data()); !s) return s;
    if (auto s = cpu_->forward_layers(x_.data(), n, pos0, 0, k_, kv); !s) return s;
    if (auto s = cpu_->forward_layers(x_.data(), n, pos0, k_, n_layers_, kv); !s) return s;
    return cpu_->output_logits(x_.data(), n, logits, all_logits);
  }
  uint64_t scratch_bytes() const override { return cpu_->scratch_bytes(); }
  std::shared_ptr<KvMemory> kv_memory() override { return memory_; }
  int32_t kv_memory_layers() const override { return k_; }

 private:
  std::unique_ptr<Backend> cpu_;
  int32_t n_layers_, n_embd_, k_;
  std::shared_ptr<KvMemory> memory_;
  std::vector<float> x_;
};

Result<std::unique_ptr<Backend>> make_split_backend(const Model& model,
                                                    const BackendOptions& options) {
  auto cpu = cpu::make_cpu_backend(model, options);
  if (!cpu) return cpu.error();
  return std::unique_ptr<Backend>(new SplitBackend(std::move(cpu).value(), model.info()));
}

class SplitSession : public ::testing::Test {
 protected:
  void SetUp() override { register_backend(BackendKind::Cuda, &make_split_backend); }
  void TearDown() override { register_backend(BackendKind::Cuda, nullptr); }
  static std::unique_ptr<Session> session(const std::shared_ptr<const Model>& model,
                                          const std::string& backend, int32_t n_ctx,
                                          ContextPolicy policy) {
    SessionOptions o;
    o.backend = backend;
    o.backend_self_check = false;
    o.n_threads = 2;
    o.n_ctx = n_ctx;
    o.context_policy = policy;
    auto s = Session::create(model, o);
    EXPECT_TRUE(s) << s.message();
    return s ? std::move(s.value()) : nullptr;
  }
};

TEST_F(SplitSession, KvPastTheSplitIsOnTheHostAndLogitsEqualACpuSession) {
  // The demo model, and gemma2 (windowed layers on both sides of the split).
  for (const std::string& file :
       {test::shared_path("models/kjv-demo-f32.gguf"), test::synthetic_model_file("gemma2")}) {
    SCOPED_TRACE(file);
    auto m = Model::load(file);
    ASSERT_TRUE(m) << m.message();
    const std::shared_ptr<const Model> model = *m;
    const int32_t L = model->info().n_layers, nv = model->info().n_vocab;
    const int32_t k = L / 2;
    split_setup() = {k, std::make_shared<test::CountingKvMemory>()};
    auto split = session(model, "cuda", 400, ContextPolicy::Stop);
    auto plain = session(model, "cpu", 400, ContextPolicy::Stop);
    ASSERT_TRUE(split && plain);
    ASSERT_EQ(split->backend_name(), "split");
    const std::vector<TokenId> prompt = test::test_ids(kPrefill, nv);
    std::vector<float> all_split, all_plain;
    ASSERT_TRUE(split->eval(prompt, &all_split));
    ASSERT_TRUE(plain->eval(prompt, &all_plain));
    ASSERT_EQ(all_split.size(), all_plain.size());
    EXPECT_TRUE(bit_identical(all_split.data(), all_plain.data(), all_plain.size()));
    for (TokenId t : test::test_ids(kDecode, nv, 2)) {
      ASSERT_TRUE(split->eval({&t, 1}));
      ASSERT_TRUE(plain->eval({&t, 1}));
      ASSERT_TRUE(bit_identical(split->last_logits().data(), plain->last_logits().data(), nv));
    }
    const MemoryReport rs = split->memory_report(), rp = plain->memory_report();
    EXPECT_EQ(rs.kv_allocated_bytes, rp.kv_allocated_bytes);
    EXPECT_EQ(rs.kv_pool_bytes, rp.kv_pool_bytes);
    // Both sides grow by the same chunks: the counting memory holds k of the L layers' share.
    EXPECT_EQ(split_setup().memory->live_bytes * L, rs.kv_pool_bytes * k);
    split.reset();
    EXPECT_EQ(split_setup().memory->live_bytes, 0u);  // given back with the session
  }
}

TEST_F(SplitSession, ContextShiftAcrossTheSplitEqualsACpuSession) {
  auto m = Model::load(test::shared_path("models/kjv-demo-f32.gguf"));
  ASSERT_TRUE(m) << m.message();
  const std::shared_ptr<const Model> model = *m;
  const int32_t nv = model->info().n_vocab;
  split_setup() = {2, std::make_shared<test::CountingKvMemory>()};
  auto split = session(model, "cuda", 64, ContextPolicy::Shift);
  auto plain = session(model, "cpu", 64, ContextPolicy::Shift);
  ASSERT_TRUE(split && plain);
  int shifts = 0;
  split->set_event_handler(
      [&](const SessionEvent& e) { shifts += e.kind == SessionEvent::Kind::ContextShifted; });
  const std::vector<TokenId> prompt = test::test_ids(40, nv);
  ASSERT_TRUE(split->eval(prompt));
  ASSERT_TRUE(plain->eval(prompt));
  for (TokenId t : test::test_ids(100, nv, 3)) {
    ASSERT_TRUE(split->eval({&t, 1}));
    ASSERT_TRUE(plain->eval({&t, 1}));
    ASSERT_TRUE(bit_identical(split->last_logits().data(), plain->last_logits().data(), nv));
  }
  EXPECT_GE(shifts, 2);
  EXPECT_EQ(split->n_past(), plain->n_past());
}

}  // namespace
}  // namespace kvchat
