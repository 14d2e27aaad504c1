#include "backend/cpu/dot.h"

#include <algorithm>
#include <atomic>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "numeric/convert.h"
#include "numeric/half.h"
#include "numeric/quant_blocks.h"

namespace kvchat::cpu {

using gguf::TensorType;

bool cpu_has_avx2() {
#if defined(__x86_64__) && defined(KVCHAT_HAVE_AVX2_TU)
  // F16C is CPUID leaf 1, ECX bit 29 (clang 14 has no "f16c" in __builtin_cpu_supports).
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29));
    return f16c && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return has;
#else
  return false;
#endif
}

namespace {
std::atomic<bool> g_force_scalar{false};
}  // namespace

bool use_avx2_kernels() { return cpu_has_avx2() && !g_force_scalar.load(std::memory_order_relaxed); }
void force_scalar_kernels(bool on) { g_force_scalar.store(on, std::memory_order_relaxed); }

namespace {
std::atomic<bool> g_no_vnni{false};
}  // namespace

bool cpu_has_avxvnni() {
#if defined(__x86_64__) && defined(KVCHAT_HAVE_AVXVNNI_TU)
  // AVX-VNNI is CPUID leaf 7 sub-leaf 1, EAX bit 4.
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return cpu_has_avx2() && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1u << 4));
  }();
  return has;
#else
  return false;
#endif
}
bool use_avxvnni_kernels() { return cpu_has_avxvnni() && use_avx2_kernels() && !g_no_vnni.load(std::memory_order_relaxed); }
void force_no_avxvnni_kernels(bool on) { g_no_vnni.store(on, std::memory_order_relaxed); }

namespace {
// Any block type: dequantize one block at a time (the definition), then dot.
float dot_row_blockwise(TensorType type, const void* row, const float* x, int64_t n) {
  const auto traits = *gguf::tensor_type_traits(static_cast<uint32_t>(type));
  float values[kSuperBlock];
  float sum = 0;
  const auto* bytes = static_cast<const uint8_t*>(row);
  for (int64_t k = 0; k < n / traits.block_elements; ++k) {
    dequantize_row(type, bytes + k * traits.block_bytes, values, traits.block_elements);
    for (uint32_t j = 0; j < traits.block_elements; ++j) sum += values[j] * x[k * traits.block_elements + j];
  }
  return sum;
}
}  // namespace

float dot_row_scalar(TensorType type, const void* row, const float* x, int64_t n) {
  float sum = 0;
  switch (type) {
    case TensorType::F32: {
      const auto* w = static_cast<const float*>(row);
      for (int64_t i = 0; i < n; ++i) sum += w[i] * x[i];
      break;
    }
    case TensorType::F16: {
      const auto* w = static_cast<const uint16_t*>(row);
      for (int64_t i = 0; i < n; ++i) sum += f16_to_f32(w[i]) * x[i];
      break;
    }
    case TensorType::BF16: {
      const auto* w = static_cast<const uint16_t*>(row);
      for (int64_t i = 0; i < n; ++i) sum += bf16_to_f32(w[i]) * x[i];
      break;
    }
    case TensorType::Q8_0: {
      const auto* b = static_cast<const BlockQ8_0*>(row);
      for (int64_t k = 0; k < n / kQuantBlock; ++k, x += kQuantBlock) {
        float s = 0;
        for (int j = 0; j < kQuantBlock; ++j) s += b[k].qs[j] * x[j];
        sum += f16_to_f32(b[k].d) * s;
      }
      break;
    }
    case TensorType::Q4_0: {
      const auto* b = static_cast<const BlockQ4_0*>(row);
      for (int64_t k = 0; k < n / kQuantBlock; ++k, x += kQuantBlock) {
        float s = 0;
        for (int j = 0; j < kQuantBlock / 2; ++j) {
          s += ((b[k].qs[j] & 0x0f) - 8) * x[j] + ((b[k].qs[j] >> 4) - 8) * x[j + 16];
        }
        sum += f16_to_f32(b[k].d) * s;
      }
      break;
    }
    default: return dot_row_blockwise(type, row, x, n);
  }
  return sum;
}

