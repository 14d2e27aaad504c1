// The predicted memory breakdown (`kvchat-cli memory`) against numbers computed by hand:
// DESIGN.md's KV figures, published parameter counts, the demo model's real file.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "kv/memory_plan.h"
#include "kvchat/model.h"
#include "model/model_presets.h"
#include "model/synthetic_model.h"
#include "support/run_command.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using test::run_cli;
using test::sh_quote;
using test::shared_path;

// llama-3-8b's KV shape: 32 layers, 8 KV heads, head_dim 128, trained on 8192 tokens.
MemoryPlanInput llama3_8b(int64_t ctx, KvType type) {
  MemoryPlanInput in;
  in.n_layers = 32;
  in.n_kv_heads = 8;
  in.head_dim = 128;
  in.n_ctx_train = 8192;
  in.ctx = ctx;
  in.kv_type = type;
  return in;
}

const KvTypePlan& entry(const MemoryPlan& plan, KvType type) {
  for (const KvTypePlan& t : plan.per_type) {
    if (t.type == type) return t;
  }
  throw std::runtime_error("no entry for " + std::string(kv_type_name(type)));
}

ModelPreset preset(const std::string& name) {
  auto p = find_model_preset(name);
  if (!p) throw std::runtime_error(p.message());
  return *p;
}

TEST(MemoryPlan, DesignNumbersExactly) {
  auto at8k = plan_memory(llama3_8b(8000, KvType::F16));
  ASSERT_TRUE(at8k) << at8k.message();
  EXPECT_EQ(at8k->chosen().used_bytes, 1048576000u);  // DESIGN.md: 8,000 tokens
  EXPECT_EQ(at8k->chosen().bytes_per_token, 2u * 32 * 8 * 128 * 2);
  auto at32k = plan_memory(llama3_8b(32000, KvType::F16));
  ASSERT_TRUE(at32k) << at32k.message();
  EXPECT_EQ(at32k->chosen().used_bytes, 4194304000u);  // DESIGN.md: 32,000 tokens
}

TEST(MemoryPlan, EveryKvTypeCountsItsBlockScales) {
  auto plan = plan_memory(llama3_8b(8000, KvType::F16));
  ASSERT_TRUE(plan) << plan.message();
  ASSERT_EQ(plan->per_type.size(), 6u);
  const uint64_t values = 2ull * 32 * 8000 * 8 * 128;
  EXPECT_EQ(entry(*plan, KvType::F32).used_bytes, values * 4);
  EXPECT_EQ(entry(*plan, KvType::F16).used_bytes, values * 2);
  EXPECT_EQ(entry(*plan, KvType::Q8_0).used_bytes, values * 34 / 32);  // 557,056,000
  EXPECT_EQ(entry(*plan, KvType::Q4_0).used_bytes, values * 18 / 32);  // 294,912,000
  EXPECT_EQ(entry(*plan, KvType::Q8_0).used_bytes, 557056000u);
  EXPECT_EQ(entry(*plan, KvType::Q4_0).used_bytes, 294912000u);
  EXPECT_EQ(entry(*plan, KvType::Q8_0).bytes_per_token, 2u * 32 * 8 * 128 * 34 / 32);
  // Rotated types: the same layouts, so the same bytes.
  EXPECT_EQ(entry(*plan, KvType::Q8_0R).used_bytes, 557056000u);
  EXPECT_EQ(entry(*plan, KvType::Q4_0R).used_bytes, 294912000u);
}

TEST(MemoryPlan, AllocatedBytesRoundUpToWholeBlocks) {
  const uint64_t per_token = 2ull * 32 * 8 * 128 * 2;
  for (const auto& [ctx, allocated] : {std::pair<int64_t, uint64_t>{1, 16},
                                       {16, 16},
                                       {17, 32},
                                       {8000, 8000},  // 500 blocks exactly
                                       {8001, 8016}}) {
    auto plan = plan_memory(llama3_8b(ctx, KvType::F16));
    ASSERT_TRUE(plan) << plan.message();
    EXPECT_EQ(plan->allocated_tokens, allocated) << ctx;
    EXPECT_EQ(plan->chosen().used_bytes, per_token * static_cast<uint64_t>(ctx)) << ctx;
    EXPECT_EQ(plan->chosen().allocated_bytes, per_token * allocated) << ctx;
  }
}

