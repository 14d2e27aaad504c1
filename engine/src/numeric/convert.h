// Conversions between f32 and the stored tensor types (one row = n values).
#pragma once

#include <cstdint>

#include "gguf/tensor_type.h"

namespace kvchat {

// dst[0..n) = row of `type` at src, as f32. n must be a multiple of the type's block size.
void dequantize_row(gguf::TensorType type, const void* src, float* dst, int64_t n);
// Encodes n f32 values as `type` (f16/bf16 round to nearest even; the block types by the
// encoders of numeric/quantize.h).
void quantize_row(gguf::TensorType type, const float* src, void* dst, int64_t n);

}  // namespace kvchat
