// attention_decode: split-K flash decoding over the paged KV cache (contract: attention.h).
//
// Tensors (f32 unless noted; hd = kv.head_dim):
//   q         (n, n_heads, hd)           out (n, n_heads, hd)
//   positions (n) int32, device           token b attends to KV positions [lo_b, positions[b]]
//                                         (lo_b = math::window_first: 0 without a window)
//   partials  scratch: ml  (n, n_heads, n_parts, 2)  (max, sum of e^(s - max)) per partition
//                      acc (n, n_heads, n_parts, hd) sum of e^(s - max) * v per partition
//
// Plan: a function of the shape only (n, heads, max_kv), never of positions, so a decode
// step captured in a CUDA graph replays at any position < max_kv.
//   group = n_heads / n_kv_heads query heads share a KV head; a thread block takes up to
//   GCT in {1, 2, 4, 8} of them (larger groups are split into ceil(group / 8) chunks), so
//   each K/V slice is read once for the whole group.
//   P = part_tokens in {64, ..., 512}: the smallest keeping the grid near 1024 blocks;
//   n_parts = ceil(max_kv / P).
//
// Kernel 1: grid (n_parts, n_kv_heads * chunks, n), 128 threads = 4 warps.
//   The partition's K and V head slices stream through shared memory in tiles of T
//   positions (T * slice_bytes <= 8 KiB), still encoded (f16 / q8_0 / q4_0 bytes),
//   double-buffered with cp.async in 16-, 8- or 4-byte words: consecutive threads copy
//   consecutive words of a slice, so global reads are coalesced. Per tile:
//     scores  warp w takes positions w, w+4, ...; lane l holds dims l, l+32, ... of the
//             GCT queries in registers, dequantizes the same dims of the K slice from shared
//             memory, and the GCT partial dots are finished by a reduce-scatter across the
//             warp (one value per lane group instead of GCT full butterflies).
//     softmax warp w owns heads w, w+4: tile max, running max m, rescale e^(m_old - m),
//             p = e^(s - m), running sum l.
//     values  warp w adds p * v for its positions into acc[GCT][hd/32] registers.
//   At the end the 4 warps' accumulators are summed through shared memory and written as
//   the partition's partial. Partitions that start past positions[b] or end before the
//   window's first position return at once; the merge never reads them. A partition that
//   the window cuts starts its slices at the window (no freed block is touched).
// Kernel 2: grid (n * n_heads), hd threads:
//   out = sum_p e^(m_p - M) acc_p / sum_p e^(m_p - M) l_p, M = max_p m_p.
//
// Cost: the KV bytes are read once per (token, KV head chunk); per position and KV head
// the block issues ~2 * GCT * hd/32 FMAs per lane plus the reduce-scatter, so f16 KV is
// near memory bound up to GCT = 4-8, and q8_0 / q4_0 with large groups become bound by
// f32 FMA throughput (roughly half / a third of memory bandwidth at GCT = 8).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "backend/cuda/attention.h"
#include "backend/cuda/kv_load.cuh"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/value_math.cuh"

