// Encoders of the 32-value block types Q8_0, Q4_0, Q4_1, Q5_0, Q5_1. Each scale is
// rounded to f16 first and the codes are chosen against the rounded scale.
#include <cstring>

#include "numeric/half.h"
#include "numeric/quantize.h"
#include "numeric/quantize_fit.h"

namespace kvchat {

using quant::round_clamp;
using quant::signed_max;

namespace {

// Codes j < 16 go to the low nibbles, j >= 16 to the high nibbles.
void pack_nibbles(const int* q, uint8_t* qs) {
  for (int j = 0; j < kQuantBlock / 2; ++j)
    qs[j] = static_cast<uint8_t>((q[j] & 0xF) | ((q[j + 16] & 0xF) << 4));
}

// Bit 4 of code j -> bit j of the little-endian u32 qh.
void pack_fifth_bits(const int* q, uint8_t* qh) {
  uint32_t bits = 0;
  for (int j = 0; j < kQuantBlock; ++j) bits |= static_cast<uint32_t>((q[j] >> 4) & 1) << j;
  std::memcpy(qh, &bits, 4);
}

float inverse(float d) { return d != 0 ? 1.0f / d : 0.0f; }

// Symmetric: the value of largest magnitude maps to -half (the wider side of the codes
// 0..2 half - 1, stored offset by half); d = that value / -half.
template <int kHalf>
void symmetric_codes(const float* x, uint16_t& d_out, int* q) {
  d_out = f32_to_f16(signed_max(x, kQuantBlock) / -kHalf);
  const float inv = inverse(f16_to_f32(d_out));
  for (int j = 0; j < kQuantBlock; ++j) {
    q[j] = std::clamp(static_cast<int>(std::floor(x[j] * inv + (kHalf + 0.5f))), 0, 2 * kHalf - 1);
  }
}

// Affine: min..max of the block onto codes 0..nmax; value = d * q + m.
template <int kMax>
void affine_codes(const float* x, uint16_t& d_out, uint16_t& m_out, int* q) {
  float lo = x[0], hi = x[0];
  for (int j = 1; j < kQuantBlock; ++j) lo = std::min(lo, x[j]), hi = std::max(hi, x[j]);
  d_out = f32_to_f16((hi - lo) / kMax);
  m_out = f32_to_f16(lo);
  const float inv = inverse(f16_to_f32(d_out)), m = f16_to_f32(m_out);
  for (int j = 0; j < kQuantBlock; ++j) q[j] = round_clamp((x[j] - m) * inv, 0, kMax);
}

}  // namespace

void quantize_row_q8_0(const float* x, BlockQ8_0* y, int64_t n) {
  for (int64_t k = 0; k < n / kQuantBlock; ++k, x += kQuantBlock) {
    float amax = 0;
    for (int j = 0; j < kQuantBlock; ++j) amax = std::max(amax, std::fabs(x[j]));
    y[k].d = f32_to_f16(amax / 127.0f);
    const float inv = inverse(f16_to_f32(y[k].d));
    for (int j = 0; j < kQuantBlock; ++j) {
      y[k].qs[j] = static_cast<int8_t>(std::clamp<long>(std::lround(x[j] * inv), -127, 127));
    }
  }
}

void quantize_row_q4_0(const float* x, BlockQ4_0* y, int64_t n) {
  int q[kQuantBlock];
  for (int64_t k = 0; k < n / kQuantBlock; ++k, x += kQuantBlock) {
    symmetric_codes<8>(x, y[k].d, q);
    pack_nibbles(q, y[k].qs);
  }
}

void quantize_row_q4_1(const float* x, BlockQ4_1* y, int64_t n) {
  int q[kQuantBlock];
  for (int64_t k = 0; k < n / kQuantBlock; ++k, x += kQuantBlock) {
    affine_codes<15>(x, y[k].d, y[k].m, q);
    pack_nibbles(q, y[k].qs);
  }
}

void quantize_row_q5_0(const float* x, BlockQ5_0* y, int64_t n) {
  int q[kQuantBlock];
  for (int64_t k = 0; k < n / kQuantBlock; ++k, x += kQuantBlock) {
    symmetric_codes<16>(x, y[k].d, q);
    pack_nibbles(q, y[k].qs);
    pack_fifth_bits(q, y[k].qh);
  }
}

void quantize_row_q5_1(const float* x, BlockQ5_1* y, int64_t n) {
  int q[kQuantBlock];
  for (int64_t k = 0; k < n / kQuantBlock; ++k, x += kQuantBlock) {
    affine_codes<31>(x, y[k].d, y[k].m, q);
    pack_nibbles(q, y[k].qs);
    pack_fifth_bits(q, y[k].qh);
  }
}

}  // namespace kvchat
