#include "numeric/convert.h"

#include <cstring>
#include <vector>

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

void convert_rows(TensorType from, const void* src, TensorType to, void* dst, int64_t n_rows,
                  int64_t n) {
  const auto row_bytes = [n](TensorType t) {
    const WeightTypeTraits& traits = *weight_type_traits(t);
    return static_cast<int64_t>(n / traits.block_values * traits.block_bytes);
  };
  const int64_t src_bytes = row_bytes(from), dst_bytes = row_bytes(to);
  std::vector<float> row(static_cast<size_t>(n));
  for (int64_t r = 0; r < n_rows; ++r) {
    dequantize_row(from, static_cast<const uint8_t*>(src) + r * src_bytes, row.data(), n);
    quantize_row(to, row.data(), static_cast<uint8_t*>(dst) + r * dst_bytes, n);
  }
}

}  // namespace kvchat
