// The block types beyond Q8_0/Q4_0 (Q4_1, Q5_0, Q5_1, IQ4_NL, Q2_K, Q3_K, Q4_K, Q5_K,
// Q6_K, IQ4_XS) in the device kernels, against numeric/dequantize.cpp (the definition):
//  - embed_rows: f32 values bit-equal to dequantize_row, chunk path and scalar path, with
//    blocks at every 2-byte alignment;
//  - dequantize_to_f16 (the prefill GEMM's weights): f32_to_f16 of dequantize_row, exactly;
//  - gemv: within 1e-4 relative L2 of a float64 dot of the dequantized rows, every input
//    mode, 1..8 tokens, accumulate or not, aligned, shifted and scalar-fallback layouts.
// Weights are random valid blocks (cuda_test_support.h fill_random_blocks): every code,
// sub-scale and high bit random, finite f16 scales including -0, 0 and a subnormal.
// Rows that are not whole blocks are refused without a device; the kernel tests skip
// without one. (The capability check of the types: test_chunk_decode_host.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend/cuda/cuda_ops.h"
#include "cuda_test_support.h"
#include "gguf/tensor_type.h"

namespace kvchat {
namespace {

using namespace gpu_test;

class CudaQuant : public ::testing::TestWithParam<TensorType> {
 protected:
  int block() const {
    return static_cast<int>(
        gguf::tensor_type_traits(static_cast<uint32_t>(GetParam()))->block_elements);
  }
};

TEST_P(CudaQuant, EmbeddingIsBitEqualToDequantizeRow) {
  SKIP_WITHOUT_DEVICE();
  const TensorType t = GetParam();
  check_embed(t, KVCHAT_ON_DEVICE_OR_HOST(300, 40), KVCHAT_ON_DEVICE_OR_HOST(4096, 1024), false);
  check_embed(t, 33, 256, false);     // rows of 256: 2-mod-4 rows for 22/18/110/210-byte blocks
  check_embed(t, 33, 256, false, 2);  // every row shifted by 2 bytes
  check_embed(t, 33, 256, true);      // misaligned output: the scalar path
  check_embed(t, 33, 256, true, 2);
  if (block() == 32) check_embed(t, 33, 96, false);
}

TEST_P(CudaQuant, DequantizeToF16IsExact) {
  SKIP_WITHOUT_DEVICE();
  const TensorType t = GetParam();
  check_dequantize_to_f16(t, 37, KVCHAT_ON_DEVICE_OR_HOST(4096, 1024), false);
  check_dequantize_to_f16(t, 37, 256, false);
  check_dequantize_to_f16(t, 37, 256, false, 2);
  check_dequantize_to_f16(t, 37, 256, true);  // the scalar path
  check_dequantize_to_f16(t, 37, 256, true, 2);
}

TEST_P(CudaQuant, GemvMatchesFloat64Dot) {
  SKIP_WITHOUT_DEVICE();
  const TensorType t = GetParam();
  // Decode shapes (a Llama FFN's 11008 columns, a 40001-row vocab), tiny ones (fewer chunks
  // than lanes), shifted blocks, and a misaligned x (the scalar fallback).
#ifdef KVCHAT_CUDA_HOST_EMULATION  // multi-chunk rows with a tail, many row groups, fewer rows
  const GemvCase cases[] = {{t, 67, 1024},   {t, 35, 1280},      {t, 37, 256},     {t, 301, 256},
                            {t, 37, 256, 2}, {t, 37, 256, 0, 1}, {t, 3, 512, 2, 1}};
#else
  const GemvCase cases[] = {{t, 1000, 4096},    {t, 4097, 4096},  {t, 1000, 11008},
                            {t, 37, 256},       {t, 40001, 256},  {t, 37, 256, 2},
                            {t, 37, 256, 0, 1}, {t, 3, 512, 2, 1}};
#endif
  for (const GemvCase& c : cases) {
    check_gemv(c);
    if (HasFatalFailure()) return;
  }
  if (block() == 32) check_gemv({t, 37, 96});
}

TEST_P(CudaQuant, RowsNotInWholeBlocksAreRefused) {
  // Checked before anything touches a device.
  const TensorType t = GetParam();
  const int64_t cols = block() + 16;
  const DeviceMatrix dm{t, nullptr, 4, cols, 0};
  EXPECT_EQ(cuda::gemv(dm, nullptr, nullptr, 1, GemvArgs{}, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cuda::dequantize_to_f16(dm, nullptr, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cuda::embed_rows(dm, nullptr, 1, nullptr, nullptr), cudaErrorInvalidValue);
}

INSTANTIATE_TEST_SUITE_P(NewBlockTypes, CudaQuant, ::testing::ValuesIn(new_block_types()),
                         [](const auto& info) {
                           return std::string(gguf::tensor_type_name(info.param));
                         });

}  // namespace
}  // namespace kvchat
