// Integer dot products (quantized weights x 8-bit activations) and the row-range matmul
// kernel, scalar and AVX2, against float64 dots of the dequantized definitions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "backend/cpu/dot.h"
#include "backend/cpu/quant_dot.h"
#include "backend/cpu/row_kernels.h"
#include "numeric/convert.h"
#include "numeric/half.h"
#include "numeric/quant_blocks.h"
#include "random_quant_rows.h"

namespace kvchat {
namespace {

using gguf::TensorType;

constexpr TensorType kQuantTypes[] = {TensorType::Q8_0, TensorType::Q4_0, TensorType::Q4_1,
                                      TensorType::Q5_0, TensorType::Q5_1, TensorType::IQ4_NL,
                                      TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K,
                                      TensorType::Q5_K, TensorType::Q6_K, TensorType::IQ4_XS};
constexpr TensorType kFloatTypes[] = {TensorType::F32, TensorType::F16, TensorType::BF16};

// The activations as the kernels see them: d * qs per value.
std::vector<float> dequantized_activations(TensorType type, const void* act, int64_t n) {
  std::vector<float> out(n);
  if (cpu::activation_format_of(type) == cpu::ActivationFormat::Q8_K) {
    const auto* b = static_cast<const BlockQ8_K*>(act);
    for (int64_t i = 0; i < n; ++i)
      out[i] = b[i / kSuperBlock].d * b[i / kSuperBlock].qs[i % kSuperBlock];
  } else {
    const auto* b = static_cast<const cpu::BlockQ8_32*>(act);
    for (int64_t i = 0; i < n; ++i)
      out[i] = b[i / kQuantBlock].d * b[i / kQuantBlock].qs[i % kQuantBlock];
  }
  return out;
}

// Value i of token b's activations as a float kernel sees it: rounded to BF16 where BF16
// weights are dotted with AVX512-BF16 (bf16_dot.h), else as given.
float float_activation(const cpu::PreparedActivations& act, TensorType type, const float* X,
                       int64_t cols, int64_t b, int64_t i) {
  if (type == TensorType::BF16 && act.has_bf16()) return bf16_to_f32(act.bf16(b)[i]);
  return X[b * cols + i];
}

struct QuantizedActivations {
  std::vector<cpu::BlockQ8_32> q32;
  std::vector<BlockQ8_K> qk;
  const void* data(TensorType type) const {
    return cpu::activation_format_of(type) == cpu::ActivationFormat::Q8_K
               ? static_cast<const void*>(qk.data())
               : static_cast<const void*>(q32.data());
  }
};

QuantizedActivations quantize_activations(const std::vector<float>& x) {
  QuantizedActivations a;
  const int64_t n = static_cast<int64_t>(x.size());
  a.q32.resize(n / kQuantBlock);
  a.qk.resize(n / kSuperBlock);
  cpu::quantize_activations_q8_32(x.data(), a.q32.data(), n);
  cpu::quantize_activations_q8_k(x.data(), a.qk.data(), n);
  return a;
}

// The kernel paths: scalar (the definitions), AVX2, AVX2 + AVX-VNNI, AVX-512, AVX-512 with
// AVX512-BF16 (where the CPU has them).
enum class Kernels { Scalar, Avx2, AvxVnni, Avx512, Avx512Bf16 };

class KernelPaths : public ::testing::TestWithParam<Kernels> {
 protected:
  void SetUp() override {
    if (GetParam() != Kernels::Scalar && !cpu::cpu_has_avx2())
      GTEST_SKIP() << "no AVX2 on this CPU";
    if (GetParam() == Kernels::AvxVnni && !cpu::cpu_has_avxvnni())
      GTEST_SKIP() << "no AVX-VNNI here (or in this build)";
    const bool avx512 = GetParam() == Kernels::Avx512 || GetParam() == Kernels::Avx512Bf16;
    if (avx512 && !cpu::cpu_has_avx512vnni()) GTEST_SKIP() << "no AVX-512 here (or in this build)";
    if (GetParam() == Kernels::Avx512Bf16 && !cpu::cpu_has_avx512bf16())
      GTEST_SKIP() << "no AVX512-BF16 here (or in this build)";
    cpu::force_scalar_kernels(GetParam() == Kernels::Scalar);
    cpu::force_no_avxvnni_kernels(GetParam() != Kernels::AvxVnni);
    cpu::force_no_avx512_kernels(!avx512);
    cpu::force_no_avx512bf16_kernels(GetParam() != Kernels::Avx512Bf16);
    EXPECT_EQ(cpu::use_avxvnni_kernels(), GetParam() == Kernels::AvxVnni);
    EXPECT_EQ(cpu::use_avx512_kernels(), avx512);
    EXPECT_EQ(cpu::use_avx512bf16_kernels(), GetParam() == Kernels::Avx512Bf16);
  }
  void TearDown() override {
    cpu::force_scalar_kernels(false);
    cpu::force_no_avxvnni_kernels(false);
    cpu::force_no_avx512_kernels(false);
    cpu::force_no_avx512bf16_kernels(false);
  }
};

TEST(ActivationQuantization, BlocksHoldScaleSumsAndRoundedValues) {
  const auto x = random_values(512, 5);
  const auto a = quantize_activations(x);
  for (int64_t k = 0; k < 16; ++k) {
    const auto& b = a.q32[k];
    int sum = 0;
    float amax = 0;
    for (int j = 0; j < 32; ++j) {
      sum += b.qs[j];
      amax = std::max(amax, std::fabs(x[k * 32 + j]));
      EXPECT_LE(std::fabs(b.d * b.qs[j] - x[k * 32 + j]), 0.5f * b.d * 1.0001f);
    }
    EXPECT_FLOAT_EQ(b.d, amax / 127);
    EXPECT_EQ(b.sum, sum);
  }
  for (int64_t k = 0; k < 2; ++k) {
    for (int g = 0; g < 16; ++g) {
      int sum = 0;
      for (int j = 0; j < 16; ++j) sum += a.qk[k].qs[g * 16 + j];
      EXPECT_EQ(a.qk[k].bsums[g], sum);
    }
  }
}

// Q8_K by hand: x[i] = i - 100 over one super-block, zeros over the next. The largest
// magnitude, 155, maps to 127: d = 155 / 127, qs = round(x / d).
TEST(ActivationQuantization, Q8_KBlockByHand) {
  std::vector<float> x(512, 0.0f);
  for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(i - 100);
  BlockQ8_K b[2];
  cpu::quantize_activations_q8_k(x.data(), b, 512);
  EXPECT_FLOAT_EQ(b[0].d, 155.0f / 127);
  EXPECT_EQ(b[0].qs[255], 127);
  EXPECT_EQ(b[0].qs[100], 0);
  EXPECT_EQ(b[0].qs[0], -82);  // -100 * 127 / 155 = -81.94
  EXPECT_EQ(b[0].qs[200], 82);
  EXPECT_EQ(b[0].bsums[0], -1212);  // sum of round((i - 100) * 127 / 155), i = 0..15
  for (int i = 0; i < 256; ++i)
    EXPECT_LE(std::fabs(b[0].d * b[0].qs[i] - x[i]), 155.0f / 127 / 2 + 1e-4f);
  EXPECT_EQ(b[1].d, 0.0f);
  for (int i = 0; i < 256; ++i) ASSERT_EQ(b[1].qs[i], 0);
}

TEST(ActivationQuantization, Avx2QuantizersGiveTheScalarBytes) {
  if (!cpu::cpu_has_avx2()) GTEST_SKIP() << "no AVX2 on this CPU";
  auto x = random_values(2048, 9);
  x[5] = 0.0f;
  for (int j = 64; j < 96; ++j) x[j] = 0.0f;  // an all-zero block: d = 0
  for (int j = 96; j < 128; ++j)
    x[j] = (j % 2 ? 1.0f : -1.0f) * (j - 96) * 0.5f;  // a block of halves
  std::vector<cpu::BlockQ8_32> a(64), b(64);
  cpu::quantize_activations_q8_32_scalar(x.data(), a.data(), 2048);
  cpu::quantize_activations_q8_32_avx2(x.data(), b.data(), 2048);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(a[0])), 0);
  std::vector<BlockQ8_K> c(8), d(8);
  cpu::quantize_activations_q8_k_scalar(x.data(), c.data(), 2048);
  cpu::quantize_activations_q8_k_avx2(x.data(), d.data(), 2048);
  EXPECT_EQ(std::memcmp(c.data(), d.data(), c.size() * sizeof(c[0])), 0);
}

