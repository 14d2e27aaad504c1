#include "backend/cuda_plugin.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

namespace kvchat {

namespace {
CudaPluginInfo& loaded_info() {
  static CudaPluginInfo info;
  return info;
}

CudaRooflineFn& roofline_fn() {
  static CudaRooflineFn fn = nullptr;
  return fn;
}

std::filesystem::path executable_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path{} : exe.parent_path();
}

bool nvidia_driver_loaded() {
  return access("/proc/driver/nvidia/version", F_OK) == 0 || access("/dev/nvidiactl", F_OK) == 0;
}

Status load_once() {
  std::vector<std::filesystem::path> candidates;
  if (const char* explicit_path = std::getenv("KVCHAT_CUDA_PLUGIN");
      explicit_path && *explicit_path) {
    candidates.emplace_back(explicit_path);
  } else {
    if (!nvidia_driver_loaded()) return Error{"no CUDA device (no NVIDIA driver on this machine)"};
    if (const auto dir = executable_dir(); !dir.empty()) {
      candidates.push_back(dir / kCudaPluginFile);
      candidates.push_back(dir / ".." / "lib" / "kvchat" / "plugins" / kCudaPluginFile);
    }
  }
  std::string tried;
  for (const auto& path : candidates) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      tried += (tried.empty() ? "" : ", ") + path.string() + " (absent)";
      continue;
    }
    if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      loaded_info() = {path.string(), dlsym(handle, kCudaHostEmulationSymbol) != nullptr};
      return {};
    }
    const char* why = dlerror();
    return Error{"the CUDA backend plugin " + path.string() + " did not load: " +
                 (why ? why : "unknown error") + " (are the CUDA runtime and cuBLAS installed?)"};
  }
  return Error{"this installation of kvchat has no CUDA backend (" + std::string(kCudaPluginFile) +
               " not found: " + tried + ")"};
}
}  // namespace

Status load_cuda_plugin() {
  static std::once_flag once;
  static Status outcome;
  std::call_once(once, [] { outcome = load_once(); });
  return outcome;
}

CudaPluginInfo cuda_plugin_info() { return loaded_info(); }

void register_cuda_roofline(CudaRooflineFn fn) { roofline_fn() = fn; }

Result<cuda::DeviceRoofline> measure_cuda_roofline(uint64_t copy_bytes, int m, int n, int k) {
  if (!roofline_fn()) {
    if (auto s = load_cuda_plugin(); !s) return Error{s.message()};
    if (!roofline_fn()) return Error{"the CUDA backend plugin registered no roofline"};
  }
  return roofline_fn()(copy_bytes, m, n, k);
}

}  // namespace kvchat
