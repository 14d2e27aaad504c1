// The emulated device's internal state shared by the runtime (runtime.cpp), the grid emulator
// (grid.cpp) and the shared-memory checker (shared_check.cpp). Test equipment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "cuda_runtime.h"

namespace kvchat_emu {

// One lock for the whole device: runtime calls, emulated cuBLAS work and kernels run one at a
// time (recursive: work submitted by a call may fault, which records under the lock).
std::recursive_mutex& device_mutex();

// The calling host thread's last error (cudaGetLastError clears it) and the device's sticky
// error (a fault: every later call reports it).
void set_last_error(cudaError_t err);
cudaError_t sticky_error();
// Makes `err` sticky and prints `what` to stderr (the first fault only).
void set_sticky(cudaError_t err, const std::string& what);

// Runs `work` in `stream`'s order: now, or recorded while the stream is captured. Returns
// cudaSuccess, a capture error, or the sticky error (the work is then not run).
cudaError_t enqueue(cudaStream_t stream, const char* name, std::function<void()> work);

// Whether the calling thread has a stream capture under way (then synchronous calls fail).
bool capturing_on_this_thread();

// Device allocations (cudaMalloc) and the dynamic shared-memory attribute of a kernel.
bool device_range(const void* p, size_t bytes);
int max_dynamic_smem(const void* func);

// The running block's shared arena [g_shared_lo, g_shared_lo + g_shared_span) (span 0 outside
// kernels): the checker's fast test.
extern uintptr_t g_shared_lo;
extern uintptr_t g_shared_span;

// For the checker (grid.cpp): the current barrier phase (unique across blocks and launches),
// each warp's count of completed __syncwarp, which bytes of the arena belong to an array, a
// description of an arena offset, and the failure of the running launch (which never
// returns to the faulting thread). The running thread is g_thread (kernel_api.h).
extern uint32_t g_phase;
extern uint32_t g_warp_generation[32];
extern uint8_t g_shared_valid[];
std::string describe_shared(size_t offset);
[[noreturn]] void fail_thread(cudaError_t err, const std::string& what);

// The checker's record of a write to shared memory by the running thread (the emulator's own
// copies: cp.async completions).
void note_shared_access(const void* p, size_t bytes, bool write);
// Whether the race check runs (KVCHAT_EMU_RACECHECK=0 turns it off; bounds stay checked).
extern const bool g_race_check;

}  // namespace kvchat_emu
