// Host emulation of what kernel code sees of the device (test equipment): the built-in
// index variables, the block barrier, warp synchronisation and shuffles, shared memory and
// kernel launches, all served by the grid emulator (tests/cuda_host/src/grid.cpp). A block's
// threads run as cooperative fibers on the launching host thread; every function here that
// synchronises switches fibers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "driver_types.h"
#include "kvchat_emu/vector_types.h"

namespace kvchat_emu {

// The emulated thread now running and its block (valid only inside a kernel).
struct ThreadState {
  uint3 idx;
  int tid, warp;  // linear index in the block, and its warp
};
struct BlockState {
  uint3 idx;
  dim3 dim;
  dim3 grid;
};
extern ThreadState* g_thread;
extern BlockState g_block;

// __syncthreads: waits until every thread of the block that has not exited arrives.
void syncthreads();
// __syncwarp: waits until every lane of `mask` (which must hold the caller) arrives.
void syncwarp(unsigned mask);

// shfl.sync (PTX ISA): the modes, b the lane operand, c the packed clamp / segment mask.
enum class ShuffleMode { Idx, Up, Down, Bfly };
uint64_t shuffle(ShuffleMode mode, unsigned mask, uint64_t bits, int b, int c, const char* what);

template <class T>
T shuffle_value(ShuffleMode mode, unsigned mask, T var, int b, int c, const char* what) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "shuffled type");
  uint64_t bits = 0;
  std::memcpy(&bits, &var, sizeof(T));
  bits = shuffle(mode, mask, bits, b, c, what);
  T out;
  std::memcpy(&out, &bits, sizeof(T));
  return out;
}

// Shared memory of the running block: the static array declared at `tag` (its bytes,
// allocated at the first declaration the block executes, at the same offset in every
// block), and the dynamic array of the launch.
void* shared_static(const void* tag, size_t bytes, const char* name);
void* shared_dynamic();

// cp.async through the pipeline primitives (cuda_pipeline_primitives.h).
void pipeline_memcpy_async(void* dst, const void* src, size_t bytes, size_t zfill);
void pipeline_commit();
void pipeline_wait_prior(size_t prior);

// Launches `body` (one call per emulated thread) over grid x block on `stream`: validated as
// the device validates a launch, then run (or recorded, while the stream is captured).
// Reports through the runtime's last error, as a <<<...>>> launch does.
void launch_grid(const char* name, const void* func, dim3 grid, dim3 block, size_t dynamic_smem,
                 cudaStream_t stream, std::function<void()> body);

// The name of a kernel function as a template argument, for messages ("kvchat::cuda::
// {anonymous}::rmsnorm_kernel").
std::string name_from_signature(const char* pretty);
template <auto K>
const char* kernel_name() {
  static const std::string name = name_from_signature(__PRETTY_FUNCTION__);
  return name.c_str();
}

// kernel<<<grid, block, smem, stream>>>(args...): the arguments are converted to the
// kernel's parameter types once, and every thread gets its own copy of them.
template <class... P, class... A>
void launch(const char* name, void (*kernel)(P...), dim3 grid, dim3 block, size_t smem,
            cudaStream_t stream, A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "kernel argument count");
  auto params = std::make_shared<const std::tuple<std::decay_t<P>...>>(std::forward<A>(args)...);
  launch_grid(name, reinterpret_cast<const void*>(kernel), grid, block, smem, stream,
              [kernel, params] { std::apply(kernel, *params); });
}

}  // namespace kvchat_emu

#define threadIdx (::kvchat_emu::g_thread->idx)
#define blockIdx (::kvchat_emu::g_block.idx)
#define blockDim (::kvchat_emu::g_block.dim)
#define gridDim (::kvchat_emu::g_block.grid)
constexpr int warpSize = 32;

// Static and dynamic shared arrays (used through launch.cuh's KV_SHARED / KV_DYNAMIC_SHARED):
// `name` becomes a reference to an array of `type dims` in the block's arena.
#define KVCHAT_EMU_SHARED(type, name, dims) \
  static char name##_kvchat_emu_tag;        \
  auto& name = *static_cast<type(*) dims>(  \
      ::kvchat_emu::shared_static(&name##_kvchat_emu_tag, sizeof(type dims), #name))
#define KVCHAT_EMU_DYNAMIC_SHARED(type, name) \
  type* const name = static_cast<type*>(::kvchat_emu::shared_dynamic())

inline void __syncthreads() { kvchat_emu::syncthreads(); }
inline void __syncwarp(unsigned mask = 0xffffffffu) { kvchat_emu::syncwarp(mask); }

// The CUDA headers' packing of shfl.sync's c operand: ((32 - width) << 8) | 0x1f, without the
// 0x1f for shfl.up.
template <class T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize) {
  return kvchat_emu::shuffle_value(kvchat_emu::ShuffleMode::Idx, mask, var, src_lane,
                                   ((warpSize - width) << 8) | 0x1f, "__shfl_sync");
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return kvchat_emu::shuffle_value(kvchat_emu::ShuffleMode::Up, mask, var, static_cast<int>(delta),
                                   (warpSize - width) << 8, "__shfl_up_sync");
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
  return kvchat_emu::shuffle_value(kvchat_emu::ShuffleMode::Down, mask, var,
                                   static_cast<int>(delta), ((warpSize - width) << 8) | 0x1f,
                                   "__shfl_down_sync");
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
  return kvchat_emu::shuffle_value(kvchat_emu::ShuffleMode::Bfly, mask, var, lane_mask,
                                   ((warpSize - width) << 8) | 0x1f, "__shfl_xor_sync");
}
