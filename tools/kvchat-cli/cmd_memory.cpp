// memory: the predicted memory of a model at a context length — weights, the KV cache
// for every KV type with the formula filled in, and what fits in a budget.
#include <cctype>
#include <algorithm>
#include <climits>
#include <optional>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "kv/memory_plan.h"
#include "kvchat/session.h"
#include "model/architecture.h"
#include "model/model_presets.h"
#include "offload_report.h"
#include "util/printable.h"

namespace kvchat::cli {

namespace {

// Where the shape and weight bytes came from.
struct Source {
  std::string model_path;   // --model, or empty
  std::string preset;       // --preset, or empty
  std::string name;         // what the output calls it
  std::string weight_type;  // "f16", ... for a preset; "file" for a real model
  uint64_t n_params = 0;
  MemoryPlanInput input;
  OffloadShape offload;  // what the GPU planner needs of the shape
};

// A preset's per-layer bytes without a file: the difference a layer makes to
// preset_weight_bytes, and what the untied output adds (every layer is alike).
Result<OffloadShape> preset_offload_shape(const ModelPreset& p, const WeightTypeSpec& type) {
  auto bytes_of = [&](int32_t layers, bool tied) {
    ModelPreset q = p;
    q.n_layers = layers;
    q.tied_embeddings = tied;
    return preset_weight_bytes(q, type.type, type.mix);
  };
  auto one = bytes_of(1, true), two = bytes_of(2, true), untied = bytes_of(1, false);
  if (!one) return one.error();
  if (!two) return two.error();
  if (!untied) return untied.error();
  OffloadShape s;
  s.n_layers = p.n_layers;
  s.n_embd = p.n_embd;
  s.n_heads = p.n_heads;
  s.n_kv_heads = p.n_kv_heads;
  s.head_dim = p.head_dim;
  s.n_ff = p.n_ff;
  s.n_vocab = p.n_vocab;
  s.n_rot = p.head_dim;
  s.tied_embeddings = p.tied_embeddings;
  const uint64_t layer = *two - *one, norm = static_cast<uint64_t>(p.n_embd) * 4;
  s.layer_weight_bytes.assign(static_cast<size_t>(p.n_layers), layer);
  s.token_embd_bytes = *one - layer - norm;
  s.output_bytes = norm + (p.tied_embeddings ? 0 : *untied - *one);
  const bool unquantized = type.type == gguf::TensorType::F16 ||
                           type.type == gguf::TensorType::F32 ||
                           type.type == gguf::TensorType::BF16;
  if (!unquantized || type.mix != WeightMix::Uniform) {
    s.largest_quantized_matrix_values =
        static_cast<uint64_t>(p.n_ff) * static_cast<uint64_t>(p.n_embd);
    s.quantized_output_values = static_cast<uint64_t>(p.n_vocab) * static_cast<uint64_t>(p.n_embd);
  }
  s.windowed.assign(static_cast<size_t>(p.n_layers), 0);
  // The architecture's pattern, as preset_windowed_layers counts it.
  if (const ArchitectureDesc* a = find_architecture(p.arch);
      a && a->swa_pattern > 0 && p.sliding_window > 0) {
    for (int32_t l = 0; l < p.n_layers; ++l) {
      s.windowed[l] = l % a->swa_pattern < a->swa_pattern - 1 ? 1 : 0;
    }
  }
  s.window = p.sliding_window;
  return s;
}

Result<WeightTypeSpec> parse_weight_type(const std::string& s) {
  if (auto t = parse_weight_type_spec(s)) return *t;
  return Error{"unknown --weight-type '" + s + "' (" + weight_type_spec_names() + ")"};
}

Result<Source> from_preset(const Args& args) {
  auto preset = find_model_preset(args.get("--preset"));
  if (!preset) return preset.error();
  Source s;
  s.preset = s.name = preset->name;
  s.weight_type = args.get("--weight-type", "f16");
  auto type = parse_weight_type(s.weight_type);
  if (!type) return type.error();
  auto weights = preset_weight_bytes(*preset, type->type, type->mix);
  if (!weights) return weights.error();
  s.n_params = preset_param_count(*preset).total();
  s.input.n_layers = preset->n_layers;
  s.input.n_kv_heads = preset->n_kv_heads;
  s.input.head_dim = preset->head_dim;
  s.input.n_ctx_train = preset->n_ctx_train;
  s.input.sliding_window = preset->sliding_window;
  s.input.n_windowed_layers = preset_windowed_layers(*preset);
  s.input.weights_bytes = *weights;
  auto offload = preset_offload_shape(*preset, *type);
  if (!offload) return offload.error();
  s.offload = std::move(offload.value());
  return s;
}

Result<Source> from_model(const Args& args) {
  if (args.has("--weight-type")) return Error{"--weight-type applies to --preset only"};
  auto model = Model::load(args.get("--model"));
  if (!model) return model.error();
  const ModelInfo& m = (*model)->info();
  Source s;
  s.model_path = m.path;
  s.name = m.name.empty() ? m.path : m.name;
  s.weight_type = "file";
  s.n_params = m.n_params;
  s.input.n_layers = m.n_layers;
  s.input.n_kv_heads = m.n_kv_heads;
  s.input.head_dim = m.head_dim;
  s.input.n_ctx_train = m.n_ctx_train;
  s.input.sliding_window = m.sliding_window;
  s.input.n_windowed_layers = static_cast<int32_t>(m.windowed_layers.size());
  s.input.weights_bytes = m.weight_bytes();
  s.offload = offload_shape((*model)->hparams(), (*model)->weights());
  return s;
}

// Everything from the options: the source, then ctx, KV type and budget.
Result<Source> resolve(const Args& args) {
  if (args.has("--model") == args.has("--preset")) {
    std::string presets;
    for (const std::string& n : model_preset_names()) presets += (presets.empty() ? "" : ", ") + n;
    return Error{"give exactly one of --model FILE or --preset NAME (" + presets + ")"};
  }
  auto src = args.has("--model") ? from_model(args) : from_preset(args);
  if (!src) return src;
  auto ctx = args.get_int("--ctx", src->input.n_ctx_train);
  if (!ctx) return ctx.error();
  if (*ctx <= 0) return Error{"--ctx must be a positive number of tokens"};
  src->input.ctx = *ctx;
  const std::string kv_name = args.get("--kv-type", "f16");
  auto kv = parse_kv_type(kv_name);
  if (!kv) return Error{"unknown --kv-type '" + kv_name + "' (" + kv_type_list() + ")"};
  src->input.kv_type = *kv;
  auto block = args.get_int("--kv-block", kDefaultKvBlockTokens);
  if (!block) return block.error();
  // 2^20 tokens per block is past any real context: a bound that only rejects typos.
  if (*block < 1 || *block > (1 << 20)) return Error{"--kv-block must be between 1 and 1048576"};
  src->input.block_tokens = static_cast<int32_t>(*block);
  if (args.has("--budget-bytes")) {
    auto budget = args.get_int("--budget-bytes", 0);
    if (!budget) return budget.error();
    if (*budget < 0) return Error{"--budget-bytes must not be negative"};
    src->input.budget_bytes = static_cast<uint64_t>(*budget);
  }
  return src;
}

// Decimal units, as DESIGN.md quotes them: 1048576000 -> "1.05 GB".
std::string decimal(uint64_t bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1000 && u < 6) v /= 1000, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.2f %s" : "%.0f %s", v, units[u]);
  return buf;
}

std::string bytes_and_units(uint64_t bytes) {
  return grouped(bytes) + " bytes (" + decimal(bytes) + ")";
}

// "2", "4", or "34/32" for a block type.
std::string bytes_per_value(KvType t) {
  const int32_t values = kv_block_values(t), bytes = kv_block_bytes(t);
  return values == 1 ? std::to_string(bytes) : std::to_string(bytes) + "/" + std::to_string(values);
}

// "2 x 32 layers x 8000 tokens x 8 kv_heads x 128 head_dim x 2 bytes = 1,048,576,000 bytes
// (1.05 GB)"
std::string formula(const MemoryPlanInput& in, KvType t, uint64_t tokens, uint64_t bytes) {
  return "2 x " + std::to_string(in.n_layers) + " layers x " + std::to_string(tokens) +
         " tokens x " + std::to_string(in.n_kv_heads) + " kv_heads x " +
         std::to_string(in.head_dim) + " head_dim x " + bytes_per_value(t) +
         " bytes = " + bytes_and_units(bytes);
}

nlohmann::json to_json(const Source& src, const MemoryPlan& plan) {
  const MemoryPlanInput& in = plan.input;
  const KvTypePlan& c = plan.chosen();
  nlohmann::json per_type = nlohmann::json::object();
  for (const KvTypePlan& t : plan.per_type) {
    nlohmann::json e = {
        {"block_values", kv_block_values(t.type)},         {"block_bytes", kv_block_bytes(t.type)},
        {"kv_bytes_per_token", t.bytes_per_token},         {"kv_bytes", t.used_bytes},
        {"kv_allocated_bytes", t.allocated_bytes},         {"total_bytes", t.total_bytes},
        {"kv_bytes_with_window", t.used_bytes_with_window}};
    if (t.fit) {
      e["max_ctx"] = t.fit->max_ctx;
      e["max_ctx_capped"] = t.fit->max_ctx_capped;
      e["concurrent_conversations"] = t.fit->concurrent_conversations;
    }
    per_type[std::string(kv_type_name(t.type))] = e;
  }
  nlohmann::json j = {
      {"model", src.model_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(src.model_path)},
      {"preset", src.preset.empty() ? nlohmann::json(nullptr) : nlohmann::json(src.preset)},
      {"name", src.name},
      {"n_params", src.n_params},
      {"weight_type", src.weight_type},
      {"n_layers", in.n_layers},
      {"n_kv_heads", in.n_kv_heads},
      {"head_dim", in.head_dim},
      {"n_ctx_train", in.n_ctx_train},
      {"ctx", in.ctx},
      {"ctx_exceeds_trained", in.n_ctx_train > 0 && in.ctx > in.n_ctx_train},
      {"block_tokens", in.block_tokens},
      {"allocated_tokens", plan.allocated_tokens},
      {"kv_type", std::string(kv_type_name(in.kv_type))},
      {"kv_bytes", c.used_bytes},
      {"kv_allocated_bytes", c.allocated_bytes},
      {"kv_bytes_per_token", c.bytes_per_token},
      {"sliding_window", in.sliding_window},
      {"n_windowed_layers", in.n_windowed_layers},
      {"kv_bytes_with_window", c.used_bytes_with_window},
      {"weights_bytes", in.weights_bytes},
      {"total_bytes", c.total_bytes},
      {"scratch_included", false},  // activation buffers are not modelled (memory_plan.h)
      {"per_type", per_type},
  };
  if (c.fit) {
    j["budget_bytes"] = *in.budget_bytes;
    j["kv_budget_bytes"] = c.fit->kv_budget_bytes;
    j["max_ctx"] = c.fit->max_ctx;
    j["max_ctx_capped"] = c.fit->max_ctx_capped;
    j["concurrent_conversations"] = c.fit->concurrent_conversations;
  }
  return j;
}

void print_human(const Source& src, const MemoryPlan& plan) {
  const MemoryPlanInput& in = plan.input;
  const KvTypePlan& c = plan.chosen();
  const uint64_t ctx = static_cast<uint64_t>(in.ctx);
  std::printf("model         %s (%s), weights %s\n", printable(src.name).c_str(),
              src.preset.empty() ? "GGUF file" : "preset", src.weight_type.c_str());
  std::printf("shape         %d layers, %d kv_heads, head_dim %d, trained context %s tokens\n",
              in.n_layers, in.n_kv_heads, in.head_dim,
              grouped(static_cast<uint64_t>(in.n_ctx_train)).c_str());
  std::printf("context       %s tokens, allocated in blocks of %d: %s tokens\n",
              grouped(ctx).c_str(), in.block_tokens, grouped(plan.allocated_tokens).c_str());
  if (in.n_ctx_train > 0 && in.ctx > in.n_ctx_train) {
    std::printf("              (longer than the trained context: quality is not predicted)\n");
  }
  std::printf(
      "\nKV cache = 2 (K and V) x layers x tokens x kv_heads x head_dim x bytes per value\n");
  std::printf("  used       %s\n", formula(in, c.type, ctx, c.used_bytes).c_str());
  if (plan.allocated_tokens != ctx) {
    std::printf("  allocated  %s\n",
                formula(in, c.type, plan.allocated_tokens, c.allocated_bytes).c_str());
  }
  if (in.n_windowed_layers > 0) {
    const uint64_t window_tokens =
        std::min<uint64_t>(ctx, static_cast<uint64_t>(in.sliding_window));
    std::printf(
        "  with window %d of the %d layers attend to their last %d tokens only: 2 x (%d layers x "
        "%s\n"
        "             tokens + %d layers x %s tokens) x %d kv_heads x %d head_dim x %s bytes = %s\n"
        "             (the cache frees windowed layers' blocks older than the window + %d tokens "
        "of\n"
        "             slack, so it allocates about this, rounded up to blocks)\n",
        in.n_windowed_layers, in.n_layers, in.sliding_window, in.n_layers - in.n_windowed_layers,
        grouped(ctx).c_str(), in.n_windowed_layers, grouped(window_tokens).c_str(), in.n_kv_heads,
        in.head_dim, bytes_per_value(c.type).c_str(),
        bytes_and_units(c.used_bytes_with_window).c_str(), SessionOptions{}.kv_window_slack);
  }
  std::printf("\n  %-6s %-11s %-13s %-31s %-31s %s\n", "type", "bytes/value", "bytes/token",
              "KV used", "KV allocated", "weights + KV allocated");
  for (const KvTypePlan& t : plan.per_type) {
    std::printf("%s %-6s %-11s %-13s %-31s %-31s %s\n", t.type == c.type ? "*" : " ",
                std::string(kv_type_name(t.type)).c_str(), bytes_per_value(t.type).c_str(),
                grouped(t.bytes_per_token).c_str(), bytes_and_units(t.used_bytes).c_str(),
                bytes_and_units(t.allocated_bytes).c_str(), bytes_and_units(t.total_bytes).c_str());
  }
  std::printf("\nweights       %s from %s parameters\n", bytes_and_units(in.weights_bytes).c_str(),
              grouped(src.n_params).c_str());
  std::printf("total         weights + KV allocated (%s) = %s\n",
              std::string(kv_type_name(c.type)).c_str(), bytes_and_units(c.total_bytes).c_str());
  std::printf("              scratch/activation buffers are not included\n");
  if (!c.fit) return;
  std::printf("\nbudget        %s - weights = %s for KV\n",
              bytes_and_units(*in.budget_bytes).c_str(),
              bytes_and_units(c.fit->kv_budget_bytes).c_str());
  const std::string capped =
      "max ctx (<= " + grouped(static_cast<uint64_t>(in.n_ctx_train)) + " trained)";
  std::printf("\n  %-6s %-15s %-28s conversations of %s tokens\n", "type", "max ctx (raw)",
              capped.c_str(), grouped(ctx).c_str());
  for (const KvTypePlan& t : plan.per_type) {
    std::printf("%s %-6s %-15s %-28s %s\n", t.type == c.type ? "*" : " ",
                std::string(kv_type_name(t.type)).c_str(), grouped(t.fit->max_ctx).c_str(),
                grouped(t.fit->max_ctx_capped).c_str(),
                grouped(t.fit->concurrent_conversations).c_str());
  }
  std::printf(
      "  max ctx counts whole blocks of %d tokens; conversations = KV budget / KV allocated\n",
      in.block_tokens);
}

}  // namespace

