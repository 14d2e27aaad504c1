// Quantized weight matrices repacked into interleaved groups of 8 rows ("x8"), the layout
// the integer kernels of repacked_kernels.inl read: one load gives the same 4 code bytes
// of 8 rows, so a maddubs/dpbusd against 4 activation bytes broadcast leaves row r's
// partial sum in int32 lane r (no horizontal adds), and the 8 rows' scales sit side by
// side (one 16-byte load, one F16C conversion for all 8).
//
// A repacked matrix has exactly the bytes of the original (rows * row_bytes): group g (rows
// 8g..8g+7) starts at g * 8 * row_bytes and holds the row group's blocks k = 0, 1, ... in
// order, each "x8 block" 8 * block_bytes long. An x8 block is the fields of the original
// block, one after the other, each interleaved in units of u bytes: unit i of the field
// for rows 0..7, then unit i + 1 for rows 0..7, and so on. Per type (offsets in the x8 block):
//   Q4_0   d[r] @0 (u2) | qs[c][r][4] @16, c = 0..3 (low nibbles: values 4c.., high: 16+4c..)
//   Q8_0   d[r] @0 (u2) | qs[c][r][4] @16, c = 0..7
//   Q4_K   d[r] @0 | dmin[r] @16 | scales[w][r][4] @32, w = 0..2 | qs[8q+c][r][4] @128
//   Q5_K   as Q4_K, then qh[c][r][4] @128 and qs @384
//   Q6_K   d[r] @0 | scales[g][r] @16 (u1), g = 0..15 | ql[8s+c][r][4] @144 | qh[8h+c][r][4] @1168
//   IQ4_XS d[r] @0 | scales_h[r] @16 | scales_l[r][4] @32 | qs[4j+c][r][4] @64
// Dots over a repacked matrix give bit for bit what quant_dot_scalar gives for each row of
// the original (the same integer sums and the same float operations in the same order),
// on every kernel path and for any number of tokens (tests/engine/test_repacked_dot.cpp).
#pragma once

#include <cstdint>

#include "gguf/tensor_type.h"

namespace kvchat::cpu {

constexpr int64_t kRepackRows = 8;  // rows per interleaved group

// Whether `type` has an x8 layout (Q4_0, Q8_0, Q4_K, Q5_K, Q6_K, IQ4_XS).
bool repackable(gguf::TensorType type);

// src: rows (a multiple of 8) x row_bytes in the original layout -> dst (same size) in the
// x8 layout. Exact and invertible (unpack_row).
void repack_rows(gguf::TensorType type, const uint8_t* src, uint64_t row_bytes, int64_t rows,
                 uint8_t* dst);

// Row `row` of a repacked matrix back in the original layout (row_bytes into dst).
void unpack_row(gguf::TensorType type, const uint8_t* packed, uint64_t row_bytes, int64_t row,
                uint8_t* dst);

// Y[t * ldy + r] = dot(row r, token t) for r in [r0, r1) (multiples of 8) of a repacked
// matrix (row_bytes per row, n values), tokens t < n_tokens whose activation blocks
// (BlockQ8_32 or BlockQ8_K, as activation_format_of) start at act + t * act_stride bytes.
// Dispatches to the best kernels the CPU runs (dot.h), else the scalar definition.
void repacked_rows(gguf::TensorType type, const uint8_t* data, uint64_t row_bytes, int64_t r0,
                   int64_t r1, const void* act, uint64_t act_stride, int64_t n_tokens, int64_t n,
                   float* Y, int64_t ldy);
// The paths (tests call each the CPU can run; the SIMD ones only where cpu_kernel_level allows).
void repacked_rows_scalar(gguf::TensorType type, const uint8_t* data, uint64_t row_bytes,
                          int64_t r0, int64_t r1, const void* act, uint64_t act_stride,
                          int64_t n_tokens, int64_t n, float* Y, int64_t ldy);
void repacked_rows_avx2(gguf::TensorType type, const uint8_t* data, uint64_t row_bytes, int64_t r0,
                        int64_t r1, const void* act, uint64_t act_stride, int64_t n_tokens,
                        int64_t n, float* Y, int64_t ldy);
void repacked_rows_avxvnni(gguf::TensorType type, const uint8_t* data, uint64_t row_bytes,
                           int64_t r0, int64_t r1, const void* act, uint64_t act_stride,
                           int64_t n_tokens, int64_t n, float* Y, int64_t ldy);
void repacked_rows_avx512(gguf::TensorType type, const uint8_t* data, uint64_t row_bytes,
                          int64_t r0, int64_t r1, const void* act, uint64_t act_stride,
                          int64_t n_tokens, int64_t n, float* Y, int64_t ldy);

}  // namespace kvchat::cpu
