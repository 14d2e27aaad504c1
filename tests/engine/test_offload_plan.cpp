// plan_offload: how many layers go on the GPU, against bytes computed by hand from the
// tensor shapes (the demo model's, a synthetic gemma2's windowed layers, llama-3-8b's
// preset shape), the largest fitting g at budgets one byte either side of a boundary,
// requested counts clamped and honoured, and the figures of a file's header alone.
#include <gtest/gtest.h>

#include "backend/offload_plan.h"
#include "kvchat/gguf_inspect.h"
#include "kvchat/memory_report.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "model/model_hparams.h"
#include "model/model_presets.h"
#include "model/model_weights.h"
#include "model/synthetic_model.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

std::shared_ptr<const Model> demo() {
  auto m = Model::load(test::shared_path("models/kjv-demo-f16.gguf"));
  EXPECT_TRUE(m) << m.message();
  return m ? *m : nullptr;
}

// The demo model: 6 layers, dim 192, 6 heads of 32, 2 KV heads, n_ff 512, 2048 tokens,
// tied embeddings; every matrix F16 (2 bytes a value), every norm F32 (4 bytes).
constexpr uint64_t kDim = 192, kKvDim = 2 * 32, kFf = 512, kVocab = 2048, kLayers = 6;
constexpr uint64_t kDemoLayerBytes = 2 * kDim * 4             // attn_norm, ffn_norm
                                     + kDim * kDim * 2 * 2    // wq (192, 192), wo (192, 192)
                                     + kKvDim * kDim * 2 * 2  // wk, wv (64, 192)
                                     + kFf * kDim * 2 * 3;    // gate, up (512, 192), down
constexpr uint64_t kDemoEmbdBytes = kVocab * kDim * 2;        // token_embd (2048, 192)
constexpr uint64_t kDemoOutputBytes = kDim * 4;               // output_norm; output is tied
// K and V of one layer at 512 tokens in f16: 2 x 512 x 64 values x 2 bytes.
constexpr uint64_t kDemoLayerKvF16 = 2 * 512 * kKvDim * 2;

TEST(OffloadPlan, DemoModelLayerAndKvBytesMatchTheShapes) {
  auto model = demo();
  ASSERT_TRUE(model);
  const ModelHParams& hp = model->hparams();
  ASSERT_EQ(hp.n_layers, 6);
  ASSERT_EQ(hp.n_embd, 192);
  ASSERT_EQ(hp.kv_dim(), 64);
  ASSERT_EQ(hp.n_ff, 512);
  ASSERT_EQ(hp.n_vocab, 2048);
  ASSERT_TRUE(model->weights().tied_embeddings);
  EXPECT_EQ(kDemoLayerBytes, 786432u + 1536u);  // the 7 matrices and 2 norms
  const OffloadShape s = offload_shape(hp, model->weights());
  ASSERT_EQ(s.layer_weight_bytes.size(), kLayers);
  for (uint64_t b : s.layer_weight_bytes) EXPECT_EQ(b, kDemoLayerBytes);
  EXPECT_EQ(s.token_embd_bytes, kDemoEmbdBytes);
  EXPECT_EQ(s.output_bytes, kDemoOutputBytes);
  // Everything together is the file's tensor data (`kvchat-cli info`: 5505024 + 9984).
  EXPECT_EQ(kDemoEmbdBytes + kLayers * kDemoLayerBytes + kDemoOutputBytes, 5505024u + 9984u);
  EXPECT_EQ(layer_kv_bytes(s, 0, 512, KvType::F16), kDemoLayerKvF16);
  // 500 tokens take whole blocks of 16: 512 tokens' rows; q8_0 34 bytes per 32 values.
  EXPECT_EQ(layer_kv_bytes(s, 3, 500, KvType::F16), kDemoLayerKvF16);
  EXPECT_EQ(layer_kv_bytes(s, 3, 512, KvType::Q8_0), 2u * 512 * (kKvDim / 32 * 34));
}

