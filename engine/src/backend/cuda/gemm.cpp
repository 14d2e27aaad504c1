#include "backend/cuda/gemm.h"

#include <string>

#include "backend/cuda/cuda_check.h"

namespace kvchat::cuda {

using gguf::TensorType;

Gemm::~Gemm() {
  if (handle_) cublasDestroy(handle_);
}

Status Gemm::init(cudaStream_t stream, int64_t max_x_values, int64_t max_w_values) {
  stream_ = stream;
  KV_CUDA_TRY(cublasCreate(&handle_));
  KV_CUDA_TRY(cublasSetStream(handle_, stream));
  // Never TF32: an f32 model is promised f32 products.
  KV_CUDA_TRY(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
  auto x16 = DeviceBuffer::allocate(static_cast<uint64_t>(max_x_values) * sizeof(__half));
  if (!x16) return Error{x16.message()};
  x16_ = std::move(x16.value());
  if (max_w_values > 0) {
    auto w16 = DeviceBuffer::allocate(static_cast<uint64_t>(max_w_values) * sizeof(__half));
    if (!w16) return Error{w16.message()};
    w16_ = std::move(w16.value());
  }
  return {};
}

Status Gemm::run(const DeviceMatrix& w, const float* x, int n, float* y, int64_t ldy,
                 bool accumulate) {
  if (n <= 0) return {};
  const int64_t x_values = static_cast<int64_t>(n) * w.cols;
  if (static_cast<uint64_t>(x_values) * sizeof(__half) > x16_.bytes()) {
    return Error{"GEMM input of " + std::to_string(x_values) + " values exceeds the scratch tile"};
  }
  // Row-major W (rows, cols) is column-major (cols, rows); row-major x (n, cols) is
  // column-major (cols, n); so column-major y (rows, n) = W^T(op T) . x.
  const float alpha = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  const void* a = w.data;
  const void* b = x;
  cudaDataType_t type = CUDA_R_32F;
  switch (w.type) {
    case TensorType::F32: break;
    case TensorType::F16:
      KV_CUDA_TRY(f32_to_f16(x, x16_.get<__half>(), x_values, stream_));
      type = CUDA_R_16F;
      b = x16_.get();
      break;
    case TensorType::BF16:
      KV_CUDA_TRY(f32_to_bf16(x, x16_.get<__nv_bfloat16>(), x_values, stream_));
      type = CUDA_R_16BF;
      b = x16_.get();
      break;
    default:  // the block types (weight_chunks.cuh): dequantized to f16 first
      if (static_cast<uint64_t>(w.rows * w.cols) * sizeof(__half) > w16_.bytes()) {
        return Error{"GEMM: no room to dequantize a " + std::to_string(w.rows) + "x" +
                     std::to_string(w.cols) + " matrix"};
      }
      KV_CUDA_TRY(dequantize_to_f16(w, w16_.get<__half>(), stream_));
      KV_CUDA_TRY(f32_to_f16(x, x16_.get<__half>(), x_values, stream_));
      type = CUDA_R_16F;
      a = w16_.get();
      b = x16_.get();
      break;
  }
  // Leading dimension of A in elements: quantized weights were dequantized densely.
  const int64_t lda = w.cols;
  KV_CUDA_TRY(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(w.rows), n,
                           static_cast<int>(w.cols), &alpha, a, type, static_cast<int>(lda), b,
                           type, static_cast<int>(w.cols), &beta, y, CUDA_R_32F,
                           static_cast<int>(ldy), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  return {};
}

}  // namespace kvchat::cuda