namespace kvchat::cuda {

namespace {

using gguf::TensorType;

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;
constexpr int kMinPart = 64;   // a multiple of every tile size
constexpr int kMaxPart = 512;  // bounds the per-block slice-pointer table
constexpr int64_t kTargetBlocks = 1024;
constexpr unsigned kFull = 0xffffffffu;

// Positions per shared-memory tile for a slice of `slice` bytes.
constexpr int tile_tokens(int slice) {
  int t = 32;
  while (t > 8 && t * slice > 8192) t /= 2;
  return t;
}

struct Plan {
  int group = 0;        // query heads per KV head
  int gct = 0;          // query heads per thread block (kernel template)
  int chunks = 0;       // thread blocks per KV head
  int part_tokens = 0;  // positions per partition
  int n_parts = 0;
};

bool make_plan(const DeviceKv& kv, const AttentionShape& s, Plan* plan) {
  const int slice = kvload::slice_bytes(kv.type, kv.head_dim);
  if (s.n <= 0 || s.n > 65535 || s.n_heads <= 0 || s.max_kv <= 0 || kv.n_kv_heads <= 0 ||
      s.n_heads % kv.n_kv_heads != 0 || kv.head_dim <= 0 || kv.head_dim % 32 != 0 ||
      kv.head_dim > 256 || slice == 0) {
    return false;
  }
  Plan p;
  p.group = s.n_heads / kv.n_kv_heads;
  p.gct = p.group <= 1 ? 1 : p.group <= 2 ? 2 : p.group <= 4 ? 4 : 8;
  p.chunks = (p.group + p.gct - 1) / p.gct;
  if (static_cast<int64_t>(kv.n_kv_heads) * p.chunks > 65535) return false;
  const int64_t blocks_per_part = static_cast<int64_t>(s.n) * kv.n_kv_heads * p.chunks;
  p.part_tokens = kMinPart;
  while (p.part_tokens < kMaxPart &&
         blocks_per_part * ((s.max_kv + p.part_tokens - 1) / p.part_tokens) > kTargetBlocks) {
    p.part_tokens *= 2;
  }
  p.n_parts = (s.max_kv + p.part_tokens - 1) / p.part_tokens;
  *plan = p;
  return true;
}

struct DecodeArgs {
  DeviceKv kv;
  int layer;
  const float* q;
  const int32_t* positions;
  float* ml;   // (n, n_heads, n_parts, 2)
  float* acc;  // (n, n_heads, n_parts, hd)
  int n_heads;
  int group;
  int chunks;
  int part_tokens;
  int n_parts;
  float scale;
  int window;
  float softcap;
};

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int off = 16; off >= 1; off /= 2) v = fmaxf(v, __shfl_xor_sync(kFull, v, off));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int off = 16; off >= 1; off /= 2) v += __shfl_xor_sync(kFull, v, off);
  return v;
}

// v[N]: per-lane partial sums of N values. Returns, on every lane, the warp-wide sum of
// value number lane / (32 / N). Each halving step exchanges half of the values with the
// lane `off` away (the lane with that bit set keeps the upper half), then a butterfly over
// the low lane bits completes the sums: N - 1 + log2(32 / N) shuffles instead of 5 N.
template <int N>
__device__ __forceinline__ float reduce_scatter(float (&v)[N], int lane) {
#pragma unroll
  for (int half = N / 2, off = 16; half >= 1; half /= 2, off /= 2) {
    const bool upper = (lane & off) != 0;
#pragma unroll
    for (int i = 0; i < half; ++i) {
      const float keep = upper ? v[i + half] : v[i];
      const float send = upper ? v[i] : v[i + half];
      v[i] = keep + __shfl_xor_sync(kFull, send, off);
    }
  }
  float s = v[0];
#pragma unroll
  for (int off = 16 / N; off >= 1; off /= 2) s += __shfl_xor_sync(kFull, s, off);
  return s;
}

// rows[i] = the K slice of position begin + i (i < n_valid) of KV head kvh; the running max
// and sum of the GCT heads start at -inf and 0.
template <int S, int GCT>
__device__ __forceinline__ void init_partition(const DecodeArgs& a, int begin, int n_valid, int kvh,
                                               const uint8_t* (&rows)[kMaxPart], float (&s_m)[GCT],
                                               float (&s_l)[GCT]) {
  for (int i = threadIdx.x; i < n_valid; i += kThreads) {
    rows[i] = kvload::k_slice(a.kv, a.layer, begin + i, kvh, S);
  }
  if (threadIdx.x < GCT) {
    s_m[threadIdx.x] = -INFINITY;
    s_l[threadIdx.x] = 0.0f;
  }
}