int cmd_memory(const Argv& argv) {
  auto args = Args::parse(argv,
                          {"--model", "--preset", "--ctx", "--kv-type", "--budget-bytes",
                           "--weight-type", "--kv-block", "--gpu-memory", "--gpu-layers"},
                          {"--json"});
  if (!args) return fail(args.message());
  auto src = resolve(*args);
  if (!src) return fail(src.message());
  auto plan = plan_memory(src->input);
  if (!plan) return fail(plan.message());
  auto gpu = read_offload_request(*args);
  if (!gpu) return fail(gpu.message());
  std::optional<OffloadPlan> offload;
  if (*gpu) {
    const int32_t ctx = static_cast<int32_t>(std::min<int64_t>(src->input.ctx, INT32_MAX));
    offload = plan_offload(src->offload, ctx, src->input.kv_type, (*gpu)->device_free_bytes,
                           (*gpu)->gpu_layers);
  }
  if (args->has("--json")) {
    nlohmann::json j = to_json(*src, *plan);
    if (offload) j["gpu"] = offload_json(*offload);
    std::printf("%s\n", json_text(j, 2).c_str());
  } else {
    print_human(*src, *plan);
    if (offload) {
      std::printf("\n");
      print_offload(*offload);
    }
  }
  return 0;
}

}  // namespace kvchat::cli
