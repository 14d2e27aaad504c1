// What the GPU can do at most, measured in the same run as a benchmark so that decode
// and prefill are reported as shares of it: device-to-device copy bandwidth (bytes read
// plus bytes written per second, as CUDA's bandwidthTest counts them) and the rate of a
// cuBLAS f16 GEMM with f32 accumulation (the prefill path's own kind of product).
#pragma once

#include <cstdint>
#include <string>

#include "kvchat/result.h"

namespace kvchat::cuda {

struct DeviceRoofline {
  std::string device;
  double copy_bytes_per_second = 0;  // (read + written) / s
  uint64_t copy_buffer_bytes = 0;
  double gemm_flops_per_second = 0;  // 2*m*n*k / s
  int gemm_m = 0, gemm_n = 0, gemm_k = 0;
};

// copy_bytes: size of the copied buffer; the GEMM is (m x k) . (k x n).
Result<DeviceRoofline> measure_device_roofline(uint64_t copy_bytes, int m, int n, int k);

}  // namespace kvchat::cuda
