// AVX-VNNI copies of the integer dot kernels (quant_dot_kernels.inl with dpbusd for the
// byte products). Compiled with -mavx2 -mfma -mf16c -mavxvnni; called only when
// use_avxvnni_kernels().
#include <immintrin.h>

#include <cstring>
#include <type_traits>

#include "backend/cpu/quant_dot.h"

#define KVCHAT_QDOT_VNNI 1

namespace kvchat::cpu {

using gguf::TensorType;

namespace {
#include "backend/cpu/quant_dot_kernels.inl"
}  // namespace

QuantTileFn quant_dot_tile_kernel_avxvnni(TensorType type) { return tile_kernel(type); }

float quant_dot_avxvnni(TensorType type, const void* row, const void* act, int64_t n) {
  return dot_one_row(type, row, act, n);
}

void quant_dot_tile_avxvnni(TensorType type, const void* row, uint64_t row_bytes, int n_rows,
                            const void* act, uint64_t act_stride, int n_tokens, int64_t n,
                            float* out) {
  dot_tile(type, row, row_bytes, n_rows, act, act_stride, n_tokens, n, out);
}

}  // namespace kvchat::cpu
