// Random weight rows of every quantized type for the kernel tests (test_quant_dot,
// test_repacked_dot): valid codes, finite f16 scales.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstring>
#include <random>
#include <vector>

#include "gguf/tensor_type.h"
#include "numeric/convert.h"
#include "numeric/half.h"
#include "numeric/quant_blocks.h"

namespace kvchat {

inline gguf::TensorTypeTraits traits(gguf::TensorType t) {
  return *gguf::tensor_type_traits(static_cast<uint32_t>(t));
}

inline std::vector<float> random_values(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// A random small finite half (about 2^-8 .. 2^-5, either sign when `signed_ok`).
inline uint16_t random_scale(std::mt19937& rng, bool signed_ok) {
  const float mag = std::ldexp(1.0f + (rng() % 1000) / 1000.0f, -8 + static_cast<int>(rng() % 4));
  return f32_to_f16(signed_ok && (rng() & 1) ? -mag : mag);
}

// `n_rows` rows of n values of `type`: random bytes (valid codes for every type) with
// finite f16 scales; Q8_0/Q4_0 and the float types through quantize_row of random values.
inline std::vector<uint8_t> random_rows(gguf::TensorType type, int64_t n_rows, int64_t n,
                                        uint32_t seed) {
  const auto tr = traits(type);
  const uint64_t row_bytes = n / tr.block_elements * tr.block_bytes;
  std::vector<uint8_t> out(n_rows * row_bytes);
  std::mt19937 rng(seed);
  for (auto& b : out) b = static_cast<uint8_t>(rng());
  const int64_t n_blocks = n_rows * (n / tr.block_elements);
  for (int64_t k = 0; k < n_blocks; ++k) {
    uint8_t* p = out.data() + k * tr.block_bytes;
    auto set = [&](size_t offset, bool signed_ok) {
      const uint16_t h = random_scale(rng, signed_ok);
      std::memcpy(p + offset, &h, 2);
    };
    switch (type) {
      case gguf::TensorType::Q8_0: set(offsetof(BlockQ8_0, d), true); break;
      case gguf::TensorType::Q4_0: set(offsetof(BlockQ4_0, d), true); break;
      case gguf::TensorType::Q4_1:
        set(offsetof(BlockQ4_1, d), false), set(offsetof(BlockQ4_1, m), true);
        break;
      case gguf::TensorType::Q5_0: set(offsetof(BlockQ5_0, d), true); break;
      case gguf::TensorType::Q5_1:
        set(offsetof(BlockQ5_1, d), false), set(offsetof(BlockQ5_1, m), true);
        break;
      case gguf::TensorType::IQ4_NL: set(offsetof(BlockIq4Nl, d), true); break;
      case gguf::TensorType::Q2_K:
        set(offsetof(BlockQ2_K, d), false), set(offsetof(BlockQ2_K, dmin), false);
        break;
      case gguf::TensorType::Q3_K: set(offsetof(BlockQ3_K, d), true); break;
      case gguf::TensorType::Q4_K:
        set(offsetof(BlockQ4_K, d), false), set(offsetof(BlockQ4_K, dmin), false);
        break;
      case gguf::TensorType::Q5_K:
        set(offsetof(BlockQ5_K, d), false), set(offsetof(BlockQ5_K, dmin), false);
        break;
      case gguf::TensorType::Q6_K: set(offsetof(BlockQ6_K, d), true); break;
      case gguf::TensorType::IQ4_XS: set(offsetof(BlockIq4Xs, d), true); break;
      default: break;
    }
  }
  if (type == gguf::TensorType::F32 || type == gguf::TensorType::F16 ||
      type == gguf::TensorType::BF16 || type == gguf::TensorType::Q8_0 ||
      type == gguf::TensorType::Q4_0) {  // the types quantize_row writes: real rows
    const auto v = random_values(n_rows * n, seed + 1);
    quantize_row(type, v.data(), out.data(), n_rows * n);
  }
  return out;
}

}  // namespace kvchat
