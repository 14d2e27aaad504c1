// The emulated CUDA runtime (test equipment): errors, the device and its properties, device
// memory, copies, streams, events and graphs, on one emulated sm_90 device with 141 GB
// (H200-like). The device executes in order and at once: work submitted to a stream runs
// before the call returns, except while the stream is captured, when it is recorded into the
// graph and runs at each cudaGraphLaunch.
//   device memory  host heap memory, 256-byte aligned, registered in an allocation table
//                  (kvchat_emu::is_device_range); new allocations hold 0xff bytes (garbage
//                  on a device), and under ASan the bytes past the requested size are
//                  poisoned. A copy or set whose device range leaves its allocation fails with
//                  cudaErrorInvalidValue, as the runtime's checks do.
//   errors         a per-thread last error (cudaGetLastError returns and clears it) and the
//                  device's sticky error: after a fault (kernel failure, illegal address)
//                  every call that reports errors returns it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "emu.h"
#include "kvchat_emu/device_api.h"

#if KVCHAT_EMU_ASAN
#include <sanitizer/asan_interface.h>
#endif

struct CUstream_st {
  bool capturing = false;
  bool invalidated = false;
  std::vector<std::pair<std::string, std::function<void()>>> nodes;
};
struct CUgraph_st {
  std::vector<std::pair<std::string, std::function<void()>>> nodes;
};
struct CUgraphExec_st {
  std::vector<std::pair<std::string, std::function<void()>>> nodes;
};
struct CUevent_st {
  bool recorded = false;
  std::chrono::steady_clock::time_point at;
};

namespace kvchat_emu {

namespace {

constexpr size_t kTotalBytes = 141ull * 1000 * 1000 * 1000;  // 141 GB
constexpr size_t kReservedBytes = 512ull << 20;              // the context's own
constexpr size_t kPoisonLimit = 1ull << 30;                  // bytes of garbage written at most
constexpr int kSms = 132;

struct Allocation {
  size_t bytes, rounded;
};

struct Device {
  std::map<uintptr_t, Allocation> allocations;  // by start address
  std::set<void*> pinned;
  size_t allocated = 0;
  cudaError_t sticky = cudaSuccess;
  std::set<cudaStream_t> streams;
  std::set<cudaEvent_t> events;
  std::map<const void*, int> dynamic_smem;  // cudaFuncAttributeMaxDynamicSharedMemorySize
};

Device& dev() {
  static Device* d = new Device;  // never destroyed: plugins unload after static destructors
  return *d;
}

thread_local cudaError_t t_last_error = cudaSuccess;
thread_local int t_captures = 0;  // captures begun by this thread and not ended

// The allocation holding [p, p + bytes), or null.
const Allocation* find(const void* p, size_t bytes) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  auto& allocs = dev().allocations;
  auto it = allocs.upper_bound(a);
  if (it == allocs.begin()) return nullptr;
  --it;
  if (a - it->first > it->second.bytes || bytes > it->second.bytes - (a - it->first))
    return nullptr;
  return &it->second;
}

bool valid_stream(cudaStream_t s) { return s == nullptr || dev().streams.count(s) != 0; }

cudaError_t fail(cudaError_t err) {
  t_last_error = err;
  return err;
}

// A synchronous call while this thread captures: refused, and the capture invalidated.
cudaError_t refuse_during_capture() {
  for (cudaStream_t s : dev().streams) {
    if (s->capturing) s->invalidated = true;
  }
  return fail(cudaErrorStreamCaptureUnsupported);
}

// Checks a copy's ranges for its kind: the device side(s) inside one allocation each.
cudaError_t check_copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  if (bytes == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) return cudaErrorInvalidValue;
  bool dst_dev = false, src_dev = false;
  switch (kind) {
    case cudaMemcpyHostToHost: break;
    case cudaMemcpyHostToDevice: dst_dev = true; break;
    case cudaMemcpyDeviceToHost: src_dev = true; break;
    case cudaMemcpyDeviceToDevice: dst_dev = src_dev = true; break;
    case cudaMemcpyDefault:
      dst_dev = find(dst, 1) != nullptr;
      src_dev = find(src, 1) != nullptr;
      break;
    default: return cudaErrorInvalidMemcpyDirection;
  }
  if (dst_dev && !find(dst, bytes)) return cudaErrorInvalidValue;
  if (src_dev && !find(src, bytes)) return cudaErrorInvalidValue;
  return cudaSuccess;
}

}  // namespace

