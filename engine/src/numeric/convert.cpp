#include "numeric/convert.h"

#include <cstring>

#include "numeric/half.h"
#include "numeric/quantize.h"
#include "numeric/row_codecs.h"
#include "numeric/weight_type_traits.h"

namespace kvchat {

using gguf::TensorType;

namespace encode {

void f32(const float* src, void* dst, int64_t n) { std::memcpy(dst, src, n * sizeof(float)); }

void f16(const float* src, void* dst, int64_t n) {
  auto* h = static_cast<uint16_t*>(dst);
  for (int64_t i = 0; i < n; ++i) h[i] = f32_to_f16(src[i]);
}

void bf16(const float* src, void* dst, int64_t n) {
  auto* h = static_cast<uint16_t*>(dst);
  for (int64_t i = 0; i < n; ++i) h[i] = f32_to_bf16(src[i]);
}

}  // namespace encode

// The table's column (numeric/weight_type_traits.h); an unsupported type writes nothing.
void quantize_row(TensorType type, const float* src, void* dst, int64_t n) {
  if (const WeightTypeTraits* t = weight_type_traits(type)) t->quantize_row(src, dst, n);
}

}  // namespace kvchat