TEST(MemoryPlan, TotalIsWeightsPlusAllocatedKv) {
  MemoryPlanInput in = llama3_8b(8001, KvType::Q8_0);
  in.weights_bytes = 1000;
  auto plan = plan_memory(in);
  ASSERT_TRUE(plan) << plan.message();
  EXPECT_EQ(plan->chosen().total_bytes, 1000 + 8016ull * (2 * 32 * 8 * 128 * 34 / 32));
}

TEST(MemoryPlan, BudgetGivesMaxContextAndConcurrency) {
  MemoryPlanInput in = llama3_8b(8000, KvType::F16);
  in.weights_bytes = 1'000'000'000;
  // Room for ten 8000-token conversations (1,048,576,000 bytes each) and 5 bytes more.
  in.budget_bytes = 1'000'000'000 + 10ull * 1048576000 + 5;
  auto plan = plan_memory(in);
  ASSERT_TRUE(plan) << plan.message();
  const BudgetFit& f16 = *plan->chosen().fit;
  EXPECT_EQ(f16.kv_budget_bytes, 10ull * 1048576000 + 5);
  EXPECT_EQ(f16.concurrent_conversations, 10u);
  // 10,485,760,005 / (131,072 bytes x 16 tokens) = 5000 whole blocks = 80,000 tokens.
  EXPECT_EQ(f16.max_ctx, 80000u);
  EXPECT_EQ(f16.max_ctx_capped, 8192u);
  // f32 halves both; q4_0 stores 18/32 bytes per value instead of 2.
  EXPECT_EQ(entry(*plan, KvType::F32).fit->max_ctx, 40000u);
  EXPECT_EQ(entry(*plan, KvType::F32).fit->concurrent_conversations, 5u);
  // 10,485,760,005 / (36,864 x 16) = 17,777.7 -> 17,777 blocks.
  EXPECT_EQ(entry(*plan, KvType::Q4_0).fit->max_ctx, 17777u * 16);
  EXPECT_EQ(entry(*plan, KvType::Q4_0).fit->concurrent_conversations,
            (10ull * 1048576000 + 5) / 294912000);  // 35
}

TEST(MemoryPlan, Llama3_8bIn24GB) {
  auto weights = preset_weight_bytes(preset("llama-3-8b"), gguf::TensorType::F16);
  ASSERT_TRUE(weights) << weights.message();
  // 8,029,995,008 matrix values x 2 bytes + 266,240 norm values x 4 bytes.
  EXPECT_EQ(*weights, 16061054976u);
  MemoryPlanInput in = llama3_8b(8000, KvType::F16);
  in.weights_bytes = *weights;
  in.budget_bytes = 24'000'000'000;
  auto plan = plan_memory(in);
  ASSERT_TRUE(plan) << plan.message();
  const uint64_t free = 24'000'000'000 - 16061054976;                 // 7,938,945,024
  EXPECT_EQ(plan->chosen().fit->max_ctx, free / (131072 * 16) * 16);  // 60,560
  EXPECT_EQ(plan->chosen().fit->max_ctx, 60560u);
  EXPECT_EQ(plan->chosen().fit->concurrent_conversations, 7u);
  EXPECT_EQ(entry(*plan, KvType::Q4_0).fit->concurrent_conversations, free / 294912000);  // 26
}

TEST(MemoryPlan, BudgetEqualToWeightsFitsNothing) {
  MemoryPlanInput in = llama3_8b(8000, KvType::F16);
  in.weights_bytes = 5000;
  in.budget_bytes = 5000;
  auto plan = plan_memory(in);
  ASSERT_TRUE(plan) << plan.message();
  EXPECT_EQ(plan->chosen().fit->max_ctx, 0u);
  EXPECT_EQ(plan->chosen().fit->concurrent_conversations, 0u);
}