// qr[g][j] = dim j * 32 + lane of query head h0 + g of token b (q: (n, n_heads, hd); 0 past
// the gc live heads); acc = 0.
template <int HD, int GCT>
__device__ __forceinline__ void load_queries(const DecodeArgs& a, int b, int h0, int gc, int lane,
                                             float (&qr)[GCT][HD / 32],
                                             float (&acc)[GCT][HD / 32]) {
#pragma unroll
  for (int g = 0; g < GCT; ++g) {
    const float* qh = a.q + (static_cast<size_t>(b) * a.n_heads + h0 + g) * HD;
#pragma unroll
    for (int j = 0; j < HD / 32; ++j) {
      qr[g][j] = g < gc ? qh[j * 32 + lane] : 0.0f;
      acc[g][j] = 0.0f;
    }
  }
}

// Starts copying tile `tile` of the partition (the slices rows[tile * T ..], below n_valid)
// into buffer tile & 1 of smem [buffer][K, V][T][S] (one cp.async group per call).
template <int S>
__device__ __forceinline__ void issue_tile(int tile, int n_valid, const uint8_t* const* rows,
                                           uint64_t v_off, uint8_t* smem) {
  constexpr int A = kvload::slice_align(S);  // copy unit
  constexpr int W = S / A;                   // copy units per slice
  constexpr int T = tile_tokens(S);          // positions per tile
  const int t0 = tile * T;
  const int tv = min(T, n_valid - t0);
  uint8_t* dk = smem + (tile & 1) * 2 * T * S;
  uint8_t* dv = dk + T * S;
  for (int i = threadIdx.x; i < tv * W; i += kThreads) {
    const int r = i / W, w = i - r * W;
    const uint8_t* src = rows[t0 + r] + w * A;
    kvload::copy_to_shared<A>(dk + r * S + w * A, src);
    kvload::copy_to_shared<A>(dv + r * S + w * A, src + v_off);
  }
  __pipeline_commit();
}

// Scores s_score[g][t] = scale * q_g . k_t (capped) of the tv positions of the K tile kt
// ([T][S] bytes) and the gc live heads; warp w takes positions w, w+4, ...
template <TensorType KT, int HD, int GCT, int T>
__device__ __forceinline__ void tile_scores(const DecodeArgs& a, const uint8_t* kt, int tv, int gc,
                                            int lane, int warp, const float (&qr)[GCT][HD / 32],
                                            float (&s_score)[GCT][T]) {
  constexpr int S = kvload::slice_bytes(KT, HD);
  for (int t = warp; t < tv; t += kWarps) {
    float part_dot[GCT];
#pragma unroll
    for (int g = 0; g < GCT; ++g) part_dot[g] = 0.0f;
#pragma unroll
    for (int j = 0; j < HD / 32; ++j) {
      const float k = kvload::value<KT>(kt + t * S, j * 32 + lane);
#pragma unroll
      for (int g = 0; g < GCT; ++g) part_dot[g] = fmaf(qr[g][j], k, part_dot[g]);
    }
    const float s = reduce_scatter<GCT>(part_dot, lane);
    constexpr int kLanesPerValue = 32 / GCT;
    const int g = lane / kLanesPerValue;
    if (lane % kLanesPerValue == 0 && g < gc)
      s_score[g][t] = math::capped_score(s, a.scale, a.softcap);
  }
}

// Online softmax over the tile's tv scores, one warp per head: tile max, running max s_m,
// rescale s_alpha = e^(m_old - m), probabilities s_p[t][g] = e^(s - m), running sum s_l.
template <int GCT, int T>
__device__ __forceinline__ void tile_softmax(int tv, int gc, int lane, int warp,
                                             const float (&s_score)[GCT][T], float (&s_p)[T][GCT],
                                             float (&s_m)[GCT], float (&s_l)[GCT],
                                             float (&s_alpha)[GCT]) {
  for (int g = warp; g < GCT; g += kWarps) {
    const float s = (lane < tv && g < gc) ? s_score[g][lane] : -INFINITY;
    const float m_old = s_m[g];
    const float m_new = fmaxf(m_old, warp_max(s));
    const float p = s == -INFINITY ? 0.0f : expf(s - m_new);
    const float sum = warp_sum(p);
    if (lane < T) s_p[lane][g] = p;
    __syncwarp();  // every lane has read s_m[g] before lane 0 rewrites it
    if (lane == 0) {
      const float alpha = m_old == -INFINITY ? 0.0f : expf(m_old - m_new);
      s_alpha[g] = alpha;
      s_m[g] = m_new;
      s_l[g] = s_l[g] * alpha + sum;
    }
  }
}

