// Number formats and dot-product kernels against their definitions.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "backend/cpu/dot.h"
#include "gguf/tensor_type.h"
#include "numeric/convert.h"
#include "numeric/half.h"
#include "numeric/quant_blocks.h"

namespace kvchat {
namespace {

using gguf::TensorType;

TEST(Half, EveryF16RoundTripsThroughF32) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = f16_to_f32(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(f))));
      continue;
    }
    ASSERT_EQ(f32_to_f16(f), h) << "h=" << h;
  }
}

TEST(Half, KnownValuesAndRounding) {
  EXPECT_EQ(f16_to_f32(0x3c00), 1.0f);
  EXPECT_EQ(f16_to_f32(0xc000), -2.0f);
  EXPECT_EQ(f16_to_f32(0x7bff), 65504.0f);
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));             // smallest subnormal
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);                          // rounds up to inf
  EXPECT_EQ(f32_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // tie -> even (down)
  EXPECT_EQ(f32_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie -> even (up)
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -25)), 0x0000);  // half the smallest subnormal: even
  EXPECT_EQ(f32_to_f16(std::ldexp(3.0f, -26)), 0x0001);
}

TEST(BFloat16, RoundsToNearestEven) {
  EXPECT_EQ(bf16_to_f32(0x3f80), 1.0f);
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(f32_to_bf16(f32_from_bits(0x3f808000)), 0x3f80);  // tie, even stays
  EXPECT_EQ(f32_to_bf16(f32_from_bits(0x3f818000)), 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(f32_to_bf16(f32_from_bits(0x3f808001)), 0x3f81);
}

std::vector<float> random_values(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

TEST(BlockQuant, Q8_0ErrorIsWithinHalfAStepOfTheStoredScale) {
  const auto x = random_values(32 * 64, 1);
  std::vector<BlockQ8_0> q(64);
  std::vector<float> y(x.size());
  quantize_row(TensorType::Q8_0, x.data(), q.data(), x.size());
  dequantize_row(TensorType::Q8_0, q.data(), y.data(), x.size());
  for (size_t b = 0; b < 64; ++b) {
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[b * 32 + j]));
    // d as stored in f16; the largest value may clamp to +-127 when d rounded down.
    const float d = f16_to_f32(q[b].d), exact = amax / 127;
    EXPECT_LE(std::fabs(d - exact), exact * std::ldexp(1.0f, -11));
    for (int j = 0; j < 32; ++j) {
      EXPECT_LE(std::fabs(y[b * 32 + j] - x[b * 32 + j]),
                0.5f * d + 127 * std::fabs(d - exact) + 1e-6f);
    }
  }
}

TEST(BlockQuant, Q4_0LayoutAndErrorBound) {
  // Hand-made block: d = 0.5, low nibbles 0..15, high nibbles 15..0.
  BlockQ4_0 b;
  b.d = f32_to_f16(0.5f);
  for (int j = 0; j < 16; ++j) b.qs[j] = static_cast<uint8_t>(j | ((15 - j) << 4));
  float y[32];
  dequantize_row(TensorType::Q4_0, &b, y, 32);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], 0.5f * (j - 8));
    EXPECT_EQ(y[j + 16], 0.5f * (15 - j - 8));
  }
  const auto x = random_values(32 * 64, 2);
  std::vector<BlockQ4_0> q(64);
  std::vector<float> z(x.size());
  quantize_row(TensorType::Q4_0, x.data(), q.data(), x.size());
  dequantize_row(TensorType::Q4_0, q.data(), z.data(), x.size());
  for (size_t k = 0; k < 64; ++k) {
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[k * 32 + j]));
    // Representable values are (q - 8) * d, q in 0..15: [-8d, 7d] with d = -vmax/8 in f16.
    // Inside that range the error is half a step; beyond it (the side opposite the
    // largest magnitude) the value clamps to the end of the range.
    const float d = std::fabs(f16_to_f32(q[k].d)), exact = amax / 8;
    for (int j = 0; j < 32; ++j) {
      const float xv = std::fabs(x[k * 32 + j]);
      const float bound = std::max(0.5f * d, xv - 7 * d) + 8 * std::fabs(d - exact) + 1e-6f;
      EXPECT_LE(std::fabs(z[k * 32 + j] - x[k * 32 + j]), bound);
    }
  }
}

// The fused dot of every stored type equals the dot of its dequantized row (double
// precision), for lengths with and without SIMD tails.
TEST(Dequantize, FastRowConversionEqualsTheScalarDefinition) {
  const auto v = random_values(203, 31);
  for (TensorType type : {TensorType::F16, TensorType::BF16}) {
    std::vector<uint16_t> row(v.size());
    quantize_row(type, v.data(), row.data(), v.size());
    std::vector<float> a(v.size()), b(v.size());
    dequantize_row(type, row.data(), a.data(), v.size());
    cpu::dequantize_row_fast(type, row.data(), b.data(), v.size());
    EXPECT_EQ(a, b);
  }
}

// The vector f16/bf16 encoding writes the scalar definition's bits for every sign and
// exponent and the rounding cases of both types: ties to even and not, the carry into the
// exponent, overflow to infinity, f16 subnormals (where the tie moves up the mantissa),
// infinities and NaNs; a length with a tail.
TEST(Quantize, FastRowConversionEqualsTheScalarDefinition) {
  const uint32_t lows[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff,
                           0x2000, 0x3000, 0x7fff, 0x8000, 0x8001, 0xffff};
  std::vector<float> v;
  for (uint32_t top = 0; top < 0x10000; ++top)
    for (uint32_t low : lows) v.push_back(f32_from_bits(top << 16 | low));
  v.resize(v.size() - 3);
  for (TensorType type : {TensorType::F16, TensorType::BF16}) {
    std::vector<uint16_t> a(v.size()), b(v.size());
    quantize_row(type, v.data(), a.data(), v.size());
    cpu::quantize_row_fast(type, v.data(), b.data(), v.size());
    size_t first_difference = 0;
    while (first_difference < v.size() && a[first_difference] == b[first_difference])
      ++first_difference;
    ASSERT_EQ(first_difference, v.size())
        << gguf::tensor_type_name(type) << ": input bits " << std::hex
        << bits_from_f32(v[first_difference]) << " scalar " << a[first_difference] << " fast "
        << b[first_difference];
  }
}

}  // namespace
}  // namespace kvchat