// ---- internal ------------------------------------------------------------------------------
std::recursive_mutex& device_mutex() {
  static std::recursive_mutex* m = new std::recursive_mutex;
  return *m;
}

void set_last_error(cudaError_t err) { t_last_error = err; }
cudaError_t sticky_error() { return dev().sticky; }

void set_sticky(cudaError_t err, const std::string& what) {
  std::lock_guard lock(device_mutex());
  if (dev().sticky != cudaSuccess) return;
  dev().sticky = err;
  std::fprintf(stderr, "kvchat-emu: device fault (%s): %s\n", cudaGetErrorName(err), what.c_str());
}

cudaError_t enqueue(cudaStream_t stream, const char* name, std::function<void()> work) {
  std::lock_guard lock(device_mutex());
  if (!valid_stream(stream)) return cudaErrorInvalidResourceHandle;
  if (stream && stream->capturing) {
    stream->nodes.emplace_back(name, std::move(work));
    return cudaSuccess;
  }
  if (dev().sticky != cudaSuccess) return dev().sticky;
  if (t_captures > 0 && stream == nullptr) return refuse_during_capture();
  work();
  return dev().sticky;
}

bool capturing_on_this_thread() { return t_captures > 0; }

bool device_range(const void* p, size_t bytes) {
  std::lock_guard lock(device_mutex());
  return find(p, bytes) != nullptr;
}

int max_dynamic_smem(const void* func) {
  const auto it = dev().dynamic_smem.find(func);
  return it == dev().dynamic_smem.end() ? 0 : it->second;
}

// ---- device_api.h --------------------------------------------------------------------------
cudaError_t submit(cudaStream_t stream, const char* name, std::function<void()> work) {
  return enqueue(stream, name, std::move(work));
}
bool is_device_range(const void* p, size_t bytes) { return device_range(p, bytes); }
void fault(const char* what) { set_sticky(cudaErrorIllegalAddress, what); }

// ---- kernels -------------------------------------------------------------------------------
cudaError_t set_func_attribute(const void* func, cudaFuncAttribute attr, int value) {
  std::lock_guard lock(device_mutex());
  if (func == nullptr) return fail(cudaErrorInvalidDeviceFunction);
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0 || value > (227 << 10)) return fail(cudaErrorInvalidValue);
    dev().dynamic_smem[func] = value;
    return cudaSuccess;
  }
  if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
    return value >= -1 && value <= 100 ? cudaSuccess : fail(cudaErrorInvalidValue);
  }
  return fail(cudaErrorInvalidValue);
}

cudaError_t max_active_blocks(int* blocks, const void* func, int block_size, size_t dynamic_smem) {
  if (blocks == nullptr || func == nullptr || block_size <= 0 || block_size > 1024)
    return fail(cudaErrorInvalidValue);
  // sm_90: 2048 threads, 32 blocks and 228 KiB of shared memory per SM (1 KiB of it reserved
  // per block). Registers are the compiler's and unknown here: not a limit.
  const int warps = (block_size + 31) / 32;
  int n = std::min(32, 64 / warps);
  if (dynamic_smem > 0)
    n = std::min<int>(n, static_cast<int>((228u << 10) / (dynamic_smem + 1024)));
  *blocks = n;
  return cudaSuccess;
}

}  // namespace kvchat_emu

using kvchat_emu::dev;
using kvchat_emu::device_mutex;
using kvchat_emu::fail;

