// GEMV for decode: y (n, rows) [+]= x' (n, cols) . W^T, 1 <= n <= kGemvMaxTokens, where x'
// is x itself, x with the RMSNorm applied (x * scale[t] * gain[i]) or silu(gate) * up,
// computed while x is read. Weight-bandwidth bound: W is read exactly once for all n tokens.
//
// Tiling: 256-thread blocks of 8 warps; a warp owns R consecutive rows (a "row group")
// and walks them together, so every x value it loads serves R rows. The grid is at most
// (#SMs x resident blocks per SM), all resident at once; warps stride over the row
// groups, and the grid is sized so that every warp gets the same number of groups or one
// less. Inside a row group, lane l takes chunks l, l+32, ... of the row (dequant.cuh,
// quant_chunks.cuh: 4 to 32 values per chunk, read with 16-byte loads for F32/F16/BF16
// and aligned 4-byte loads for the 2-byte aligned quant blocks), U chunks at a time with all U*R
// loads issued before any math; dequantization is fused, accumulation is f32 in R x n registers,
// then a butterfly warp reduction. The 32-value chunks (Q4_1 ... IQ4_XS) sum code * x per 16 values
// and apply the sub-block's scale (and min) once. R rises with n (x costs 4n/R L1 bytes per weight
// value) and is 4 for SwiGlu (silu costs two MUFU ops per value and token, shared by the R rows);
// see Tiling.
//
// y must not overlap x. Rows, x and gain that miss the chunk path's alignment
// (weight_chunks.cuh chunk_path_ok; x and gain 16-byte aligned) take a scalar fallback in
// gemv.cu: one warp per (row, token), lane-strided values.
//
// This header holds the chunk kernel and its launchers; gemv.cu dispatches on the weight
// type and instantiates F32/F16/BF16/Q8_0/Q4_0, gemv_q32.cu and gemv_k.cu the others (split
// so nvcc compiles them in parallel).
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/weight_chunks.cuh"
#include "backend/cuda/launch.cuh"

