// RMSNorm: out (n, dim) = x * s * gain with s = 1 / sqrt(mean(x^2) + eps) per row, and
// rms_scale, which writes only s (n) for a GEMV that fuses the norm.
// One 256-thread block per row: threads stride over the row summing x^2 in f32, a warp
// shuffle + shared-memory block reduction gives the sum, and the scale is finished in
// double as the CPU does (cpu::rmsnorm); out = (x * s) * gain in the CPU's order.
#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/value_math.cuh"
#include "backend/cuda/launch.cuh"

namespace kvchat::cuda {

namespace {

constexpr int kThreads = 256;

// The row's 1 / sqrt(mean(x^2) + eps), in every thread.   x: (dim)
__device__ float row_scale(const float* x, int dim, float eps) {
  KV_SHARED(float, partial, [kThreads / 32]);
  KV_SHARED(float, total, );
  float ss = 0.0f;
  for (int i = threadIdx.x; i < dim; i += kThreads) ss = fmaf(x[i], x[i], ss);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, off);
  if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = ss;
  __syncthreads();
  if (threadIdx.x < 32) {
    float v = threadIdx.x < kThreads / 32 ? partial[threadIdx.x] : 0.0f;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    if (threadIdx.x == 0) total = v;
  }
  __syncthreads();
  return math::rms_inverse(total, dim, eps);
}

// x: (n, dim);  gain: (dim);  out: (n, dim), may be x itself (each row is read before any
// of it is written: row_scale ends with a barrier)
__global__ void __launch_bounds__(kThreads)
    rmsnorm_kernel(const float* x, const float* __restrict__ gain, float* out, int dim, float eps) {
  const float* xr = x + static_cast<int64_t>(blockIdx.x) * dim;
  float* o = out + static_cast<int64_t>(blockIdx.x) * dim;
  const float s = row_scale(xr, dim, eps);
  for (int i = threadIdx.x; i < dim; i += kThreads) o[i] = math::rms_apply(xr[i], s, gain[i]);
}

// x: (n, dim);  scale: (n)
__global__ void __launch_bounds__(kThreads)
    rms_scale_kernel(const float* __restrict__ x, float* __restrict__ scale, int dim, float eps) {
  const float s = row_scale(x + static_cast<int64_t>(blockIdx.x) * dim, dim, eps);
  if (threadIdx.x == 0) scale[blockIdx.x] = s;
}

}  // namespace

cudaError_t rmsnorm(const float* x, const float* gain, float* out, int n, int dim, float eps,
                    cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (n < 0 || dim <= 0) return cudaErrorInvalidValue;
  return launch<rmsnorm_kernel>(n, kThreads, 0, stream, x, gain, out, dim, eps);
}

cudaError_t rms_scale(const float* x, float* scale, int n, int dim, float eps,
                      cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  if (n < 0 || dim <= 0) return cudaErrorInvalidValue;
  return launch<rms_scale_kernel>(n, kThreads, 0, stream, x, scale, dim, eps);
}

}  // namespace kvchat::cuda
