// Activation quantizers and the scalar integer dots (the definitions the AVX2 kernels in
// quant_dot_avx2.cpp are tested against).
#include "backend/cpu/quant_dot.h"

#include <algorithm>
#include <cmath>

#include "backend/cpu/dot.h"
#include "numeric/convert.h"

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

void quantize_activations_q8_32(const float* x, BlockQ8_32* out, int64_t n) {
  for (int64_t k = 0; k < n / kQuantBlock; ++k, x += kQuantBlock) {
    BlockQ8_32& b = out[k];
    b.d = quantize_block_int8(x, b.qs, kQuantBlock);
    int sum = 0;
    for (int j = 0; j < kQuantBlock; ++j) sum += b.qs[j];
    b.s = b.d * static_cast<float>(sum);
  }
}

void quantize_activations_q8_k(const float* x, BlockQ8_K* out, int64_t n) {
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

float quant_dot_scalar(TensorType type, const void* row, const void* act, int64_t n) {
  // Simple definition: dequantize both sides block by block.
  const auto traits = *gguf::tensor_type_traits(static_cast<uint32_t>(type));
  const auto* bytes = static_cast<const uint8_t*>(row);
  float w[kSuperBlock];
  double sum = 0;
  const int be = static_cast<int>(traits.block_elements);
  for (int64_t k = 0; k < n / be; ++k) {
    dequantize_row(type, bytes + k * traits.block_bytes, w, be);
    float d;
    const int8_t* qs;
    if (activation_format_of(type) == ActivationFormat::Q8_K) {
      const auto& a = static_cast<const BlockQ8_K*>(act)[k];
      d = a.d, qs = a.qs;
    } else {
      const auto& a = static_cast<const BlockQ8_32*>(act)[k];
      d = a.d, qs = a.qs;
    }
    float s = 0;
    for (int j = 0; j < be; ++j) s += w[j] * qs[j];
    sum += d * s;
  }
  return static_cast<float>(sum);
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

float quant_dot(TensorType type, const void* row, const void* act, int64_t n) {
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels()) return quant_dot_avx2(type, row, act, n);
#endif
  return quant_dot_scalar(type, row, act, n);
}

void quant_dot_tile(TensorType type, const void* row, uint64_t row_bytes, int n_rows, const void* act,
                    uint64_t act_stride, int n_tokens, int64_t n, float* out) {
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels()) return quant_dot_tile_avx2(type, row, row_bytes, n_rows, act, act_stride, n_tokens, n, out);
#endif
  quant_dot_tile_scalar(type, row, row_bytes, n_rows, act, act_stride, n_tokens, n, out);
}

}  // namespace kvchat::cpu