TEST(OffloadPlan, AutoPicksTheLargestFittingCountAtEachBoundary) {
  auto model = demo();
  ASSERT_TRUE(model);
  const int32_t ctx = 512;
  const OffloadShape s = offload_shape(model->hparams(), model->weights());
  const uint64_t scratch = device_scratch_estimate(s, ctx, 1);
  EXPECT_EQ(device_scratch_estimate(s, ctx, 6), scratch);  // no quantized output tile
  EXPECT_EQ(device_scratch_estimate(s, ctx, 0), 0u);
  // The estimate of the file comment, by hand: activations of 1024 tokens (x, xb 192;
  // q|k|v 320; attention 192; gate|up, hidden 1536; a scale), 64 logits rows of 2048, the
  // RoPE table (512 x 16 pairs); 1024 x 2 int32; partials 8 tokens x 6 heads x 20
  // partitions x 34 floats; x in f16 (1024 x 512); no quantized matrix; cuBLAS 32 MiB.
  const uint64_t floats = 1024 * (2 * 192 + 320 + 192 + 3 * 512 + 1) + 64 * 2048 + 2 * 512 * 16;
  EXPECT_EQ(scratch, floats * 4 + 8192 + 8 * 6 * 20 * 34 * 4 + 1024 * 512 * 2 + 32 * kMiB);
  const uint64_t reserve = 256 * kMiB;  // 5% of these budgets is less than 256 MiB
  auto device_total = [&](uint64_t g) {
    return kDemoEmbdBytes + g * kDemoLayerBytes + (g == kLayers ? kDemoOutputBytes : 0) +
           g * kDemoLayerKvF16 + scratch + reserve;
  };
  for (uint64_t g = 1; g <= kLayers; ++g) {
    const OffloadPlan at = plan_offload(s, ctx, KvType::F16, device_total(g), -1);
    EXPECT_EQ(at.gpu_layers, static_cast<int32_t>(g)) << "budget of exactly " << g << " layers";
    EXPECT_TRUE(at.fits);
    EXPECT_EQ(at.device_total_bytes(), device_total(g));
    const OffloadPlan below = plan_offload(s, ctx, KvType::F16, device_total(g) - 1, -1);
    EXPECT_EQ(below.gpu_layers, static_cast<int32_t>(g - 1)) << "one byte short of " << g;
  }
  // 4 of 6: the split of weights and KV.
  const OffloadPlan p = plan_offload(s, ctx, KvType::F16, device_total(4) + 1000, -1);
  ASSERT_EQ(p.gpu_layers, 4);
  EXPECT_FALSE(p.requested);
  EXPECT_EQ(p.n_layers, 6);
  EXPECT_EQ(p.device_weight_bytes, kDemoEmbdBytes + 4 * kDemoLayerBytes);
  // The host: layers 4 and 5, output_norm and the tied token_embd for the logits.
  EXPECT_EQ(p.host_weight_bytes, 2 * kDemoLayerBytes + kDemoOutputBytes + kDemoEmbdBytes);
  EXPECT_EQ(p.device_kv_bytes, 4 * kDemoLayerKvF16);
  EXPECT_EQ(p.host_kv_bytes, 2 * kDemoLayerKvF16);
  EXPECT_EQ(p.device_scratch_bytes, scratch);
  EXPECT_EQ(p.device_reserve_bytes, reserve);
  EXPECT_EQ(p.summary.rfind("4 of 6 layers on the GPU: ", 0), 0u) << p.summary;
  // Everything fits: nothing on the host.
  const OffloadPlan all = plan_offload(s, ctx, KvType::F16, 8ull << 30, -1);
  EXPECT_EQ(all.gpu_layers, 6);
  EXPECT_EQ(all.host_weight_bytes, 0u);
  EXPECT_EQ(all.host_kv_bytes, 0u);
  EXPECT_EQ(all.device_weight_bytes, kDemoEmbdBytes + 6 * kDemoLayerBytes + kDemoOutputBytes);
  EXPECT_EQ(all.device_reserve_bytes, (8ull << 30) / 20);  // 5% above 5.12 GiB free
  // Too little for one layer: everything on the host.
  const OffloadPlan none = plan_offload(s, ctx, KvType::F16, 100 * kMiB, -1);
  EXPECT_EQ(none.gpu_layers, 0);
  EXPECT_EQ(none.device_weight_bytes, 0u);
  EXPECT_EQ(none.device_kv_bytes, 0u);
  EXPECT_EQ(none.device_scratch_bytes, 0u);
  EXPECT_EQ(none.host_weight_bytes, kDemoEmbdBytes + 6 * kDemoLayerBytes + kDemoOutputBytes);
  EXPECT_EQ(none.host_kv_bytes, 6 * kDemoLayerKvF16);
}

