// Encoders of IQ4_NL (32 values, f16 scale) and IQ4_XS (256 values: f16 d and 8 six-bit
// sub-scales): each value at the nearest of the 16 levels kIq4nlValues times its scale,
// the scale searched per 32 values (quant::fit_iq4).
#include "numeric/half.h"
#include "numeric/quantize.h"
#include "numeric/quantize_fit.h"

namespace kvchat {

namespace {

// The level indices of 32 values against `scale` as stored, packed as Q4_0's nibbles.
void pack_levels(const float* x, float scale, uint8_t* qs) {
  const float inv = scale != 0 ? 1.0f / scale : 0.0f;
  int q[kQuantBlock];
  for (int j = 0; j < kQuantBlock; ++j)
    q[j] = scale != 0 ? quant::kIq4Level(x[j] * inv) : 8;  // level 1: ~0
  for (int j = 0; j < kQuantBlock / 2; ++j) qs[j] = static_cast<uint8_t>(q[j] | (q[j + 16] << 4));
}

}  // namespace

void quantize_row_iq4_nl(const float* x, BlockIq4Nl* y, int64_t n) {
  for (int64_t k = 0; k < n / kQuantBlock; ++k, x += kQuantBlock) {
    y[k].d = f32_to_f16(quant::fit_iq4(x, kQuantBlock));
    pack_levels(x, f16_to_f32(y[k].d), y[k].qs);
  }
}

void quantize_row_iq4_xs(const float* x, BlockIq4Xs* y, int64_t n) {
  for (int64_t k = 0; k < n / kSuperBlock; ++k, x += kSuperBlock) {
    float scales[8];
    for (int s = 0; s < 8; ++s) scales[s] = quant::fit_iq4(x + 32 * s, 32);
    // d so the sub-scale of largest magnitude codes to -32 (stored 0); the others round
    // into [-32, 31] (stored + 32: 4 low bits in scales_l, 2 high bits in scales_h).
    y[k].d = f32_to_f16(quant::signed_max(scales, 8) / -32.0f);
    const float d = f16_to_f32(y[k].d), inv = d != 0 ? 1.0f / d : 0.0f;
    y[k].scales_h = 0;
    for (int s = 0; s < 8; ++s) {
      const int code = quant::round_clamp(scales[s] * inv, -32, 31) + 32;
      if (s % 2 == 0) y[k].scales_l[s / 2] = 0;
      y[k].scales_l[s / 2] |= static_cast<uint8_t>((code & 0xF) << (4 * (s % 2)));
      y[k].scales_h |= static_cast<uint16_t>((code >> 4) << (2 * s));
      pack_levels(x + 32 * s, d * (code - 32), y[k].qs + 16 * s);
    }
  }
}

}  // namespace kvchat
