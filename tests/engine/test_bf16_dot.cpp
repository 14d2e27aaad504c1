// The BF16 dot of bf16_dot.h (activations rounded to BF16, vdpbf16ps's pair order): its
// definition against hand-computed values and a float64 dot, and the AVX512-BF16 kernels
// against the definition bit for bit (where the CPU has them), prefill by the instruction and
// by its FMA twin alike; which of the two the CPU's vendor gets.
#include <gtest/gtest.h>
#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backend/cpu/bf16_dot.h"
#include "backend/cpu/dot.h"
#include "backend/cpu/row_kernels.h"
#include "numeric/half.h"
#include "support/cpuinfo_vendor.h"
#include "random_quant_rows.h"

namespace kvchat {
namespace {

using gguf::TensorType;

uint16_t bits_of(float x) { return static_cast<uint16_t>(bits_from_f32(x) >> 16); }

TEST(Bf16Dot, ActivationsRoundToNearestEvenWithSubnormalsFlushed) {
  EXPECT_EQ(cpu::bf16_round_activation(1.0f), 0x3f80);
  EXPECT_EQ(cpu::bf16_round_activation(-2.5f), 0xc020);
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: to the even one, 1.
  EXPECT_EQ(cpu::bf16_round_activation(1.0f + 0x1p-8f), 0x3f80);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 and 1 + 2^-6: to the even one, 1 + 2^-6.
  EXPECT_EQ(cpu::bf16_round_activation(1.0f + 3 * 0x1p-8f), 0x3f82);
  EXPECT_EQ(cpu::bf16_round_activation(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);  // past halfway
  EXPECT_EQ(cpu::bf16_round_activation(0x1p-130f), 0x0000);                  // subnormal
  EXPECT_EQ(cpu::bf16_round_activation(-0x1p-130f), 0x8000);
  EXPECT_EQ(cpu::bf16_round_activation(std::numeric_limits<float>::infinity()), 0x7f80);
  const uint16_t nan = cpu::bf16_round_activation(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7fc0, 0x7fc0);
}

// One row of three nonzero products, 1 (value 0), -2^-24 (value 32, lane 0's even value)
// and 3 * 2^-24 (value 33, its odd value): the odd one is added first,
// 1 + 3 * 2^-24 -> 1 + 2^-22 (halfway, to even), then 1 + 2^-22 - 2^-24 -> 1 + 2^-22.
// Even first would give 1 + 2^-23, and so would the exact sum.
TEST(Bf16Dot, DefinitionAddsTheOddProductFirstAndRoundsEachSum) {
  const int64_t n = 34;
  std::vector<uint16_t> w(n, 0), x(n, 0);
  w[0] = w[32] = w[33] = bits_of(1.0f);
  x[0] = bits_of(1.0f), x[32] = bits_of(-0x1p-24f), x[33] = bits_of(3 * 0x1p-24f);
  float y = 0;
  cpu::bf16_rows_dot_scalar(reinterpret_cast<const uint8_t*>(w.data()), n * 2, 1, x.data(), n, 1, n,
                            &y, 1);
  EXPECT_EQ(y, 1.0f + 0x1p-22f);
}

// The lanes are folded in halves: lane 0 holds 1, lanes 4 and 12 hold 2^-24 each. Lane 4
// takes lane 12 first (2^-23, exact), then lane 0 takes lane 4: 1 + 2^-23, exact. Lanes
// summed one after another, or adjacent lanes in pairs, would give 1 (1 + 2^-24 is halfway,
// to the even 1, twice).
TEST(Bf16Dot, DefinitionFoldsTheLanesInHalves) {
  const int64_t n = 32;
  std::vector<uint16_t> w(n, bits_of(1.0f)), x(n, 0);
  x[0] = bits_of(1.0f), x[8] = bits_of(0x1p-24f), x[24] = bits_of(0x1p-24f);
  float y = 0;
  cpu::bf16_rows_dot_scalar(reinterpret_cast<const uint8_t*>(w.data()), n * 2, 1, x.data(), n, 1, n,
                            &y, 1);
  EXPECT_EQ(y, 1.0f + 0x1p-23f);
}

std::vector<uint16_t> rounded(const std::vector<float>& x) {
  std::vector<uint16_t> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = cpu::bf16_round_activation(x[i]);
  return out;
}

// Rows of a real model's length and odd ones (a padded tail), every tile shape: the
// definition is the float64 dot of the BF16 values within f32 rounding.
TEST(Bf16Dot, DefinitionIsTheDotOfTheRoundedValues) {
  for (int64_t n : {32, 40, 96 + 7, 1096}) {
    const int64_t rows = 5, tokens = 3;
    const auto W = random_rows(TensorType::BF16, rows, n, 11 + static_cast<uint32_t>(n));
    const auto X = rounded(random_values(tokens * n, 12));
    std::vector<float> Y(tokens * rows);
    cpu::bf16_rows_dot_scalar(W.data(), n * 2, rows, X.data(), n, tokens, n, Y.data(), rows);
    for (int64_t t = 0; t < tokens; ++t) {
      for (int64_t r = 0; r < rows; ++r) {
        const auto* w = reinterpret_cast<const uint16_t*>(W.data()) + r * n;
        double want = 0, mag = 0;
        for (int64_t i = 0; i < n; ++i) {
          const double p = double(bf16_to_f32(w[i])) * bf16_to_f32(X[t * n + i]);
          want += p, mag += std::fabs(p);
        }
        EXPECT_NEAR(Y[t * rows + r], want, 1e-6 * mag) << "n=" << n << " t=" << t << " r=" << r;
      }
    }
  }
}

// vdpbf16ps is left for decode alone where FMAs are faster: not on Intel (half the
// multiply-adds per second there), on AMD.
TEST(Bf16Choice, PrefillByFmaOnIntelByTheInstructionOnAmd) {
  if (!cpu::cpu_has_avx512bf16()) GTEST_SKIP() << "no AVX512-BF16 here (or in this build)";
  const std::string vendor = cpuinfo_vendor();
  if (vendor == "GenuineIntel") {
    EXPECT_FALSE(cpu::avx512bf16_faster_than_fma());
  } else if (vendor == "AuthenticAMD") {
    EXPECT_TRUE(cpu::avx512bf16_faster_than_fma());
  } else {
    GTEST_SKIP() << "vendor " << vendor << ": no rule to check";
  }
}

class Bf16Kernels : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cpu::cpu_has_avx512bf16()) GTEST_SKIP() << "no AVX512-BF16 here (or in this build)";
  }
};

