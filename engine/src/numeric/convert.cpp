#include "numeric/convert.h"

#include <cstring>
#include <vector>

#include "numeric/half.h"
#include "numeric/quant_blocks.h"
#include "numeric/quantize.h"

namespace kvchat {

using gguf::TensorType;

void quantize_row(TensorType type, const float* src, void* dst, int64_t n) {
  switch (type) {
    case TensorType::F32: std::memcpy(dst, src, n * sizeof(float)); return;
    case TensorType::F16: {
      auto* h = static_cast<uint16_t*>(dst);
      for (int64_t i = 0; i < n; ++i) h[i] = f32_to_f16(src[i]);
      return;
    }
    case TensorType::BF16: {
      auto* h = static_cast<uint16_t*>(dst);
      for (int64_t i = 0; i < n; ++i) h[i] = f32_to_bf16(src[i]);
      return;
    }
    case TensorType::Q8_0: return quantize_row_q8_0(src, static_cast<BlockQ8_0*>(dst), n);
    case TensorType::Q4_0: return quantize_row_q4_0(src, static_cast<BlockQ4_0*>(dst), n);
    case TensorType::Q4_1: return quantize_row_q4_1(src, static_cast<BlockQ4_1*>(dst), n);
    case TensorType::Q5_0: return quantize_row_q5_0(src, static_cast<BlockQ5_0*>(dst), n);
    case TensorType::Q5_1: return quantize_row_q5_1(src, static_cast<BlockQ5_1*>(dst), n);
    case TensorType::IQ4_NL: return quantize_row_iq4_nl(src, static_cast<BlockIq4Nl*>(dst), n);
    case TensorType::Q2_K: return quantize_row_q2_k(src, static_cast<BlockQ2_K*>(dst), n);
    case TensorType::Q3_K: return quantize_row_q3_k(src, static_cast<BlockQ3_K*>(dst), n);
    case TensorType::Q4_K: return quantize_row_q4_k(src, static_cast<BlockQ4_K*>(dst), n);
    case TensorType::Q5_K: return quantize_row_q5_k(src, static_cast<BlockQ5_K*>(dst), n);
    case TensorType::Q6_K: return quantize_row_q6_k(src, static_cast<BlockQ6_K*>(dst), n);
    case TensorType::IQ4_XS: return quantize_row_iq4_xs(src, static_cast<BlockIq4Xs*>(dst), n);
  }
}

void convert_rows(TensorType from, const void* src, TensorType to, void* dst, int64_t n_rows, int64_t n) {
  const auto row_bytes = [n](TensorType t) {
    const auto traits = *gguf::tensor_type_traits(static_cast<uint32_t>(t));
    return static_cast<int64_t>(n / traits.block_elements * traits.block_bytes);
  };
  const int64_t src_bytes = row_bytes(from), dst_bytes = row_bytes(to);
  std::vector<float> row(static_cast<size_t>(n));
  for (int64_t r = 0; r < n_rows; ++r) {
    dequantize_row(from, static_cast<const uint8_t*>(src) + r * src_bytes, row.data(), n);
    quantize_row(to, row.data(), static_cast<uint8_t*>(dst) + r * dst_bytes, n);
  }
}

}  // namespace kvchat
