// Every GGUF block type: hand-built blocks dequantized against values worked out by hand
// from the GGML layout (numeric/quant_blocks.h), the encoders' round-trip error against the
// step each format allows, Q8_K (the K-types' activation format), and the per-matrix type
// choice of the llama.cpp-style mixes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include "gguf/tensor_type.h"
#include "model/weight_mix.h"
#include "numeric/convert.h"
#include "numeric/half.h"
#include "numeric/quant_blocks.h"
#include "numeric/quantize.h"

namespace kvchat {
namespace {

using gguf::TensorType;

// f16 bit patterns of the scales used below.
constexpr uint16_t kHalf0_25 = 0x3400, kHalf0_5 = 0x3800, kHalf1 = 0x3C00, kHalf2 = 0x4000,
                   kHalfMinus2 = 0xC000;

template <typename Block>
std::vector<float> dequant(TensorType t, const Block& b, int n) {
  std::vector<float> out(n);
  dequantize_row(t, &b, out.data(), n);
  return out;
}

TEST(QuantLayout, Q4_1) {
  BlockQ4_1 b{};
  b.d = kHalf0_5;
  b.m = kHalfMinus2;
  b.qs[0] = 0x3A;   // value 0: 10, value 16: 3
  b.qs[15] = 0xF0;  // value 15: 0, value 31: 15
  const auto v = dequant(TensorType::Q4_1, b, 32);
  EXPECT_EQ(v[0], 0.5f * 10 - 2);
  EXPECT_EQ(v[16], 0.5f * 3 - 2);
  EXPECT_EQ(v[15], -2.0f);
  EXPECT_EQ(v[31], 0.5f * 15 - 2);
  EXPECT_EQ(v[1], -2.0f);
}

// qh as a little-endian u32 with bits 0, 17 and 31 set.
constexpr uint8_t kQh[4] = {0x01, 0x00, 0x02, 0x80};

TEST(QuantLayout, Q5_0) {
  BlockQ5_0 b{};
  b.d = kHalf2;
  std::memcpy(b.qh, kQh, 4);
  b.qs[0] = 0x21;   // value 0: 1 + 16 (bit 0), value 16: 2
  b.qs[1] = 0x3F;   // value 1: 15, value 17: 3 + 16 (bit 17)
  b.qs[15] = 0xF0;  // value 15: 0, value 31: 15 + 16 (bit 31)
  const auto v = dequant(TensorType::Q5_0, b, 32);
  EXPECT_EQ(v[0], 2.0f * (17 - 16));
  EXPECT_EQ(v[16], 2.0f * (2 - 16));
  EXPECT_EQ(v[1], 2.0f * (15 - 16));
  EXPECT_EQ(v[17], 2.0f * (19 - 16));
  EXPECT_EQ(v[15], 2.0f * -16);
  EXPECT_EQ(v[31], 2.0f * 15);
}

TEST(QuantLayout, Q5_1) {
  BlockQ5_1 b{};
  b.d = kHalf0_25;
  b.m = kHalf1;
  std::memcpy(b.qh, kQh, 4);
  b.qs[0] = 0x21;
  b.qs[1] = 0x3F;
  b.qs[15] = 0xF0;
  const auto v = dequant(TensorType::Q5_1, b, 32);
  EXPECT_EQ(v[0], 0.25f * 17 + 1);
  EXPECT_EQ(v[16], 0.25f * 2 + 1);
  EXPECT_EQ(v[1], 0.25f * 15 + 1);
  EXPECT_EQ(v[17], 0.25f * 19 + 1);
  EXPECT_EQ(v[31], 0.25f * 31 + 1);
}

TEST(QuantLayout, IQ4_NL) {
  BlockIq4Nl b{};
  b.d = kHalf0_5;
  b.qs[0] = 0xF0;  // value 0: level 0 (-127), value 16: level 15 (113)
  b.qs[3] = 0x87;  // value 3: level 7 (-10), value 19: level 8 (1)
  const auto v = dequant(TensorType::IQ4_NL, b, 32);
  EXPECT_EQ(v[0], 0.5f * -127);
  EXPECT_EQ(v[16], 0.5f * 113);
  EXPECT_EQ(v[3], 0.5f * -10);
  EXPECT_EQ(v[19], 0.5f * 1);
  EXPECT_EQ(v[1], 0.5f * -127);  // code 0
}

TEST(QuantLayout, Q2_K) {
  BlockQ2_K b{};
  b.d = kHalf0_5;
  b.dmin = kHalf0_25;
  b.scales[0] = 0x23;   // sub-block 0: scale 3, min 2
  b.scales[2] = 0x04;   // scale 4, min 0
  b.scales[5] = 0x1F;   // scale 15, min 1
  b.scales[6] = 0x52;   // scale 2, min 5
  b.scales[15] = 0xF1;  // scale 1, min 15
  // Byte l of the first 32 holds values l, l+32, l+64, l+96 in its bit pairs 0..3.
  b.qs[0] = 0xE4;   // values 0, 32, 64, 96: codes 0, 1, 2, 3
  b.qs[16] = 0x30;  // value 80 (pair 2): 3; values 16, 48, 112: 0
  b.qs[63] = 0xC0;  // second half, byte 31: value 128+96+31 = 255 (pair 3): 3; 159: 0
  const auto v = dequant(TensorType::Q2_K, b, 256);
  EXPECT_EQ(v[0], 0.5f * 3 * 0 - 0.25f * 2);
  EXPECT_EQ(v[32], 0.5f * 4 * 1);
  EXPECT_EQ(v[64], 0.0f);  // sub-block 4: scale 0, min 0
  EXPECT_EQ(v[96], 0.5f * 2 * 3 - 0.25f * 5);
  EXPECT_EQ(v[80], 0.5f * 15 * 3 - 0.25f * 1);
  EXPECT_EQ(v[16], 0.0f);  // sub-block 1: all zero
  EXPECT_EQ(v[255], 0.5f * 1 * 3 - 0.25f * 15);
  EXPECT_EQ(v[159], 0.0f);
  EXPECT_EQ(v[15], -0.5f);  // sub-block 0, code 0
}

TEST(QuantLayout, Q3_K) {
  BlockQ3_K b{};
  b.d = kHalf0_5;
  // 6-bit codes (scale + 32): sub-block 0 = 35 (scale 3), 13 = 27 (scale -5), the rest 0
  // (scale -32). Low nibbles: j < 8 in byte j's low nibble, j >= 8 in byte j-8's high
  // nibble; top 2 bits of j in byte 8 + j % 4 at bits 2 (j / 4).
  b.scales[0] = 0x03;  // low 4 bits of code 0 (3)
  b.scales[5] = 0xB0;  // low 4 bits of code 13 (0xB) in the high nibble
  b.scales[8] = 0x02;  // top bits of code 0 (35 >> 4 = 2) at bits 0-1
  b.scales[9] = 0x40;  // top bits of code 13 (27 >> 4 = 1) at bits 6-7
  // Value i: 2-bit low part in qs (as Q2_K), hmask byte i % 32 bit i / 32 set = no -4.
  b.qs[0] = 0x01;      // value 0: low 1; value 32: low 0
  b.hmask[0] = 0x01;   // value 0: high set; value 32: clear
  b.qs[48] = 0x30;     // value 208 (half 1, byte 16, pair 2): 3; value 144 (pair 0): 0
  b.hmask[16] = 0x40;  // value 208: bit 6 set; value 144: bit 4 clear
  const auto v = dequant(TensorType::Q3_K, b, 256);
  EXPECT_EQ(v[0], 0.5f * 3 * 1);
  EXPECT_EQ(v[32], 0.5f * -32 * -4);
  EXPECT_EQ(v[208], 0.5f * -5 * 3);
  EXPECT_EQ(v[209], 0.5f * -5 * -4);
  EXPECT_EQ(v[144], 0.5f * -32 * -4);
  EXPECT_EQ(v[1], 0.5f * 3 * -4);
}

// Q4_K / Q5_K scales: sub-block 0 scale 10 min 3; 1: 63, 0; 4: 37 (0b10'0101), 20
// (0b01'0100); 7: 1, 63 (0b11'1111); the rest 0. Bytes 0-3 hold scales 0-3 and the top
// bits of scales 4-7, bytes 4-7 the mins likewise, bytes 8-11 the low nibbles of 4-7.
void set_k_scales(uint8_t* s) {
  s[0] = 10 | (2 << 6);   // scale 0, top bits of scale 4
  s[1] = 63;              // scale 1
  s[4] = 3 | (1 << 6);    // min 0, top bits of min 4
  s[7] = 0 | (3 << 6);    // min 3, top bits of min 7
  s[8] = 5 | (4 << 4);    // low nibbles of scale 4 and min 4
  s[11] = 1 | (15 << 4);  // low nibbles of scale 7 and min 7
}

TEST(QuantLayout, Q4_K) {
  BlockQ4_K b{};
  b.d = kHalf1;
  b.dmin = kHalf0_5;
  set_k_scales(b.scales);
  // 64-value chunk c uses bytes 32c..32c+31: low nibbles its first 32, high nibbles the next.
  b.qs[0] = 0x7C;    // value 0: 12, value 32: 7
  b.qs[69] = 0x0F;   // chunk 2, byte 5: value 133: 15, value 165: 0
  b.qs[127] = 0x90;  // chunk 3, byte 31: value 223: 0, value 255: 9
  const auto v = dequant(TensorType::Q4_K, b, 256);
  EXPECT_EQ(v[0], 10 * 12 - 0.5f * 3);
  EXPECT_EQ(v[32], 63 * 7);
  EXPECT_EQ(v[133], 37 * 15 - 0.5f * 20);
  EXPECT_EQ(v[165], 0.0f);
  EXPECT_EQ(v[223], 0.0f);
  EXPECT_EQ(v[255], 1 * 9 - 0.5f * 63);
  EXPECT_EQ(v[1], -0.5f * 3);
}

TEST(QuantLayout, Q5_K) {
  BlockQ5_K b{};
  b.d = kHalf1;
  b.dmin = kHalf0_5;
  set_k_scales(b.scales);
  b.qs[0] = 0x7C;
  b.qs[69] = 0x0F;
  b.qs[127] = 0x90;
  // Fifth bit of value i: byte i % 32, bit i / 32.
  b.qh[0] = 0x01;   // value 0
  b.qh[5] = 0x10;   // value 133
  b.qh[31] = 0x80;  // value 255
  const auto v = dequant(TensorType::Q5_K, b, 256);
  EXPECT_EQ(v[0], 10 * 28 - 0.5f * 3);
  EXPECT_EQ(v[32], 63 * 7);
  EXPECT_EQ(v[133], 37 * 31 - 0.5f * 20);
  EXPECT_EQ(v[255], 1 * 25 - 0.5f * 63);
  EXPECT_EQ(v[223], 0.0f);
}

TEST(QuantLayout, Q6_K) {
  BlockQ6_K b{};
  b.d = kHalf0_5;
  b.scales[0] = 2;
  b.scales[3] = -4;
  b.scales[4] = 1;
  b.scales[10] = -128;
  b.scales[15] = 127;
  // Value i (half c, quarter k, l = i % 32): low 4 bits in ql[64c + 32(k & 1) + l], low
  // nibble for k < 2; high 2 bits in qh[32c + l] at bits 2k; code - 32.
  b.ql[0] = 0x35;    // value 0 (k 0): 5; value 64 (k 2): 3
  b.qh[0] = 0x12;    // value 0: high 2; value 64: high 1
  b.ql[106] = 0x0A;  // value 170 (c 1, k 1, l 10): 10
  b.qh[42] = 0x04;   // value 170: high 1
  b.ql[127] = 0xF0;  // value 255 (c 1, k 3, l 31): 15
  b.qh[63] = 0xC0;   // value 255: high 3
  const auto v = dequant(TensorType::Q6_K, b, 256);
  EXPECT_EQ(v[0], 0.5f * 2 * (37 - 32));
  EXPECT_EQ(v[64], 0.5f * 1 * (19 - 32));
  EXPECT_EQ(v[48], 0.5f * -4 * -32);
  EXPECT_EQ(v[170], 0.5f * -128 * (26 - 32));
  EXPECT_EQ(v[255], 0.5f * 127 * 31);
}

TEST(QuantLayout, IQ4_XS) {
  BlockIq4Xs b{};
  b.d = kHalf0_5;
  // 6-bit codes (scale + 32): sub-block 0 = 40 (scale 8), 3 = 5 (-27), 7 = 63 (31), rest 0.
  b.scales_l[0] = 0x08;        // sub-blocks 0 (low nibble) and 1
  b.scales_l[1] = 0x50;        // sub-block 3 in the high nibble
  b.scales_l[3] = 0xF0;        // sub-block 7
  b.scales_h = 2 | (3 << 14);  // top bits: sub-block 0 = 2, 7 = 3
  // Sub-block s uses qs[16s..16s+15] as IQ4_NL does.
  b.qs[0] = 0x0F;    // value 0: level 15 (113), value 16: level 0 (-127)
  b.qs[51] = 0x08;   // value 99: level 8 (1)
  b.qs[127] = 0x70;  // value 255: level 7 (-10)
  const auto v = dequant(TensorType::IQ4_XS, b, 256);
  EXPECT_EQ(v[0], 0.5f * 8 * 113);
  EXPECT_EQ(v[16], 0.5f * 8 * -127);
  EXPECT_EQ(v[99], 0.5f * -27 * 1);
  EXPECT_EQ(v[255], 0.5f * 31 * -10);
  EXPECT_EQ(v[32], 0.5f * -32 * -127);  // sub-block 1: code 0, level 0
}

// ---- encoders: round trip -------------------------------------------------------------

// Gaussian-like values (sum of uniforms) with a few outliers, like trained weights.
std::vector<float> weight_like(int n, uint64_t seed) {
  std::vector<float> x(n);
  uint64_t s = seed;
  auto uniform = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>((s >> 40) * 0x1.0p-24) * 2 - 1;
  };
  for (int i = 0; i < n; ++i) {
    x[i] = (uniform() + uniform() + uniform() + uniform()) * 0.02f;
    if (i % 97 == 5) x[i] *= 4;
  }
  return x;
}

struct RoundTrip {
  double rms = 0;         // relative to the RMS of the input
  double worst_step = 0;  // largest |error| / (block amax * bound factor)
};

// Largest error each format's step allows, as a fraction of the largest magnitude in the
// (super-)block: half a step of the codes' spacing, where the step is amax over the codes
// on the side the largest value maps to, plus what clipping the other side can cost
// (symmetric types reach one step less on the positive side) and what rounding the
// sub-scales to their bits adds (K-types).
double error_bound(TensorType t) {
  switch (t) {
    case TensorType::Q8_0: return 0.5 / 127 * 1.01;
    case TensorType::Q4_0: return 1.0 / 8;  // the +7 side clips at 7/8 amax
    case TensorType::Q5_0: return 1.0 / 16;
    case TensorType::Q4_1: return 1.0 / 15;  // half of (max - min) / 15 <= amax / 15
    case TensorType::Q5_1: return 1.0 / 31;
    case TensorType::IQ4_NL: return 0.12;  // widest gap 113 - 89 = 24 of 127, halved, + clipping
    case TensorType::IQ4_XS: return 0.14;
    // Affine K-types: half of range / nmax (range <= 2 amax) + the sub-scale and sub-min
    // as stored (the rounded code or a neighbour: up to 1.5 grid steps of maxscale / 2^bits
    // times nmax): 1/3 + 0.12 (4-bit), 1/nmax + 0.04 (6-bit).
    case TensorType::Q2_K: return 0.45;
    case TensorType::Q4_K: return 1.0 / 15 + 0.04;
    case TensorType::Q5_K: return 1.0 / 31 + 0.04;
    // Symmetric K-types: the positive side clips one step (amax / 4, amax / 32) short.
    case TensorType::Q3_K: return 0.25;
    case TensorType::Q6_K: return 0.035;
    default: return 0;
  }
}

RoundTrip round_trip(TensorType t, const std::vector<float>& x) {
  const auto traits = *gguf::tensor_type_traits(static_cast<uint32_t>(t));
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<uint8_t> q(n / traits.block_elements * traits.block_bytes);
  std::vector<float> y(n);
  quantize_row(t, x.data(), q.data(), n);
  dequantize_row(t, q.data(), y.data(), n);
  RoundTrip r;
  double se = 0, sx = 0;
  for (int64_t b = 0; b < n / traits.block_elements; ++b) {
    const int64_t first = b * traits.block_elements;
    double amax = 0;
    for (uint32_t i = 0; i < traits.block_elements; ++i)
      amax = std::max(amax, std::fabs(double(x[first + i])));
    for (uint32_t i = 0; i < traits.block_elements; ++i) {
      const double e = std::fabs(double(y[first + i]) - x[first + i]);
      se += e * e, sx += double(x[first + i]) * x[first + i];
      r.worst_step = std::max(r.worst_step, e / (amax * error_bound(t)));
    }
  }
  r.rms = std::sqrt(se / sx);
  return r;
}

const TensorType kBlockTypes[] = {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q4_1,
                                  TensorType::Q5_0, TensorType::Q5_1, TensorType::IQ4_NL,
                                  TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K,
                                  TensorType::Q5_K, TensorType::Q6_K, TensorType::IQ4_XS};

TEST(QuantEncode, EveryTypeIsWithinItsStep) {
  const auto x = weight_like(256 * 64, 7);
  for (TensorType t : kBlockTypes) {
    const RoundTrip r = round_trip(t, x);
    EXPECT_LE(r.worst_step, 1.0) << gguf::tensor_type_name(t);
    std::printf("%-7s rms %.5f  worst/bound %.3f\n", std::string(gguf::tensor_type_name(t)).c_str(),
                r.rms, r.worst_step);
  }
}

TEST(QuantEncode, ErrorFallsWithBits) {
  const auto x = weight_like(256 * 64, 11);
  std::map<TensorType, double> rms;
  for (TensorType t : kBlockTypes) rms[t] = round_trip(t, x).rms;
  const TensorType k_order[] = {TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K,
                                TensorType::Q5_K, TensorType::Q6_K, TensorType::Q8_0};
  for (size_t i = 0; i + 1 < std::size(k_order); ++i) {
    EXPECT_GT(rms[k_order[i]], rms[k_order[i + 1]]) << gguf::tensor_type_name(k_order[i]);
  }
  EXPECT_GT(rms[TensorType::Q4_0], rms[TensorType::Q5_0]);
  EXPECT_GT(rms[TensorType::Q4_1], rms[TensorType::Q5_1]);
  // The non-uniform levels fit bell-shaped values better than Q4_0's even spacing, and the
  // searched K-scales better than Q4_0's max-based one.
  EXPECT_LT(rms[TensorType::IQ4_NL], rms[TensorType::Q4_0]);
  EXPECT_LT(rms[TensorType::Q4_K], rms[TensorType::Q4_0]);
  // Bits per value of each, for the record: Q2_K 2.625 .. Q8_0 8.5.
  EXPECT_LT(rms[TensorType::Q2_K], 0.5);
  EXPECT_LT(rms[TensorType::Q8_0], 0.01);
}

TEST(QuantEncode, ConstantAndZeroBlocksComeBackExactly) {
  for (TensorType t : kBlockTypes) {
    for (const float c : {0.0f, -0.75f}) {
      const std::vector<float> x(256, c);
      std::vector<uint8_t> q(256 * 2);
      std::vector<float> y(256);
      quantize_row(t, x.data(), q.data(), 256);
      dequantize_row(t, q.data(), y.data(), 256);
      for (int i = 0; i < 256; ++i) {
        ASSERT_NEAR(y[i], c, std::fabs(c) * 2e-3) << gguf::tensor_type_name(t) << " value " << i;
      }
    }
  }
}

// ---- mixes -----------------------------------------------------------------------------

TEST(WeightMix, Q4_K_MPutsQ6_KOnTheOutputAndHalfTheVAndDownLayers) {
  const int n = 32;
  int v6 = 0, down6 = 0;
  for (int l = 0; l < n; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    v6 += mix_weight_type(WeightMix::Q4_K_M, TensorType::Q4_K, p + "attn_v.weight", n, false) ==
          TensorType::Q6_K;
    down6 += mix_weight_type(WeightMix::Q4_K_M, TensorType::Q4_K, p + "ffn_down.weight", n,
                             false) == TensorType::Q6_K;
    EXPECT_EQ(mix_weight_type(WeightMix::Q4_K_M, TensorType::Q4_K, p + "attn_q.weight", n, false),
              TensorType::Q4_K);
    EXPECT_EQ(mix_weight_type(WeightMix::Q4_K_M, TensorType::Q4_K, p + "ffn_up.weight", n, false),
              TensorType::Q4_K);
  }
  // First and last eighth (4 + 4) and every third of the 24 between (8): 16 of 32.
  EXPECT_EQ(v6, 16);
  EXPECT_EQ(down6, 16);
  EXPECT_EQ(mix_weight_type(WeightMix::Q4_K_M, TensorType::Q4_K, "blk.0.attn_v.weight", n, false),
            TensorType::Q6_K);
  EXPECT_EQ(
      mix_weight_type(WeightMix::Q4_K_M, TensorType::Q4_K, "blk.31.ffn_down.weight", n, false),
      TensorType::Q6_K);
  EXPECT_EQ(mix_weight_type(WeightMix::Q4_K_M, TensorType::Q4_K, "blk.4.ffn_down.weight", n, false),
            TensorType::Q4_K);
  EXPECT_EQ(mix_weight_type(WeightMix::Q4_K_M, TensorType::Q4_K, "output.weight", n, false),
            TensorType::Q6_K);
  EXPECT_EQ(mix_weight_type(WeightMix::Q4_K_M, TensorType::Q4_K, "token_embd.weight", n, false),
            TensorType::Q4_K);
  EXPECT_EQ(mix_weight_type(WeightMix::Q4_K_M, TensorType::Q4_K, "token_embd.weight", n, true),
            TensorType::Q6_K);
  EXPECT_EQ(mix_weight_type(WeightMix::Q3_K_M, TensorType::Q3_K, "blk.1.attn_v.weight", n, false),
            TensorType::Q5_K);
  EXPECT_EQ(mix_weight_type(WeightMix::Q3_K_M, TensorType::Q3_K, "blk.2.attn_v.weight", n, false),
            TensorType::Q4_K);
  EXPECT_EQ(mix_weight_type(WeightMix::Q3_K_M, TensorType::Q3_K, "blk.9.attn_k.weight", n, false),
            TensorType::Q3_K);
  EXPECT_EQ(mix_weight_type(WeightMix::Uniform, TensorType::Q8_0, "output.weight", n, false),
            TensorType::Q8_0);
}

TEST(WeightMix, RowsThatAreNotWholeSuperBlocksFallBack) {
  EXPECT_EQ(fallback_weight_type(TensorType::Q4_K, 4096), TensorType::Q4_K);
  EXPECT_EQ(fallback_weight_type(TensorType::Q4_K, 896), TensorType::Q5_0);
  EXPECT_EQ(fallback_weight_type(TensorType::Q5_K, 896), TensorType::Q5_1);
  EXPECT_EQ(fallback_weight_type(TensorType::Q6_K, 896), TensorType::Q8_0);
  EXPECT_EQ(fallback_weight_type(TensorType::Q3_K, 896), TensorType::IQ4_NL);
  EXPECT_EQ(fallback_weight_type(TensorType::IQ4_XS, 192), TensorType::IQ4_NL);
  EXPECT_EQ(fallback_weight_type(TensorType::Q8_0, 48), TensorType::F16);
  EXPECT_EQ(fallback_weight_type(TensorType::F32, 7), TensorType::F32);
}

TEST(WeightMix, ParsesTypesAndMixes) {
  EXPECT_EQ(parse_weight_type_spec("q4_k_m")->mix, WeightMix::Q4_K_M);
  EXPECT_EQ(parse_weight_type_spec("q4_k_m")->type, TensorType::Q4_K);
  EXPECT_EQ(parse_weight_type_spec("IQ4_XS")->type, TensorType::IQ4_XS);
  EXPECT_EQ(parse_weight_type_spec("q5_1")->mix, WeightMix::Uniform);
  EXPECT_FALSE(parse_weight_type_spec("q8_k"));
  EXPECT_FALSE(parse_weight_type_spec("q4_k_s"));
}

}  // namespace
}  // namespace kvchat
