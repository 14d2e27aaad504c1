// attention_prefill: tiled causal attention over the paged KV cache (contract: attention.h).
//
// Tensors (f32; hd = kv.head_dim):
//   q   (n, n_heads, hd)    out (n, n_heads, hd)
//   positions: only positions[0] = pos0 is read; query i sits at pos0 + i and attends to
//   the KV positions [math::window_first(pos0 + i, window), pos0 + i] of `layer` (its own
//   K/V already written).
//
// Tiling: grid (n_heads, ceil(n / BQ)), the last (heaviest) query tiles first; 128 threads.
//   A block takes BQ queries of one head (BQ = 64 for hd <= 128, 32 above) and loops over
//   key tiles of BK = 32 positions from the tile's first query's window start (0 without a
//   window) to its last query position: nothing outside is read, nothing past the causal
//   limit computed beyond the final partial tile.
//   Shared memory (f32, dynamic; rows padded by 4 floats so float4 reads are conflict free):
//     Qs [BQ][hd+4]   the query tile (loaded once)
//     Ks [BK][hd+4]   K tile, dequantized from the cache (one float4 per thread and step)
//     Vs [BK][hd+4]   V tile
//     Ps [BK][BQ+4]   probabilities of the tile, column qg*QT + i = query qg + 16 i
//   Thread t = (qg = t / 8, kg = t % 8): its queries are qg + 16 i (i < QT = BQ / 16).
//     scores  keys kg + 8 k (k < 4): s[QT][4] from float4 reads of Qs and Ks;
//     softmax online per query; row max across the 8 threads of qg by shuffles, the row
//             sum kept per thread and added up once at the end;
//     output  dims c*32 + kg*4 + (0..3) (c < hd/32): o[QT][hd/8] += p * v over the BK keys.
//   Per 4 dims the score loop does QT + 4 shared float4 loads for 16 QT FMAs, the output
//   loop 1 + hd/32 loads for QT * hd/8 FMAs: plain f32 CUDA-core FMAs, compute bound.
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
constexpr unsigned kFull = 0xffffffffu;

template <int HD>
struct Tiling {
  static constexpr int QT = HD <= 128 ? 4 : 2;  // queries per thread
  static constexpr int KPT = 4;                 // keys per thread in the score tile
  static constexpr int BQ = 16 * QT;            // queries per block
  static constexpr int BK = 8 * KPT;            // keys per tile
  static constexpr int LD = HD + 4;             // padded row of Qs, Ks, Vs
  static constexpr int LDP = BQ + 4;            // padded row of Ps
  static constexpr int DC = HD / 32;            // float4 output chunks per thread
  static constexpr int C4 = HD / 4;             // float4 per row of Qs, Ks, Vs
  static constexpr size_t kSmemBytes = ((BQ + 2 * BK) * LD + BK * LDP) * sizeof(float);
};

struct PrefillArgs {
  DeviceKv kv;
  int layer;
  const float* q;
  float* out;
  const int32_t* positions;
  int n;
  int n_heads;
  int group;  // query heads per KV head
  float scale;
  int window;     // 0: none
  float softcap;  // 0: none
};

__device__ __forceinline__ float4 zero4() { return make_float4(0.0f, 0.0f, 0.0f, 0.0f); }

__device__ __forceinline__ float dot4(float4 a, float4 b, float acc) {
  acc = fmaf(a.x, b.x, acc);
  acc = fmaf(a.y, b.y, acc);
  acc = fmaf(a.z, b.z, acc);
  return fmaf(a.w, b.w, acc);
}

// Qs[BQ][LD] = q (n, n_heads, hd) rows q0 .. q0 + BQ - 1 of head h; rows past n are zero.
template <int HD>
__device__ __forceinline__ void load_q_tile(const PrefillArgs& a, int h, int q0, int tid,
                                            float* Qs) {
  using C = Tiling<HD>;
  constexpr int BQ = C::BQ, LD = C::LD, C4 = C::C4;
  for (int i = tid; i < BQ * C4; i += kThreads) {
    const int r = i / C4, c = i - r * C4;
    float4 v = zero4();
    if (q0 + r < a.n) {
      v = *reinterpret_cast<const float4*>(
          a.q + (static_cast<size_t>(q0 + r) * a.n_heads + h) * HD + 4 * c);
    }
    *reinterpret_cast<float4*>(Qs + r * LD + 4 * c) = v;
  }
}