constexpr cpu::Bf16Prefill kPrefills[] = {cpu::Bf16Prefill::kDpbf16, cpu::Bf16Prefill::kFma};

TEST_F(Bf16Kernels, ActivationRoundingEqualsTheDefinition) {
  auto x = random_values(1000 + 13, 3);
  for (size_t i = 0; i < x.size(); i += 7) x[i] *= std::ldexp(1.0f, static_cast<int>(i % 60) - 30);
  x[1] = 0x1p-130f, x[2] = -0x1p-140f, x[3] = 1.0f + 0x1p-8f, x[4] = 1.0f + 3 * 0x1p-8f;
  x[5] = std::numeric_limits<float>::infinity(), x[6] = -0.0f;
  const auto want = rounded(x);
  for (int64_t n : {int64_t(x.size()), int64_t{16}, int64_t{9}}) {
    std::vector<uint16_t> got(x.size() + 1, 0xabcd);
    cpu::round_activations_bf16(x.data(), got.data(), n);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], want[i]) << "value " << i << " of " << n;
    EXPECT_EQ(got[n], 0xabcd) << "wrote past the end";
  }
}

// Every tile shape (8-row decode, 4 x 1..6 prefill, single rows), full chunks, the 64-value
// decode step and padded tails, prefill by the instruction and by FMAs: the kernel's bits are
// the definition's.
TEST_F(Bf16Kernels, KernelEqualsTheDefinitionBitForBit) {
  const int64_t ldy = 29;
  for (const auto prefill : kPrefills) {
    for (int64_t n : {32, 64, 40, 96 + 7, 1096, 2048}) {
      for (int64_t rows : {1, 4, 8, 13, 21}) {
        const auto W = random_rows(TensorType::BF16, rows, n, 21 + static_cast<uint32_t>(n + rows));
        for (int64_t tokens : {1, 2, 5, 6, 7, 13}) {
          const auto X = rounded(random_values(tokens * n, 22 + static_cast<uint32_t>(tokens)));
          std::vector<float> got(tokens * ldy, -1.0f), want(tokens * ldy, -1.0f);
          cpu::bf16_rows_dot_avx512bf16(W.data(), n * 2, rows, X.data(), n, tokens, n, got.data(),
                                        ldy, prefill);
          cpu::bf16_rows_dot_scalar(W.data(), n * 2, rows, X.data(), n, tokens, n, want.data(),
                                    ldy);
          ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
              << "n=" << n << " rows=" << rows << " tokens=" << tokens
              << " fma=" << (prefill == cpu::Bf16Prefill::kFma);
        }
      }
    }
  }
}

