// Weights repacked into 8-row groups (backend/cpu/repack.h): the repacking is exact (every
// row comes back byte for byte), and the dots over a repacked matrix are bit for bit those
// of the scalar definition (quant_dot_scalar of each original row) on every kernel path
// the CPU runs, for any number of tokens, including codes and activations at their
// extremes (where an int16 pair sum would saturate if the kernels summed too many).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/dot.h"
#include "backend/cpu/quant_dot.h"
#include "backend/cpu/repack.h"
#include "backend/cpu/row_kernels.h"
#include "support/cpuinfo_vendor.h"
#include "random_quant_rows.h"

namespace kvchat {
namespace {

using gguf::TensorType;

constexpr TensorType kRepackTypes[] = {TensorType::Q4_0, TensorType::Q8_0, TensorType::Q4_K,
                                       TensorType::Q5_K, TensorType::Q6_K, TensorType::IQ4_XS};

// Avx512 twice: its 4-token kernels shuffling the codes per vpdpbusd, and by broadcast loads
// (cpu::quad_kernels_broadcast picks one by vendor; both run here).
enum class Path { Scalar, Avx2, AvxVnni, Avx512Shuffle, Avx512Broadcast };

std::string path_name(Path p) {
  switch (p) {
    case Path::Scalar: return "Scalar";
    case Path::Avx2: return "Avx2";
    case Path::AvxVnni: return "AvxVnni";
    case Path::Avx512Shuffle: return "Avx512Shuffle";
    case Path::Avx512Broadcast: return "Avx512Broadcast";
  }
  return "?";
}

bool path_runs(Path p) {
  switch (p) {
    case Path::Scalar: return true;
    case Path::Avx2: return cpu::cpu_has_avx2();
    case Path::AvxVnni: return cpu::cpu_has_avxvnni();
    case Path::Avx512Shuffle:
    case Path::Avx512Broadcast: return cpu::cpu_has_avx512vnni();
  }
  return false;
}

using RowsFn = void (*)(TensorType, const uint8_t*, uint64_t, int64_t, int64_t, const void*,
                        uint64_t, int64_t, int64_t, float*, int64_t);

RowsFn path_fn(Path p) {
  switch (p) {
    case Path::Scalar: return cpu::repacked_rows_scalar;
    case Path::Avx2: return cpu::repacked_rows_avx2;
    case Path::AvxVnni: return cpu::repacked_rows_avxvnni;
    case Path::Avx512Shuffle:
    case Path::Avx512Broadcast: return cpu::repacked_rows_avx512;
  }
  return nullptr;
}

int64_t cols_for(TensorType type) {
  return cpu::activation_format_of(type) == cpu::ActivationFormat::Q8_K ? 768 : 352;
}

// n_tokens tokens' activation blocks, back to back (stride bytes apart).
struct Tokens {
  std::vector<uint8_t> bytes;
  uint64_t stride = 0;
};

Tokens quantized_tokens(TensorType type, const std::vector<float>& X, int64_t n_tokens,
                        int64_t cols) {
  Tokens t;
  const bool k = cpu::activation_format_of(type) == cpu::ActivationFormat::Q8_K;
  t.stride =
      k ? cols / kSuperBlock * sizeof(BlockQ8_K) : cols / kQuantBlock * sizeof(cpu::BlockQ8_32);
  t.bytes.resize(n_tokens * t.stride);
  for (int64_t i = 0; i < n_tokens; ++i) {
    if (k) {
      cpu::quantize_activations_q8_k_scalar(
          X.data() + i * cols, reinterpret_cast<BlockQ8_K*>(t.bytes.data() + i * t.stride), cols);
    } else {
      cpu::quantize_activations_q8_32_scalar(
          X.data() + i * cols, reinterpret_cast<cpu::BlockQ8_32*>(t.bytes.data() + i * t.stride),
          cols);
    }
  }
  return t;
}

TEST(Repack, EveryRowComesBackByteForByte) {
  for (TensorType type : kRepackTypes) {
    const int64_t rows = 24, cols = cols_for(type);
    const uint64_t row_bytes = cols / traits(type).block_elements * traits(type).block_bytes;
    const auto plain = random_rows(type, rows, cols, 11 + static_cast<uint32_t>(type));
    std::vector<uint8_t> packed(plain.size()), row(row_bytes);
    ASSERT_TRUE(cpu::repackable(type));
    cpu::repack_rows(type, plain.data(), row_bytes, rows, packed.data());
    EXPECT_NE(packed, plain) << gguf::tensor_type_name(type) << ": nothing was interleaved";
    for (int64_t r = 0; r < rows; ++r) {
      cpu::unpack_row(type, packed.data(), row_bytes, r, row.data());
      ASSERT_EQ(std::memcmp(row.data(), plain.data() + r * row_bytes, row_bytes), 0)
          << gguf::tensor_type_name(type) << " row " << r;
    }
  }
  EXPECT_FALSE(cpu::repackable(TensorType::Q2_K));
  EXPECT_FALSE(cpu::repackable(TensorType::F16));
}

// The x8 layout at one place by hand: Q4_0 group 0, block 0 starts with the 8 rows' d, then
// qs bytes 0..3 of rows 0..7; row 3's qs bytes 4..7 follow at 16 + 32 + 3 * 4.
TEST(Repack, Q4_0LayoutByHand) {
  const int64_t cols = 64;
  const uint64_t row_bytes = 2 * sizeof(BlockQ4_0);
  const auto plain = random_rows(TensorType::Q4_0, 8, cols, 5);
  std::vector<uint8_t> packed(plain.size());
  cpu::repack_rows(TensorType::Q4_0, plain.data(), row_bytes, 8, packed.data());
  for (int r = 0; r < 8; ++r) {
    const auto& b = *reinterpret_cast<const BlockQ4_0*>(plain.data() + r * row_bytes);
    uint16_t d;
    std::memcpy(&d, packed.data() + 2 * r, 2);
    EXPECT_EQ(d, b.d) << "row " << r;
    EXPECT_EQ(std::memcmp(packed.data() + 16 + 4 * r, b.qs, 4), 0) << "row " << r;
  }
  const auto& row3 = *reinterpret_cast<const BlockQ4_0*>(plain.data() + 3 * row_bytes);
  EXPECT_EQ(std::memcmp(packed.data() + 16 + 32 + 12, row3.qs + 4, 4), 0);
  const auto& row2_block1 =
      *reinterpret_cast<const BlockQ4_0*>(plain.data() + 2 * row_bytes + sizeof(BlockQ4_0));
  uint16_t d;
  std::memcpy(&d, packed.data() + 8 * sizeof(BlockQ4_0) + 4, 2);  // block 1 of the group, row 2's d
  EXPECT_EQ(d, row2_block1.d);
}

class RepackedPaths : public ::testing::TestWithParam<Path> {
 protected:
  void SetUp() override {
    if (!path_runs(GetParam()))
      GTEST_SKIP() << path_name(GetParam()) << " kernels do not run on this CPU (or build)";
    if (GetParam() == Path::Avx512Shuffle) cpu::force_quad_kernels(cpu::QuadKernels::kShuffle);
    if (GetParam() == Path::Avx512Broadcast) cpu::force_quad_kernels(cpu::QuadKernels::kBroadcast);
  }
  void TearDown() override { cpu::force_quad_kernels(cpu::QuadKernels::kByVendor); }
};

// Every (row, token) of a repacked matrix against quant_dot_scalar of the original row:
// bitwise equal, for rows [r0, r1) of 32 (what is outside the range untouched). [8, 24): two
// groups (the AVX-512 build's 16-row kernels); [0, 24): 16 rows and an 8-row group after them.
void expect_bitwise_scalar(Path path, TensorType type, const std::vector<uint8_t>& plain,
                           int64_t cols, const std::vector<float>& X, int64_t n_tokens,
                           const std::string& what, int64_t r0 = 8, int64_t r1 = 24) {
  const int64_t rows = 32, ldy = rows + 3;
  const uint64_t row_bytes = cols / traits(type).block_elements * traits(type).block_bytes;
  std::vector<uint8_t> packed(plain.size());
  cpu::repack_rows(type, plain.data(), row_bytes, rows, packed.data());
  const Tokens a = quantized_tokens(type, X, n_tokens, cols);
  std::vector<float> Y(n_tokens * ldy, -12345.0f);
  path_fn(path)(type, packed.data(), row_bytes, r0, r1, a.bytes.data(), a.stride, n_tokens, cols,
                Y.data(), ldy);
  for (int64_t t = 0; t < n_tokens; ++t) {
    for (int64_t r = 0; r < ldy; ++r) {
      const float got = Y[t * ldy + r];
      if (r < r0 || r >= r1) {
        ASSERT_EQ(got, -12345.0f) << "wrote outside its rows: r=" << r;
        continue;
      }
      const float want = cpu::quant_dot_scalar(type, plain.data() + r * row_bytes,
                                               a.bytes.data() + t * a.stride, cols);
      ASSERT_EQ(std::memcmp(&got, &want, sizeof(float)), 0)
          << path_name(path) << " " << gguf::tensor_type_name(type) << " " << what
          << " tokens=" << n_tokens << " t=" << t << " r=" << r << ": " << got << " vs " << want;
    }
  }
}

TEST_P(RepackedPaths, BitForBitTheScalarDefinition) {
  for (TensorType type : kRepackTypes) {
    const int64_t cols = cols_for(type);
    const auto plain = random_rows(type, 32, cols, 100 + static_cast<uint32_t>(type));
    for (int64_t n_tokens : {1, 2, 3, 4, 5, 7, 9}) {
      const auto X = random_values(n_tokens * cols, 7 + static_cast<uint32_t>(n_tokens));
      expect_bitwise_scalar(GetParam(), type, plain, cols, X, n_tokens, "random");
      expect_bitwise_scalar(GetParam(), type, plain, cols, X, n_tokens, "random", 0, 24);
    }
  }
}

// Codes at their largest (every code byte 0xFF: 15, 31, 63; IQ4_XS 0x00: the table's
// -127; Q8_0's -1 and -128 mixed) against activations at +-127: the sums the kernels keep in
// int16 reach their largest here.
TEST_P(RepackedPaths, ExtremeCodesAndActivations) {
  for (TensorType type : kRepackTypes) {
    const int64_t cols = cols_for(type);
    auto plain = random_rows(type, 32, cols, 900 + static_cast<uint32_t>(type));
    const auto tr = traits(type);
    const int64_t n_blocks = 32 * cols / tr.block_elements;
    for (int64_t k = 0; k < n_blocks;
         ++k) {  // every byte but the f16 scales: 0xFF (Q8_0: 0x80 in half)
      uint8_t* p = plain.data() + k * tr.block_bytes;
      const int d_at = type == TensorType::Q6_K ? 208 : 0;
      const int keep = type == TensorType::Q4_K || type == TensorType::Q5_K ? 4 : 2;
      for (int i = 0; i < static_cast<int>(tr.block_bytes); ++i) {
        if (i >= d_at && i < d_at + keep) continue;
        p[i] = type == TensorType::Q8_0 && (i + k) % 2 ? 0x80
               : type == TensorType::IQ4_XS && i >= 8  ? 0x00
                                                       : 0xFF;
      }
    }
    for (float sign : {1.0f, -1.0f}) {
      for (int64_t n_tokens : {3, 4}) {  // 4: the 4-token kernels (repacked_quad_kernels.inl)
        std::vector<float> X(n_tokens * cols, sign);  // quantized to +-127 everywhere
        expect_bitwise_scalar(GetParam(), type, plain, cols, X, n_tokens,
                              sign > 0 ? "extreme+" : "extreme-");
      }
    }
  }
}

// The 4-token kernels by broadcast loads on Intel, by shuffles on AMD (dot.h).
TEST(QuadKernelChoice, BroadcastOnIntelShuffleOnAmd) {
  const std::string vendor = cpuinfo_vendor();
  if (vendor == "GenuineIntel") {
    EXPECT_TRUE(cpu::quad_kernels_broadcast());
  } else if (vendor == "AuthenticAMD") {
    EXPECT_FALSE(cpu::quad_kernels_broadcast());
  } else {
    GTEST_SKIP() << "vendor " << vendor << ": no rule to check";
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, RepackedPaths,
                         ::testing::Values(Path::Scalar, Path::Avx2, Path::AvxVnni,
                                           Path::Avx512Shuffle, Path::Avx512Broadcast),
                         [](const auto& info) { return path_name(info.param); });

// matmul_rows on a repacked view (WeightView::repacked) goes to the repacked kernels of the
// best path and gives what the plain view gives on the scalar path, bit for bit.
TEST(RepackedView, MatmulRowsEqualsTheScalarPlainView) {
  for (TensorType type : kRepackTypes) {
    const int64_t rows = 48, cols = cols_for(type), n_tokens = 6;
    const uint64_t row_bytes = cols / traits(type).block_elements * traits(type).block_bytes;
    const auto plain = random_rows(type, rows, cols, 40 + static_cast<uint32_t>(type));
    std::vector<uint8_t> packed(plain.size());
    cpu::repack_rows(type, plain.data(), row_bytes, rows, packed.data());
    WeightView w{type, plain.data(), rows, cols, row_bytes};
    WeightView wp = w;
    wp.data = packed.data();
    wp.repacked = true;
    const auto X = random_values(n_tokens * cols, 3);
    cpu::PreparedActivations act;
    cpu::RowScratch scratch;
    std::vector<float> want(n_tokens * rows), got(n_tokens * rows);
    cpu::force_scalar_kernels(true);
    act.prepare(X.data(), n_tokens, cols, type);
    cpu::matmul_rows(w, act, 0, rows, want.data(), rows, scratch);
    cpu::force_scalar_kernels(false);
    act.prepare(X.data(), n_tokens, cols, type);  // the SIMD quantizers give the same bytes
    cpu::matmul_rows(wp, act, 16, rows, got.data(), rows, scratch);
    cpu::matmul_rows(wp, act, 0, 16, got.data(), rows, scratch);
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
        << gguf::tensor_type_name(type);
  }
}

}  // namespace
}  // namespace kvchat
