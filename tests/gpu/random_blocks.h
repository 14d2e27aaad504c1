// Random valid blocks of the block types beyond Q8_0/Q4_0, for tests of their decoders
// without the CPU quantizers: every code, sub-scale and packed bit random, the f16 scale
// fields finite. No CUDA here (the host-side decoder test includes it too).
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gguf/tensor_type.h"
#include "numeric/half.h"

namespace kvchat::gpu_test {

using gguf::TensorType;

// The f16 fields of a block type that random blocks fill: byte offset in the block, the
// magnitude that makes values about +-1 (the inverse of the largest code x sub-scale it
// multiplies), and its sign: +1 / -1 fixed, 0 random. The types with a min or offset term
// get a positive scale and a min that centres the values on about 0 (as a quantizer's would).
struct ScaleField {
  int offset;
  float magnitude;
  int sign;
};

inline std::vector<ScaleField> scale_fields(TensorType type) {
  switch (type) {
    case TensorType::Q4_1: return {{0, 1.0f / 8, 1}, {2, 1.0f, -1}};  // d q + m, q 0..15
    case TensorType::Q5_0: return {{0, 1.0f / 16, 0}};
    case TensorType::Q5_1: return {{0, 1.0f / 16, 1}, {2, 1.0f, -1}};  // q 0..31
    case TensorType::IQ4_NL: return {{0, 1.0f / 127, 0}};
    case TensorType::Q2_K: return {{80, 1.0f / 45, 1}, {82, 1.0f / 30, 1}};  // sc, mn 0..15, q 0..3
    case TensorType::Q3_K: return {{108, 1.0f / 128, 0}};
    case TensorType::Q4_K: return {{0, 1.0f / 472, 1}, {2, 1.0f / 63, 1}};  // sc, mn 0..63, q 0..15
    case TensorType::Q5_K: return {{0, 1.0f / 976, 1}, {2, 1.0f / 63, 1}};  // q 0..31
    case TensorType::Q6_K: return {{208, 1.0f / 4096, 0}};
    case TensorType::IQ4_XS: return {{0, 1.0f / 4064, 0}};
    default: return {};
  }
}

// The block types beyond Q8_0/Q4_0, whose test weights are random valid blocks.
inline const std::vector<TensorType>& new_block_types() {
  static const std::vector<TensorType> types = {
      TensorType::Q4_1, TensorType::Q5_0, TensorType::Q5_1, TensorType::IQ4_NL, TensorType::Q2_K,
      TensorType::Q3_K, TensorType::Q4_K, TensorType::Q5_K, TensorType::Q6_K,   TensorType::IQ4_XS};
  return types;
}

// n_blocks random valid blocks of `type` at dst: every code, sub-scale and packed bit
// random, the f16 fields finite (random sign, magnitude x [0.5, 1.5) x target), and some
// blocks with a first f16 field of -0, +0 or the smallest subnormal. Values are about
// +-target.
inline void fill_random_blocks(TensorType type, uint8_t* dst, int64_t n_blocks, uint32_t seed,
                               float target = 1.0f) {
  const auto traits = *gguf::tensor_type_traits(static_cast<uint32_t>(type));
  const std::vector<ScaleField> fields = scale_fields(type);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(0.5f, 1.5f);
  for (int64_t k = 0; k < n_blocks; ++k) {
    uint8_t* block = dst + k * traits.block_bytes;
    for (uint32_t i = 0; i < traits.block_bytes; ++i) block[i] = static_cast<uint8_t>(rng());
    for (size_t f = 0; f < fields.size(); ++f) {
      const float sign = fields[f].sign != 0 ? static_cast<float>(fields[f].sign)
                         : (rng() & 1)       ? 1.0f
                                             : -1.0f;
      uint16_t h = f32_to_f16(sign * fields[f].magnitude * unit(rng) * target);
      if (f == 0 && k % 13 == 5) h = 0x8000;  // -0
      if (f == 0 && k % 13 == 9) h = 0x0001;  // the smallest subnormal
      if (f == 0 && k % 13 == 11) h = 0x0000;
      std::memcpy(block + fields[f].offset, &h, 2);
    }
  }
}

}  // namespace kvchat::gpu_test
