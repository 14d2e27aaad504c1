// Prefill matrix products through cuBLAS: y (n, w.rows) = x (n, w.cols) . W^T with f32
// activations in and out and f32 accumulation. F32 weights use an f32 GEMM (no TF32:
// CUBLAS_COMPUTE_32F with the default math mode). F16 and BF16 weights multiply x
// rounded to their type on tensor cores. Block-quantized weights (Q8_0, Q4_0, the K-types
// and the others of weight_chunks.cuh) are dequantized to f16 one matrix at a time into a
// scratch tile, then multiplied as f16.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/device_memory.h"
#include "kvchat/result.h"

namespace kvchat::cuda {

class Gemm {
 public:
  Gemm() = default;
  ~Gemm();
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  // max_x_values: the most values of x (n * cols) a call passes; max_w_values: rows *
  // cols of the largest matrix that is not F16 (0 when every matrix is F16 or F32).
  Status init(cudaStream_t stream, int64_t max_x_values, int64_t max_w_values);

  // y (n, w.rows) with row stride ldy (>= w.rows); accumulate: y += x . W^T.
  Status run(const DeviceMatrix& w, const float* x, int n, float* y, int64_t ldy, bool accumulate);

  uint64_t scratch_bytes() const { return x16_.bytes() + w16_.bytes(); }
  cublasHandle_t handle() const { return handle_; }

 private:
  cudaStream_t stream_ = nullptr;
  cublasHandle_t handle_ = nullptr;
  DeviceBuffer x16_;  // x rounded to f16 or bf16: (max_x_values)
  DeviceBuffer w16_;  // a dequantized weight matrix: (max_w_values) f16
};

}  // namespace kvchat::cuda
