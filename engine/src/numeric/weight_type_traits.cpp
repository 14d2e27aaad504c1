// The weight type table (columns: numeric/weight_type_traits.h).
#include "numeric/weight_type_traits.h"

#include <array>

#include "numeric/quant_blocks.h"
#include "numeric/quantize.h"
#include "numeric/row_codecs.h"

namespace kvchat {

using gguf::TensorType;

namespace {

// quantize_row_* of numeric/quantize.h with an untyped destination.
template <typename Block, void (*kEncode)(const float*, Block*, int64_t)>
void encode_blocks(const float* src, void* dst, int64_t n) {
  kEncode(src, static_cast<Block*>(dst), n);
}

// The x8 layouts, field by field: {offset in the original block, bytes, interleave unit}.
constexpr RepackLayout kRepackQ4_0 = {2, {{0, 2, 2}, {2, 16, 4}}};  // d | qs
constexpr RepackLayout kRepackQ8_0 = {2, {{0, 2, 2}, {2, 32, 4}}};  // d | qs
constexpr RepackLayout kRepackQ4_K = {
    4, {{0, 2, 2}, {2, 2, 2}, {4, 12, 4}, {16, 128, 4}}};  // d dmin scales qs
constexpr RepackLayout kRepackQ5_K = {
    5, {{0, 2, 2}, {2, 2, 2}, {4, 12, 4}, {16, 32, 4}, {48, 128, 4}}};  // .. qh qs
constexpr RepackLayout kRepackQ6_K = {
    4, {{208, 2, 2}, {192, 16, 1}, {0, 128, 4}, {128, 64, 4}}};  // d scales ql qh
constexpr RepackLayout kRepackIq4Xs = {
    4, {{0, 2, 2}, {2, 2, 2}, {4, 4, 4}, {8, 128, 4}}};  // d sh sl qs

constexpr auto F32 = ActivationFormat::F32, Q8_32 = ActivationFormat::Q8_32,
               Q8_K = ActivationFormat::Q8_K;
constexpr int kQ = kQuantBlock, kS = kSuperBlock;

// clang-format off
//  type              name      values bytes                activation dequantize       quantize                                                codes32        codes_k        repack
constexpr std::array<WeightTypeTraits, 15> kTable = {{
  {TensorType::F32,    "F32",    1,  4,                  F32,   dequant::f32,    encode::f32,                                             nullptr,       nullptr,       nullptr},
  {TensorType::F16,    "F16",    1,  2,                  F32,   dequant::f16,    encode::f16,                                             nullptr,       nullptr,       nullptr},
  {TensorType::BF16,   "BF16",   1,  2,                  F32,   dequant::bf16,   encode::bf16,                                            nullptr,       nullptr,       nullptr},
  {TensorType::Q8_0,   "Q8_0",   kQ, sizeof(BlockQ8_0),  Q8_32, dequant::q8_0,   encode_blocks<BlockQ8_0, quantize_row_q8_0>,             codes::q8_0,   nullptr,       &kRepackQ8_0},
  {TensorType::Q4_0,   "Q4_0",   kQ, sizeof(BlockQ4_0),  Q8_32, dequant::q4_0,   encode_blocks<BlockQ4_0, quantize_row_q4_0>,             codes::q4_0,   nullptr,       &kRepackQ4_0},
  {TensorType::Q4_1,   "Q4_1",   kQ, sizeof(BlockQ4_1),  Q8_32, dequant::q4_1,   encode_blocks<BlockQ4_1, quantize_row_q4_1>,             codes::q4_1,   nullptr,       nullptr},
  {TensorType::Q5_0,   "Q5_0",   kQ, sizeof(BlockQ5_0),  Q8_32, dequant::q5_0,   encode_blocks<BlockQ5_0, quantize_row_q5_0>,             codes::q5_0,   nullptr,       nullptr},
  {TensorType::Q5_1,   "Q5_1",   kQ, sizeof(BlockQ5_1),  Q8_32, dequant::q5_1,   encode_blocks<BlockQ5_1, quantize_row_q5_1>,             codes::q5_1,   nullptr,       nullptr},
  {TensorType::IQ4_NL, "IQ4_NL", kQ, sizeof(BlockIq4Nl), Q8_32, dequant::iq4_nl, encode_blocks<BlockIq4Nl, quantize_row_iq4_nl>,          codes::iq4_nl, nullptr,       nullptr},
  {TensorType::Q2_K,   "Q2_K",   kS, sizeof(BlockQ2_K),  Q8_K,  dequant::q2_k,   encode_blocks<BlockQ2_K, quantize_row_q2_k>,             nullptr,       codes::q2_k,   nullptr},
  {TensorType::Q3_K,   "Q3_K",   kS, sizeof(BlockQ3_K),  Q8_K,  dequant::q3_k,   encode_blocks<BlockQ3_K, quantize_row_q3_k>,             nullptr,       codes::q3_k,   nullptr},
  {TensorType::Q4_K,   "Q4_K",   kS, sizeof(BlockQ4_K),  Q8_K,  dequant::q4_k,   encode_blocks<BlockQ4_K, quantize_row_q4_k>,             nullptr,       codes::q4_k,   &kRepackQ4_K},
  {TensorType::Q5_K,   "Q5_K",   kS, sizeof(BlockQ5_K),  Q8_K,  dequant::q5_k,   encode_blocks<BlockQ5_K, quantize_row_q5_k>,             nullptr,       codes::q5_k,   &kRepackQ5_K},
  {TensorType::Q6_K,   "Q6_K",   kS, sizeof(BlockQ6_K),  Q8_K,  dequant::q6_k,   encode_blocks<BlockQ6_K, quantize_row_q6_k>,             nullptr,       codes::q6_k,   &kRepackQ6_K},
  {TensorType::IQ4_XS, "IQ4_XS", kS, sizeof(BlockIq4Xs), Q8_K,  dequant::iq4_xs, encode_blocks<BlockIq4Xs, quantize_row_iq4_xs>,          nullptr,       codes::iq4_xs, &kRepackIq4Xs},
}};
// clang-format on

// GGML id -> index into kTable, -1 for none (ids above kMaxId: none).
constexpr uint32_t kMaxId = 31;
constexpr std::array<int8_t, kMaxId + 1> kIndex = [] {
  std::array<int8_t, kMaxId + 1> index{};
  for (auto& i : index) i = -1;
  for (size_t k = 0; k < kTable.size(); ++k)
    index[static_cast<uint32_t>(kTable[k].type)] = static_cast<int8_t>(k);
  return index;
}();

}  // namespace

const WeightTypeTraits* weight_type_traits(TensorType type) {
  const auto id = static_cast<uint32_t>(type);
  if (id > kMaxId || kIndex[id] < 0) return nullptr;
  return &kTable[kIndex[id]];
}

std::span<const WeightTypeTraits> weight_types() { return kTable; }

}  // namespace kvchat
