// The per-value arithmetic of the CUDA kernels that are not matrix products (RoPE, the
// norms, the gated activations, soft-caps, biases, scales, sliding-window bounds), written
// once as device functions: the kernels call them, and test_value_math_host
// runs the same functions on the CPU (tests/cuda_host/include supplies the intrinsics)
// against the CPU backend's ops (backend/cpu/cpu_ops.h), so every build checks what a
// device computes without a device. Products and sums are rounded one by one (__fmul_rn,
// __fadd_rn: no FMA contraction) in the CPU's order, so the rotations, norms' products,
// biases and scales equal the CPU's bit for bit; expf and tanhf are within a few ulp.
#pragma once

#include <cuda_runtime.h>

#include <cmath>

// (Device functions: under the host emulation __device__ is empty, so they are host ones.)
#define KVCHAT_VALUE_FN __device__ __forceinline__

namespace kvchat::cuda::math {

// ---- RoPE -----------------------------------------------------------------------------
// Pair i (i < n_rot / 2) of a head: adjacent values (2i, 2i + 1) for the llama (norm)
// style, the half split (i, i + n_rot / 2) for neox. (c, s) = cos and sin of the pair's
// angle with the table's mscale folded in (model/rope_table.h: RopeCosSin).
KVCHAT_VALUE_FN int rope_first(bool neox, int i) { return neox ? i : 2 * i; }
KVCHAT_VALUE_FN int rope_partner(bool neox, int n_rot) { return neox ? n_rot / 2 : 1; }
//                                                                         head: (head_dim)
KVCHAT_VALUE_FN void rope_rotate(float* head, bool neox, int n_rot, int i, float c, float s) {
  float* v = head + rope_first(neox, i);
  const int p = rope_partner(neox, n_rot);
  const float v0 = v[0], v1 = v[p];
  v[0] = __fsub_rn(__fmul_rn(v0, c), __fmul_rn(v1, s));
  v[p] = __fadd_rn(__fmul_rn(v0, s), __fmul_rn(v1, c));
}

// One thread's work of the RoPE kernel: value pair idx of the (n, heads = n_q + n_kv, n_rot/2)
// grid, q's heads first, then k's. q: (n, n_q, head_dim), k: (n, n_kv, head_dim),
// positions: (n), rope_cs: (max_pos, n_rot/2) {cos, sin}.
KVCHAT_VALUE_FN void rope_at(long long idx, float* q, int n_q, float* k, int n_kv, int head_dim,
                             int n_rot, bool neox, const int* positions, const float2* rope_cs) {
  const int half = n_rot / 2, heads = n_q + n_kv;
  const int i = static_cast<int>(idx % half);
  const int h = static_cast<int>((idx / half) % heads);
  const long long b = idx / (static_cast<long long>(half) * heads);
  float* head = h < n_q ? q + (b * n_q + h) * head_dim : k + (b * n_kv + (h - n_q)) * head_dim;
  const float2 cs = rope_cs[static_cast<long long>(positions[b]) * half + i];
  rope_rotate(head, neox, n_rot, i, cs.x, cs.y);
}

// ---- RMSNorm --------------------------------------------------------------------------
// 1 / sqrt(mean(x^2) + eps) from the row's sum of squares, finished in double as
// cpu::rmsnorm does; then out = (x * scale) * gain.
KVCHAT_VALUE_FN float rms_inverse(float sum_squares, int dim, float eps) {
  return static_cast<float>(1.0 / sqrt(static_cast<double>(sum_squares) / dim + eps));
}
KVCHAT_VALUE_FN float rms_apply(float x, float scale, float gain) {
  return __fmul_rn(__fmul_rn(x, scale), gain);
}

// ---- Gated activations (the FFN's act(gate) * up) ---------------------------------------
// silu(g) = g / (1 + e^-g)
KVCHAT_VALUE_FN float silu(float g) { return __fdiv_rn(g, __fadd_rn(1.0f, expf(-g))); }
// GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), cpu::gelu_tanh's
// order.
KVCHAT_VALUE_FN float gelu_tanh(float x) {
  const float cube = __fmul_rn(__fmul_rn(__fmul_rn(0.044715f, x), x), x);
  const float inner = __fmul_rn(0.7978845608028654f, __fadd_rn(x, cube));
  return __fmul_rn(__fmul_rn(0.5f, x), __fadd_rn(1.0f, tanhf(inner)));
}
// act(gate) * up: GeGLU (gelu = true, gemma) or SwiGLU.
KVCHAT_VALUE_FN float glu(bool gelu, float gate, float up) {
  return __fmul_rn(gelu ? gelu_tanh(gate) : silu(gate), up);
}

// One thread's work of the GLU kernel: output value idx of out (n, n_ff) from gate_up (n,
// 2*n_ff) rows [gate | up].
KVCHAT_VALUE_FN float glu_at(long long idx, const float* gate_up, int n_ff, bool gelu) {
  const long long t = idx / n_ff, i = idx % n_ff;
  return glu(gelu, gate_up[t * 2 * n_ff + i], gate_up[t * 2 * n_ff + n_ff + i]);
}

// ---- Soft-capping, biases, scales -------------------------------------------------------
// cap * tanh(x * (1 / cap)), as cpu::softcap (attention scores and final logits).
KVCHAT_VALUE_FN float softcap(float x, float cap) {
  return __fmul_rn(cap, tanhf(__fmul_rn(x, __fdiv_rn(1.0f, cap))));
}
KVCHAT_VALUE_FN float add_bias(float x, float bias) { return __fadd_rn(x, bias); }
KVCHAT_VALUE_FN float scaled(float x, float scale) { return __fmul_rn(x, scale); }

// ---- Sliding windows ---------------------------------------------------------------------
// A query at pos attends to KV positions [window_first(pos, window), pos]: the last
// `window` positions on a windowed layer (its own included), every position when window = 0.
KVCHAT_VALUE_FN int window_first(int pos, int window) {
  return window > 0 && pos - window + 1 > 0 ? pos - window + 1 : 0;
}
// The attention score of a key at position k for a query at pos: the capped, scaled dot, or
// -inf when the key is outside [window_first(pos, window), pos] (the causal mask and the
// window mask together). softcap_at = 0: no cap (cpu attention: scale, then cap).
KVCHAT_VALUE_FN float capped_score(float dot, float scale, float softcap_at) {
  const float s = __fmul_rn(dot, scale);
  return softcap_at > 0 ? softcap(s, softcap_at) : s;
}
KVCHAT_VALUE_FN float masked_score(float dot, float scale, float softcap_at, int k, int pos,
                                   int window) {
  if (k > pos || k < window_first(pos, window)) return -INFINITY;
  return capped_score(dot, scale, softcap_at);
}
// The split-K decode's partitions of part_tokens positions: partition `part` computes a
// partial softmax when it holds part of the attended range, over the positions
// [partition_begin, partition_end); the merge reads exactly the partitions [first_partition,
// last_partition], which are those.
KVCHAT_VALUE_FN bool partition_attended(int part, int pos, int window, int part_tokens) {
  const int start = part * part_tokens;
  return start <= pos && start + part_tokens > window_first(pos, window);
}
KVCHAT_VALUE_FN int partition_begin(int part, int pos, int window, int part_tokens) {
  const int start = part * part_tokens, lo = window_first(pos, window);
  return start > lo ? start : lo;
}
KVCHAT_VALUE_FN int partition_end(int part, int pos, int part_tokens) {
  const int end = (part + 1) * part_tokens;
  return end < pos + 1 ? end : pos + 1;
}
KVCHAT_VALUE_FN int first_partition(int pos, int window, int part_tokens) {
  return window_first(pos, window) / part_tokens;
}
KVCHAT_VALUE_FN int last_partition(int pos, int part_tokens) { return pos / part_tokens; }

}  // namespace kvchat::cuda::math