// ---- errors --------------------------------------------------------------------------------
cudaError_t cudaGetLastError() {
  std::lock_guard lock(device_mutex());
  if (dev().sticky != cudaSuccess) return dev().sticky;
  const cudaError_t e = kvchat_emu::t_last_error;
  kvchat_emu::t_last_error = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError() {
  std::lock_guard lock(device_mutex());
  return dev().sticky != cudaSuccess ? dev().sticky : kvchat_emu::t_last_error;
}

const char* cudaGetErrorName(cudaError_t err) {
  switch (err) {
#define KVCHAT_ERR(e) \
  case e: return #e;
    KVCHAT_ERR(cudaSuccess)
    KVCHAT_ERR(cudaErrorInvalidValue)
    KVCHAT_ERR(cudaErrorMemoryAllocation)
    KVCHAT_ERR(cudaErrorInitializationError)
    KVCHAT_ERR(cudaErrorInvalidConfiguration)
    KVCHAT_ERR(cudaErrorInvalidDevicePointer)
    KVCHAT_ERR(cudaErrorInvalidMemcpyDirection)
    KVCHAT_ERR(cudaErrorInvalidDeviceFunction)
    KVCHAT_ERR(cudaErrorNoDevice)
    KVCHAT_ERR(cudaErrorInvalidDevice)
    KVCHAT_ERR(cudaErrorInvalidResourceHandle)
    KVCHAT_ERR(cudaErrorIllegalState)
    KVCHAT_ERR(cudaErrorNotReady)
    KVCHAT_ERR(cudaErrorIllegalAddress)
    KVCHAT_ERR(cudaErrorLaunchOutOfResources)
    KVCHAT_ERR(cudaErrorLaunchFailure)
    KVCHAT_ERR(cudaErrorStreamCaptureUnsupported)
    KVCHAT_ERR(cudaErrorStreamCaptureInvalidated)
    KVCHAT_ERR(cudaErrorStreamCaptureWrongThread)
    KVCHAT_ERR(cudaErrorUnknown)
#undef KVCHAT_ERR
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t err) {
  switch (err) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorIllegalState: return "the operation cannot be performed in the present state";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorStreamCaptureUnsupported:
      return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated:
      return "operation failed due to a previous error during capture";
    case cudaErrorStreamCaptureWrongThread:
      return "attempt to terminate a thread-local capture sequence from another thread";
    case cudaErrorUnknown: return "unknown error";
  }
  return "unrecognized error code";
}

// ---- device --------------------------------------------------------------------------------
cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return fail(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (!device) return fail(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  if (!p) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  *p = cudaDeviceProp{};
  std::snprintf(p->name, sizeof p->name, "kvchat CUDA host emulation (sm_90, 141 GB)");
  p->totalGlobalMem = kvchat_emu::kTotalBytes;
  p->sharedMemPerBlock = 48 << 10;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 0x7fffffff;
  p->maxGridSize[1] = p->maxGridSize[2] = 65535;
  p->totalConstMem = 64 << 10;
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = kvchat_emu::kSms;
  p->l2CacheSize = 60 << 20;
  p->maxThreadsPerMultiProcessor = 2048;
  p->sharedMemPerMultiprocessor = 228 << 10;
  p->sharedMemPerBlockOptin = 227 << 10;
  p->maxBlocksPerMultiProcessor = 32;
  p->memoryBusWidth = 6144;
  p->unifiedAddressing = 1;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (!value) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = 1024; break;
    case cudaDevAttrMaxBlockDimX:
    case cudaDevAttrMaxBlockDimY: *value = 1024; break;
    case cudaDevAttrMaxBlockDimZ: *value = 64; break;
    case cudaDevAttrMaxGridDimX: *value = 0x7fffffff; break;
    case cudaDevAttrMaxGridDimY:
    case cudaDevAttrMaxGridDimZ: *value = 65535; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = 48 << 10; break;
    case cudaDevAttrWarpSize: *value = 32; break;
    case cudaDevAttrMultiProcessorCount: *value = kvchat_emu::kSms; break;
    case cudaDevAttrComputeCapabilityMajor: *value = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *value = 0; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = 228 << 10; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = 227 << 10; break;
    default: return fail(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
  std::lock_guard lock(device_mutex());
  if (kvchat_emu::t_captures > 0) return kvchat_emu::refuse_during_capture();
  return dev().sticky;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  std::lock_guard lock(device_mutex());
  if (!free_bytes || !total_bytes) return fail(cudaErrorInvalidValue);
  if (dev().sticky != cudaSuccess) return dev().sticky;
  *total_bytes = kvchat_emu::kTotalBytes;
  *free_bytes = kvchat_emu::kTotalBytes - kvchat_emu::kReservedBytes - dev().allocated;
  return cudaSuccess;
}

// ---- memory --------------------------------------------------------------------------------
cudaError_t cudaMalloc(void** ptr, size_t bytes) {
  std::lock_guard lock(device_mutex());
  if (!ptr) return fail(cudaErrorInvalidValue);
  *ptr = nullptr;
  if (dev().sticky != cudaSuccess) return dev().sticky;
  if (kvchat_emu::t_captures > 0) return kvchat_emu::refuse_during_capture();
  if (bytes == 0) return cudaSuccess;
  const size_t rounded = (bytes + 255) / 256 * 256;
  if (rounded > kvchat_emu::kTotalBytes - kvchat_emu::kReservedBytes - dev().allocated)
    return fail(cudaErrorMemoryAllocation);
  void* p = std::aligned_alloc(256, rounded);
  if (!p) return fail(cudaErrorMemoryAllocation);
  std::memset(p, 0xff, std::min(rounded, kvchat_emu::kPoisonLimit));
#if KVCHAT_EMU_ASAN
  ASAN_POISON_MEMORY_REGION(static_cast<uint8_t*>(p) + bytes, rounded - bytes);
#endif
  dev().allocations[reinterpret_cast<uintptr_t>(p)] = {bytes, rounded};
  dev().allocated += rounded;
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  std::lock_guard lock(device_mutex());
  if (ptr == nullptr) return cudaSuccess;
  auto& allocs = dev().allocations;
  const auto it = allocs.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == allocs.end()) return fail(cudaErrorInvalidValue);
#if KVCHAT_EMU_ASAN
  ASAN_UNPOISON_MEMORY_REGION(ptr, it->second.rounded);
#endif
  dev().allocated -= it->second.rounded;
  allocs.erase(it);
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void** ptr, size_t bytes) {
  std::lock_guard lock(device_mutex());
  if (!ptr) return fail(cudaErrorInvalidValue);
  *ptr = nullptr;
  if (kvchat_emu::t_captures > 0) return kvchat_emu::refuse_during_capture();
  void* p = std::aligned_alloc(4096, (std::max<size_t>(bytes, 1) + 4095) / 4096 * 4096);
  if (!p) return fail(cudaErrorMemoryAllocation);
  dev().pinned.insert(p);
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void* ptr) {
  std::lock_guard lock(device_mutex());
  if (ptr == nullptr) return cudaSuccess;
  if (!dev().pinned.erase(ptr)) return fail(cudaErrorInvalidValue);
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  std::lock_guard lock(device_mutex());
  if (kvchat_emu::t_captures > 0) return kvchat_emu::refuse_during_capture();
  if (dev().sticky != cudaSuccess) return dev().sticky;
  if (const cudaError_t e = kvchat_emu::check_copy(dst, src, bytes, kind); e != cudaSuccess)
    return fail(e);
  if (bytes) std::memmove(dst, src, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  std::lock_guard lock(device_mutex());
  if (const cudaError_t e = kvchat_emu::check_copy(dst, src, bytes, kind); e != cudaSuccess)
    return fail(e);
  if (bytes == 0) return cudaSuccess;
  const cudaError_t e = kvchat_emu::enqueue(stream, "cudaMemcpyAsync",
                                            [dst, src, bytes] { std::memmove(dst, src, bytes); });
  return e == cudaSuccess ? e : fail(e);
}

cudaError_t cudaMemset(void* dst, int value, size_t bytes) {
  std::lock_guard lock(device_mutex());
  if (kvchat_emu::t_captures > 0) return kvchat_emu::refuse_during_capture();
  if (dev().sticky != cudaSuccess) return dev().sticky;
  if (bytes && !kvchat_emu::find(dst, bytes)) return fail(cudaErrorInvalidValue);
  if (bytes) std::memset(dst, value, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream) {
  std::lock_guard lock(device_mutex());
  if (bytes && !kvchat_emu::find(dst, bytes)) return fail(cudaErrorInvalidValue);
  if (bytes == 0) return cudaSuccess;
  const cudaError_t e = kvchat_emu::enqueue(
      stream, "cudaMemsetAsync", [dst, value, bytes] { std::memset(dst, value, bytes); });
  return e == cudaSuccess ? e : fail(e);
}

// ---- streams -------------------------------------------------------------------------------
cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  std::lock_guard lock(device_mutex());
  if (!stream) return fail(cudaErrorInvalidValue);
  *stream = new CUstream_st;
  dev().streams.insert(*stream);
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  std::lock_guard lock(device_mutex());
  if (stream == nullptr || !dev().streams.erase(stream))
    return fail(cudaErrorInvalidResourceHandle);
  if (stream->capturing) --kvchat_emu::t_captures;
  delete stream;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  std::lock_guard lock(device_mutex());
  if (!kvchat_emu::valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if ((stream && stream->capturing) || (stream == nullptr && kvchat_emu::t_captures > 0))
    return kvchat_emu::refuse_during_capture();
  return dev().sticky;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  std::lock_guard lock(device_mutex());
  if (stream == nullptr) return fail(cudaErrorStreamCaptureUnsupported);  // the legacy stream
  if (!kvchat_emu::valid_stream(stream) || mode < cudaStreamCaptureModeGlobal ||
      mode > cudaStreamCaptureModeRelaxed)
    return fail(stream && !kvchat_emu::valid_stream(stream) ? cudaErrorInvalidResourceHandle
                                                            : cudaErrorInvalidValue);
  if (stream->capturing) return fail(cudaErrorIllegalState);
  stream->capturing = true;
  stream->invalidated = false;
  stream->nodes.clear();
  ++kvchat_emu::t_captures;
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  std::lock_guard lock(device_mutex());
  if (!graph) return fail(cudaErrorInvalidValue);
  *graph = nullptr;
  if (!kvchat_emu::valid_stream(stream) || stream == nullptr || !stream->capturing)
    return fail(cudaErrorIllegalState);
  stream->capturing = false;
  --kvchat_emu::t_captures;
  auto nodes = std::move(stream->nodes);
  stream->nodes.clear();
  if (stream->invalidated) return fail(cudaErrorStreamCaptureInvalidated);
  *graph = new CUgraph_st{std::move(nodes)};
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
  if (!exec || !graph) return fail(cudaErrorInvalidValue);
  *exec = new CUgraphExec_st{graph->nodes};
  return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  std::lock_guard lock(device_mutex());
  if (!exec) return fail(cudaErrorInvalidValue);
  if (!kvchat_emu::valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  auto nodes =
      std::make_shared<std::vector<std::pair<std::string, std::function<void()>>>>(exec->nodes);
  return kvchat_emu::enqueue(stream, "cudaGraphLaunch", [nodes] {
    for (const auto& node : *nodes) {
      if (dev().sticky != cudaSuccess) return;
      node.second();
    }
  });
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  if (!graph) return fail(cudaErrorInvalidValue);
  delete graph;
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  if (!exec) return fail(cudaErrorInvalidValue);
  delete exec;
  return cudaSuccess;
}

// ---- events (host clock: the emulated device's time is the host's) ---------------------------
cudaError_t cudaEventCreate(cudaEvent_t* event) {
  std::lock_guard lock(device_mutex());
  if (!event) return fail(cudaErrorInvalidValue);
  *event = new CUevent_st;
  dev().events.insert(*event);
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  std::lock_guard lock(device_mutex());
  if (!event || !dev().events.erase(event)) return fail(cudaErrorInvalidResourceHandle);
  delete event;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  std::lock_guard lock(device_mutex());
  if (!event || !dev().events.count(event)) return fail(cudaErrorInvalidResourceHandle);
  const cudaError_t e = kvchat_emu::enqueue(stream, "cudaEventRecord", [event] {
    event->recorded = true;
    event->at = std::chrono::steady_clock::now();
  });
  return e == cudaSuccess ? e : fail(e);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  std::lock_guard lock(device_mutex());
  if (!event || !dev().events.count(event)) return fail(cudaErrorInvalidResourceHandle);
  return dev().sticky;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  std::lock_guard lock(device_mutex());
  if (!ms) return fail(cudaErrorInvalidValue);
  if (!start || !end || !dev().events.count(start) || !dev().events.count(end))
    return fail(cudaErrorInvalidResourceHandle);
  if (!start->recorded || !end->recorded) return fail(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->at - start->at).count();
  return cudaSuccess;
}
