#include "numeric/convert.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "numeric/half.h"
#include "numeric/quant_blocks.h"

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
    case TensorType::Q8_0: {
      auto* b = static_cast<BlockQ8_0*>(dst);
      for (int64_t k = 0; k < n / kQuantBlock; ++k) {
        const float* x = src + k * kQuantBlock;
        float amax = 0;
        for (int j = 0; j < kQuantBlock; ++j) amax = std::max(amax, std::fabs(x[j]));
        // Quantize against the scale as stored (f16), so dequantization sees the same d.
        b[k].d = f32_to_f16(amax / 127.0f);
        const float d = f16_to_f32(b[k].d);
        const float inv = d != 0 ? 1.0f / d : 0.0f;
        for (int j = 0; j < kQuantBlock; ++j) {
          b[k].qs[j] = static_cast<int8_t>(std::clamp<long>(std::lround(x[j] * inv), -127, 127));
        }
      }
      return;
    }
    case TensorType::Q4_0: {
      auto* b = static_cast<BlockQ4_0*>(dst);
      for (int64_t k = 0; k < n / kQuantBlock; ++k) {
        const float* x = src + k * kQuantBlock;
        // The value of largest magnitude maps to -8, so its sign picks the scale's sign.
        float amax = 0, vmax = 0;
        for (int j = 0; j < kQuantBlock; ++j) {
          if (std::fabs(x[j]) > amax) {
            amax = std::fabs(x[j]);
            vmax = x[j];
          }
        }
        b[k].d = f32_to_f16(vmax / -8.0f);
        const float d = f16_to_f32(b[k].d);
        const float inv = d != 0 ? 1.0f / d : 0.0f;
        auto q = [&](float v) {
          return static_cast<uint8_t>(std::clamp(static_cast<int>(std::floor(v * inv + 8.5f)), 0, 15));
        };
        for (int j = 0; j < kQuantBlock / 2; ++j) {
          b[k].qs[j] = static_cast<uint8_t>(q(x[j]) | (q(x[j + kQuantBlock / 2]) << 4));
        }
      }
      return;
    }
    default: return;  // the other block types: encoders in numeric/quantize_*.cpp (to come)
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