namespace kvchat::cuda::gemv_detail {

using gguf::TensorType;

using gguf::TensorType;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

__device__ __forceinline__ float silu(float g) { return __fdividef(g, 1.0f + __expf(-g)); }

__device__ __forceinline__ float4 ldg4(const float* p) {
  return __ldg(reinterpret_cast<const float4*>(p));
}

// The 4 input values at offset o of token t, as the mode prescribes.
//   x: (n, cols) [Plain, RmsNorm] or (n, 2*cols) [SwiGlu]; s = scale[t]; g = gain[o..o+3]
template <GemvInput M>
__device__ __forceinline__ float4 input4(const float* xt, int o, int cols, float s,
                                         const float4& g) {
  if constexpr (M == GemvInput::Plain) {
    return ldg4(xt + o);
  } else if constexpr (M == GemvInput::RmsNorm) {
    const float4 v = ldg4(xt + o);
    return make_float4(v.x * s * g.x, v.y * s * g.y, v.z * s * g.z, v.w * s * g.w);
  } else {
    const float4 a = ldg4(xt + o), b = ldg4(xt + cols + o);
    return make_float4(silu(a.x) * b.x, silu(a.y) * b.y, silu(a.z) * b.z, silu(a.w) * b.w);
  }
}

__device__ __forceinline__ float dot4(const float4& a, const float4& b, float acc) {
  return fmaf(a.w, b.w, fmaf(a.z, b.z, fmaf(a.y, b.y, fmaf(a.x, b.x, acc))));
}

template <class T, int N, GemvInput M>
struct Tiling {
  // 32-value chunks (quant_chunks.cuh): 8 code words and 4 scales each.
  static constexpr bool kWide = T::kValues == 32;
  static constexpr bool kQuant =
      kWide || std::is_same_v<T, dev::ChunkQ8_0> || std::is_same_v<T, dev::ChunkQ4_0>;
  // Rows per warp: x costs 4n/R L1 bytes per weight value, so R grows with n; the
  // quantized types (about 1 byte per value) start at 2. SwiGlu: 4, 2 beyond 4 tokens
  // (registers). Wide chunks hold 12 registers each: always 2.
  static constexpr int R = kWide                    ? 2
                           : M == GemvInput::SwiGlu ? (N <= 4 ? 4 : 2)
                           : N == 1                 ? (kQuant ? 2 : 1)
                           : N <= 3                 ? 2
                                                    : 4;
  // Chunks in flight per row and lane: 4-8 loads per lane at n <= 2; beyond, the R rows and
  // the n tokens' x loads give the parallelism (and more would cost registers). A wide
  // chunk is already 5-17 loads.
  static constexpr int U = kWide ? 1 : N <= 2 ? (kQuant ? 8 : 4) / R : 1;
  // A register budget (ptxas, left alone, aims low and spills): 64 / 80 / 128 per thread;
  // wide chunks 128 (2 x 12 code registers, and still 16 warps per SM).
  static constexpr int kMinBlocks = kWide ? 2 : R * N <= 2 ? 4 : R * N <= 8 ? 3 : 2;
  // Groups unrolled: all when the accumulators are few; else fewer, or ptxas hoists every
  // x load and spills (wide chunks: of the 4 groups of a half; a runtime group picks its
  // code word with selects).
  static constexpr int kGroupUnroll = kWide        ? (R * N <= 4   ? 4
                                                      : R * N <= 8 ? 2
                                                                   : 1)
                                      : R * N <= 8 ? T::kGroups
                                                   : 1;
};

// One 32-value chunk c (quant_chunks.cuh) of the R rows (raw: the chunk of each row) into
// acc[R][N]: per 16-value half h, sum code * x, then scale once:
//   sum(value * x) = a[h] * sum(code * x) + b[h] * sum(x)   (b: kMin types).
// sum(x) does not depend on the row, so the R rows share it.
template <class T, int N, GemvInput M>
__device__ __forceinline__ void accumulate_wide_chunk(
    const typename T::Raw (&raw)[Tiling<T, N, M>::R], int c, const float* __restrict__ x,
    int x_stride, int cols, const float (&s)[N], const float* __restrict__ gain,
    float (&acc)[Tiling<T, N, M>::R][N]) {
  constexpr int R = Tiling<T, N, M>::R;
  constexpr int kGroupUnroll = Tiling<T, N, M>::kGroupUnroll;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float part[R][N], xsum[N];
#pragma unroll
    for (int t = 0; t < N; ++t) {
      xsum[t] = 0.0f;
#pragma unroll
      for (int r = 0; r < R; ++r) part[r][t] = 0.0f;
    }
#pragma unroll kGroupUnroll
    for (int g = 4 * h; g < 4 * h + 4; ++g) {
      const int o = T::x_offset(c, g);
      float4 cv[R];
#pragma unroll
      for (int r = 0; r < R; ++r) cv[r] = T::codes(raw[r], g);
      const float4 gn = M == GemvInput::RmsNorm ? ldg4(gain + o) : make_float4(0, 0, 0, 0);
#pragma unroll
      for (int t = 0; t < N; ++t) {
        const float4 xv = input4<M>(x + static_cast<int64_t>(t) * x_stride, o, cols, s[t], gn);
        if constexpr (T::kHasMin) xsum[t] += (xv.x + xv.y) + (xv.z + xv.w);
#pragma unroll
        for (int r = 0; r < R; ++r) part[r][t] = dot4(cv[r], xv, part[r][t]);
      }
    }
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
      for (int t = 0; t < N; ++t) {
        acc[r][t] = fmaf(raw[r].a[h], part[r][t], acc[r][t]);
        if constexpr (T::kHasMin) acc[r][t] = fmaf(raw[r].b[h], xsum[t], acc[r][t]);
      }
  }
}

// One chunk c of groups of 4 dequantized values (dequant.cuh) of the R rows (raw: the chunk
// of each row) into acc[R][N]. Many accumulators: one group at a time, or ptxas hoists every
// x load and spills.
template <class T, int N, GemvInput M>
__device__ __forceinline__ void accumulate_chunk(const typename T::Raw (&raw)[Tiling<T, N, M>::R],
                                                 int c, const float* __restrict__ x, int x_stride,
                                                 int cols, const float (&s)[N],
                                                 const float* __restrict__ gain,
                                                 float (&acc)[Tiling<T, N, M>::R][N]) {
  constexpr int R = Tiling<T, N, M>::R;
  constexpr int kGroupUnroll = Tiling<T, N, M>::kGroupUnroll;
#pragma unroll kGroupUnroll
  for (int g = 0; g < T::kGroups; ++g) {
    const int o = T::x_offset(c, g);
    float4 wv[R];
#pragma unroll
    for (int r = 0; r < R; ++r) wv[r] = T::group(raw[r], g);
    const float4 gn = M == GemvInput::RmsNorm ? ldg4(gain + o) : make_float4(0, 0, 0, 0);
#pragma unroll
    for (int t = 0; t < N; ++t) {
      const float4 xv = input4<M>(x + static_cast<int64_t>(t) * x_stride, o, cols, s[t], gn);
#pragma unroll
      for (int r = 0; r < R; ++r) acc[r][t] = dot4(wv[r], xv, acc[r][t]);
    }
  }
}

