// The per-type row codecs behind the dequantize_row / quantize_row columns of
// numeric/weight_type_traits.h (call dequantize_row / quantize_row of numeric/convert.h).
#pragma once

#include <cstdint>

namespace kvchat {

// Row of n values of the type -> f32 (numeric/dequantize.cpp).
namespace dequant {
void f32(const void* src, float* dst, int64_t n);
void f16(const void* src, float* dst, int64_t n);
void bf16(const void* src, float* dst, int64_t n);
void q8_0(const void* src, float* dst, int64_t n);
void q4_0(const void* src, float* dst, int64_t n);
void q4_1(const void* src, float* dst, int64_t n);
void q5_0(const void* src, float* dst, int64_t n);
void q5_1(const void* src, float* dst, int64_t n);
void iq4_nl(const void* src, float* dst, int64_t n);
void q2_k(const void* src, float* dst, int64_t n);
void q3_k(const void* src, float* dst, int64_t n);
void q4_k(const void* src, float* dst, int64_t n);
void q5_k(const void* src, float* dst, int64_t n);
void q6_k(const void* src, float* dst, int64_t n);
void iq4_xs(const void* src, float* dst, int64_t n);
}  // namespace dequant

// f32 -> the plain float types (numeric/convert.cpp; the block types: numeric/quantize.h).
namespace encode {
void f32(const float* src, void* dst, int64_t n);
void f16(const float* src, void* dst, int64_t n);
void bf16(const float* src, void* dst, int64_t n);
}  // namespace encode

}  // namespace kvchat
