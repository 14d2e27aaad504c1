// The one way the backend launches a kernel and declares shared memory, for both builds of
// the same sources:
//   nvcc (__CUDACC__)  kernel<<<grid, block, smem, stream>>>(args...) and __shared__ arrays;
//   the host emulation (tests/cuda_host: the sources compiled as C++ for the grid emulator)
//                      kvchat_emu::launch, and arrays placed in the emulated block's arena at
//                      exactly their declared size (bounds and races checked there).
// Kernel bodies hold no #ifdef of their own.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace kvchat::cuda {

// Launches Kernel over grid x block with `smem` bytes of dynamic shared memory on `stream` and
// returns cudaGetLastError(): a bad configuration, or (emulation) the fault of the kernel.
template <auto Kernel, class... A>
cudaError_t launch(dim3 grid, dim3 block, size_t smem, cudaStream_t stream, A&&... args) {
#ifdef __CUDACC__
  Kernel<<<grid, block, smem, stream>>>(std::forward<A>(args)...);
#else
  ::kvchat_emu::launch(::kvchat_emu::kernel_name<Kernel>(), Kernel, grid, block, smem, stream,
                       std::forward<A>(args)...);
#endif
  return cudaGetLastError();
}

}  // namespace kvchat::cuda

// KV_SHARED(float, partial, [8]) declares `__shared__ float partial[8]`; dims may be empty for
// a scalar. KV_SHARED_ALIGNED adds __align__(align). KV_DYNAMIC_SHARED(float4, smem) declares
// the launch's dynamic array `extern __shared__ float4 smem[]`.
#ifdef __CUDACC__
#define KV_SHARED(type, name, dims) __shared__ type name dims
#define KV_SHARED_ALIGNED(align, type, name, dims) \
  __shared__ __align__(align)                      \
  type name dims
#define KV_DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#else
// The emulated arena aligns every array to 16 bytes.
#define KV_SHARED(type, name, dims) KVCHAT_EMU_SHARED(type, name, dims)
#define KV_SHARED_ALIGNED(align, type, name, dims)                       \
  static_assert((align) <= 16, "the emulated arena aligns to 16 bytes"); \
  KVCHAT_EMU_SHARED(type, name, dims)
#define KV_DYNAMIC_SHARED(type, name) KVCHAT_EMU_DYNAMIC_SHARED(type, name)
#endif
