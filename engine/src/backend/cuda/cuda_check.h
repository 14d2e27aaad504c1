// Every CUDA runtime and cuBLAS call goes through these: a failure becomes an Error
// naming the call, never an abort.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "kvchat/result.h"

namespace kvchat::cuda {

Status check(cudaError_t err, const char* what);
Status check(cublasStatus_t status, const char* what);

}  // namespace kvchat::cuda

#define KV_CUDA_TRY(call)                                                    \
  do {                                                                       \
    if (auto kv_status_ = ::kvchat::cuda::check((call), #call); !kv_status_) \
      return ::kvchat::Error{kv_status_.message()};                          \
  } while (0)