TEST(OffloadPlan, RequestedCountIsClampedAndHonouredWhenItDoesNotFit) {
  auto model = demo();
  ASSERT_TRUE(model);
  const ModelHParams& hp = model->hparams();
  const ModelWeights& w = model->weights();
  const OffloadPlan more = plan_offload(hp, w, 512, KvType::F16, 8ull << 30, 99);
  EXPECT_TRUE(more.requested);
  EXPECT_EQ(more.gpu_layers, 6);
  EXPECT_TRUE(more.fits);
  // 3 layers in 10 MiB: asked for, so kept, and said not to fit.
  const OffloadPlan tight = plan_offload(hp, w, 512, KvType::F16, 10 * kMiB, 3);
  EXPECT_EQ(tight.gpu_layers, 3);
  EXPECT_FALSE(tight.fits);
  EXPECT_EQ(tight.device_kv_bytes, 3 * kDemoLayerKvF16);
  EXPECT_NE(tight.summary.find("does not fit"), std::string::npos) << tight.summary;
  const OffloadPlan zero = plan_offload(hp, w, 512, KvType::F16, 8ull << 30, 0);
  EXPECT_EQ(zero.gpu_layers, 0);
  EXPECT_TRUE(zero.fits);
  EXPECT_EQ(zero.host_kv_bytes, 6 * kDemoLayerKvF16);
}

TEST(OffloadPlan, WindowedLayersCountOnlyTheirWindowAndSlack) {
  test::TempDir dir;
  auto spec = synthetic_arch_spec("gemma2");
  ASSERT_TRUE(spec) << spec.message();
  ASSERT_TRUE(write_synthetic_model(dir.file("g.gguf"), *spec));
  auto model = Model::load(dir.file("g.gguf"));
  ASSERT_TRUE(model) << model.message();
  const ModelHParams& hp = (*model)->hparams();
  ASSERT_EQ(hp.sliding_window, 8);
  ASSERT_GT(hp.n_windowed_layers(), 0);
  ASSERT_LT(hp.n_windowed_layers(), hp.n_layers);
  const OffloadShape s = offload_shape(hp, (*model)->weights());
  const uint64_t kv_dim = static_cast<uint64_t>(hp.kv_dim());
  // 384 tokens: a full layer holds 384 rows, a windowed one 8 + 256 slack = 264, rounded
  // up to whole blocks of 16: 272.
  uint64_t full_kv = 0, windowed_kv = 0;
  for (int32_t l = 0; l < hp.n_layers; ++l) {
    const uint64_t rows = hp.windowed(l) ? 272 : 384;
    EXPECT_EQ(layer_kv_bytes(s, l, 384, KvType::F16), 2 * rows * kv_dim * 2) << l;
    (hp.windowed(l) ? windowed_kv : full_kv) += 2 * rows * kv_dim * 2;
  }
  // Below the window + slack every layer holds the whole context.
  for (int32_t l = 0; l < hp.n_layers; ++l) {
    EXPECT_EQ(layer_kv_bytes(s, l, 100, KvType::F16), 2 * 112 * kv_dim * 2) << l;
  }
  const OffloadPlan all = plan_offload(s, 384, KvType::F16, 8ull << 30, -1);
  EXPECT_EQ(all.gpu_layers, hp.n_layers);
  EXPECT_EQ(all.device_kv_bytes, full_kv + windowed_kv);
  // Slack < 0: the cache never frees windowed rows.
  OffloadShape keep = s;
  keep.window_slack = -1;
  for (int32_t l = 0; l < hp.n_layers; ++l) {
    EXPECT_EQ(layer_kv_bytes(keep, l, 384, KvType::F16), 2 * 384 * kv_dim * 2) << l;
  }
}

