// The CUDA backend's entry point, registered with the backend factory. For now it
// finds the device and proves cuBLAS initialises; the forward pass is issue 5.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "backend/backend.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/device_probe.h"
#include "kvchat/model.h"

namespace kvchat::cuda {

namespace {

Result<std::unique_ptr<Backend>> make_cuda_backend(const Model&, const BackendOptions&) {
  int n_devices = 0;
  if (cudaGetDeviceCount(&n_devices) != cudaSuccess || n_devices == 0) {
    cudaGetLastError();  // clear the sticky "no device" error
    return Error{"no CUDA device"};
  }
  // Prove that the runtime, a kernel and cuBLAS all work on this device.
  int* probe = nullptr;
  int host[64] = {};
  KV_CUDA_TRY(cudaMalloc(&probe, sizeof host));
  Status ran = check(launch_iota(probe, 64, nullptr), "launch_iota");
  if (ran) ran = check(cudaMemcpy(host, probe, sizeof host, cudaMemcpyDeviceToHost), "cudaMemcpy");
  KV_CUDA_TRY(cudaFree(probe));
  if (!ran) return Error{ran.message()};
  if (host[63] != 63) return Error{"CUDA device probe returned wrong data"};
  cublasHandle_t handle = nullptr;
  KV_CUDA_TRY(cublasCreate(&handle));
  KV_CUDA_TRY(cublasDestroy(handle));
  return Error{"the CUDA forward pass is not implemented yet (use --backend cpu)"};
}

struct Registration {
  Registration() { register_backend(BackendKind::Cuda, &make_cuda_backend); }
};
Registration registration;

}  // namespace

}  // namespace kvchat::cuda
