// Codes and scales of one block per type (numeric/quant_codes.h), as the layouts of
// numeric/quant_blocks.h store them.
#include "numeric/quant_codes.h"

#include <cstring>

#include "numeric/half.h"

namespace kvchat::codes {

namespace {

inline uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
// 4-bit code j (0..31) of a 32-value block: low nibbles hold values 0..15, high 16..31.
inline int nibble(const uint8_t* qs, int j) { return j < 16 ? (qs[j] & 0xF) : (qs[j - 16] >> 4); }

template <bool kFive>
CodesK q45_k(const uint8_t* block) {
  CodesK out{};
  const auto* q4 = reinterpret_cast<const BlockQ4_K*>(block);
  const auto* q5 = reinterpret_cast<const BlockQ5_K*>(block);
  const uint8_t* qs = kFive ? q5->qs : q4->qs;
  for (int i = 0; i < kSuperBlock; ++i) {
    const uint8_t byte = qs[(i / 64) * 32 + i % 32];
    out.code[i] = (i % 64) < 32 ? (byte & 0xF) : (byte >> 4);
    if (kFive) out.code[i] |= ((q5->qh[i % 32] >> (i / 32)) & 1) << 4;
  }
  for (int j = 0; j < 8; ++j) {
    uint8_t sc, mn;
    k_scale_min(j, kFive ? q5->scales : q4->scales, sc, mn);
    out.scale[2 * j] = out.scale[2 * j + 1] = sc;
    out.min[2 * j] = out.min[2 * j + 1] = mn;
  }
  out.d = f16_to_f32(kFive ? q5->d : q4->d), out.dmin = f16_to_f32(kFive ? q5->dmin : q4->dmin);
  return out;
}

}  // namespace

Codes32 q8_0(const uint8_t* block) {
  Codes32 out{};
  const auto& b = *reinterpret_cast<const BlockQ8_0*>(block);
  for (int j = 0; j < kQuantBlock; ++j) out.code[j] = b.qs[j];
  out.d = f16_to_f32(b.d);
  return out;
}

Codes32 q4_0(const uint8_t* block) {
  Codes32 out{};
  const auto& b = *reinterpret_cast<const BlockQ4_0*>(block);
  for (int j = 0; j < kQuantBlock; ++j) out.code[j] = nibble(b.qs, j);
  out.d = f16_to_f32(b.d), out.offset = 8;
  return out;
}

Codes32 q4_1(const uint8_t* block) {
  Codes32 out{};
  const auto& b = *reinterpret_cast<const BlockQ4_1*>(block);
  for (int j = 0; j < kQuantBlock; ++j) out.code[j] = nibble(b.qs, j);
  out.d = f16_to_f32(b.d), out.m = f16_to_f32(b.m);
  return out;
}

Codes32 q5_0(const uint8_t* block) {
  Codes32 out{};
  const auto& b = *reinterpret_cast<const BlockQ5_0*>(block);
  const uint32_t qh = load_u32(b.qh);
  for (int j = 0; j < kQuantBlock; ++j)
    out.code[j] = nibble(b.qs, j) | static_cast<int>(((qh >> j) & 1) << 4);
  out.d = f16_to_f32(b.d), out.offset = 16;
  return out;
}

Codes32 q5_1(const uint8_t* block) {
  Codes32 out{};
  const auto& b = *reinterpret_cast<const BlockQ5_1*>(block);
  const uint32_t qh = load_u32(b.qh);
  for (int j = 0; j < kQuantBlock; ++j)
    out.code[j] = nibble(b.qs, j) | static_cast<int>(((qh >> j) & 1) << 4);
  out.d = f16_to_f32(b.d), out.m = f16_to_f32(b.m);
  return out;
}

Codes32 iq4_nl(const uint8_t* block) {
  Codes32 out{};
  const auto& b = *reinterpret_cast<const BlockIq4Nl*>(block);
  for (int j = 0; j < kQuantBlock; ++j) out.code[j] = kIq4nlValues[nibble(b.qs, j)];
  out.d = f16_to_f32(b.d);
  return out;
}

CodesK q2_k(const uint8_t* block) {
  CodesK out{};
  const auto& b = *reinterpret_cast<const BlockQ2_K*>(block);
  for (int i = 0; i < kSuperBlock; ++i)
    out.code[i] = (b.qs[(i / 128) * 32 + i % 32] >> (2 * ((i % 128) / 32))) & 3;
  for (int g = 0; g < 16; ++g) out.scale[g] = b.scales[g] & 0xF, out.min[g] = b.scales[g] >> 4;
  out.d = f16_to_f32(b.d), out.dmin = f16_to_f32(b.dmin);
  return out;
}

CodesK q3_k(const uint8_t* block) {
  CodesK out{};
  const auto& b = *reinterpret_cast<const BlockQ3_K*>(block);
  for (int i = 0; i < kSuperBlock; ++i) {
    const int low = (b.qs[(i / 128) * 32 + i % 32] >> (2 * ((i % 128) / 32))) & 3;
    out.code[i] = low | (((b.hmask[i % 32] >> (i / 32)) & 1) << 2);
  }
  int8_t sc[16];
  q3_k_scales(b.scales, sc);
  for (int g = 0; g < 16; ++g) out.scale[g] = sc[g];
  out.offset = 4;
  out.d = f16_to_f32(b.d);
  return out;
}

CodesK q4_k(const uint8_t* block) { return q45_k<false>(block); }
CodesK q5_k(const uint8_t* block) { return q45_k<true>(block); }

CodesK q6_k(const uint8_t* block) {
  CodesK out{};
  const auto& b = *reinterpret_cast<const BlockQ6_K*>(block);
  for (int i = 0; i < kSuperBlock; ++i) {
    const int c = i / 128, k = (i % 128) / 32, l = i % 32;
    const uint8_t low_byte = b.ql[64 * c + 32 * (k & 1) + l];
    const int low = k < 2 ? (low_byte & 0xF) : (low_byte >> 4);
    out.code[i] = low | (((b.qh[32 * c + l] >> (2 * k)) & 3) << 4);
  }
  for (int g = 0; g < 16; ++g) out.scale[g] = b.scales[g];
  out.offset = 32;
  out.d = f16_to_f32(b.d);
  return out;
}

CodesK iq4_xs(const uint8_t* block) {
  CodesK out{};
  const auto& b = *reinterpret_cast<const BlockIq4Xs*>(block);
  for (int i = 0; i < kSuperBlock; ++i)
    out.code[i] = kIq4nlValues[nibble(b.qs + 16 * (i / 32), i % 32)];
  for (int g = 0; g < 16; ++g) out.scale[g] = iq4_xs_scale(b, g / 2) - 32;
  out.d = f16_to_f32(b.d);
  return out;
}

}  // namespace kvchat::codes