TEST(MemoryPlan, ErrorsInsteadOfNegativeOrWrappedNumbers) {
  EXPECT_FALSE(plan_memory(llama3_8b(0, KvType::F16)));
  EXPECT_FALSE(plan_memory(llama3_8b(-5, KvType::F16)));
  MemoryPlanInput small = llama3_8b(8000, KvType::F16);
  small.weights_bytes = 5001;
  small.budget_bytes = 5000;
  auto r = plan_memory(small);
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find("smaller than the weights"), std::string::npos) << r.message();
  // 2^63 tokens of 262,144 bytes cannot be counted in 64 bits.
  auto huge = plan_memory(llama3_8b(std::numeric_limits<int64_t>::max(), KvType::F32));
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.message().find("64 bits"), std::string::npos) << huge.message();
  MemoryPlanInput no_layers = llama3_8b(8000, KvType::F16);
  no_layers.n_layers = 0;
  EXPECT_FALSE(plan_memory(no_layers));
}

TEST(MemoryPlan, QuantizedTypesNeedWholeBlocksPerRow) {
  MemoryPlanInput in = llama3_8b(100, KvType::F16);
  in.n_kv_heads = 1;
  in.head_dim = 48;  // 48 values: not whole 32-value blocks
  auto plan = plan_memory(in);
  ASSERT_TRUE(plan) << plan.message();
  EXPECT_EQ(plan->per_type.size(), 2u);  // f32 and f16 only
  in.kv_type = KvType::Q8_0;
  EXPECT_FALSE(plan_memory(in));
}

TEST(ModelPresets, ParameterCountsMatchPublishedSizes) {
  EXPECT_EQ(preset_param_count(preset("llama-3-8b")).total(), 8030261248u);
  EXPECT_EQ(preset_param_count(preset("llama-3.2-1b")).total(), 1235814400u);
  EXPECT_EQ(preset_param_count(preset("tinyllama-1.1b")).total(), 1100048384u);
  EXPECT_EQ(preset_param_count(preset("mistral-7b")).total(), 7241732096u);
  EXPECT_EQ(preset_param_count(preset("qwen2.5-0.5b")).total(), 494032768u);
  EXPECT_EQ(preset_param_count(preset("kjv-demo-shape")).total(), 2755008u);
  EXPECT_EQ(preset_param_count(preset("gemma2-2b")).total(), 2614341888u);  // post norms counted
}

TEST(ModelPresets, QwenCountsItsQkvBiases) {
  ModelPreset qwen = preset("qwen2.5-0.5b");
  ASSERT_TRUE(qwen.qkv_bias);
  qwen.qkv_bias = false;
  // 24 layers x (896 q + 128 k + 128 v) bias values.
  EXPECT_EQ(preset_param_count(preset("qwen2.5-0.5b")).total() - preset_param_count(qwen).total(),
            24u * (896 + 128 + 128));
}

TEST(ModelPresets, WeightBytesByType) {
  const ModelPreset p = preset("llama-3-8b");
  const uint64_t matrix = preset_param_count(p).matrix, vector = preset_param_count(p).vector;
  EXPECT_EQ(vector, 32u * 2 * 4096 + 4096);
  EXPECT_EQ(*preset_weight_bytes(p, gguf::TensorType::F32), (matrix + vector) * 4);
  EXPECT_EQ(*preset_weight_bytes(p, gguf::TensorType::Q8_0), matrix / 32 * 34 + vector * 4);
  EXPECT_EQ(*preset_weight_bytes(p, gguf::TensorType::Q4_0), matrix / 32 * 18 + vector * 4);
}