// Ks, Vs [BK][LD] = the K and V rows of positions k0 .. k0 + BK - 1 of KV head kvh,
// dequantized; positions outside [kbegin, kend] are zero and never read (freed blocks).
template <TensorType KT, int HD>
__device__ __forceinline__ void load_kv_tile(const PrefillArgs& a, int kvh, int k0, int kbegin,
                                             int kend, uint64_t v_off, int tid, float* Ks,
                                             float* Vs) {
  using C = Tiling<HD>;
  constexpr int BK = C::BK, LD = C::LD, C4 = C::C4;
  constexpr int S = kvload::slice_bytes(KT, HD);
  for (int i = tid; i < BK * C4; i += kThreads) {
    const int r = i / C4, c = i - r * C4;
    float4 kv4 = zero4(), vv4 = zero4();
    if (k0 + r <= kend && k0 + r >= kbegin) {  // nothing outside is read (freed blocks)
      const uint8_t* ks = kvload::k_slice(a.kv, a.layer, k0 + r, kvh, S);
      kv4 = kvload::load4<KT>(ks, 4 * c);
      vv4 = kvload::load4<KT>(ks + v_off, 4 * c);
    }
    *reinterpret_cast<float4*>(Ks + r * LD + 4 * c) = kv4;
    *reinterpret_cast<float4*>(Vs + r * LD + 4 * c) = vv4;
  }
}

// s[QT][KPT] = raw scores of queries qg + 16 i (Qs) against keys kg + 8 k (Ks) of the tile.
template <int HD>
__device__ __forceinline__ void tile_scores(const float* Qs, const float* Ks, int qg, int kg,
                                            float (&s)[Tiling<HD>::QT][Tiling<HD>::KPT]) {
  using C = Tiling<HD>;
  constexpr int QT = C::QT, KPT = C::KPT, LD = C::LD;
#pragma unroll
  for (int i = 0; i < QT; ++i) {
#pragma unroll
    for (int k = 0; k < KPT; ++k) s[i][k] = 0.0f;
  }
#pragma unroll 4
  for (int d = 0; d < HD; d += 4) {
    float4 qv[QT], kv[KPT];
#pragma unroll
    for (int i = 0; i < QT; ++i)
      qv[i] = *reinterpret_cast<const float4*>(Qs + (qg + 16 * i) * LD + d);
#pragma unroll
    for (int k = 0; k < KPT; ++k)
      kv[k] = *reinterpret_cast<const float4*>(Ks + (kg + 8 * k) * LD + d);
#pragma unroll
    for (int i = 0; i < QT; ++i) {
#pragma unroll
      for (int k = 0; k < KPT; ++k) s[i][k] = dot4(qv[i], kv[k], s[i][k]);
    }
  }
}

// Causal and window masks, soft-cap, online softmax of the tile at k0: s becomes the
// probabilities e^(s - m), m and l the running max and (per thread) sum, o is rescaled.
// The row max is shared by the 8 threads of qg. A window can mask a query's whole tile:
// m stays -inf, nothing is added.
template <int HD>
__device__ __forceinline__ void online_softmax(const PrefillArgs& a, int k0, int kg,
                                               const int (&qpos)[Tiling<HD>::QT],
                                               float (&s)[Tiling<HD>::QT][Tiling<HD>::KPT],
                                               float (&m)[Tiling<HD>::QT],
                                               float (&l)[Tiling<HD>::QT],
                                               float4 (&o)[Tiling<HD>::QT][Tiling<HD>::DC]) {
  using C = Tiling<HD>;
  constexpr int QT = C::QT, KPT = C::KPT, DC = C::DC;
#pragma unroll
  for (int i = 0; i < QT; ++i) {
    float mx = -INFINITY;
#pragma unroll
    for (int k = 0; k < KPT; ++k) {
      s[i][k] = math::masked_score(s[i][k], a.scale, a.softcap, k0 + kg + 8 * k, qpos[i], a.window);
      mx = fmaxf(mx, s[i][k]);
    }
#pragma unroll
    for (int off = 1; off < 8; off *= 2) mx = fmaxf(mx, __shfl_xor_sync(kFull, mx, off));
    const float m_new = fmaxf(m[i], mx);
    const bool none_yet = m_new == -INFINITY;                  // every key so far masked
    const float alpha = none_yet ? 1.0f : expf(m[i] - m_new);  // m = -inf before: 0
    m[i] = m_new;
    l[i] *= alpha;
#pragma unroll
    for (int k = 0; k < KPT; ++k) {
      s[i][k] = none_yet ? 0.0f : expf(s[i][k] - m_new);  // masked: e^-inf = 0
      l[i] += s[i][k];
    }
#pragma unroll
    for (int c = 0; c < DC; ++c) {
      o[i][c].x *= alpha;
      o[i][c].y *= alpha;
      o[i][c].z *= alpha;
      o[i][c].w *= alpha;
    }
  }
}

