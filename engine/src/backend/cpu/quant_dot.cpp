// Activation quantizers and the scalar integer dots (the definitions the AVX2 kernels in
// quant_dot_avx2.cpp are tested against).
#include "backend/cpu/quant_dot.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "backend/cpu/dot.h"
#include "numeric/convert.h"
#include "numeric/half.h"

namespace kvchat::cpu {

using gguf::TensorType;

ActivationFormat activation_format_of(TensorType type) {
  switch (type) {
    case TensorType::F32:
    case TensorType::F16:
    case TensorType::BF16: return ActivationFormat::F32;
    case TensorType::Q8_0:
    case TensorType::Q4_0:
    case TensorType::Q4_1:
    case TensorType::Q5_0:
    case TensorType::Q5_1:
    case TensorType::IQ4_NL: return ActivationFormat::Q8_32;
    case TensorType::Q2_K:
    case TensorType::Q3_K:
    case TensorType::Q4_K:
    case TensorType::Q5_K:
    case TensorType::Q6_K:
    case TensorType::IQ4_XS: return ActivationFormat::Q8_K;
  }
  return ActivationFormat::F32;
}

namespace {
// qs[0..n) = round(x / d), d = max|x| / 127; returns d.
float quantize_block_int8(const float* x, int8_t* qs, int n) {
  float amax = 0;
  for (int j = 0; j < n; ++j) amax = std::max(amax, std::fabs(x[j]));
  const float d = amax / 127.0f;
  const float id = d > 0 ? 1.0f / d : 0.0f;
  for (int j = 0; j < n; ++j) {
    const float q = std::nearbyint(x[j] * id);
    qs[j] = static_cast<int8_t>(std::clamp(q, -127.0f, 127.0f));
  }
  return d;
}
}  // namespace

void quantize_activations_q8_32_scalar(const float* x, BlockQ8_32* out, int64_t n) {
  for (int64_t k = 0; k < n / kQuantBlock; ++k, x += kQuantBlock) {
    BlockQ8_32& b = out[k];
    b.d = quantize_block_int8(x, b.qs, kQuantBlock);
    int sum = 0;
    for (int j = 0; j < kQuantBlock; ++j) sum += b.qs[j];
    b.s = b.d * static_cast<float>(sum);
  }
}

void quantize_activations_q8_k_scalar(const float* x, BlockQ8_K* out, int64_t n) {
  for (int64_t k = 0; k < n / kSuperBlock; ++k, x += kSuperBlock) {
    BlockQ8_K& b = out[k];
    b.d = quantize_block_int8(x, b.qs, kSuperBlock);
    for (int g = 0; g < kSuperBlock / 16; ++g) {
      int sum = 0;
      for (int j = 0; j < 16; ++j) sum += b.qs[16 * g + j];
      b.bsums[g] = static_cast<int16_t>(sum);
    }
  }
}

namespace {

inline uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
// 4-bit code j (0..31) of a 32-value block: low nibbles hold values 0..15, high 16..31.
inline int nibble(const uint8_t* qs, int j) { return j < 16 ? (qs[j] & 0xF) : (qs[j - 16] >> 4); }

// sum_j code[j] * qs[j] over n values.
inline int32_t int_dot(const int* code, const int8_t* qs, int n) {
  int32_t s = 0;
  for (int j = 0; j < n; ++j) s += code[j] * qs[j];
  return s;
}

// One 32-value weight block: codes (unsigned, or signed values for Q8_0/IQ4_NL), weight
// scale d and the coefficient c of the activation block sum: value = d * code + c.
struct Codes32 {
  int code[kQuantBlock];
  float d, c;
};

Codes32 codes32(TensorType type, const uint8_t* block) {
  Codes32 out{};
  switch (type) {
    case TensorType::Q8_0: {
      const auto& b = *reinterpret_cast<const BlockQ8_0*>(block);
      for (int j = 0; j < kQuantBlock; ++j) out.code[j] = b.qs[j];
      out.d = f16_to_f32(b.d);
      break;
    }
    case TensorType::Q4_0: {
      const auto& b = *reinterpret_cast<const BlockQ4_0*>(block);
      for (int j = 0; j < kQuantBlock; ++j) out.code[j] = nibble(b.qs, j);
      out.d = f16_to_f32(b.d), out.c = -8 * out.d;
      break;
    }
    case TensorType::Q4_1: {
      const auto& b = *reinterpret_cast<const BlockQ4_1*>(block);
      for (int j = 0; j < kQuantBlock; ++j) out.code[j] = nibble(b.qs, j);
      out.d = f16_to_f32(b.d), out.c = f16_to_f32(b.m);
      break;
    }
    case TensorType::Q5_0: {
      const auto& b = *reinterpret_cast<const BlockQ5_0*>(block);
      const uint32_t qh = load_u32(b.qh);
      for (int j = 0; j < kQuantBlock; ++j) out.code[j] = nibble(b.qs, j) | static_cast<int>(((qh >> j) & 1) << 4);
      out.d = f16_to_f32(b.d), out.c = -16 * out.d;
      break;
    }
    case TensorType::Q5_1: {
      const auto& b = *reinterpret_cast<const BlockQ5_1*>(block);
      const uint32_t qh = load_u32(b.qh);
      for (int j = 0; j < kQuantBlock; ++j) out.code[j] = nibble(b.qs, j) | static_cast<int>(((qh >> j) & 1) << 4);
      out.d = f16_to_f32(b.d), out.c = f16_to_f32(b.m);
      break;
    }
    case TensorType::IQ4_NL: {
      const auto& b = *reinterpret_cast<const BlockIq4Nl*>(block);
      for (int j = 0; j < kQuantBlock; ++j) out.code[j] = kIq4nlValues[nibble(b.qs, j)];
      out.d = f16_to_f32(b.d);
      break;
    }
    default: break;
  }
  return out;
}

// One 256-value weight super-block: value[i] = d * scale[i / 16] * (code[i] - offset)
// - dmin * min[i / 16].
struct CodesK {
  int code[kSuperBlock];
  int scale[16], min[16];
  int offset;
  float d, dmin;
};

CodesK codes_k(TensorType type, const uint8_t* block) {
  CodesK out{};
  switch (type) {
    case TensorType::Q2_K: {
      const auto& b = *reinterpret_cast<const BlockQ2_K*>(block);
      for (int i = 0; i < kSuperBlock; ++i) out.code[i] = (b.qs[(i / 128) * 32 + i % 32] >> (2 * ((i % 128) / 32))) & 3;
      for (int g = 0; g < 16; ++g) out.scale[g] = b.scales[g] & 0xF, out.min[g] = b.scales[g] >> 4;
      out.d = f16_to_f32(b.d), out.dmin = f16_to_f32(b.dmin);
      break;
    }
    case TensorType::Q3_K: {
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
      break;
    }
    case TensorType::Q4_K:
    case TensorType::Q5_K: {
      const bool five = type == TensorType::Q5_K;
      const auto* q4 = reinterpret_cast<const BlockQ4_K*>(block);
      const auto* q5 = reinterpret_cast<const BlockQ5_K*>(block);
      const uint8_t* qs = five ? q5->qs : q4->qs;
      for (int i = 0; i < kSuperBlock; ++i) {
        const uint8_t byte = qs[(i / 64) * 32 + i % 32];
        out.code[i] = (i % 64) < 32 ? (byte & 0xF) : (byte >> 4);
        if (five) out.code[i] |= ((q5->qh[i % 32] >> (i / 32)) & 1) << 4;
      }
      for (int j = 0; j < 8; ++j) {
        uint8_t sc, mn;
        k_scale_min(j, five ? q5->scales : q4->scales, sc, mn);
        out.scale[2 * j] = out.scale[2 * j + 1] = sc;
        out.min[2 * j] = out.min[2 * j + 1] = mn;
      }
      out.d = f16_to_f32(five ? q5->d : q4->d), out.dmin = f16_to_f32(five ? q5->dmin : q4->dmin);
      break;
    }
    case TensorType::Q6_K: {
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
      break;
    }
    case TensorType::IQ4_XS: {
      const auto& b = *reinterpret_cast<const BlockIq4Xs*>(block);
      for (int i = 0; i < kSuperBlock; ++i) out.code[i] = kIq4nlValues[nibble(b.qs + 16 * (i / 32), i % 32)];
      for (int g = 0; g < 16; ++g) out.scale[g] = iq4_xs_scale(b, g / 2) - 32;
      out.d = f16_to_f32(b.d);
      break;
    }
    default: break;
  }
  return out;
}

}  // namespace

// The integer definition: per block an exact int32 sum of code * activation, scaled once.
float quant_dot_scalar(TensorType type, const void* row, const void* act, int64_t n) {
  const auto traits = *gguf::tensor_type_traits(static_cast<uint32_t>(type));
  const auto* bytes = static_cast<const uint8_t*>(row);
  float sum = 0;
  if (activation_format_of(type) == ActivationFormat::Q8_32) {
    const auto* a = static_cast<const BlockQ8_32*>(act);
    for (int64_t k = 0; k < n / kQuantBlock; ++k) {
      const Codes32 w = codes32(type, bytes + k * traits.block_bytes);
      sum += w.d * a[k].d * static_cast<float>(int_dot(w.code, a[k].qs, kQuantBlock)) + w.c * a[k].s;
    }
    return sum;
  }
  const auto* a = static_cast<const BlockQ8_K*>(act);
  for (int64_t k = 0; k < n / kSuperBlock; ++k) {
    const CodesK w = codes_k(type, bytes + k * traits.block_bytes);
    int32_t sumi = 0, summ = 0;
    for (int g = 0; g < 16; ++g) {
      sumi += w.scale[g] * (int_dot(w.code + 16 * g, a[k].qs + 16 * g, 16) - w.offset * a[k].bsums[g]);
      summ += w.min[g] * a[k].bsums[g];
    }
    sum += w.d * a[k].d * static_cast<float>(sumi) - w.dmin * a[k].d * static_cast<float>(summ);
  }
  return sum;
}

void quant_dot_tile_scalar(TensorType type, const void* row, uint64_t row_bytes, int n_rows, const void* act,
                           uint64_t act_stride, int n_tokens, int64_t n, float* out) {
  const auto* w = static_cast<const uint8_t*>(row);
  const auto* a = static_cast<const uint8_t*>(act);
  for (int t = 0; t < n_tokens; ++t) {
    for (int r = 0; r < n_rows; ++r) {
      out[t * n_rows + r] = quant_dot_scalar(type, w + r * row_bytes, a + t * act_stride, n);
    }
  }
}

void quantize_activations_q8_32(const float* x, BlockQ8_32* out, int64_t n) {
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels()) return quantize_activations_q8_32_avx2(x, out, n);
#endif
  quantize_activations_q8_32_scalar(x, out, n);
}