// acc = acc * alpha + sum_t p_t v_t over the tv positions of the V tile vt ([T][S] bytes);
// warp w takes positions w, w+4, ...
template <TensorType KT, int HD, int GCT, int T>
__device__ __forceinline__ void accumulate_values(const uint8_t* vt, int tv, int lane, int warp,
                                                  const float (&s_alpha)[GCT],
                                                  const float (&s_p)[T][GCT],
                                                  float (&acc)[GCT][HD / 32]) {
  constexpr int S = kvload::slice_bytes(KT, HD);
#pragma unroll
  for (int g = 0; g < GCT; ++g) {
    const float alpha = s_alpha[g];
#pragma unroll
    for (int j = 0; j < HD / 32; ++j) acc[g][j] *= alpha;
  }
  for (int t = warp; t < tv; t += kWarps) {
    float p[GCT];
#pragma unroll
    for (int g = 0; g < GCT; ++g) p[g] = s_p[t][g];
#pragma unroll
    for (int j = 0; j < HD / 32; ++j) {
      const float v = kvload::value<KT>(vt + t * S, j * 32 + lane);
#pragma unroll
      for (int g = 0; g < GCT; ++g) acc[g][j] = fmaf(p[g], v, acc[g][j]);
    }
  }
}

// red[kWarps][GCT][HD] = each warp's accumulators.
template <int HD, int GCT>
__device__ __forceinline__ void stage_accumulators(float* red, int lane, int warp,
                                                   const float (&acc)[GCT][HD / 32]) {
#pragma unroll
  for (int g = 0; g < GCT; ++g) {
#pragma unroll
    for (int j = 0; j < HD / 32; ++j) red[(warp * GCT + g) * HD + j * 32 + lane] = acc[g][j];
  }
}

// The partition's partial of the gc live heads h0 + g of token b: acc = the 4 warps'
// accumulators (red) summed, ml = (s_m, s_l).
template <int HD, int GCT>
__device__ __forceinline__ void write_partial(const DecodeArgs& a, int b, int h0, int part, int gc,
                                              const float* red, const float (&s_m)[GCT],
                                              const float (&s_l)[GCT]) {
  const size_t first = (static_cast<size_t>(b) * a.n_heads + h0) * a.n_parts + part;
  for (int i = threadIdx.x; i < gc * HD; i += kThreads) {
    const int g = i / HD, d = i - g * HD;
    float sum = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) sum += red[(w * GCT + g) * HD + d];
    a.acc[(first + static_cast<size_t>(g) * a.n_parts) * HD + d] = sum;
  }
  if (threadIdx.x < gc) {
    const size_t row = first + static_cast<size_t>(threadIdx.x) * a.n_parts;
    a.ml[row * 2] = s_m[threadIdx.x];
    a.ml[row * 2 + 1] = s_l[threadIdx.x];
  }
}

