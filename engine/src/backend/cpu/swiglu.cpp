#include <cmath>

#include "backend/cpu/cpu_ops.h"
#include "backend/cpu/dot.h"

namespace kvchat::cpu {

void swiglu_avx2(float* gate, const float* up, int64_t n);  // swiglu_avx2.cpp

void swiglu(float* gate, const float* up, int64_t n) {
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels()) return swiglu_avx2(gate, up, n);
#endif
  for (int64_t i = 0; i < n; ++i) gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

}  // namespace kvchat::cpu