// UU chunks c, c+32, ..., c+32*(UU-1) of the R rows wr, all inside the row, into acc[R][N]:
// all UU*R loads are issued before any math.
template <class T, int N, GemvInput M, int UU>
__device__ __forceinline__ void accumulate_chunks(const uint8_t* const (&wr)[Tiling<T, N, M>::R],
                                                  int c, const float* __restrict__ x, int x_stride,
                                                  int cols, const float (&s)[N],
                                                  const float* __restrict__ gain,
                                                  float (&acc)[Tiling<T, N, M>::R][N]) {
  constexpr int R = Tiling<T, N, M>::R;
  typename T::Raw raw[UU][R];
#pragma unroll
  for (int u = 0; u < UU; ++u)
#pragma unroll
    for (int r = 0; r < R; ++r) raw[u][r] = T::load(wr[r], c + 32 * u);
#pragma unroll
  for (int u = 0; u < UU; ++u) {
    if constexpr (Tiling<T, N, M>::kWide) {
      accumulate_wide_chunk<T, N, M>(raw[u], c + 32 * u, x, x_stride, cols, s, gain, acc);
    } else {
      accumulate_chunk<T, N, M>(raw[u], c + 32 * u, x, x_stride, cols, s, gain, acc);
    }
  }
}

// y (N, rows) [+]= the warp sums of acc[R][N] (butterfly reduction) for rows r0 .. r0 + R - 1
// below `rows`; lane (r * N + t) % 32 writes the value of row r0 + r, token t.
template <int R, int N>
__device__ __forceinline__ void store_rows(const float (&acc)[R][N], int lane, int r0, int rows,
                                           float* __restrict__ y, bool accumulate) {
#pragma unroll
  for (int r = 0; r < R; ++r)
#pragma unroll
    for (int t = 0; t < N; ++t) {
      float v = acc[r][t];
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
      if (lane == ((r * N + t) & 31) && r0 + r < rows) {
        float* out = y + static_cast<int64_t>(t) * rows + r0 + r;
        *out = accumulate ? *out + v : v;
      }
    }
}

// Chunk path.  w: (rows, row_bytes) bytes of T's type;  x: (N, cols) or (N, 2*cols);
// scale: (N) [RmsNorm];  gain: (cols) [RmsNorm];  y: (N, rows).
template <class T, int N, GemvInput M>
__global__ void __launch_bounds__(kThreads, Tiling<T, N, M>::kMinBlocks)
    gemv_kernel(const uint8_t* __restrict__ w, uint64_t row_bytes, int rows, int cols,
                const float* __restrict__ x, const float* __restrict__ scale,
                const float* __restrict__ gain, float* __restrict__ y, bool accumulate) {
  constexpr int R = Tiling<T, N, M>::R, U = Tiling<T, N, M>::U;
  const int lane = threadIdx.x & 31;
  const int warp = (blockIdx.x * kThreads + threadIdx.x) >> 5;
  const int n_warps = gridDim.x * kWarps;
  const int n_chunks = cols / T::kValues;
  const int x_stride = M == GemvInput::SwiGlu ? 2 * cols : cols;

  float s[N];
#pragma unroll
  for (int t = 0; t < N; ++t) s[t] = M == GemvInput::RmsNorm ? __ldg(scale + t) : 1.0f;

  for (int r0 = warp * R; r0 < rows; r0 += n_warps * R) {
    const uint8_t* wr[R];  // rows past the end re-read the last row; their sums are dropped
#pragma unroll
    for (int r = 0; r < R; ++r)
      wr[r] = w + static_cast<uint64_t>(min(r0 + r, rows - 1)) * row_bytes;
    float acc[R][N];
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
      for (int t = 0; t < N; ++t) acc[r][t] = 0.0f;

    int c = lane;
    for (; c + 32 * (U - 1) < n_chunks; c += 32 * U)
      accumulate_chunks<T, N, M, U>(wr, c, x, x_stride, cols, s, gain, acc);
    for (; c < n_chunks; c += 32)
      accumulate_chunks<T, N, M, 1>(wr, c, x, x_stride, cols, s, gain, acc);

    store_rows(acc, lane, r0, rows, y, accumulate);
  }
}