TEST(ModelPresets, DemoShapeMatchesTheRealDemoFile) {
  auto model = Model::load(shared_path("models/kjv-demo-f16.gguf"));
  ASSERT_TRUE(model) << model.message();
  const ModelInfo& m = (*model)->info();
  const ModelPreset p = preset("kjv-demo-shape");
  EXPECT_EQ(m.n_params, 2755008u);
  EXPECT_EQ(preset_param_count(p).total(), m.n_params);
  EXPECT_EQ(m.weight_bytes(), 5515008u);
  EXPECT_EQ(*preset_weight_bytes(p, gguf::TensorType::F16), m.weight_bytes());
  EXPECT_EQ(p.n_layers, m.n_layers);
  EXPECT_EQ(p.n_kv_heads, m.n_kv_heads);
  EXPECT_EQ(p.head_dim, m.head_dim);
  EXPECT_EQ(p.n_ctx_train, m.n_ctx_train);
}

TEST(ModelPresets, EveryPresetIsASyntheticPreset) {
  EXPECT_EQ(synthetic_preset_names(), model_preset_names());
  for (const ModelPreset& p : model_presets()) {
    auto spec = synthetic_preset(p.name);
    ASSERT_TRUE(spec) << spec.message();
    EXPECT_EQ(spec->head_dim > 0 ? spec->head_dim : spec->n_embd / spec->n_heads, p.head_dim)
        << p.name;
    EXPECT_EQ(spec->n_ctx, p.n_ctx_train) << p.name;
    EXPECT_EQ(spec->tied, p.tied_embeddings) << p.name;
  }
  EXPECT_FALSE(synthetic_preset("no-such-model"));
  EXPECT_FALSE(find_model_preset("no-such-model"));
}

// --- the CLI contract ---

nlohmann::json memory_json(const std::string& args) {
  auto r = run_cli("memory " + args + " --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(MemoryCli, AcceptanceNumbers) {
  auto j = memory_json("--preset llama-3-8b --ctx 8000 --kv-type f16");
  EXPECT_EQ(j["kv_bytes"].get<uint64_t>(), 1048576000u);
  EXPECT_EQ(j["kv_allocated_bytes"].get<uint64_t>(), 1048576000u);
  EXPECT_EQ(j["kv_bytes_per_token"].get<uint64_t>(), 131072u);
  EXPECT_EQ(j["weights_bytes"].get<uint64_t>(), 16061054976u);
  EXPECT_EQ(j["total_bytes"].get<uint64_t>(), 16061054976u + 1048576000u);
  EXPECT_EQ(j["preset"], "llama-3-8b");
  EXPECT_TRUE(j["model"].is_null());
  EXPECT_EQ(j["ctx"].get<int64_t>(), 8000);
  EXPECT_EQ(j["kv_type"], "f16");
  EXPECT_EQ(j["per_type"]["q8_0"]["kv_bytes"].get<uint64_t>(), 557056000u);
  EXPECT_EQ(j["per_type"]["q4_0"]["kv_bytes"].get<uint64_t>(), 294912000u);
  EXPECT_EQ(j["per_type"]["f32"]["kv_bytes"].get<uint64_t>(), 2097152000u);
  EXPECT_FALSE(j.contains("budget_bytes"));
  EXPECT_EQ(
      memory_json("--preset llama-3-8b --ctx 32000 --kv-type f16")["kv_bytes"].get<uint64_t>(),
      4194304000u);
}

TEST(MemoryCli, BudgetKeys) {
  auto j = memory_json("--preset llama-3-8b --ctx 8000 --kv-type f16 --budget-bytes 24000000000");
  EXPECT_EQ(j["budget_bytes"].get<uint64_t>(), 24000000000u);
  EXPECT_EQ(j["max_ctx"].get<uint64_t>(), 60560u);
  EXPECT_EQ(j["max_ctx_capped"].get<uint64_t>(), 8192u);
  EXPECT_EQ(j["concurrent_conversations"].get<uint64_t>(), 7u);
  for (const char* type : {"f32", "f16", "q8_0", "q4_0"}) {
    ASSERT_TRUE(j["per_type"].contains(type)) << type;
    EXPECT_TRUE(j["per_type"][type].contains("max_ctx")) << type;
    EXPECT_TRUE(j["per_type"][type].contains("concurrent_conversations")) << type;
  }
  EXPECT_EQ(j["per_type"]["q4_0"]["concurrent_conversations"].get<uint64_t>(), 26u);
}

TEST(MemoryCli, RealModelFile) {
  const auto j = memory_json("--model " + sh_quote(shared_path("models/kjv-demo-f16.gguf")) +
                             " --ctx 100 --kv-type q8_0");
  EXPECT_EQ(j["weights_bytes"].get<uint64_t>(), 5515008u);
  EXPECT_TRUE(j["preset"].is_null());
  // 2 x 6 layers x 100 tokens x 2 kv_heads x 32 head_dim x 34/32; allocated 112 tokens.
  EXPECT_EQ(j["kv_bytes"].get<uint64_t>(), 2u * 6 * 100 * 2 * 32 * 34 / 32);
  EXPECT_EQ(j["kv_allocated_bytes"].get<uint64_t>(), 2u * 6 * 112 * 2 * 32 * 34 / 32);
  // Without --ctx: the trained context (512).
  const auto d = memory_json("--model " + sh_quote(shared_path("models/kjv-demo-f16.gguf")));
  EXPECT_EQ(d["ctx"].get<int64_t>(), 512);
  EXPECT_EQ(d["kv_bytes"].get<uint64_t>(), 2u * 6 * 512 * 2 * 32 * 2);
}

TEST(MemoryCli, BlockSizeOption) {
  auto j = memory_json("--preset llama-3-8b --ctx 8001 --kv-block 32");
  EXPECT_EQ(j["block_tokens"].get<int>(), 32);
  EXPECT_EQ(j["allocated_tokens"].get<uint64_t>(), 8032u);  // 251 blocks of 32
  EXPECT_EQ(j["kv_bytes"].get<uint64_t>(), 8001u * 131072);
  EXPECT_EQ(j["kv_allocated_bytes"].get<uint64_t>(), 8032u * 131072);
  EXPECT_EQ(memory_json("--preset llama-3-8b --ctx 8001")["allocated_tokens"].get<uint64_t>(),
            8016u);
}

TEST(MemoryCli, HumanOutputShowsTheFormula) {
  auto r = run_cli("memory --preset llama-3-8b --ctx 8000 --kv-type f16");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 x 32 layers x 8000 tokens x 8 kv_heads x 128 head_dim x 2 bytes = "
                       "1,048,576,000 bytes (1.05 GB)"),
            std::string::npos)
      << r.out;
}

