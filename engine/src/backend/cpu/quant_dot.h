// Integer dot products of quantized weight rows with 8-bit quantized activations.
//
// Each weight type pairs with one activation format (activation_format_of):
//   F32, F16, BF16                       -> f32 activations (FMA dots, dot.h)
//   Q8_0 Q4_0 Q4_1 Q5_0 Q5_1 IQ4_NL      -> BlockQ8_32: 32 int8 per block, f32 scale d and
//                                           the int sum(qs) (pays the weight's integer
//                                           offset exactly, and with d its min)
//   Q2_K Q3_K Q4_K Q5_K Q6_K IQ4_XS      -> BlockQ8_K: 256 int8, f32 scale, 16 partial sums
//                                           (bsums: the sub-block mins and offsets use them)
// The dot of a weight row with quantized activations equals, up to float rounding,
// sum_i dequantize(w)[i] * d_x * qs_x[i] (double-checked in tests/engine/test_quant_dot.cpp).
// The scalar functions are the definition; the AVX2 ones (quant_dot_avx2.cpp) are
// called only when use_avx2_kernels() is true.
#pragma once

#include <cstdint>

#include "gguf/tensor_type.h"
#include "numeric/quant_blocks.h"
#include "numeric/weight_type_traits.h"

namespace kvchat::cpu {

using kvchat::ActivationFormat;  // numeric/weight_type_traits.h

// Activation block of the 32-value weight types.
struct BlockQ8_32 {
  float d;      // value[j] = d * qs[j]
  int32_t sum;  // sum(qs)
  int8_t qs[kQuantBlock];
};
static_assert(sizeof(BlockQ8_32) == 40);

// The activation column of the weight type table; F32 for an unsupported type.
ActivationFormat activation_format_of(gguf::TensorType type);

// x (n) -> n / 32 blocks (n / 256 for Q8_K): per block d = max|x| / 127, qs = round(x / d).
// The AVX2 versions give the same bytes (used when use_avx2_kernels()).
void quantize_activations_q8_32(const float* x, BlockQ8_32* out, int64_t n);
void quantize_activations_q8_k(const float* x, BlockQ8_K* out, int64_t n);
void quantize_activations_q8_32_scalar(const float* x, BlockQ8_32* out, int64_t n);
void quantize_activations_q8_k_scalar(const float* x, BlockQ8_K* out, int64_t n);
void quantize_activations_q8_32_avx2(const float* x, BlockQ8_32* out, int64_t n);
void quantize_activations_q8_k_avx2(const float* x, BlockQ8_K* out, int64_t n);

// sum_i w[i] * x[i] for one weight row of `type` (n values) and its activation blocks
// (BlockQ8_32 or BlockQ8_K as activation_format_of(type)). Not for F32/F16/BF16.
float quant_dot(gguf::TensorType type, const void* row, const void* act, int64_t n);
float quant_dot_scalar(gguf::TensorType type, const void* row, const void* act, int64_t n);
float quant_dot_avx2(gguf::TensorType type, const void* row, const void* act, int64_t n);

// Tile of rows x tokens: out[t * n_rows + r] = quant_dot(row r, token t) for r < n_rows,
// t < n_tokens. Weight row r at row + r * row_bytes; token t's blocks at
// act + t * act_stride bytes. Each weight block is unpacked once for all tokens.
void quant_dot_tile(gguf::TensorType type, const void* row, uint64_t row_bytes, int n_rows,
                    const void* act, uint64_t act_stride, int n_tokens, int64_t n, float* out);
void quant_dot_tile_scalar(gguf::TensorType type, const void* row, uint64_t row_bytes, int n_rows,
                           const void* act, uint64_t act_stride, int n_tokens, int64_t n,
                           float* out);
void quant_dot_tile_avx2(gguf::TensorType type, const void* row, uint64_t row_bytes, int n_rows,
                         const void* act, uint64_t act_stride, int n_tokens, int64_t n, float* out);
// A tile function (quant_dot_tile's parameters), chosen once for a matrix by
// quant_dot_tile_kernel: the kernel of the best ISA the CPU runs, instantiated for `type`
// (the ISA files map the type to their template instance with a switch, once per call of
// quant_dot_tile_kernel), else quant_dot_tile_scalar. The _avx2 / _avxvnni versions give
// nullptr for a type they have no kernel for.
using QuantTileFn = void (*)(gguf::TensorType type, const void* row, uint64_t row_bytes, int n_rows,
                             const void* act, uint64_t act_stride, int n_tokens, int64_t n,
                             float* out);
QuantTileFn quant_dot_tile_kernel(gguf::TensorType type);
QuantTileFn quant_dot_tile_kernel_avx2(gguf::TensorType type);
QuantTileFn quant_dot_tile_kernel_avxvnni(gguf::TensorType type);
// The same kernels with AVX-VNNI's dpbusd (quant_dot_avxvnni.cpp), when use_avxvnni_kernels().
float quant_dot_avxvnni(gguf::TensorType type, const void* row, const void* act, int64_t n);
void quant_dot_tile_avxvnni(gguf::TensorType type, const void* row, uint64_t row_bytes, int n_rows,
                            const void* act, uint64_t act_stride, int n_tokens, int64_t n,
                            float* out);

}  // namespace kvchat::cpu
