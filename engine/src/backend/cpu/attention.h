// CPU attention over the paged KV cache, grouped by KV head (GQA): one work item is one
// (token, KV head) pair, and it reads that head's K and V rows once for all the `group`
// query heads that share them (group = n_heads / n_kv_heads).
//
// Per item: pass 1 walks the positions [first, pos] in runs that stay inside one KV block
// and scores every K row against the group's query heads (q8_0/q4_0 keys: the query
// heads quantized to 16 bits per 32 values once per item, dotted in integer); the scores
// are softcapped and turned into softmax weights per head; pass 2 walks the V rows in the
// same runs and accumulates the weighted sum for all the group's heads at once.
//
// Semantics (the definition, as the reference backend computes it): token b sits at
// position p = pos0 + b (or steps[b].pos, over steps[b].kv) and attends to [first, p], first =
// window > 0 ? max(0, p-window+1) : 0. For query head h (KV head h / group): s_t = dot(q_h, k_t) *
// scale, s_t = cap * tanh(s_t / cap) when softcap > 0, a = softmax(s), out_h = sum_t a_t v_t.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/backend.h"

namespace kvchat::cpu {

struct AttentionArgs {
  const KvCache* kv = nullptr;  // host memory; rows [first, pos0 + n_tokens) of `layer` valid
  int32_t layer = 0;
  const float* q = nullptr;  // (n_tokens, n_heads * head_dim), row stride q_stride floats
  int64_t q_stride = 0;
  float* out = nullptr;  // (n_tokens, n_heads * head_dim), row stride out_stride floats
  int64_t out_stride = 0;
  int32_t pos0 = 0;  // position of token 0
  int64_t n_tokens = 0;
  // (n_tokens) or null: token b's own cache and position (batched decode across sequences;
  // kv and pos0 are then not read). Null: every token in kv, token b at pos0 + b.
  const SequenceStep* steps = nullptr;
  int32_t n_heads = 0, n_kv_heads = 0, head_dim = 0;
  int32_t window = 0;    // > 0: sliding window of that many positions (own included)
  float scale = 1.0f;    // applied to q.k
  float softcap = 0.0f;  // > 0: scores become cap * tanh(s / cap)
};

// Which kernels run: the AVX2/FMA/F16C ones when the CPU has them (Auto), or the scalar
// definition. Avx2 on a CPU without AVX2 runs the scalar kernels.
enum class AttentionPath { Auto, Scalar, Avx2 };

// One thread's buffers; grows on demand, so sizing it for the session only avoids
// allocations while decoding.
class AttentionScratch {
 public:
  AttentionScratch() = default;
  // n_ctx: the most positions one token attends to; group: query heads per KV head.
  AttentionScratch(int32_t n_ctx, int32_t group, int32_t head_dim) {
    reserve(n_ctx, group, head_dim);
  }
  void reserve(int32_t n_ctx, int32_t group, int32_t head_dim);
  uint64_t bytes() const;

  // Used by attend_items only.
  int64_t score_ld_ = 0;           // floats per head's score row
  std::vector<float> scores_;      // (group, score_ld_) scores, then softmax numerators
  std::vector<float> tile_;        // (block run, head_dim) K or V rows converted to f32
  std::vector<int16_t> q_quants_;  // (group, head_dim) query heads quantized to int16
  std::vector<float> q_scales_;    // (group, head_dim / 32) their per-32 scales
  std::vector<float> q_rotated_;   // (group, head_dim) rotated KV types: the rotated query
  std::vector<float> inv_sums_;    // (group) 1 / softmax denominator per head
};

// Work items of one call: n_tokens * n_kv_heads, token-major (item = b * n_kv_heads + kvh).
int64_t attention_items(const AttentionArgs& args);

// Computes out for the items [i0, i1) on the calling thread. Items write disjoint parts
// of out, so ranges may run on different threads, each with its own scratch.
void attend_items(const AttentionArgs& args, int64_t i0, int64_t i1, AttentionScratch& scratch,
                  AttentionPath path = AttentionPath::Auto);

}  // namespace kvchat::cpu
