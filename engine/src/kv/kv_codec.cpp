#include "kv/kv_codec.h"

#include <vector>

#include "backend/cpu/dot.h"
#include "kv/kv_rotation.h"
#include "numeric/convert.h"
#include "numeric/half.h"
#include "numeric/quant_blocks.h"
#include "numeric/quantize_fit.h"

namespace kvchat {

namespace {

// q4_0 blocks with the least-squares scale (numeric/quantize_fit.h) instead of the largest
// value's: rotated values spread like a Gaussian, whose largest value is a poor scale
// (measured on the demo model: mean KL 5.7e-3 with the largest value's, 4.3e-3 fitted).
void quantize_q4_0_fitted(const float* x, BlockQ4_0* y, int64_t n) {
  for (int64_t k = 0; k < n / kQuantBlock; ++k, x += kQuantBlock) {
    y[k].d = f32_to_f16(quant::fit_symmetric(x, kQuantBlock, 8));
    const float d = f16_to_f32(y[k].d), inv = d != 0 ? 1.0f / d : 0.0f;
    int q[kQuantBlock];
    for (int j = 0; j < kQuantBlock; ++j) q[j] = quant::round_clamp(x[j] * inv, -8, 7) + 8;
    for (int j = 0; j < kQuantBlock / 2; ++j)
      y[k].qs[j] = static_cast<uint8_t>(q[j] | (q[j + kQuantBlock / 2] << 4));
  }
}

}  // namespace

void encode_kv_heads(KvType t, const float* x, int32_t n_heads, int32_t head_dim, uint8_t* dst) {
  const int64_t n = static_cast<int64_t>(n_heads) * head_dim;
  if (!kv_rotated(t)) {
    cpu::quantize_row_fast(kv_storage_type(t), x, dst, n);
    return;
  }
  thread_local std::vector<float> rotated;  // (n_heads, head_dim)
  rotated.assign(x, x + n);
  rotate_heads(rotated.data(), n_heads, head_dim);
  if (kv_layout(t) == KvType::Q4_0)
    quantize_q4_0_fitted(rotated.data(), reinterpret_cast<BlockQ4_0*>(dst), n);
  else
    cpu::quantize_row_fast(kv_storage_type(t), rotated.data(), dst, n);
}

void decode_kv_heads(KvType t, const uint8_t* src, float* x, int32_t n_heads, int32_t head_dim) {
  cpu::dequantize_row_fast(kv_storage_type(t), src, x, static_cast<int64_t>(n_heads) * head_dim);
  if (kv_rotated(t)) unrotate_heads(x, n_heads, head_dim);
}

void convert_kv_rows(KvType from, const uint8_t* src, KvType to, uint8_t* dst, int64_t n_rows,
                     int32_t n_heads, int32_t head_dim) {
  const int64_t n = static_cast<int64_t>(n_heads) * head_dim;
  const int64_t src_bytes = static_cast<int64_t>(kv_bytes(from, static_cast<uint64_t>(n)));
  const int64_t dst_bytes = static_cast<int64_t>(kv_bytes(to, static_cast<uint64_t>(n)));
  std::vector<float> row(static_cast<size_t>(n));
  for (int64_t r = 0; r < n_rows; ++r) {
    decode_kv_heads(from, src + r * src_bytes, row.data(), n_heads, head_dim);
    encode_kv_heads(to, row.data(), n_heads, head_dim, dst + r * dst_bytes);
  }
}

}  // namespace kvchat