// llama-3-8b's shape in Q4_0 (18 bytes per 32 values), from the preset alone: views with
// shapes and a stand-in address, as a header-only file gives them.
struct Llama8b {
  ModelHParams hp;
  ModelWeights w;
};
Llama8b llama_8b_q4_0(const ModelPreset& p) {
  static const uint8_t stand_in = 0;
  auto matrix = [](int64_t rows, int64_t cols) {
    WeightView v;
    v.type = gguf::TensorType::Q4_0;
    v.data = &stand_in;
    v.rows = rows;
    v.cols = cols;
    v.row_bytes = static_cast<uint64_t>(cols) / 32 * 18;
    return v;
  };
  auto vec = [](int64_t n) {
    WeightView v;
    v.data = &stand_in;
    v.rows = 1;
    v.cols = n;
    v.row_bytes = static_cast<uint64_t>(n) * 4;
    return v;
  };
  Llama8b m;
  m.hp.n_layers = p.n_layers;
  m.hp.n_embd = p.n_embd;
  m.hp.n_heads = p.n_heads;
  m.hp.n_kv_heads = p.n_kv_heads;
  m.hp.head_dim = p.head_dim;
  m.hp.n_ff = p.n_ff;
  m.hp.n_vocab = p.n_vocab;
  m.hp.n_rot = p.head_dim;
  m.hp.swa_layer.assign(p.n_layers, 0);
  const int64_t dim = p.n_embd, q = p.n_heads * p.head_dim, kv = p.n_kv_heads * p.head_dim;
  m.w.token_embd = matrix(p.n_vocab, dim);
  m.w.output = matrix(p.n_vocab, dim);
  m.w.output_norm = vec(dim);
  for (int32_t l = 0; l < p.n_layers; ++l) {
    ModelLayerWeights lw;
    lw.attn_norm = vec(dim);
    lw.ffn_norm = vec(dim);
    lw.wq = matrix(q, dim);
    lw.wk = matrix(kv, dim);
    lw.wv = matrix(kv, dim);
    lw.wo = matrix(dim, q);
    lw.w_gate = matrix(p.n_ff, dim);
    lw.w_up = matrix(p.n_ff, dim);
    lw.w_down = matrix(dim, p.n_ff);
    m.w.layers.push_back(lw);
  }
  return m;
}

TEST(OffloadPlan, Llama8bAtHalfItsLayers) {
  auto preset = find_model_preset("llama-3-8b");
  ASSERT_TRUE(preset) << preset.message();
  ASSERT_FALSE(preset->tied_embeddings);
  const Llama8b m = llama_8b_q4_0(*preset);
  const OffloadShape s = offload_shape(m.hp, m.w);
  // One layer by hand: 2 norms of 4096 f32; wq, wo (4096, 4096), wk, wv (1024, 4096),
  // gate, up (14336, 4096), down (4096, 14336), 4096 / 32 x 18 = 2304 bytes a 4096 row.
  const uint64_t layer =
      2 * 4096 * 4 + (2 * 4096 + 2 * 1024 + 2 * 14336) * 2304ull + 4096ull * (14336 / 32 * 18);
  for (uint64_t b : s.layer_weight_bytes) ASSERT_EQ(b, layer);
  const uint64_t embd = 128256ull * 2304, output = 4096 * 4 + 128256ull * 2304;
  // The whole is what `kvchat-cli memory --preset llama-3-8b --weight-type q4_0` predicts.
  auto predicted = preset_weight_bytes(*preset, gguf::TensorType::Q4_0);
  ASSERT_TRUE(predicted) << predicted.message();
  EXPECT_EQ(embd + 32 * layer + output, *predicted);
  // 8192 tokens in f16: 2 x 8192 x 1024 x 2 bytes = 32 MiB a layer.
  const uint64_t layer_kv = 2ull * 8192 * 1024 * 2;
  const uint64_t scratch = device_scratch_estimate(s, 8192, 16);
  // All 32 layers add the output's f16 tile (128256 x 4096 values) to the largest layer
  // matrix's (14336 x 4096).
  EXPECT_EQ(device_scratch_estimate(s, 8192, 32) - scratch, (128256ull - 14336) * 4096 * 2);
  // The smallest budget of 16 layers: what they need + max(256 MiB, 5% of the budget).
  const uint64_t without_reserve = embd + 16 * layer + 16 * layer_kv + scratch;
  uint64_t free = without_reserve + 256 * kMiB;
  if (free / 20 > 256 * kMiB) free = (without_reserve * 20 + 18) / 19;
  ASSERT_GE(free - device_reserve(free), without_reserve);
  ASSERT_LT(free - 1 - device_reserve(free - 1), without_reserve);
  const OffloadPlan p = plan_offload(m.hp, m.w, 8192, KvType::F16, free, -1);
  EXPECT_EQ(p.gpu_layers, 16) << p.summary;
  EXPECT_EQ(p.device_weight_bytes, embd + 16 * layer);
  EXPECT_EQ(p.host_weight_bytes, 16 * layer + output);  // untied: the host has its own output
  EXPECT_EQ(p.device_kv_bytes, 16 * layer_kv);
  EXPECT_EQ(p.host_kv_bytes, 16 * layer_kv);
  EXPECT_EQ(p.device_reserve_bytes, std::max(256 * kMiB, free / 20));
  EXPECT_EQ(plan_offload(m.hp, m.w, 8192, KvType::F16, free - 1, -1).gpu_layers, 15);
  EXPECT_EQ(p.summary.rfind("16 of 32 layers on the GPU: ", 0), 0u) << p.summary;
  EXPECT_EQ(plan_offload(m.hp, m.w, 8192, KvType::F16, free - 64 * kMiB, -1).gpu_layers, 15);
  // q8_0 KV (34 / 32 bytes a value) fits more layers in the same memory.
  EXPECT_GT(plan_offload(m.hp, m.w, 8192, KvType::Q8_0, free, -1).gpu_layers, 16);
}

