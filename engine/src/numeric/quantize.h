// Encoders of the block-quantized types (layouts: numeric/quant_blocks.h). Each takes n
// f32 values (n a multiple of the type's block size) and writes n / block blocks.
// Every encoder picks its scales first, rounds them as stored (f16 d, 4/6/8-bit sub-scales)
// and only then picks the codes against the stored scales, so dequantize_row reproduces
// exactly what the encoder measured its error against.
#pragma once

#include <cstdint>

#include "numeric/quant_blocks.h"

namespace kvchat {

// 32-value types (numeric/quantize_legacy.cpp).
void quantize_row_q8_0(const float* x, BlockQ8_0* y, int64_t n);  // d = amax / 127
void quantize_row_q4_0(const float* x, BlockQ4_0* y, int64_t n);  // max-magnitude value -> -8
void quantize_row_q4_1(const float* x, BlockQ4_1* y, int64_t n);  // min..max onto 0..15
void quantize_row_q5_0(const float* x, BlockQ5_0* y, int64_t n);  // max-magnitude value -> -16
void quantize_row_q5_1(const float* x, BlockQ5_1* y, int64_t n);  // min..max onto 0..31

// K-types (numeric/quantize_k.cpp): per sub-block scale (and min) by a small least-squares
// search, then super-block d (and dmin) from the largest sub-block scale.
void quantize_row_q2_k(const float* x, BlockQ2_K* y, int64_t n);
void quantize_row_q3_k(const float* x, BlockQ3_K* y, int64_t n);
void quantize_row_q4_k(const float* x, BlockQ4_K* y, int64_t n);
void quantize_row_q5_k(const float* x, BlockQ5_K* y, int64_t n);
void quantize_row_q6_k(const float* x, BlockQ6_K* y, int64_t n);

// Non-uniform 4-bit types (numeric/quantize_iq4.cpp): per 32 values a scale onto the 16
// levels kIq4nlValues, each value at its nearest level.
void quantize_row_iq4_nl(const float* x, BlockIq4Nl* y, int64_t n);
void quantize_row_iq4_xs(const float* x, BlockIq4Xs* y, int64_t n);

}  // namespace kvchat
