// The emulated device as the emulated libraries beside the runtime (cuBLAS) see it.
// Implemented by the emulated runtime (tests/cuda_host/src).
#pragma once

#include <cstddef>
#include <functional>

#include "driver_types.h"

namespace kvchat_emu {

// Runs `work` in `stream`'s order: at once (the emulated device executes synchronously), or,
// while the stream is being captured (cudaStreamBeginCapture), recorded into the graph and
// run at each cudaGraphLaunch. `name` names the work in errors. Returns cudaSuccess, or the
// error a capture or an earlier failure reports.
cudaError_t submit(cudaStream_t stream, const char* name, std::function<void()> work);

// Whether [p, p + bytes) lies inside one live device allocation (cudaMalloc, not
// cudaMallocHost or plain host memory).
bool is_device_range(const void* p, size_t bytes);

// Records a device fault, as an illegal address does on a device: the error is sticky and
// every later runtime call (cudaGetLastError, cudaStreamSynchronize, ...) reports
// cudaErrorIllegalAddress; `what` names the fault (e.g. "cublasGemmEx: A read past its
// allocation") and is printed to stderr once. The caller then abandons its work.
void fault(const char* what);

}  // namespace kvchat_emu