TEST(OffloadPlan, AFileHeaderAloneGivesTheLoadedModelsShape) {
  const std::string path = test::shared_path("models/kjv-demo-f16.gguf");
  auto in = inspect_gguf_file(path);
  ASSERT_TRUE(in) << in.message();
  ASSERT_TRUE(in->offload_shape);
  const OffloadShape& h = *in->offload_shape;
  EXPECT_EQ(h.n_layers, 6);
  ASSERT_EQ(h.layer_weight_bytes.size(), kLayers);
  for (uint64_t b : h.layer_weight_bytes) EXPECT_EQ(b, kDemoLayerBytes);
  EXPECT_EQ(h.token_embd_bytes, kDemoEmbdBytes);
  EXPECT_EQ(h.output_bytes, kDemoOutputBytes);
  auto model = demo();
  ASSERT_TRUE(model);
  const OffloadPlan from_header = plan_offload(h, 512, KvType::F16, 300 * kMiB, -1);
  const OffloadPlan from_model =
      plan_offload(model->hparams(), model->weights(), 512, KvType::F16, 300 * kMiB, -1);
  EXPECT_EQ(from_header.gpu_layers, from_model.gpu_layers);
  EXPECT_EQ(from_header.summary, from_model.summary);
}

// Without a GPU the session's report puts every layer, weight and KV block on the host.
TEST(OffloadPlan, CpuSessionReportsEverythingOnTheHost) {
  auto model = demo();
  ASSERT_TRUE(model);
  SessionOptions so;
  so.n_ctx = 64;
  so.gpu_layers = 3;  // no device: nothing to split
  auto session = Session::create(model, so);
  ASSERT_TRUE(session) << session.message();
  const std::vector<TokenId> tokens = {1, 5, 9, 12, 20};
  ASSERT_TRUE((*session)->eval(tokens)) << "eval";
  const MemoryReport r = (*session)->memory_report();
  EXPECT_EQ(r.gpu_layers, 0);
  EXPECT_FALSE(r.layers_split());
  EXPECT_EQ(r.n_layers, 6);
  EXPECT_EQ(r.host_weights_bytes, kDemoEmbdBytes + kLayers * kDemoLayerBytes + kDemoOutputBytes);
  EXPECT_EQ(r.host_kv_bytes, r.kv_allocated_bytes);
  EXPECT_GT(r.host_kv_bytes, 0u);
}

}  // namespace
}  // namespace kvchat