float dot_row(TensorType type, const void* row, const float* x, int64_t n) {
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels()) return dot_row_avx2(type, row, x, n);
#endif
  return dot_row_scalar(type, row, x, n);
}

void dot_f32_4x2_scalar(const float* w, int64_t ldw, const float* x, int64_t ldx, int64_t n,
                        float* out) {
  for (int t = 0; t < 2; ++t) {
    for (int r = 0; r < 4; ++r) out[t * 4 + r] = dot_row_scalar(TensorType::F32, w + r * ldw, x + t * ldx, n);
  }
}

void dot_f32_4x2(const float* w, int64_t ldw, const float* x, int64_t ldx, int64_t n, float* out) {
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels()) return dot_f32_4x2_avx2(w, ldw, x, ldx, n, out);
#endif
  dot_f32_4x2_scalar(w, ldw, x, ldx, n, out);
}

void dequantize_row_fast(TensorType type, const void* row, float* dst, int64_t n) {
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels() && dequantize_row_avx2(type, row, dst, n)) return;
#endif
  dequantize_row(type, row, dst, n);
}

float dot_f32(const float* a, const float* b, int64_t n) {
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels()) return dot_f32_avx2(a, b, n);
#endif
  return dot_row_scalar(TensorType::F32, a, b, n);
}

double fma_peak_loop(int64_t iterations) {
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels()) return fma_peak_loop_avx2(iterations);
#endif
  float acc[12 * 8];
  for (int i = 0; i < 12 * 8; ++i) acc[i] = static_cast<float>(i);
  for (int64_t it = 0; it < iterations; ++it) {
    for (float& a : acc) a = a * 0.999999f + 1e-6f;
  }
  volatile float sink = acc[0];
  (void)sink;
  return 2.0 * 12 * 8 * static_cast<double>(iterations);
}

void pack_rows_f32(TensorType type, const uint8_t* rows, uint64_t row_bytes, int n_rows, int64_t n, float* P) {
  float row[256];
  for (int64_t k0 = 0; k0 < n; k0 += 256) {  // converted 256 values at a time, then scattered
    const int64_t len = std::min<int64_t>(256, n - k0);
    const uint64_t elem = type == TensorType::F32 ? 4 : 2;
    for (int r = 0; r < kPackRows; ++r) {
      if (r < n_rows) {
        dequantize_row_fast(type, rows + r * row_bytes + k0 * elem, row, len);
        for (int64_t k = 0; k < len; ++k) P[(k0 + k) * kPackRows + r] = row[k];
      } else {
        for (int64_t k = 0; k < len; ++k) P[(k0 + k) * kPackRows + r] = 0;
      }
    }
  }
}

void gemm_packed_scalar(const float* P, int n_rows, int64_t n, const float* X, int64_t ldx, int64_t n_tokens,
                        float* Y, int64_t ldy) {
  for (int64_t t = 0; t < n_tokens; ++t) {
    float acc[kPackRows] = {};
    for (int64_t k = 0; k < n; ++k) {
      for (int r = 0; r < kPackRows; ++r) acc[r] += P[k * kPackRows + r] * X[t * ldx + k];
    }
    for (int r = 0; r < n_rows; ++r) Y[t * ldy + r] = acc[r];
  }
}

void gemm_packed(const float* P, int n_rows, int64_t n, const float* X, int64_t ldx, int64_t n_tokens, float* Y,
                 int64_t ldy) {
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels()) return gemm_packed_avx2(P, n_rows, n, X, ldx, n_tokens, Y, ldy);
#endif
  gemm_packed_scalar(P, n_rows, n, X, ldx, n_tokens, Y, ldy);
}

}  // namespace kvchat::cpu
