// A first kernel: writes its index into a device buffer so the backend can prove, at
// creation, that kernels launch and results come back. Plain C++17 for nvcc.
#include <cuda_runtime.h>

#include "backend/cuda/device_probe.h"

namespace kvchat::cuda {

namespace {
__global__ void iota_kernel(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}
}  // namespace

cudaError_t launch_iota(int* device_out, int n, cudaStream_t stream) {
  iota_kernel<<<(n + 255) / 256, 256, 0, stream>>>(device_out, n);
  return cudaGetLastError();
}

}  // namespace kvchat::cuda
