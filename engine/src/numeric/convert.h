// Conversions between f32 and the stored tensor types (one row = n values).
#pragma once

#include <cstdint>

#include "gguf/tensor_type.h"

namespace kvchat {

// dst[0..n) = row of `type` at src, as f32. n must be a multiple of the type's block size.
void dequantize_row(gguf::TensorType type, const void* src, float* dst, int64_t n);
// Encodes n f32 values as `type` (f16/bf16 round to nearest even; Q8_0/Q4_0 per 32-value block).
void quantize_row(gguf::TensorType type, const float* src, void* dst, int64_t n);

}  // namespace kvchat
