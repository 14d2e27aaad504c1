// The CUDA backend's kernels, callable from C++ (the .cu side is C++17). One op per .cu
// file. Every launcher enqueues on `stream`, never synchronizes, and returns
// cudaGetLastError() so the caller checks each launch. Activations are f32, row-major
// (token, feature). Nothing here allocates: buffers come from the backend's scratch.
//
// Positions are read from device memory (`positions`, one int32 per token) so that a
// decode step captured in a CUDA graph can be replayed at the next position after one
// host-to-device copy.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "gguf/tensor_type.h"

namespace kvchat::cuda {

// A weight matrix in device memory, in its GGUF type: F32, F16, BF16, Q8_0, Q4_0, Q4_1,
// Q5_0, Q5_1, IQ4_NL, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K or IQ4_XS (weight_chunks.cuh).
// (rows, cols): row r holds cols values in row_bytes bytes; rows are contiguous.
struct DeviceMatrix {
  gguf::TensorType type = gguf::TensorType::F32;
  const void* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  uint64_t row_bytes = 0;
};

// ---- embedding.cu --------------------------------------------------------------------
// out (n, table.cols) = table rows tokens[0..n) dequantized to f32. tokens: device (n).
cudaError_t embed_rows(const DeviceMatrix& table, const int32_t* tokens, int n, float* out,
                       cudaStream_t stream);

// ---- rmsnorm.cu ----------------------------------------------------------------------
// out (n, dim) = x / sqrt(mean(x^2) + eps) * gain.   x: (n, dim), gain: (dim); out may be
// x (the per-head q/k norms run it in place on (n * heads, head_dim)). The sum of squares is
// accumulated in f32 by a block reduction (the CPU uses double; the relative difference is
// ~1e-7).
cudaError_t rmsnorm(const float* x, const float* gain, float* out, int n, int dim, float eps,
                    cudaStream_t stream);
// scale (n) = 1 / sqrt(mean(x^2) + eps) per row of x (n, dim): what a GEMV that fuses the
// norm needs (see GemvInput::RmsNorm).
cudaError_t rms_scale(const float* x, float* scale, int n, int dim, float eps, cudaStream_t stream);

// ---- rope.cu -------------------------------------------------------------------------
// RoPE in place on q (n, n_q_heads, head_dim) and k (n, n_kv_heads, head_dim); either may
// be null. Token b is at positions[b]. Pair i of a head is (2i, 2i+1) (llama) or (i, i +
// n_rot/2) (neox). rope_cs: (max_pos, n_rot/2) pairs (cos, sin) of the layer's table with
// its mscale folded in, computed on the host exactly as the CPU's RopeCosSin, so both
// backends rotate identically (every scaling the model reads is in the table).
cudaError_t rope(float* q, int n_q_heads, float* k, int n_kv_heads, int n, int head_dim, int n_rot,
                 bool neox, const int32_t* positions, const float2* rope_cs, cudaStream_t stream);

// ---- glu.cu --------------------------------------------------------------------------
// gate_up: (n, 2*n_ff), each row = [gate (n_ff) | up (n_ff)].
// out (n, n_ff) = act(gate) * up: GELU-tanh when gelu (GeGLU), else silu (SwiGLU).
cudaError_t glu(bool gelu, const float* gate_up, float* out, int n, int n_ff, cudaStream_t stream);

// ---- elementwise.cu ------------------------------------------------------------------
// x (n, cols) += bias (cols) per row.
cudaError_t add_bias(float* x, const float* bias, int n, int cols, cudaStream_t stream);
// x (count) *= scale.
cudaError_t scale_values(float* x, int64_t count, float scale, cudaStream_t stream);
// x (count) = cap * tanh(x / cap), cap > 0.
cudaError_t softcap_values(float* x, int64_t count, float cap, cudaStream_t stream);

// ---- gemv.cu (decode: few tokens, weight-bandwidth bound) -----------------------------
// What the GEMV multiplies W by, computed on the fly from x while it is read:
enum class GemvInput {
  Plain,    // x (n, cols)
  RmsNorm,  // x (n, cols) * scale[t] * gain[i]: the RMSNorm fused in (scale from rms_scale)
  SwiGlu,   // x (n, 2*cols) = [gate | up] per token: silu(gate[i]) * up[i] fused in
};
struct GemvArgs {
  GemvInput input = GemvInput::Plain;
  const float* scale = nullptr;  // RmsNorm: (n)
  const float* gain = nullptr;   // RmsNorm: (cols)
  bool accumulate = false;       // y += W.x (a residual add fused into the output)
};
// y (n, w.rows) = x (n, w.cols) . W^T for 1 <= n <= kGemvMaxTokens, reading W once for
// all n tokens: one warp per output row, 16-byte loads, dequantization fused, f32
// accumulation, a grid sized so every SM stays busy to the last row.
constexpr int kGemvMaxTokens = 8;
cudaError_t gemv(const DeviceMatrix& w, const float* x, float* y, int n, const GemvArgs& args,
                 cudaStream_t stream);

// ---- convert.cu (prefill through cuBLAS) ---------------------------------------------
// dst (n) = src (n) rounded to f16 / bf16 (round to nearest even).
cudaError_t f32_to_f16(const float* src, __half* dst, int64_t n, cudaStream_t stream);
cudaError_t f32_to_bf16(const float* src, __nv_bfloat16* dst, int64_t n, cudaStream_t stream);
// dst (w.rows, w.cols) f16 = W dequantized (any weight type; F16 is copied), each value
// exactly numeric/dequantize.cpp's then rounded to f16. For GEMM of block-quantized
// weights when the batch is large enough to be compute-bound.
cudaError_t dequantize_to_f16(const DeviceMatrix& w, __half* dst, cudaStream_t stream);
// y (n) += x (n)
cudaError_t add_inplace(float* y, const float* x, int64_t n, cudaStream_t stream);

// ---- kv_write.cu ---------------------------------------------------------------------
// The paged KV cache in device memory. A block holds block_tokens tokens of every layer:
// [n_layers][2 (K, V)][block_tokens][row_bytes], a row = kv_dim = n_kv_heads*head_dim
// values of one token in `type` (F32, F16, Q8_0 or Q4_0; quantized rows are 32-value
// blocks with an f16 scale, GGML layout). blocks[b] is the memory of token block b
// (positions [b*block_tokens, (b+1)*block_tokens)) of this sequence.
struct DeviceKv {
  uint8_t* const* blocks = nullptr;  // device array: (n_blocks) block pointers
  gguf::TensorType type = gguf::TensorType::F16;
  int n_layers = 0;
  int block_tokens = 16;
  int n_kv_heads = 0;
  int head_dim = 0;
  uint64_t row_bytes = 0;  // bytes of one token's row in `type`

  __host__ __device__ int kv_dim() const { return n_kv_heads * head_dim; }
};
// Byte offset of (layer, kv = 0 for K / 1 for V, pos) inside the block holding pos.
__host__ __device__ inline uint64_t kv_row_offset(const DeviceKv& kv, int layer, int which,
                                                  int pos) {
  return ((static_cast<uint64_t>(layer) * 2 + which) * kv.block_tokens + pos % kv.block_tokens) *
         kv.row_bytes;
}
// Encodes k and v (n, kv_dim) f32 into the cache rows of `layer` at positions[0..n),
// quantizing on the fly bit-identically to the CPU's quantize_row (same f16 scale, same
// rounding: lround for q8_0, floor(x/d + 8.5) for q4_0).
cudaError_t kv_write(const DeviceKv& kv, int layer, const float* k, const float* v, int n,
                     const int32_t* positions, cudaStream_t stream);

}  // namespace kvchat::cuda