// --gpu-memory: the offload planner's split of llama-3-8b (f16 weights, f16 KV at 8192
// tokens), by hand. A layer: 2 norms of 4096 f32 + (wq, wo 4096^2, wk, wv 1024 x 4096,
// gate, up, down 14336 x 4096) x 2 bytes = 436,240,384 bytes, and 2 x 8192 x 1024 x 2 =
// 33,554,432 bytes of KV; token_embd and output 128256 x 4096 x 2 = 1,050,673,152 each.
TEST(MemoryCli, GpuMemoryShowsTheLayersThatFitAndTheSplit) {
  const uint64_t layer = 436240384, layer_kv = 33554432, embd = 1050673152;
  const uint64_t output = embd + 4096 * 4;  // with output_norm
  ASSERT_EQ(embd + 32 * layer + output, 16061054976u);
  auto asked = memory_json("--preset llama-3-8b --ctx 8192 --gpu-memory 10 --gpu-layers 16");
  const auto& g = asked["gpu"];
  EXPECT_EQ(g["gpu_layers"].get<int>(), 16);
  EXPECT_EQ(g["n_layers"].get<int>(), 32);
  EXPECT_TRUE(g["gpu_layers_requested"].get<bool>());
  EXPECT_EQ(g["device_weights_bytes"].get<uint64_t>(), embd + 16 * layer);
  EXPECT_EQ(g["host_weights_bytes"].get<uint64_t>(), 16 * layer + output);
  EXPECT_EQ(g["device_kv_bytes"].get<uint64_t>(), 16 * layer_kv);
  EXPECT_EQ(g["host_kv_bytes"].get<uint64_t>(), 16 * layer_kv);
  EXPECT_EQ(g["device_free_bytes"].get<uint64_t>(), 10ull << 30);
  // Auto in 10 GiB: less a 512 MiB reserve (5%), token_embd and 358,002,688 bytes of
  // scratch (activations of 1024 tokens 288,690,176, token ids 8,192, attention partials
  // 6,389,760, x in f16 29,360,128, cuBLAS 32 MiB): 8,791,871,488 bytes for layers of
  // 469,794,816 with their KV: 18 of them.
  auto fit = memory_json("--preset llama-3-8b --ctx 8192 --gpu-memory 10");
  EXPECT_EQ(fit["gpu"]["gpu_layers"].get<int>(), 18);
  EXPECT_FALSE(fit["gpu"]["gpu_layers_requested"].get<bool>());
  EXPECT_EQ(fit["gpu"]["device_scratch_bytes"].get<uint64_t>(), 358002688u);
  EXPECT_EQ(fit["gpu"]["device_reserve_bytes"].get<uint64_t>(), 512ull << 20);
  EXPECT_FALSE(memory_json("--preset llama-3-8b --ctx 8192").contains("gpu"));
  // The text: the summary and both sides.
  auto r = run_cli("memory --preset llama-3-8b --ctx 8192 --gpu-memory 10");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("18 of 32 layers on the GPU"), std::string::npos) << r.out;
  // The CPU: 14 layers and the output, 14 x 436,240,384 + 1,050,689,536.
  EXPECT_NE(r.out.find("CPU         weights 7,158,054,912 bytes"), std::string::npos) << r.out;
  // The demo model from its file: 6 layers fit in 1 GiB, none in 0.25 GiB (the reserve).
  const std::string demo = "--model " + sh_quote(shared_path("models/kjv-demo-f16.gguf"));
  EXPECT_EQ(memory_json(demo + " --gpu-memory 1")["gpu"]["gpu_layers"].get<int>(), 6);
  EXPECT_EQ(memory_json(demo + " --gpu-memory 0.25")["gpu"]["gpu_layers"].get<int>(), 0);
  for (const std::string bad :
       {" --gpu-layers 3", " --gpu-memory abc", " --gpu-memory 0",
        " --gpu-memory 4 --gpu-layers -2", " --gpu-memory 4 --gpu-layers x"}) {
    auto e = run_cli("memory " + demo + bad);
    EXPECT_EQ(e.exit_code, 1) << bad;
    EXPECT_NE(e.err.find("--gpu-"), std::string::npos) << bad << " -> " << e.err;
  }
}