template <TensorType KT, int HD, int GCT>
__global__ void __launch_bounds__(kThreads, 1) decode_partition_kernel(DecodeArgs a) {
  constexpr int S = kvload::slice_bytes(KT, HD);  // bytes of one head slice
  constexpr int T = tile_tokens(S);               // positions per tile
  constexpr int DPL = HD / 32;                    // dims per lane
  constexpr int kRawBytes = 2 * 2 * T * S;        // [buffer][K, V][T][S]
  constexpr int kRedBytes = kWarps * GCT * HD * 4;
  static_assert(kMinPart % T == 0 && T <= 32, "tiles");

  KV_SHARED_ALIGNED(16, uint8_t, smem, [kRawBytes > kRedBytes ? kRawBytes : kRedBytes]);
  KV_SHARED(const uint8_t*, rows, [kMaxPart]);  // K slice of each position of the partition
  KV_SHARED(float, s_score, [GCT][T]);
  KV_SHARED_ALIGNED(16, float, s_p, [T][GCT]);
  KV_SHARED(float, s_m, [GCT]);
  KV_SHARED(float, s_l, [GCT]);
  KV_SHARED(float, s_alpha, [GCT]);

  const int part = blockIdx.x;
  const int kvh = blockIdx.y / a.chunks, chunk = blockIdx.y % a.chunks;
  const int b = blockIdx.z;
  const int pos = a.positions[b];
  // Beyond this token's context or before its window: the merge skips it.
  if (!math::partition_attended(part, pos, a.window, a.part_tokens)) return;
  const int begin = math::partition_begin(part, pos, a.window, a.part_tokens);
  const int n_valid = math::partition_end(part, pos, a.part_tokens) - begin;
  const int g0 = chunk * GCT;
  const int gc = min(GCT, a.group - g0);  // live query heads of this block
  const int h0 = kvh * a.group + g0;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const uint64_t v_off = static_cast<uint64_t>(a.kv.block_tokens) * a.kv.row_bytes;

  init_partition<S>(a, begin, n_valid, kvh, rows, s_m, s_l);
  float qr[GCT][DPL];
  float acc[GCT][DPL];
  load_queries<HD>(a, b, h0, gc, lane, qr, acc);
  __syncthreads();

  const int n_tiles = (n_valid + T - 1) / T;
  issue_tile<S>(0, n_valid, rows, v_off, smem);
  for (int tile = 0; tile < n_tiles; ++tile) {
    if (tile + 1 < n_tiles) {
      issue_tile<S>(tile + 1, n_valid, rows, v_off, smem);
    } else {
      __pipeline_commit();  // an empty group keeps the wait count uniform
    }
    __pipeline_wait_prior(1);
    __syncthreads();
    const uint8_t* kt = smem + (tile & 1) * 2 * T * S;
    const uint8_t* vt = kt + T * S;
    const int tv = min(T, n_valid - tile * T);

    tile_scores<KT, HD>(a, kt, tv, gc, lane, warp, qr, s_score);
    __syncthreads();
    tile_softmax(tv, gc, lane, warp, s_score, s_p, s_m, s_l, s_alpha);
    __syncthreads();
    accumulate_values<KT, HD>(vt, tv, lane, warp, s_alpha, s_p, acc);
    __syncthreads();  // the next iteration's copy overwrites this buffer
  }
  __pipeline_wait_prior(0);

  // Sum the 4 warps' accumulators and write the partial.
  float* red = reinterpret_cast<float*>(smem);  // [kWarps][GCT][HD]
  stage_accumulators<HD>(red, lane, warp, acc);
  __syncthreads();
  write_partial<HD>(a, b, h0, part, gc, red, s_m, s_l);
}

// One block per (token, head), one thread per dim: merges the partitions that hold
// positions [window_first, positions[b]].
__global__ void decode_merge_kernel(const float* ml, const float* acc, const int32_t* positions,
                                    float* out, int n_heads, int n_parts, int part_tokens, int hd,
                                    int window) {
  const int row = blockIdx.x;  // b * n_heads + h
  const int d = threadIdx.x;
  const int pos = positions[row / n_heads];
  const int p0 = pos < 0 ? 0 : math::first_partition(pos, window, part_tokens);
  const int np = pos < 0 ? 0 : min(n_parts, math::last_partition(pos, part_tokens) + 1);
  const float* m = ml + static_cast<size_t>(row) * n_parts * 2;
  const float* x = acc + static_cast<size_t>(row) * n_parts * hd + d;
  float mx = -INFINITY;
  for (int p = p0; p < np; ++p) mx = fmaxf(mx, m[2 * p]);
  float l = 0.0f, o = 0.0f;
  for (int p = p0; p < np; ++p) {
    const float w = expf(m[2 * p] - mx);
    l = fmaf(w, m[2 * p + 1], l);
    o = fmaf(w, x[static_cast<size_t>(p) * hd], o);
  }
  out[static_cast<size_t>(row) * hd + d] = np > p0 ? o / l : 0.0f;
}

