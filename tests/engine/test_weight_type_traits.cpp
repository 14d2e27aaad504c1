// The weight type table (numeric/weight_type_traits.h): every supported type has one row
// whose facts agree with the layouts and with what the GGUF reader reports; unsupported ids
// have none, and the code that reads the table keeps its old answers for them.
#include <gtest/gtest.h>

#include <set>

#include "backend/cpu/quant_dot.h"
#include "backend/cpu/repack.h"
#include "gguf/tensor_type.h"
#include "numeric/weight_type_traits.h"

namespace kvchat {
namespace {

using gguf::TensorType;

TEST(WeightTypeTraits, OneRowPerSupportedType) {
  std::set<uint32_t> seen;
  for (const WeightTypeTraits& t : weight_types()) {
    const uint32_t id = static_cast<uint32_t>(t.type);
    EXPECT_TRUE(seen.insert(id).second) << t.name;
    EXPECT_EQ(weight_type_traits(t.type), &t);
    EXPECT_EQ(t.name, gguf::ggml_type_name(id));
    const auto g = gguf::tensor_type_traits(id);
    ASSERT_TRUE(g.has_value()) << t.name;
    EXPECT_EQ(g->block_elements, static_cast<uint32_t>(t.block_values));
    EXPECT_EQ(g->block_bytes, static_cast<uint32_t>(t.block_bytes));
    EXPECT_NE(t.dequantize_row, nullptr);
    EXPECT_NE(t.quantize_row, nullptr);
  }
  EXPECT_EQ(seen.size(), 15u);
  EXPECT_EQ(
      gguf::supported_tensor_type_names(),
      "F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, IQ4_NL, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS");
}

TEST(WeightTypeTraits, Facts) {
  EXPECT_EQ(weight_type_traits(TensorType::Q4_K)->block_bytes, 144);
  EXPECT_EQ(weight_type_traits(TensorType::Q8_0)->block_bytes, 34);
  EXPECT_EQ(cpu::activation_format_of(TensorType::BF16), ActivationFormat::F32);
  EXPECT_EQ(cpu::activation_format_of(TensorType::IQ4_NL), ActivationFormat::Q8_32);
  EXPECT_EQ(cpu::activation_format_of(TensorType::IQ4_XS), ActivationFormat::Q8_K);
  std::set<TensorType> repackable;
  for (const WeightTypeTraits& t : weight_types()) {
    if (cpu::repackable(t.type)) repackable.insert(t.type);
  }
  EXPECT_EQ(repackable,
            (std::set<TensorType>{TensorType::Q4_0, TensorType::Q8_0, TensorType::Q4_K,
                                  TensorType::Q5_K, TensorType::Q6_K, TensorType::IQ4_XS}));
}

// Each row agrees with itself: the activation format its dot product wants matches its block
// size and the unpacking column it fills (checked here, not by a static_assert: under the
// sanitizers a function's address is no constant expression).
TEST(WeightTypeTraits, RowsAreConsistent) {
  for (const WeightTypeTraits& t : weight_types()) {
    SCOPED_TRACE(t.name);
    switch (t.activation) {
      case ActivationFormat::F32:
        EXPECT_EQ(t.block_values, 1);
        EXPECT_TRUE(!t.codes32 && !t.codes_k && !t.repack);
        break;
      case ActivationFormat::Q8_32:
        EXPECT_EQ(t.block_values, 32);
        EXPECT_TRUE(t.codes32 && !t.codes_k);
        break;
      case ActivationFormat::Q8_K:
        EXPECT_EQ(t.block_values, 256);
        EXPECT_TRUE(!t.codes32 && t.codes_k);
        break;
    }
  }
}

TEST(WeightTypeTraits, UnsupportedIdsHaveNoRow) {
  for (uint32_t id : {4u, 5u, 9u, 15u, 16u, 24u, 29u, 31u, 39u, 1000u, 0xFFFFFFFFu}) {
    EXPECT_EQ(weight_type_traits(static_cast<TensorType>(id)), nullptr) << id;
    EXPECT_FALSE(gguf::tensor_type_traits(id).has_value()) << id;
    EXPECT_FALSE(cpu::repackable(static_cast<TensorType>(id)));
  }
  EXPECT_EQ(gguf::ggml_type_name(15), "Q8_K");
  EXPECT_EQ(gguf::ggml_type_name(1000), "unknown");
}

}  // namespace
}  // namespace kvchat
