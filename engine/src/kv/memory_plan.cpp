#include "kv/memory_plan.h"

#include <algorithm>
#include <string>

#include "kv/kv_rotation.h"

namespace kvchat {

namespace {

bool mul(uint64_t a, uint64_t b, uint64_t* out) { return !__builtin_mul_overflow(a, b, out); }
bool add(uint64_t a, uint64_t b, uint64_t* out) { return !__builtin_add_overflow(a, b, out); }

const Error kTooLarge{"memory plan: the numbers exceed 64 bits"};

BudgetFit fit_budget(const MemoryPlanInput& in, const KvTypePlan& t) {
  BudgetFit f;
  f.kv_budget_bytes = *in.budget_bytes - in.weights_bytes;
  uint64_t block_bytes = 0;
  // A block bigger than 64 bits of bytes fits nowhere: max_ctx stays 0.
  if (mul(t.bytes_per_token, static_cast<uint64_t>(in.block_tokens), &block_bytes)) {
    // Cannot overflow: the quotient times block_tokens is at most kv_budget / bytes_per_token.
    f.max_ctx = f.kv_budget_bytes / block_bytes * static_cast<uint64_t>(in.block_tokens);
  }
  f.max_ctx_capped =
      in.n_ctx_train > 0 ? std::min(f.max_ctx, static_cast<uint64_t>(in.n_ctx_train)) : f.max_ctx;
  f.concurrent_conversations = f.kv_budget_bytes / t.allocated_bytes;
  return f;
}

}  // namespace

const KvTypePlan& MemoryPlan::chosen() const {
  for (const KvTypePlan& t : per_type) {
    if (t.type == input.kv_type) return t;
  }
  return per_type.front();  // unreachable: plan_memory fails when the chosen type is missing
}

Result<MemoryPlan> plan_memory(const MemoryPlanInput& in) {
  if (in.n_layers <= 0 || in.n_kv_heads <= 0 || in.head_dim <= 0 || in.block_tokens <= 0) {
    return Error{"memory plan: layers, kv_heads, head_dim and block size must be positive"};
  }
  if (in.n_windowed_layers < 0 || in.n_windowed_layers > in.n_layers || in.sliding_window < 0 ||
      (in.n_windowed_layers > 0 && in.sliding_window == 0)) {
    return Error{
        "memory plan: windowed layers must be between 0 and the layer count, with a positive "
        "window"};
  }
  if (in.ctx <= 0) return Error{"context length must be positive, got " + std::to_string(in.ctx)};
  if (in.budget_bytes && *in.budget_bytes < in.weights_bytes) {
    return Error{"the budget of " + std::to_string(*in.budget_bytes) +
                 " bytes is smaller than the weights (" + std::to_string(in.weights_bytes) +
                 " bytes): nothing is left for the KV cache"};
  }
  const uint64_t ctx = static_cast<uint64_t>(in.ctx),
                 block = static_cast<uint64_t>(in.block_tokens);

  MemoryPlan plan;
  plan.input = in;
  // ceil(ctx / block) * block, without the ctx + block - 1 that could overflow.
  plan.allocated_tokens = (ctx / block + (ctx % block != 0)) * block;
  // Both factors are below 2^31, so the product fits; so does 2 x layers.
  const uint64_t kv_dim = static_cast<uint64_t>(in.n_kv_heads) * static_cast<uint64_t>(in.head_dim);
  const uint64_t k_and_v_rows = 2 * static_cast<uint64_t>(in.n_layers);
  for (KvType type : kAllKvTypes) {
    // Quantized values are stored in whole blocks of kv_block_values per row.
    if (kv_dim % static_cast<uint64_t>(kv_block_values(type)) != 0) continue;
    if (kv_rotated(type) && !rotation_fits(in.head_dim)) continue;  // kv/kv_rotation.h
    KvTypePlan t;
    t.type = type;
    // 2 (K and V) x layers rows of kv_dim values, each row kv_dim / block values x block
    // bytes: exact, quantization scales included (q8_0 34 bytes per 32 values).
    uint64_t row_bytes = 0;
    if (!mul(kv_dim / static_cast<uint64_t>(kv_block_values(type)),
             static_cast<uint64_t>(kv_block_bytes(type)), &row_bytes) ||
        !mul(k_and_v_rows, row_bytes, &t.bytes_per_token) ||
        !mul(t.bytes_per_token, ctx, &t.used_bytes) ||
        !mul(t.bytes_per_token, plan.allocated_tokens, &t.allocated_bytes) ||
        !add(in.weights_bytes, t.allocated_bytes, &t.total_bytes)) {
      return kTooLarge;
    }
    // Layer-tokens of K/V with windows: cannot overflow where used_bytes did not.
    const uint64_t windowed = static_cast<uint64_t>(in.n_windowed_layers);
    const uint64_t layer_tokens =
        (static_cast<uint64_t>(in.n_layers) - windowed) * ctx +
        windowed * std::min(ctx, static_cast<uint64_t>(in.sliding_window));
    t.used_bytes_with_window = 2 * row_bytes * layer_tokens;
    if (in.budget_bytes) t.fit = fit_budget(in, t);
    plan.per_type.push_back(t);
  }
  const bool have_chosen = std::any_of(plan.per_type.begin(), plan.per_type.end(),
                                       [&](const KvTypePlan& t) { return t.type == in.kv_type; });
  if (!have_chosen) {
    return Error{"KV type " + std::string(kv_type_name(in.kv_type)) +
                 " needs kv_heads x head_dim (" + std::to_string(kv_dim) +
                 ") to be a multiple of " + std::to_string(kv_block_values(in.kv_type))};
  }
  return plan;
}

}  // namespace kvchat
