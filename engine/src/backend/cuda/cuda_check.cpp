#include "backend/cuda/cuda_check.h"

namespace kvchat::cuda {

Status check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return {};
  return Error{std::string("CUDA error in ") + what + ": " + cudaGetErrorName(err) + " (" +
               cudaGetErrorString(err) + ")"};
}

Status check(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return {};
  return Error{std::string("cuBLAS error in ") + what + ": status " +
               std::to_string(static_cast<int>(status))};
}

}  // namespace kvchat::cuda
