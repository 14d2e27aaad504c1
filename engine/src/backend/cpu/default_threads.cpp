#include "backend/cpu/default_threads.h"

#include <algorithm>

namespace kvchat::cpu {

int32_t default_cpu_threads(int32_t requested, uint64_t weight_bytes, int32_t physical_cores) {
  if (requested > 0) return requested;
  if (weight_bytes < kOneThreadBelowWeightBytes) return 1;
  return std::max(1, physical_cores);
}

}  // namespace kvchat::cpu
