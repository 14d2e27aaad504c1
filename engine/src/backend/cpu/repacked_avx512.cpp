// The x8-repacked integer kernels (repacked_kernels.inl) compiled with -mavx2 -mfma -mf16c
// -mavx512f -mavx512bw -mavx512vl -mavx512vnni -ffp-contract=off (cmake/KvchatEngine.cmake); called
// only when the CPU has them (repacked_rows, repack.cpp).
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "backend/cpu/dot.h"
#include "backend/cpu/quant_dot.h"
#include "backend/cpu/repack.h"

#define KVCHAT_RP_VNNI 2
// GCC 12's AVX-512 intrinsics pass _mm512_undefined_*() as the unused merge operand of their
// masked builtins, which -Wmaybe-uninitialized (and for the 256-bit extracts
// -Wuninitialized) reports once inlined: not a real read.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

namespace kvchat::cpu {

namespace {
#include "backend/cpu/repacked_kernels.inl"
}  // namespace

void repacked_rows_avx512(gguf::TensorType type, const uint8_t* data, uint64_t row_bytes,
                          int64_t r0, int64_t r1, const void* act, uint64_t act_stride,
                          int64_t n_tokens, int64_t n, float* Y, int64_t ldy) {
  rows_body(type, data, row_bytes, r0, r1, act, act_stride, n_tokens, n, Y, ldy);
}

}  // namespace kvchat::cpu
