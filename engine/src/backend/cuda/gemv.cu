// GEMV for decode: the public entry. Dispatches on the weight type to the chunk kernel
// (gemv_kernel.cuh; the types beyond Q8_0/Q4_0 are instantiated in gemv_q32.cu and
// gemv_k.cu) or, for rows, x or gain that miss its alignment, to the scalar fallback here.
#include <algorithm>
#include <cstdint>

#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/gemv_kernel.cuh"
#include "backend/cuda/launch.cuh"

namespace kvchat::cuda {

namespace {

using namespace gemv_detail;

// Fallback: one warp per (row, token) pair, lane-strided scalar reads.
//   w: (rows, row_bytes);  x: (n, cols) or (n, 2*cols);  scale: (n);  gain: (cols);  y: (n, rows)
__global__ void __launch_bounds__(kThreads)
    gemv_scalar_kernel(TensorType type, const uint8_t* __restrict__ w, uint64_t row_bytes, int rows,
                       int cols, int n, const float* __restrict__ x, GemvInput mode,
                       const float* __restrict__ scale, const float* __restrict__ gain,
                       float* __restrict__ y, bool accumulate) {
  const int lane = threadIdx.x & 31;
  const int64_t n_warps = static_cast<int64_t>(gridDim.x) * kWarps;
  const int64_t total = static_cast<int64_t>(rows) * n;
  for (int64_t job = (blockIdx.x * kThreads + threadIdx.x) >> 5; job < total; job += n_warps) {
    const int r = static_cast<int>(job % rows), t = static_cast<int>(job / rows);
    const uint8_t* row = w + static_cast<uint64_t>(r) * row_bytes;
    const float* xt = x + static_cast<int64_t>(t) * (mode == GemvInput::SwiGlu ? 2 * cols : cols);
    float acc = 0.0f;
    for (int i = lane; i < cols; i += 32) {
      float v = xt[i];
      if (mode == GemvInput::RmsNorm) v = v * scale[t] * gain[i];
      if (mode == GemvInput::SwiGlu) v = silu(v) * xt[cols + i];
      acc = fmaf(dev::dequant_value(type, row, i), v, acc);
    }
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) {
      float* out = y + static_cast<int64_t>(t) * rows + r;
      *out = accumulate ? *out + acc : acc;
    }
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

cudaError_t gemv(const DeviceMatrix& w, const float* x, float* y, int n, const GemvArgs& args,
                 cudaStream_t stream) {
  if (n == 0 || w.rows == 0) return cudaSuccess;
  if (n < 0 || n > kGemvMaxTokens || !dev::is_weight_type(w.type) || w.rows < 0 ||
      w.rows > INT32_MAX || w.cols <= 0 ||
      w.cols > (int64_t{1} << 26)) {  // int offsets inside a row
    return cudaErrorInvalidValue;
  }
  if (w.cols % dev::block_values(w.type) != 0) return cudaErrorInvalidValue;
  const bool chunked = dev::chunk_path_ok(w.type, w.data, w.row_bytes, w.cols) && aligned16(x) &&
                       (args.input != GemvInput::RmsNorm || aligned16(args.gain));
  if (chunked) {
    switch (w.type) {
      case TensorType::F32: return launch_n<dev::ChunkF32>(w, x, y, n, args, stream);
      case TensorType::F16: return launch_n<dev::ChunkF16>(w, x, y, n, args, stream);
      case TensorType::BF16: return launch_n<dev::ChunkBF16>(w, x, y, n, args, stream);
      case TensorType::Q8_0: return launch_n<dev::ChunkQ8_0>(w, x, y, n, args, stream);
      case TensorType::Q4_0: return launch_n<dev::ChunkQ4_0>(w, x, y, n, args, stream);
      case TensorType::Q4_1:
      case TensorType::Q5_0:
      case TensorType::Q5_1:
      case TensorType::IQ4_NL: return gemv_chunked_q32(w, x, y, n, args, stream);
      case TensorType::Q2_K:
      case TensorType::Q3_K:
      case TensorType::Q4_K:
      case TensorType::Q5_K:
      case TensorType::Q6_K:
      case TensorType::IQ4_XS: return gemv_chunked_k(w, x, y, n, args, stream);
    }
  }
  static const int per_sm = query_blocks_per_sm(gemv_scalar_kernel);
  int sms = 0;
  if (cudaError_t err = sm_count(&sms); err != cudaSuccess) return err;
  const int64_t jobs = w.rows * n;
  const int64_t grid =
      std::min<int64_t>((jobs + kWarps - 1) / kWarps, static_cast<int64_t>(sms) * per_sm);
  return launch<gemv_scalar_kernel>(static_cast<unsigned>(grid), kThreads, 0, stream, w.type,
                                    static_cast<const uint8_t*>(w.data), w.row_bytes,
                                    static_cast<int>(w.rows), static_cast<int>(w.cols), n, x,
                                    args.input, args.scale, args.gain, y, args.accumulate);
}

}  // namespace kvchat::cuda
