// Kernels callable from C++20 code; the .cu side stays C++17 for nvcc.
#pragma once

#include <cuda_runtime.h>

namespace kvchat::cuda {

// device_out[i] = i for i < n.
cudaError_t launch_iota(int* device_out, int n, cudaStream_t stream);

}  // namespace kvchat::cuda
