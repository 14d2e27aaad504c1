// dequantize_row: the plain definition of every stored type, value by value, as the GGML
// block layouts in numeric/quant_blocks.h describe them. The reference backend and every
// fast path are checked against this.
#include <cstring>

#include "numeric/convert.h"
#include "numeric/half.h"
#include "numeric/quant_blocks.h"
#include "numeric/row_codecs.h"
#include "numeric/weight_type_traits.h"

namespace kvchat {

using gguf::TensorType;

namespace {

// 4-bit code j (0..31) of a 32-value block: the low nibbles hold values 0..15, the high 16..31.
inline int nibble(const uint8_t* qs, int j) { return j < 16 ? (qs[j] & 0xF) : (qs[j - 16] >> 4); }

inline uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

template <typename Block, typename Fn>
void for_blocks(const void* src, float* dst, int64_t n, int block_values, Fn value_of) {
  const auto* blocks = static_cast<const Block*>(src);
  for (int64_t k = 0; k < n / block_values; ++k) {
    for (int i = 0; i < block_values; ++i) dst[k * block_values + i] = value_of(blocks[k], i);
  }
}

}  // namespace

namespace dequant {

void f32(const void* src, float* dst, int64_t n) { std::memcpy(dst, src, n * sizeof(float)); }

void f16(const void* src, float* dst, int64_t n) {
  const auto* h = static_cast<const uint16_t*>(src);
  for (int64_t i = 0; i < n; ++i) dst[i] = f16_to_f32(h[i]);
}

void bf16(const void* src, float* dst, int64_t n) {
  const auto* h = static_cast<const uint16_t*>(src);
  for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_f32(h[i]);
}

void q8_0(const void* src, float* dst, int64_t n) {
  for_blocks<BlockQ8_0>(src, dst, n, kQuantBlock,
                        [](const BlockQ8_0& b, int j) { return f16_to_f32(b.d) * b.qs[j]; });
}

void q4_0(const void* src, float* dst, int64_t n) {
  for_blocks<BlockQ4_0>(src, dst, n, kQuantBlock, [](const BlockQ4_0& b, int j) {
    return f16_to_f32(b.d) * (nibble(b.qs, j) - 8);
  });
}

void q4_1(const void* src, float* dst, int64_t n) {
  for_blocks<BlockQ4_1>(src, dst, n, kQuantBlock, [](const BlockQ4_1& b, int j) {
    return f16_to_f32(b.d) * nibble(b.qs, j) + f16_to_f32(b.m);
  });
}

void q5_0(const void* src, float* dst, int64_t n) {
  for_blocks<BlockQ5_0>(src, dst, n, kQuantBlock, [](const BlockQ5_0& b, int j) {
    const int q = nibble(b.qs, j) | static_cast<int>(((load_u32(b.qh) >> j) & 1) << 4);
    return f16_to_f32(b.d) * (q - 16);
  });
}

void q5_1(const void* src, float* dst, int64_t n) {
  for_blocks<BlockQ5_1>(src, dst, n, kQuantBlock, [](const BlockQ5_1& b, int j) {
    const int q = nibble(b.qs, j) | static_cast<int>(((load_u32(b.qh) >> j) & 1) << 4);
    return f16_to_f32(b.d) * q + f16_to_f32(b.m);
  });
}

void iq4_nl(const void* src, float* dst, int64_t n) {
  for_blocks<BlockIq4Nl>(src, dst, n, kQuantBlock, [](const BlockIq4Nl& b, int j) {
    return f16_to_f32(b.d) * kIq4nlValues[nibble(b.qs, j)];
  });
}

// K-types: value i of 256. The 2-bit codes of Q2_K/Q3_K: 128-value half c = i / 128,
// byte l = i % 32 of that half's 32 bytes, bit pair (i % 128) / 32.
void q2_k(const void* src, float* dst, int64_t n) {
  for_blocks<BlockQ2_K>(src, dst, n, kSuperBlock, [](const BlockQ2_K& b, int i) {
    const int q = (b.qs[(i / 128) * 32 + i % 32] >> (2 * ((i % 128) / 32))) & 3;
    const uint8_t s = b.scales[i / 16];
    return f16_to_f32(b.d) * (s & 0xF) * q - f16_to_f32(b.dmin) * (s >> 4);
  });
}

void q3_k(const void* src, float* dst, int64_t n) {
  // As the lambdas above, with the 16 scales unpacked once per block.
  const auto* blocks = static_cast<const BlockQ3_K*>(src);
  for (int64_t k = 0; k < n / kSuperBlock; ++k) {
    const BlockQ3_K& b = blocks[k];
    int8_t scales[16];
    q3_k_scales(b.scales, scales);
    const float d = f16_to_f32(b.d);
    for (int i = 0; i < kSuperBlock; ++i) {
      const int low = (b.qs[(i / 128) * 32 + i % 32] >> (2 * ((i % 128) / 32))) & 3;
      const bool high = (b.hmask[i % 32] >> (i / 32)) & 1;  // hmask bit i / 32 of byte i % 32
      dst[k * kSuperBlock + i] = d * scales[i / 16] * (low - (high ? 0 : 4));
    }
  }
}

// Q4_K/Q5_K: 64-value chunk c = i / 64 uses bytes qs[32c .. 32c+32): low nibbles for
// its first 32 values, high nibbles for the next 32; sub-block i / 32.
void q4_k(const void* src, float* dst, int64_t n) {
  for_blocks<BlockQ4_K>(src, dst, n, kSuperBlock, [](const BlockQ4_K& b, int i) {
    const uint8_t byte = b.qs[(i / 64) * 32 + i % 32];
    const int q = (i % 64) < 32 ? (byte & 0xF) : (byte >> 4);
    uint8_t sc, mn;
    k_scale_min(i / 32, b.scales, sc, mn);
    return f16_to_f32(b.d) * sc * q - f16_to_f32(b.dmin) * mn;
  });
}

void q5_k(const void* src, float* dst, int64_t n) {
  for_blocks<BlockQ5_K>(src, dst, n, kSuperBlock, [](const BlockQ5_K& b, int i) {
    const uint8_t byte = b.qs[(i / 64) * 32 + i % 32];
    const int q =
        ((i % 64) < 32 ? (byte & 0xF) : (byte >> 4)) | (((b.qh[i % 32] >> (i / 32)) & 1) << 4);
    uint8_t sc, mn;
    k_scale_min(i / 32, b.scales, sc, mn);
    return f16_to_f32(b.d) * sc * q - f16_to_f32(b.dmin) * mn;
  });
}

// Q6_K: 128-value half c, quarter k = (i % 128) / 32, l = i % 32: low 4 bits from
// ql[64c + 32(k & 1) + l] (low nibble for k < 2, high for k >= 2), high 2 bits from
// qh[32c + l] bits 2k..2k+1.
void q6_k(const void* src, float* dst, int64_t n) {
  for_blocks<BlockQ6_K>(src, dst, n, kSuperBlock, [](const BlockQ6_K& b, int i) {
    const int c = i / 128, k = (i % 128) / 32, l = i % 32;
    const uint8_t low_byte = b.ql[64 * c + 32 * (k & 1) + l];
    const int low = k < 2 ? (low_byte & 0xF) : (low_byte >> 4);
    const int high = (b.qh[32 * c + l] >> (2 * k)) & 3;
    return f16_to_f32(b.d) * b.scales[i / 16] * ((low | (high << 4)) - 32);
  });
}

void iq4_xs(const void* src, float* dst, int64_t n) {
  for_blocks<BlockIq4Xs>(src, dst, n, kSuperBlock, [](const BlockIq4Xs& b, int i) {
    const int sub = i / 32;
    return f16_to_f32(b.d) * (iq4_xs_scale(b, sub) - 32) *
           kIq4nlValues[nibble(b.qs + 16 * sub, i % 32)];
  });
}
}  // namespace dequant

// The table's column (numeric/weight_type_traits.h); an unsupported type writes nothing.
void dequantize_row(TensorType type, const void* src, float* dst, int64_t n) {
  if (const WeightTypeTraits* t = weight_type_traits(type)) t->dequantize_row(src, dst, n);
}

}  // namespace kvchat