// Every quantized type: the integer dot equals the float64 dot of the dequantized weight row
// with the dequantized activations (up to float rounding), and the plain f32 dot within the
// activation-quantization error (|x - d*q| <= d/2 per value).
TEST_P(KernelPaths, IntegerDotMatchesDequantizedDefinition) {
  for (TensorType type : kQuantTypes) {
    for (int64_t n : {256, 512, 2816}) {
      const auto row = random_rows(type, 1, n, 100 + n + static_cast<uint32_t>(type));
      const auto x = random_values(n, 7 + n);
      const auto act = quantize_activations(x);
      std::vector<float> w(n);
      dequantize_row(type, row.data(), w.data(), n);
      const auto xq = dequantized_activations(type, act.data(type), n);
      double want = 0, mag = 0, exact = 0, bound = 0;
      for (int64_t i = 0; i < n; ++i) {
        want += double(w[i]) * xq[i];
        mag += std::fabs(double(w[i]) * xq[i]);
        exact += double(w[i]) * x[i];
        bound += std::fabs(double(w[i])) * std::fabs(double(xq[i]) - x[i]);
      }
      const double tol = 2e-6 * mag + 1e-6;
      const float got = cpu::quant_dot(type, row.data(), act.data(type), n);
      EXPECT_NEAR(got, want, tol) << gguf::tensor_type_name(type) << " n=" << n;
      EXPECT_NEAR(got, exact, bound + tol) << gguf::tensor_type_name(type) << " n=" << n;
      EXPECT_NEAR(cpu::quant_dot_scalar(type, row.data(), act.data(type), n), want, tol)
          << gguf::tensor_type_name(type) << " n=" << n;
    }
  }
}