// Ps[kg + 8 k][qg * QT + i] = s[i][k]: the thread's probabilities into the tile's Ps.
template <int HD>
__device__ __forceinline__ void store_probs(const float (&s)[Tiling<HD>::QT][Tiling<HD>::KPT],
                                            int qg, int kg, float* Ps) {
  using C = Tiling<HD>;
  constexpr int QT = C::QT, KPT = C::KPT, LDP = C::LDP;
#pragma unroll
  for (int k = 0; k < KPT; ++k) {
    float* dst = Ps + (kg + 8 * k) * LDP + qg * QT;
    if constexpr (QT == 4) {
      *reinterpret_cast<float4*>(dst) = make_float4(s[0][k], s[1][k], s[2][k], s[3][k]);
    } else {
      static_assert(QT == 2, "queries per thread");
      *reinterpret_cast<float2*>(dst) = make_float2(s[0][k], s[1][k]);
    }
  }
}

// o += P V over the tile's keys (Ps, Vs; zero probabilities past the causal limit): dims
// c * 32 + kg * 4 + (0..3) of queries qg + 16 i.
template <int HD>
__device__ __forceinline__ void accumulate_pv(const float* Ps, const float* Vs, int qg, int kg,
                                              float4 (&o)[Tiling<HD>::QT][Tiling<HD>::DC]) {
  using C = Tiling<HD>;
  constexpr int QT = C::QT, BK = C::BK, LD = C::LD, LDP = C::LDP, DC = C::DC;
#pragma unroll 4
  for (int j = 0; j < BK; ++j) {
    float p[QT];
    if constexpr (QT == 4) {
      const float4 p4 = *reinterpret_cast<const float4*>(Ps + j * LDP + qg * QT);
      p[0] = p4.x;
      p[1] = p4.y;
      p[2] = p4.z;
      p[3] = p4.w;
    } else {
      const float2 p2 = *reinterpret_cast<const float2*>(Ps + j * LDP + qg * QT);
      p[0] = p2.x;
      p[1] = p2.y;
    }
#pragma unroll
    for (int c = 0; c < DC; ++c) {
      const float4 v = *reinterpret_cast<const float4*>(Vs + j * LD + c * 32 + kg * 4);
#pragma unroll
      for (int i = 0; i < QT; ++i) {
        o[i][c].x = fmaf(p[i], v.x, o[i][c].x);
        o[i][c].y = fmaf(p[i], v.y, o[i][c].y);
        o[i][c].z = fmaf(p[i], v.z, o[i][c].z);
        o[i][c].w = fmaf(p[i], v.w, o[i][c].w);
      }
    }
  }
}

// out (n, n_heads, hd) rows of queries q0 + qg + 16 i (those < n) of head h = o / l, the row
// sum l added up across the 8 threads of qg.
template <int HD>
__device__ __forceinline__ void write_out(const PrefillArgs& a, int h, int q0, int qg, int kg,
                                          const float (&l)[Tiling<HD>::QT],
                                          const float4 (&o)[Tiling<HD>::QT][Tiling<HD>::DC]) {
  using C = Tiling<HD>;
  constexpr int QT = C::QT, DC = C::DC;
#pragma unroll
  for (int i = 0; i < QT; ++i) {
    float sum = l[i];
#pragma unroll
    for (int off = 1; off < 8; off *= 2) sum += __shfl_xor_sync(kFull, sum, off);
    const int qi = q0 + qg + 16 * i;
    if (qi >= a.n) continue;
    const float inv = 1.0f / sum;
    float* dst = a.out + (static_cast<size_t>(qi) * a.n_heads + h) * HD + kg * 4;
#pragma unroll
    for (int c = 0; c < DC; ++c) {
      *reinterpret_cast<float4*>(dst + c * 32) =
          make_float4(o[i][c].x * inv, o[i][c].y * inv, o[i][c].z * inv, o[i][c].w * inv);
    }
  }
}