// Where the instruction flushes, so must the FMA prefill (it sets MXCSR's DAZ and FTZ and
// puts the caller's controls back). Row 0: lane 0's sum 1 * 1.5 * 2^-126 - 2^-126 = 2^-127 is
// subnormal: 0, not 2^-127. Row 1: a subnormal weight (2^-133) times 2^100 reads as 0, not
// 2^-33. Row 2: 1 * 1 = 1.
TEST_F(Bf16Kernels, PrefillFlushesSubnormalsAsTheInstructionDoes) {
  const int64_t n = 64, rows = 3, tokens = 2;
  std::vector<uint16_t> W(rows * n, 0), X(tokens * n, 0);
  for (int64_t t = 0; t < tokens; ++t) {
    X[t * n + 0] = bits_of(-1.0f), X[t * n + 1] = bits_of(1.5f * 0x1p-126f);
    X[t * n + 3] = bits_of(0x1p100f), X[t * n + 5] = bits_of(1.0f);
  }
  W[0 * n + 0] = bits_of(0x1p-126f), W[0 * n + 1] = bits_of(1.0f);
  W[1 * n + 3] = 0x0001;
  W[2 * n + 5] = bits_of(1.0f);
  const float expected[rows] = {0.0f, 0.0f, 1.0f};
  const unsigned csr = _mm_getcsr();
  for (const auto prefill : kPrefills) {
    std::vector<float> got(tokens * rows, -1.0f), want(tokens * rows, -1.0f);
    cpu::bf16_rows_dot_avx512bf16(reinterpret_cast<const uint8_t*>(W.data()), n * 2, rows, X.data(),
                                  n, tokens, n, got.data(), rows, prefill);
    cpu::bf16_rows_dot_scalar(reinterpret_cast<const uint8_t*>(W.data()), n * 2, rows, X.data(), n,
                              tokens, n, want.data(), rows);
    for (int64_t i = 0; i < tokens * rows; ++i) {
      EXPECT_EQ(bits_from_f32(got[i]), bits_from_f32(expected[i % rows])) << "row " << i % rows;
      EXPECT_EQ(bits_from_f32(got[i]), bits_from_f32(want[i])) << "row " << i % rows;
    }
    EXPECT_EQ(_mm_getcsr() & ~0x3fu, csr & ~0x3fu) << "MXCSR's controls put back (not its flags)";
  }
}

// Through matmul_rows: BF16 weights prepared on this CPU are dotted with the rounded
// activations, and a token's row is the same in a batch of 13 as alone.
TEST_F(Bf16Kernels, MatmulRowsUsesTheRoundedActivations) {
  const int64_t rows = 19, cols = 512 + 40, tokens = 13;
  const auto data = random_rows(TensorType::BF16, rows, cols, 31);
  WeightView w;
  w.type = TensorType::BF16, w.rows = rows, w.cols = cols, w.row_bytes = cols * 2;
  w.data = data.data();
  const auto X = random_values(tokens * cols, 32);
  cpu::PreparedActivations all;
  all.prepare(X.data(), tokens, cols, TensorType::BF16);
  ASSERT_TRUE(all.has_bf16());
  cpu::RowScratch scratch;
  std::vector<float> Y(tokens * rows), want(tokens * rows);
  cpu::matmul_rows(w, all, 0, rows, Y.data(), rows, scratch);
  const auto Xr = rounded(X);
  cpu::bf16_rows_dot_scalar(data.data(), cols * 2, rows, Xr.data(), cols, tokens, cols, want.data(),
                            rows);
  EXPECT_EQ(std::memcmp(Y.data(), want.data(), Y.size() * sizeof(float)), 0);
  cpu::force_no_avx512bf16_kernels(true);
  cpu::PreparedActivations plain;
  plain.prepare(X.data(), tokens, cols, TensorType::BF16);
  cpu::force_no_avx512bf16_kernels(false);
  EXPECT_FALSE(plain.has_bf16()) << "forced off: the f32 activations of dot.h";
}

}  // namespace
}  // namespace kvchat