// matmul_rows over row ranges and 1..9, 16 and 27 (= 16 + 8 + 2 + 1) tokens equals one dot
// per (row, token), and writes nothing outside its rows.
TEST_P(KernelPaths, MatmulRowsEqualsPerRowDots) {
  const int64_t rows = 37, ldy = 41;
  std::vector<TensorType> types(std::begin(kQuantTypes), std::end(kQuantTypes));
  types.insert(types.end(), std::begin(kFloatTypes), std::end(kFloatTypes));
  for (TensorType type : types) {
    const int64_t cols =
        cpu::activation_format_of(type) == cpu::ActivationFormat::Q8_K ? 512 : 96 + 32 * 7;
    const auto tr = traits(type);
    WeightView w;
    w.type = type;
    w.rows = rows;
    w.cols = cols;
    w.row_bytes = cols / tr.block_elements * tr.block_bytes;
    const auto data = random_rows(type, rows, cols, 300 + static_cast<uint32_t>(type));
    w.data = data.data();
    for (int64_t n_tokens : {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 27}) {
      const auto X = random_values(n_tokens * cols, 40 + n_tokens);
      cpu::PreparedActivations act;
      act.prepare(X.data(), n_tokens, cols, type);
      cpu::RowScratch scratch;
      for (auto [r0, r1] : {std::pair<int64_t, int64_t>{0, rows}, {3, 20}, {5, 6}, {16, 37}}) {
        std::vector<float> Y(n_tokens * ldy, -12345.0f);
        cpu::matmul_rows(w, act, r0, r1, Y.data(), ldy, scratch);
        for (int64_t b = 0; b < n_tokens; ++b) {
          for (int64_t r = 0; r < ldy; ++r) {
            const float got = Y[b * ldy + r];
            if (r < r0 || r >= r1) {
              ASSERT_EQ(got, -12345.0f) << "wrote outside its rows: r=" << r;
              continue;
            }
            std::vector<float> wd(cols);
            dequantize_row(type, w.row(r), wd.data(), cols);
            double want = 0, mag = 0;
            if (cpu::activation_format_of(type) == cpu::ActivationFormat::F32) {
              for (int64_t i = 0; i < cols; ++i) {
                const float xi = float_activation(act, type, X.data(), cols, b, i);
                want += double(wd[i]) * xi, mag += std::fabs(wd[i] * xi);
              }
            } else {
              const void* a = cpu::activation_format_of(type) == cpu::ActivationFormat::Q8_K
                                  ? static_cast<const void*>(act.q8_k(b))
                                  : static_cast<const void*>(act.q8_32(b));
              const auto xq = dequantized_activations(type, a, cols);
              for (int64_t i = 0; i < cols; ++i)
                want += double(wd[i]) * xq[i], mag += std::fabs(wd[i] * xq[i]);
            }
            ASSERT_NEAR(got, want, 2e-6 * mag + 1e-6)
                << gguf::tensor_type_name(type) << " tokens=" << n_tokens << " b=" << b
                << " r=" << r << " range [" << r0 << "," << r1 << ")";
          }
        }
      }
    }
  }
}