void quantize_activations_q8_k(const float* x, BlockQ8_K* out, int64_t n) {
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels()) return quantize_activations_q8_k_avx2(x, out, n);
#endif
  quantize_activations_q8_k_scalar(x, out, n);
}

float quant_dot(TensorType type, const void* row, const void* act, int64_t n) {
#if defined(KVCHAT_HAVE_AVXVNNI_TU)
  if (use_avxvnni_kernels()) return quant_dot_avxvnni(type, row, act, n);
#endif
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels()) return quant_dot_avx2(type, row, act, n);
#endif
  return quant_dot_scalar(type, row, act, n);
}

void quant_dot_tile(TensorType type, const void* row, uint64_t row_bytes, int n_rows, const void* act,
                    uint64_t act_stride, int n_tokens, int64_t n, float* out) {
#if defined(KVCHAT_HAVE_AVXVNNI_TU)
  if (use_avxvnni_kernels()) {
    return quant_dot_tile_avxvnni(type, row, row_bytes, n_rows, act, act_stride, n_tokens, n, out);
  }
#endif
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels()) return quant_dot_tile_avx2(type, row, row_bytes, n_rows, act, act_stride, n_tokens, n, out);
#endif
  quant_dot_tile_scalar(type, row, row_bytes, n_rows, act, act_stride, n_tokens, n, out);
}

}  // namespace kvchat::cpu