// ---- launchers ------------------------------------------------------------------------

// Resident 256-thread blocks per SM of `kernel` (callers cache it per kernel).
template <class Kernel>
int query_blocks_per_sm(Kernel kernel) {
  int b = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, kThreads, 0) != cudaSuccess ||
      b < 1) {
    (void)cudaGetLastError();  // not a launch error: fall back to one block per SM
    b = 1;
  }
  return b;
}

inline cudaError_t sm_count(int* sms) {
  int dev = 0;
  if (cudaError_t err = cudaGetDevice(&dev); err != cudaSuccess) return err;
  return cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, dev);
}

template <class T, int N, GemvInput M>
cudaError_t launch_chunked(const DeviceMatrix& w, const float* x, float* y, const GemvArgs& a,
                           cudaStream_t stream) {
  constexpr int R = Tiling<T, N, M>::R;
  const auto kernel = gemv_kernel<T, N, M>;
  static const int per_sm = query_blocks_per_sm(kernel);
  int sms = 0;
  if (cudaError_t err = sm_count(&sms); err != cudaSuccess) return err;
  // Even split: the fewest row groups per warp that the resident warps allow, then just
  // enough warps for that, so no warp does one group more than most others.
  const int64_t groups = (w.rows + R - 1) / R;
  const int64_t max_warps = static_cast<int64_t>(sms) * per_sm * kWarps;
  const int64_t per_warp = (groups + max_warps - 1) / max_warps;
  const int64_t warps = (groups + per_warp - 1) / per_warp;
  const int64_t grid = (warps + kWarps - 1) / kWarps;
  return launch<gemv_kernel<T, N, M>>(static_cast<unsigned>(grid), kThreads, 0, stream,
                                      static_cast<const uint8_t*>(w.data), w.row_bytes,
                                      static_cast<int>(w.rows), static_cast<int>(w.cols), x,
                                      a.scale, a.gain, y, a.accumulate);
}

template <class T, int N>
cudaError_t launch_mode(const DeviceMatrix& w, const float* x, float* y, const GemvArgs& a,
                        cudaStream_t stream) {
  switch (a.input) {
    case GemvInput::Plain: return launch_chunked<T, N, GemvInput::Plain>(w, x, y, a, stream);
    case GemvInput::RmsNorm: return launch_chunked<T, N, GemvInput::RmsNorm>(w, x, y, a, stream);
    case GemvInput::SwiGlu: return launch_chunked<T, N, GemvInput::SwiGlu>(w, x, y, a, stream);
  }
  return cudaErrorInvalidValue;
}

template <class T>
cudaError_t launch_n(const DeviceMatrix& w, const float* x, float* y, int n, const GemvArgs& a,
                     cudaStream_t stream) {
  switch (n) {
    case 1: return launch_mode<T, 1>(w, x, y, a, stream);
    case 2: return launch_mode<T, 2>(w, x, y, a, stream);
    case 3: return launch_mode<T, 3>(w, x, y, a, stream);
    case 4: return launch_mode<T, 4>(w, x, y, a, stream);
    case 5: return launch_mode<T, 5>(w, x, y, a, stream);
    case 6: return launch_mode<T, 6>(w, x, y, a, stream);
    case 7: return launch_mode<T, 7>(w, x, y, a, stream);
    case 8: return launch_mode<T, 8>(w, x, y, a, stream);
  }
  return cudaErrorInvalidValue;
}

// The chunk path of the other translation units (w.type must be one of theirs):
//   gemv_q32.cu: Q4_1, Q5_0, Q5_1, IQ4_NL;  gemv_k.cu: Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS.
cudaError_t gemv_chunked_q32(const DeviceMatrix& w, const float* x, float* y, int n,
                             const GemvArgs& a, cudaStream_t stream);
cudaError_t gemv_chunked_k(const DeviceMatrix& w, const float* x, float* y, int n,
                           const GemvArgs& a, cudaStream_t stream);

}  // namespace kvchat::cuda::gemv_detail
