// Host emulation of the CUDA runtime (test equipment, never shipped): exactly the surface that
// engine/src/backend/cuda uses, so its .cu/.cpp sources compile a second time as C++ and run
// on the host through the grid emulator (tests/cuda_host/src). Values and rules follow the
// CUDA runtime's documentation; the emulated device is an sm_90 part with 141 GB
// (H200-like: 132 SMs, 228 KiB shared memory per SM, 227 KiB opt-in per block).
//   kvchat_emu/vector_types.h  float2/float4/uint2/uint4/uint3/dim3 (CUDA alignments)
//   kvchat_emu/intrinsics.h    the float, integer and half/bf16 intrinsics (PTX-faithful)
//   kvchat_emu/kernel_api.h    threadIdx & co., barriers, shuffles, shared memory, launches
#pragma once

#include <cstddef>
#include <cstdint>

#include "driver_types.h"
#include "kvchat_emu/intrinsics.h"
#include "kvchat_emu/kernel_api.h"
#include "kvchat_emu/vector_types.h"
#include "library_types.h"

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
};

// The fields of cudaDeviceProp that a caller may read (the runtime's names and meanings).
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  size_t totalConstMem;
  int major;
  int minor;
  int multiProcessorCount;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  size_t sharedMemPerMultiprocessor;
  size_t sharedMemPerBlockOptin;
  int maxBlocksPerMultiProcessor;
  int memoryBusWidth;
  int unifiedAddressing;
};

// ---- errors --------------------------------------------------------------------------------
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t err);
const char* cudaGetErrorName(cudaError_t err);

// ---- device --------------------------------------------------------------------------------
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);

// ---- memory --------------------------------------------------------------------------------
cudaError_t cudaMalloc(void** ptr, size_t bytes);
template <class T>
cudaError_t cudaMalloc(T** ptr, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMallocHost(void** ptr, size_t bytes);
template <class T>
cudaError_t cudaMallocHost(T** ptr, size_t bytes) {
  return cudaMallocHost(reinterpret_cast<void**>(ptr), bytes);
}
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);
cudaError_t cudaMemset(void* dst, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream = nullptr);

// ---- streams, events, graphs ---------------------------------------------------------------
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

// ---- kernels -------------------------------------------------------------------------------
namespace kvchat_emu {
cudaError_t set_func_attribute(const void* func, cudaFuncAttribute attr, int value);
cudaError_t max_active_blocks(int* blocks, const void* func, int block_size, size_t dynamic_smem);
}  // namespace kvchat_emu

template <class... P>
cudaError_t cudaFuncSetAttribute(void (*func)(P...), cudaFuncAttribute attr, int value) {
  return kvchat_emu::set_func_attribute(reinterpret_cast<const void*>(func), attr, value);
}
template <class... P>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, void (*func)(P...),
                                                          int block_size, size_t dynamic_smem) {
  return kvchat_emu::max_active_blocks(blocks, reinterpret_cast<const void*>(func), block_size,
                                       dynamic_smem);
}
