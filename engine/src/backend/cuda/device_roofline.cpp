#include "backend/cuda/device_roofline.h"

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda/device_memory.h"

namespace kvchat::cuda {

namespace {

// Milliseconds of the fastest of `reps` runs of `body` after one warm-up.
template <class Body>
Result<float> best_ms(cudaStream_t stream, int reps, Body body) {
  cudaEvent_t start = nullptr, stop = nullptr;
  KV_CUDA_TRY(cudaEventCreate(&start));
  KV_CUDA_TRY(cudaEventCreate(&stop));
  float best = 1e30f;
  Status st = body();
  for (int r = 0; st && r < reps; ++r) {
    st = check(cudaEventRecord(start, stream), "cudaEventRecord");
    if (st) st = body();
    if (st) st = check(cudaEventRecord(stop, stream), "cudaEventRecord");
    if (st) st = check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    if (st) st = check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    best = std::min(best, ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (!st) return Error{st.message()};
  return best;
}

}  // namespace

Result<DeviceRoofline> measure_device_roofline(uint64_t copy_bytes, int m, int n, int k) {
  DeviceRoofline r;
  cudaDeviceProp prop{};
  int device = 0;
  KV_CUDA_TRY(cudaGetDevice(&device));
  KV_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  r.device = prop.name;
  cudaStream_t stream = nullptr;
  KV_CUDA_TRY(cudaStreamCreate(&stream));
  struct StreamGuard {
    cudaStream_t s;
    ~StreamGuard() { cudaStreamDestroy(s); }
  } guard{stream};

  // Copy bandwidth: one buffer into another.
  {
    auto a = DeviceBuffer::allocate(copy_bytes);
    auto b = DeviceBuffer::allocate(copy_bytes);
    if (!a || !b) return Error{a ? b.message() : a.message()};
    KV_CUDA_TRY(cudaMemsetAsync(a->get(), 1, copy_bytes, stream));
    auto ms = best_ms(stream, 10, [&]() -> Status {
      return check(
          cudaMemcpyAsync(b->get(), a->get(), copy_bytes, cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpyAsync");
    });
    if (!ms) return ms.error();
    r.copy_bytes_per_second = 2.0 * copy_bytes / (*ms * 1e-3);
    r.copy_buffer_bytes = copy_bytes;
  }

  // GEMM rate: f16 inputs (random-ish, not zeros), f32 output and accumulation.
  {
    const uint64_t na = static_cast<uint64_t>(m) * k, nb = static_cast<uint64_t>(k) * n,
                   nc = static_cast<uint64_t>(m) * n;
    auto a = DeviceBuffer::allocate(na * sizeof(__half));
    auto b = DeviceBuffer::allocate(nb * sizeof(__half));
    auto c = DeviceBuffer::allocate(nc * sizeof(float));
    if (!a || !b || !c) return Error{!a ? a.message() : !b ? b.message() : c.message()};
    KV_CUDA_TRY(cudaMemsetAsync(a->get(), 0x3a, na * sizeof(__half), stream));  // 0x3a3a: ~0.78
    KV_CUDA_TRY(cudaMemsetAsync(b->get(), 0x35, nb * sizeof(__half), stream));  // 0x3535: ~0.33
    cublasHandle_t handle = nullptr;
    KV_CUDA_TRY(cublasCreate(&handle));
    struct HandleGuard {
      cublasHandle_t h;
      ~HandleGuard() { cublasDestroy(h); }
    } hguard{handle};
    KV_CUDA_TRY(cublasSetStream(handle, stream));
    const float alpha = 1, beta = 0;
    auto ms = best_ms(stream, 10, [&]() -> Status {
      return check(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, a->get(),
                                CUDA_R_16F, k, b->get(), CUDA_R_16F, k, &beta, c->get(), CUDA_R_32F,
                                m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   "cublasGemmEx");
    });
    if (!ms) return ms.error();
    r.gemm_flops_per_second = 2.0 * m * n * static_cast<double>(k) / (*ms * 1e-3);
    r.gemm_m = m;
    r.gemm_n = n;
    r.gemm_k = k;
  }
  return r;
}

}  // namespace kvchat::cuda
