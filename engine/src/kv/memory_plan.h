// The predicted memory of a model at a context length: weights, the KV cache for each
// KV type (the DESIGN.md formula), and what fits in a memory budget. Pure arithmetic on
// a shape, no allocation; overflow-checked 64-bit math throughout.
//
// Not included: scratch/activation buffers. They depend on the backend and batch size
// (prefill chunking, logits of n_vocab floats, per-thread buffers) and are not modelled
// here, so `total` is weights + allocated KV, a lower bound on the process's footprint.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kv/kv_type.h"
#include "kvchat/result.h"

namespace kvchat {

// The KV cache allocates this many tokens at a time (block_tokens in kv/kv_cache.h).
inline constexpr int32_t kDefaultKvBlockTokens = 16;

struct MemoryPlanInput {
  int32_t n_layers = 0, n_kv_heads = 0, head_dim = 0;
  int32_t n_ctx_train = 0;  // caps max_ctx; 0 when unknown (no cap)
  // Sliding-window attention (gemma2/3): n_windowed_layers of the n_layers attend to
  // their last sliding_window tokens only, so they need at most that many tokens of KV.
  // The cache keeps every layer's K/V for the whole context today, so the figures above
  // are the "full" ones; the *_with_window figures are what those layers need.
  int32_t sliding_window = 0, n_windowed_layers = 0;
  uint64_t weights_bytes = 0;  // ModelInfo::weight_bytes() or preset_weight_bytes()
  int64_t ctx = 0;             // tokens of one conversation
  KvType kv_type = KvType::F16;
  int32_t block_tokens = kDefaultKvBlockTokens;
  std::optional<uint64_t> budget_bytes;  // memory for weights + KV, when asked what fits
};

// What fits in the budget once the weights are in it.
struct BudgetFit {
  uint64_t kv_budget_bytes = 0;  // budget - weights
  // The longest context whose allocated KV fits: whole blocks only, because the cache
  // allocates whole blocks. `capped` never exceeds the trained context.
  uint64_t max_ctx = 0;
  uint64_t max_ctx_capped = 0;
  // Conversations of `ctx` tokens whose allocated KV fits side by side.
  uint64_t concurrent_conversations = 0;
};

struct KvTypePlan {
  KvType type = KvType::F16;
  uint64_t bytes_per_token = 0;  // 2 x layers x kv_heads x head_dim x bytes per value
  uint64_t used_bytes = 0;       // at exactly ctx tokens
  uint64_t allocated_bytes = 0;  // at allocated_tokens (ctx rounded up to whole blocks)
  uint64_t total_bytes = 0;      // weights + allocated KV
  // K/V at exactly ctx tokens when windowed layers keep only min(ctx, window) tokens:
  // 2 x row bytes x (full layers x ctx + windowed layers x min(ctx, window)).
  // Equals used_bytes without windowed layers.
  uint64_t used_bytes_with_window = 0;
  std::optional<BudgetFit> fit;  // when a budget was given
};

struct MemoryPlan {
  MemoryPlanInput input;
  uint64_t allocated_tokens = 0;  // ceil(ctx / block_tokens) * block_tokens
  // One entry per KV type in kAllKvTypes order, leaving out quantized types whose
  // kv_heads x head_dim is not whole 32-value blocks.
  std::vector<KvTypePlan> per_type;

  const KvTypePlan& chosen() const;  // the entry of input.kv_type
};

// Fails on a non-positive shape or ctx, a budget smaller than the weights, a chosen KV
// type the shape cannot store, or numbers past 64 bits.
Result<MemoryPlan> plan_memory(const MemoryPlanInput& in);

}  // namespace kvchat