// A token's outputs do not depend on the batch it is evaluated in: matmul_rows of 27 tokens
// (every tile width) equals, bit for bit, 27 single-token calls (decode = prefill; sessions
// rely on it).
TEST_P(KernelPaths, MatmulRowsIsBatchInvariant) {
  const int64_t rows = 23, n_tokens = 27;
  std::vector<TensorType> types(std::begin(kQuantTypes), std::end(kQuantTypes));
  types.insert(types.end(), std::begin(kFloatTypes), std::end(kFloatTypes));
  for (TensorType type : types) {
    const int64_t cols =
        cpu::activation_format_of(type) == cpu::ActivationFormat::Q8_K ? 768 : 96 + 32 * 7 + 8;
    if (cols % traits(type).block_elements) continue;
    const auto tr = traits(type);
    WeightView w;
    w.type = type, w.rows = rows, w.cols = cols,
    w.row_bytes = cols / tr.block_elements * tr.block_bytes;
    const auto data = random_rows(type, rows, cols, 500 + static_cast<uint32_t>(type));
    w.data = data.data();
    const auto X = random_values(n_tokens * cols, 77);
    cpu::PreparedActivations all, one;
    cpu::RowScratch scratch;
    all.prepare(X.data(), n_tokens, cols, type);
    std::vector<float> Y(n_tokens * rows), y(rows);
    cpu::matmul_rows(w, all, 0, rows, Y.data(), rows, scratch);
    for (int64_t b = 0; b < n_tokens; ++b) {
      one.prepare(X.data() + b * cols, 1, cols, type);
      cpu::matmul_rows(w, one, 0, rows, y.data(), rows, scratch);
      EXPECT_EQ(std::memcmp(y.data(), Y.data() + b * rows, rows * sizeof(float)), 0)
          << gguf::tensor_type_name(type) << " token " << b;
    }
  }
}

// Float rows of a real model's length (1,096 values: a tail of 8 past the last 16-value
// chunk) over 23 rows (a 16-row conversion tile and 7) and 53 tokens (every token-tile
// width): 53 tokens at once equal 53 single-token calls bit for bit, each within rounding
// of the exact dot.
TEST_P(KernelPaths, LongFloatRowsAreBatchInvariant) {
  const int64_t rows = 23, n_tokens = 53, cols = 2 * 512 + 4 * 16 + 8;
  for (TensorType type : kFloatTypes) {
    const auto tr = traits(type);
    WeightView w;
    w.type = type, w.rows = rows, w.cols = cols,
    w.row_bytes = cols / tr.block_elements * tr.block_bytes;
    const auto data = random_rows(type, rows, cols, 700 + static_cast<uint32_t>(type));
    w.data = data.data();
    const auto X = random_values(n_tokens * cols, 78);
    cpu::PreparedActivations all, one;
    cpu::RowScratch scratch;
    all.prepare(X.data(), n_tokens, cols, type);
    std::vector<float> Y(n_tokens * rows), y(rows), wd(cols);
    cpu::matmul_rows(w, all, 0, rows, Y.data(), rows, scratch);
    for (int64_t b = 0; b < n_tokens; ++b) {
      one.prepare(X.data() + b * cols, 1, cols, type);
      cpu::matmul_rows(w, one, 0, rows, y.data(), rows, scratch);
      ASSERT_EQ(std::memcmp(y.data(), Y.data() + b * rows, rows * sizeof(float)), 0)
          << gguf::tensor_type_name(type) << " token " << b;
      for (int64_t r = 0; r < rows; ++r) {
        dequantize_row(type, w.row(r), wd.data(), cols);
        double want = 0, mag = 0;
        for (int64_t i = 0; i < cols; ++i) {
          const float xi = float_activation(all, type, X.data(), cols, b, i);
          want += double(wd[i]) * xi, mag += std::fabs(wd[i] * xi);
        }
        ASSERT_NEAR(Y[b * rows + r], want, 2e-6 * mag + 1e-6)
            << gguf::tensor_type_name(type) << " b=" << b << " r=" << r;
      }
    }
  }
}

// The bandwidth probe's read (dot.h, streaming_read) reads every byte once on each path:
// its sum is the 64-bit words of the 8 streams' whole lines plus the bytes after them.
TEST_P(KernelPaths, StreamingReadReadsEveryByteOnce) {
  for (uint64_t bytes : {uint64_t{8 * 64 * 37 + 100}, uint64_t{8 * 64 * 2}, uint64_t{300}}) {
    std::vector<uint64_t> words(bytes / 8 + 1);
    std::mt19937_64 rng(bytes);
    for (auto& w : words) w = rng();
    const auto* p = reinterpret_cast<const uint8_t*>(words.data());
    const uint64_t streamed = bytes / 512 * 512;  // 8 streams x whole 64-byte lines
    uint64_t want = 0;
    for (uint64_t i = 0; i < streamed / 8; ++i) want += words[i];
    for (uint64_t i = streamed; i < bytes; ++i) want += p[i];
    EXPECT_EQ(cpu::streaming_read(p, bytes), want) << bytes << " bytes";
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, KernelPaths,
                         ::testing::Values(Kernels::Scalar, Kernels::Avx2, Kernels::AvxVnni,
                                           Kernels::Avx512, Kernels::Avx512Bf16),
                         [](const auto& info) {
                           return std::string(info.param == Kernels::Scalar    ? "Scalar"
                                              : info.param == Kernels::Avx2    ? "Avx2"
                                              : info.param == Kernels::AvxVnni ? "AvxVnni"
                                              : info.param == Kernels::Avx512  ? "Avx512"
                                                                               : "Avx512Bf16");
                         });

}  // namespace
}  // namespace kvchat