TEST(MemoryCli, Errors) {
  const std::string model = sh_quote(shared_path("models/kjv-demo-f16.gguf"));
  for (const std::string& args :
       {std::string("--preset llama-3-8b --model ") + model,  // both
        std::string("--ctx 8000"),                            // neither
        std::string("--preset llama-3-8b --kv-type q5_1"),
        std::string("--preset llama-3-8b --ctx 0"), std::string("--preset llama-3-8b --ctx -3"),
        std::string("--preset llama-3-8b --ctx abc"), std::string("--preset no-such-model"),
        std::string("--preset llama-3-8b --budget-bytes 1000"),
        std::string("--preset llama-3-8b --weight-type iq2_xxs"),
        std::string("--preset llama-3-8b --kv-block 0"),
        std::string("--model ") + model + " --weight-type q8_0"}) {
    auto r = run_cli("memory " + args + " --json");
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_TRUE(r.out.empty()) << args;
    EXPECT_NE(r.err.find("kvchat-cli: "), std::string::npos) << args;
  }
  EXPECT_NE(run_cli("memory --ctx 8000").err.find("exactly one of --model"), std::string::npos);
  EXPECT_NE(run_cli("memory --preset llama-3-8b --budget-bytes 1000")
                .err.find("smaller than the weights"),
            std::string::npos);
}

}  // namespace
}  // namespace kvchat
