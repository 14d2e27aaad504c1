// The device chunk readers of every block type (engine/src/backend/cuda/quant_chunks.cuh
// and the Q8_0/Q4_0 ones of dequant.cuh), run on the CPU through host_emulation/'s CUDA
// intrinsics, against dequantize_row (numeric/dequantize.cpp, the definition): every value
// bit-equal, through load()+group() (the GEMV, dequantize_to_f16, embedding path) and
// dequant_value() (the scalar fallback), with blocks 4-byte aligned and shifted by 2
// bytes. Also the capability check (backend/cuda_capabilities) of the weight types. Needs
// no GPU and no nvcc, so every build runs it; the `gpu` tests check the same on a device.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backend/cuda/weight_chunks.cuh"
#include "backend/cuda_capabilities.h"
#include "gpu/random_blocks.h"
#include "model/model_weights.h"
#include "numeric/convert.h"

namespace kvchat {
namespace {

using gguf::TensorType;

class ChunkDecodeOnHost : public ::testing::TestWithParam<TensorType> {};

TEST_P(ChunkDecodeOnHost, EveryValueBitEqualToDequantizeRow) {
  const TensorType type = GetParam();
  const auto traits = *gguf::tensor_type_traits(static_cast<uint32_t>(type));
  constexpr int64_t kCols = 2048;
  const int64_t n_blocks = kCols / traits.block_elements;
  for (int shift : {0, 2}) {
    SCOPED_TRACE("blocks shifted by " + std::to_string(shift) + " bytes");
    std::vector<uint32_t> storage((n_blocks * traits.block_bytes + 8) / 4 + 1);  // 4-byte aligned
    uint8_t* row = reinterpret_cast<uint8_t*>(storage.data()) + shift;
    if (gpu_test::scale_fields(type).empty()) {  // Q8_0 / Q4_0: quantize random values
      std::vector<float> src(kCols);
      for (int64_t i = 0; i < kCols; ++i)
        src[i] = static_cast<float>((i * 7919 % 2001) - 1000) / 997.0f;
      quantize_row(type, src.data(), row, kCols);
    } else {
      gpu_test::fill_random_blocks(type, row, n_blocks, 17 + shift);
    }
    std::vector<float> want(kCols);
    dequantize_row(type, row, want.data(), kCols);

    int mismatches = 0;
    const auto check = [&](float got, int64_t i, const char* path) {
      if (__float_as_uint(got) != __float_as_uint(want[i]) && ++mismatches <= 8) {
        ADD_FAILURE() << path << ": value " << i << " is " << got << ", dequantize_row gives "
                      << want[i];
      }
    };
    const cudaError_t err = cuda::dev::with_chunk(type, [&](auto chunk) {
      using T = decltype(chunk);
      for (int c = 0; c < kCols / T::kValues; ++c) {
        const typename T::Raw raw = T::load(row, c);
        for (int g = 0; g < T::kGroups; ++g) {
          const float4 v = T::group(raw, g);
          const int o = T::x_offset(c, g);
          check(v.x, o, "chunk"), check(v.y, o + 1, "chunk"), check(v.z, o + 2, "chunk"),
              check(v.w, o + 3, "chunk");
        }
      }
      return cudaSuccess;
    });
    EXPECT_EQ(err, cudaSuccess);
    for (int64_t i = 0; i < kCols; ++i) check(cuda::dev::dequant_value(type, row, i), i, "scalar");
    EXPECT_EQ(mismatches, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(BlockTypes, ChunkDecodeOnHost,
                         ::testing::Values(TensorType::Q8_0, TensorType::Q4_0, TensorType::Q4_1,
                                           TensorType::Q5_0, TensorType::Q5_1, TensorType::IQ4_NL,
                                           TensorType::Q2_K, TensorType::Q3_K, TensorType::Q4_K,
                                           TensorType::Q5_K, TensorType::Q6_K, TensorType::IQ4_XS),
                         [](const auto& info) {
                           return std::string(gguf::tensor_type_name(info.param));
                         });

// The block sizes and the dispatch agree with the GGUF traits for every loadable type.
TEST(ChunkDecodeOnHost, EveryLoadableTypeHasAReader) {
  for (uint32_t id = 0; id < 64; ++id) {
    const auto traits = gguf::tensor_type_traits(id);
    if (!traits) continue;
    const int block = cuda::dev::block_values(traits->type);
    EXPECT_EQ(static_cast<uint32_t>(block), traits->block_elements) << traits->name;
    EXPECT_EQ(cuda::dev::with_chunk(traits->type, [](auto) { return cudaSuccess; }), cudaSuccess)
        << traits->name;
  }
}

// Every type that GGUF loading supports is one the CUDA kernels read, so a supported file
// never fails on the device for its weight types.
TEST(CudaCapabilities, EveryLoadableWeightTypeIsRead) {
  int loadable = 0;
  for (uint32_t id = 0; id < 64; ++id) {
    if (const auto traits = gguf::tensor_type_traits(id)) {
      ++loadable;
      EXPECT_TRUE(cuda_reads_weight_type(traits->type)) << traits->name;
    }
  }
  EXPECT_EQ(loadable, 15);
}

// A type the kernels do not read is refused before any upload, naming the tensor and type.
TEST(CudaCapabilities, UnreadTypeIsNamed) {
  const uint8_t byte = 0;
  ModelWeights w;
  w.tied_embeddings = true;
  w.token_embd = WeightView{TensorType::Q4_K, &byte, 8, 256, 144};
  w.layers.resize(2);
  w.layers[1].w_down = WeightView{static_cast<TensorType>(16), &byte, 8, 256, 66};  // IQ2_XXS
  w.layers[1].wq = WeightView{TensorType::Q6_K, &byte, 8, 256, 210};
  const Status s = cuda_can_read_weights(w);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("'blk.1.ffn_down.weight' (IQ2_XXS)"), std::string::npos)
      << s.message();
  EXPECT_EQ(s.message().find("token_embd"), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find("attn_q"), std::string::npos) << s.message();
  w.layers[1].w_down.type = TensorType::IQ4_XS;
  EXPECT_TRUE(cuda_can_read_weights(w));
}

}  // namespace
}  // namespace kvchat
