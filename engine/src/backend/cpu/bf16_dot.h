// BF16 weight rows times activations rounded to BF16, summed the way AVX512-BF16's
// vdpbf16ps sums: how BF16 matrices are dotted on a CPU that has the instruction, for decode
// and prefill alike (use_avx512bf16_kernels(); other CPUs keep dot.h's f32 activations).
// It does twice the multiply-adds of an f32 FMA per instruction and reads the rows as they
// are stored, with no conversion; on a CPU where it issues at a quarter of an FMA's rate
// (Intel's, dot.h), prefill sums the same definition with FMAs instead.
//
// The definition, per (row, token) of n values (bf16_rows_dot_scalar):
//  1. every activation is rounded to BF16 as vcvtneps2bf16 rounds: to nearest even, a
//     subnormal to the zero of its sign, a NaN quieted (bf16_round_activation);
//  2. the values are taken 32 at a time, the last chunk padded with zeros; lane j (0..15) of
//     a chunk holds values 2j and 2j + 1, and its running f32 sum s_j (from +0) becomes
//       s_j = ftz(ftz(s_j + w[2j+1] * x[2j+1]) + w[2j] * x[2j])
//     (the odd value first; each product is exact in f32; a subnormal weight reads as zero;
//     ftz turns a subnormal sum into the zero of its sign);
//  3. the 16 sums are folded in halves: s_j += s_{j+8} for j < 8, then s_j += s_{j+4} for
//     j < 4, s_j += s_{j+2} for j < 2, and s_0 + s_1 is the result.
// A token's result does not depend on the tile, the batch it is summed in, or which of the
// two prefill kernels sums it (decode = prefill, bit for bit).
#pragma once

#include <cstdint>

namespace kvchat::cpu {

// Step 1 of the definition for one value.
uint16_t bf16_round_activation(float x);
// dst[i] = bf16_round_activation(x[i]) for n values; with vcvtneps2bf16 when
// use_avx512bf16_kernels().
void round_activations_bf16(const float* x, uint16_t* dst, int64_t n);

// BF16 rows (n_rows rows row_bytes apart, n values each) times BF16 activations X
// (n_tokens, ldx): Y[t * ldy + r] = the definition's dot(row r, X[t]). The AVX512-BF16
// kernel when use_avx512bf16_kernels(), else the scalar definition.
void bf16_rows_dot(const uint8_t* rows, uint64_t row_bytes, int64_t n_rows, const uint16_t* X,
                   int64_t ldx, int64_t n_tokens, int64_t n, float* Y, int64_t ldy);
void bf16_rows_dot_scalar(const uint8_t* rows, uint64_t row_bytes, int64_t n_rows,
                          const uint16_t* X, int64_t ldx, int64_t n_tokens, int64_t n, float* Y,
                          int64_t ldy);
// bf16_dot_avx512bf16.cpp: tiles of 8 rows x 1 token (decode) with vdpbf16ps and 4 rows x
// up to 6 tokens (prefill) with vdpbf16ps (kDpbf16) or with f32 FMAs that add the same
// products in the same order with the same rounding (kFma; bit for bit the definition while
// the products are normal floats), for CPUs whose vdpbf16ps does fewer multiply-adds per
// second than their FMAs (avx512bf16_faster_than_fma(), dot.h). bf16_rows_dot picks.
enum class Bf16Prefill { kDpbf16, kFma };
void bf16_rows_dot_avx512bf16(const uint8_t* rows, uint64_t row_bytes, int64_t n_rows,
                              const uint16_t* X, int64_t ldx, int64_t n_tokens, int64_t n, float* Y,
                              int64_t ldy, Bf16Prefill prefill);
void round_activations_bf16_avx512bf16(const float* x, uint16_t* dst, int64_t n);

}  // namespace kvchat::cpu
