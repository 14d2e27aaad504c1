// Activation quantizers and the scalar integer dots (the definitions the AVX2 kernels in
// quant_dot_avx2.cpp are tested against).
#include "backend/cpu/quant_dot.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "backend/cpu/dot.h"
#include "numeric/convert.h"
#include "numeric/half.h"
#include "numeric/weight_type_traits.h"

namespace kvchat::cpu {

using gguf::TensorType;

ActivationFormat activation_format_of(TensorType type) {
  const WeightTypeTraits* t = weight_type_traits(type);
  return t ? t->activation : ActivationFormat::F32;
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
    b.sum = 0;
    for (int j = 0; j < kQuantBlock; ++j) b.sum += b.qs[j];
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

// sum_j code[j] * qs[j] over n values.
inline int32_t int_dot(const int* code, const int8_t* qs, int n) {
  int32_t s = 0;
  for (int j = 0; j < n; ++j) s += code[j] * qs[j];
  return s;
}

}  // namespace

// The integer definition: per block an exact int32 sum of (code - offset) * activation,
// scaled once (and a min times the activation sum).
float quant_dot_scalar(TensorType type, const void* row, const void* act, int64_t n) {
  const WeightTypeTraits& traits = *weight_type_traits(type);
  const auto* bytes = static_cast<const uint8_t*>(row);
  float sum = 0;
  if (traits.activation == ActivationFormat::Q8_32) {
    const auto* a = static_cast<const BlockQ8_32*>(act);
    for (int64_t k = 0; k < n / kQuantBlock; ++k) {
      const Codes32 w = traits.codes32(bytes + k * traits.block_bytes);
      const int32_t dot = int_dot(w.code, a[k].qs, kQuantBlock) - w.offset * a[k].sum;
      float term = w.d * a[k].d * static_cast<float>(dot);
      if (w.m != 0) term += w.m * (a[k].d * static_cast<float>(a[k].sum));
      sum += term;
    }
    return sum;
  }
  const auto* a = static_cast<const BlockQ8_K*>(act);
  for (int64_t k = 0; k < n / kSuperBlock; ++k) {
    const CodesK w = traits.codes_k(bytes + k * traits.block_bytes);
    int32_t sumi = 0, summ = 0;
    for (int g = 0; g < 16; ++g) {
      sumi +=
          w.scale[g] * (int_dot(w.code + 16 * g, a[k].qs + 16 * g, 16) - w.offset * a[k].bsums[g]);
      summ += w.min[g] * a[k].bsums[g];
    }
    sum += w.d * a[k].d * static_cast<float>(sumi) - w.dmin * a[k].d * static_cast<float>(summ);
  }
  return sum;
}

void quant_dot_tile_scalar(TensorType type, const void* row, uint64_t row_bytes, int n_rows,
                           const void* act, uint64_t act_stride, int n_tokens, int64_t n,
                           float* out) {
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

QuantTileFn quant_dot_tile_kernel(TensorType type) {
#if defined(KVCHAT_HAVE_AVXVNNI_TU)
  if (use_avxvnni_kernels()) {
    if (const QuantTileFn f = quant_dot_tile_kernel_avxvnni(type)) return f;
  }
#endif
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels()) {
    if (const QuantTileFn f = quant_dot_tile_kernel_avx2(type)) return f;
  }
#endif
  return quant_dot_tile_scalar;
}

void quant_dot_tile(TensorType type, const void* row, uint64_t row_bytes, int n_rows,
                    const void* act, uint64_t act_stride, int n_tokens, int64_t n, float* out) {
  quant_dot_tile_kernel(type)(type, row, row_bytes, n_rows, act, act_stride, n_tokens, n, out);
}

}  // namespace kvchat::cpu