bool kv_ok(const DeviceKv& kv, int layer) {
  const int slice = kvload::slice_bytes(kv.type, kv.head_dim);
  return slice > 0 && kv.blocks != nullptr && kv.block_tokens > 0 && layer >= 0 &&
         layer < kv.n_layers && kv.row_bytes >= static_cast<uint64_t>(kv.n_kv_heads) * slice &&
         kv.row_bytes % kvload::slice_align(slice) == 0;
}

}  // namespace

size_t attention_decode_scratch_bytes(const DeviceKv& kv, const AttentionShape& shape) {
  Plan plan;
  if (!make_plan(kv, shape, &plan)) return 0;
  return static_cast<size_t>(shape.n) * shape.n_heads * plan.n_parts * (kv.head_dim + 2) *
         sizeof(float);
}

cudaError_t attention_decode(const DeviceKv& kv, int layer, const float* q, float* out,
                             const AttentionShape& shape, const int32_t* positions, void* partials,
                             cudaStream_t stream) {
  if (shape.n == 0) return cudaSuccess;
  Plan plan;
  if (!make_plan(kv, shape, &plan) || !kv_ok(kv, layer) || q == nullptr || out == nullptr ||
      positions == nullptr || partials == nullptr) {
    return cudaErrorInvalidValue;
  }
  DecodeArgs args{};
  args.kv = kv;
  args.layer = layer;
  args.q = q;
  args.positions = positions;
  args.ml = static_cast<float*>(partials);
  args.acc = args.ml + static_cast<size_t>(shape.n) * shape.n_heads * plan.n_parts * 2;
  args.n_heads = shape.n_heads;
  args.group = plan.group;
  args.chunks = plan.chunks;
  args.part_tokens = plan.part_tokens;
  args.n_parts = plan.n_parts;
  args.scale = shape.scale;
  args.window = shape.window;
  args.softcap = shape.softcap;

  const dim3 grid(plan.n_parts, kv.n_kv_heads * plan.chunks, shape.n);
  cudaError_t err = cudaSuccess;
  const bool launched = kvload::dispatch(kv.type, kv.head_dim, [&](auto type_c, auto hd_c) {
    constexpr TensorType KT = decltype(type_c)::value;
    constexpr int HD = decltype(hd_c)::value;
    switch (plan.gct) {
      case 1:
        err = launch<decode_partition_kernel<KT, HD, 1>>(grid, kThreads, 0, stream, args);
        break;
      case 2:
        err = launch<decode_partition_kernel<KT, HD, 2>>(grid, kThreads, 0, stream, args);
        break;
      case 4:
        err = launch<decode_partition_kernel<KT, HD, 4>>(grid, kThreads, 0, stream, args);
        break;
      default:
        err = launch<decode_partition_kernel<KT, HD, 8>>(grid, kThreads, 0, stream, args);
        break;
    }
  });
  if (!launched) return cudaErrorInvalidValue;
  if (err != cudaSuccess) return err;
  return launch<decode_merge_kernel>(shape.n * shape.n_heads, kv.head_dim, 0, stream, args.ml,
                                     args.acc, positions, out, shape.n_heads, plan.n_parts,
                                     plan.part_tokens, kv.head_dim, shape.window);
}

}  // namespace kvchat::cuda
