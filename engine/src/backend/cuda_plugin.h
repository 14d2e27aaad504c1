// The CUDA backend ships as a plugin, libkvchat-cuda.so, loaded with dlopen on first use, so
// that a CPU-only run never maps the CUDA runtime and cuBLAS (~150 MB resident once loaded)
// and a machine without them still runs kvchat. The plugin's static initializer registers
// its backend factory (register_backend) and its device roofline (register_cuda_roofline)
// with the host, whose engine symbols it resolves at load time (the executables export
// them). Binaries that link the CUDA backend statically (the gpu tests) register it the
// same way at start and never load the plugin.
#pragma once

#include <cstdint>
#include <string>

#include "backend/cuda/device_roofline.h"
#include "kvchat/result.h"

namespace kvchat {

inline constexpr const char* kCudaPluginFile = "libkvchat-cuda.so";

// Loads the plugin once per process (later calls return the first outcome). Looks at
// $KVCHAT_CUDA_PLUGIN (a path), else beside the executable, else in ../lib/kvchat/plugins/. Without
// an NVIDIA driver (/proc/driver/nvidia) it loads nothing: "no NVIDIA driver", unless
// $KVCHAT_CUDA_PLUGIN names the file explicitly.
Status load_cuda_plugin();

// The plugin load_cuda_plugin() loaded: its file, and whether it is the host emulation
// (tests/cuda_host: the same sources run by a grid emulator on the CPU, test equipment
// that proves behaviour, never speed), which says so by exporting kCudaHostEmulationSymbol.
// Empty path: none loaded (yet, or it failed).
struct CudaPluginInfo {
  std::string path;
  bool host_emulation = false;
};
CudaPluginInfo cuda_plugin_info();
inline constexpr const char* kCudaHostEmulationSymbol = "kvchat_cuda_host_emulation";

using CudaRooflineFn = Result<cuda::DeviceRoofline> (*)(uint64_t copy_bytes, int m, int n, int k);
// Called by the plugin's static initializer.
void register_cuda_roofline(CudaRooflineFn fn);

// cuda::measure_device_roofline through the plugin (loaded on demand).
Result<cuda::DeviceRoofline> measure_cuda_roofline(uint64_t copy_bytes, int m, int n, int k);

}  // namespace kvchat