template <TensorType KT, int HD>
__global__ void __launch_bounds__(kThreads, 1) prefill_kernel(PrefillArgs a) {
  using C = Tiling<HD>;
  constexpr int QT = C::QT, KPT = C::KPT, BQ = C::BQ, BK = C::BK, LD = C::LD;
  constexpr int DC = C::DC;

  KV_DYNAMIC_SHARED(float4, smem4);
  float* Qs = reinterpret_cast<float*>(smem4);
  float* Ks = Qs + BQ * LD;
  float* Vs = Ks + BK * LD;
  float* Ps = Vs + BK * LD;

  const int h = blockIdx.x;
  const int q0 = (gridDim.y - 1 - blockIdx.y) * BQ;
  const int kvh = h / a.group;
  const int pos0 = a.positions[0];
  const int q_last = min(q0 + BQ, a.n) - 1;                    // last real query of the tile
  const int kend = pos0 + q_last;                              // last key position the tile needs
  const int kbegin = math::window_first(pos0 + q0, a.window);  // the first one
  const int tid = threadIdx.x, qg = tid >> 3, kg = tid & 7;
  const uint64_t v_off = static_cast<uint64_t>(a.kv.block_tokens) * a.kv.row_bytes;

  load_q_tile<HD>(a, h, q0, tid, Qs);

  int qpos[QT];  // padding rows (past n) behave as the last real query
  float m[QT], l[QT];
  float4 o[QT][DC];
#pragma unroll
  for (int i = 0; i < QT; ++i) {
    qpos[i] = pos0 + min(q0 + qg + 16 * i, q_last);
    m[i] = -INFINITY;
    l[i] = 0.0f;
#pragma unroll
    for (int c = 0; c < DC; ++c) o[i][c] = zero4();
  }

  const int n_tiles = kend / BK + 1;
  for (int tile = kbegin / BK; tile < n_tiles; ++tile) {
    const int k0 = tile * BK;
    __syncthreads();  // the previous tile is consumed (and Qs is written)
    load_kv_tile<KT, HD>(a, kvh, k0, kbegin, kend, v_off, tid, Ks, Vs);
    __syncthreads();

    float s[QT][KPT];  // scores, then probabilities, of queries qg + 16 i, keys k0 + kg + 8 k
    tile_scores<HD>(Qs, Ks, qg, kg, s);
    online_softmax<HD>(a, k0, kg, qpos, s, m, l, o);
    store_probs<HD>(s, qg, kg, Ps);
    __syncwarp();  // Ps of group qg is written and read by the same 8 lanes
    accumulate_pv<HD>(Ps, Vs, qg, kg, o);
  }

  write_out<HD>(a, h, q0, qg, kg, l, o);
}

}  // namespace

cudaError_t attention_prefill(const DeviceKv& kv, int layer, const float* q, float* out,
                              const AttentionShape& shape, const int32_t* positions,
                              cudaStream_t stream) {
  if (shape.n == 0) return cudaSuccess;
  const int slice = kvload::slice_bytes(kv.type, kv.head_dim);
  if (shape.n < 0 || shape.n_heads <= 0 || kv.n_kv_heads <= 0 ||
      shape.n_heads % kv.n_kv_heads != 0 || slice == 0 || kv.blocks == nullptr ||
      kv.block_tokens <= 0 || layer < 0 || layer >= kv.n_layers ||
      kv.row_bytes < static_cast<uint64_t>(kv.n_kv_heads) * slice ||
      kv.row_bytes % kvload::slice_align(slice) != 0 || q == nullptr || out == nullptr ||
      positions == nullptr) {
    return cudaErrorInvalidValue;
  }
  PrefillArgs args{};
  args.kv = kv;
  args.layer = layer;
  args.q = q;
  args.out = out;
  args.positions = positions;
  args.n = shape.n;
  args.n_heads = shape.n_heads;
  args.group = shape.n_heads / kv.n_kv_heads;
  args.scale = shape.scale;
  args.window = shape.window;
  args.softcap = shape.softcap;

  cudaError_t err = cudaSuccess;
  const bool launched = kvload::dispatch(kv.type, kv.head_dim, [&](auto type_c, auto hd_c) {
    constexpr TensorType KT = decltype(type_c)::value;
    constexpr int HD = decltype(hd_c)::value;
    using C = Tiling<HD>;
    const auto kernel = prefill_kernel<KT, HD>;
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(C::kSmemBytes));
    if (err != cudaSuccess) return;
    const dim3 grid(shape.n_heads, (shape.n + C::BQ - 1) / C::BQ);
    if (grid.y > 65535) {
      err = cudaErrorInvalidValue;
      return;
    }
    err = launch<prefill_kernel<KT, HD>>(grid, kThreads, C::kSmemBytes, stream, args);
  });
  if (!launched) return cudaErrorInvalidValue;
  return err;
}

}  // namespace kvchat::cuda
