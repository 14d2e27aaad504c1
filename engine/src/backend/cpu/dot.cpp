#include "backend/cpu/dot.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "numeric/convert.h"
#include "numeric/half.h"

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

// The widest kernel set the environment allows:
// KVCHAT_CPU_KERNELS=scalar|avx2|avxvnni|avx512|avx512bf16 (unset or anything else: all the CPU
// has). For benchmarks and tests that stand in for a
// CPU class without the wider instructions (an AVX2-only AMD on an AVX-512 Intel).
enum KernelCap { kCapScalar, kCapAvx2, kCapAvxVnni, kCapAvx512, kCapAvx512Bf16 };
int kernel_cap() {
  static const int cap = [] {
    const char* v = std::getenv("KVCHAT_CPU_KERNELS");
    const std::string s = v ? v : "";
    if (s == "scalar") return kCapScalar;
    if (s == "avx2") return kCapAvx2;
    if (s == "avxvnni") return kCapAvxVnni;
    if (s == "avx512") return kCapAvx512;
    return kCapAvx512Bf16;
  }();
  return cap;
}
}  // namespace

bool use_avx2_kernels() {
  return cpu_has_avx2() && kernel_cap() >= kCapAvx2 &&
         !g_force_scalar.load(std::memory_order_relaxed);
}
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
bool use_avxvnni_kernels() {
  return cpu_has_avxvnni() && use_avx2_kernels() && kernel_cap() >= kCapAvxVnni &&
         !g_no_vnni.load(std::memory_order_relaxed);
}
void force_no_avxvnni_kernels(bool on) { g_no_vnni.store(on, std::memory_order_relaxed); }

namespace {
std::atomic<bool> g_no_avx512{false};
}  // namespace

bool cpu_has_avx512vnni() {
#if defined(__x86_64__) && defined(KVCHAT_HAVE_AVX512_TU)
  // __builtin_cpu_supports checks the OS saves the ZMM and mask registers (XCR0) too.
  static const bool has =
      cpu_has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
  return has;
#else
  return false;
#endif
}
bool use_avx512_kernels() {
  return cpu_has_avx512vnni() && use_avx2_kernels() && kernel_cap() >= kCapAvx512 &&
         !g_no_avx512.load(std::memory_order_relaxed);
}
void force_no_avx512_kernels(bool on) { g_no_avx512.store(on, std::memory_order_relaxed); }

namespace {
std::atomic<bool> g_no_avx512bf16{false};

// CPUID leaf 0's vendor string is "GenuineIntel".
bool cpu_is_intel() {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return false;
  return ebx == 0x756e6547u && edx == 0x49656e69u && ecx == 0x6c65746eu;  // "Genu" "ineI" "ntel"
#else
  return false;
#endif
}
}  // namespace

bool cpu_has_avx512bf16() {
#if defined(__x86_64__) && defined(KVCHAT_HAVE_AVX512BF16_TU)
  static const bool has = cpu_has_avx512vnni() && __builtin_cpu_supports("avx512bf16");
  return has;
#else
  return false;
#endif
}
bool avx512bf16_faster_than_fma() {
  static const bool faster = cpu_has_avx512bf16() && !cpu_is_intel();
  return faster;
}
namespace {
std::atomic<QuadKernels> g_quad_kernels{QuadKernels::kByVendor};
}  // namespace
bool quad_kernels_broadcast() {
  static const bool intel = cpu_is_intel();
  const QuadKernels k = g_quad_kernels.load(std::memory_order_relaxed);
  return k == QuadKernels::kByVendor ? intel : k == QuadKernels::kBroadcast;
}
void force_quad_kernels(QuadKernels k) { g_quad_kernels.store(k, std::memory_order_relaxed); }
bool use_avx512bf16_kernels() {
  return cpu_has_avx512bf16() && use_avx512_kernels() && kernel_cap() >= kCapAvx512Bf16 &&
         !g_no_avx512bf16.load(std::memory_order_relaxed);
}
void force_no_avx512bf16_kernels(bool on) { g_no_avx512bf16.store(on, std::memory_order_relaxed); }

void dequantize_row_fast(TensorType type, const void* row, float* dst, int64_t n) {
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels() && dequantize_row_avx2(type, row, dst, n)) return;
#endif
  dequantize_row(type, row, dst, n);
}

void quantize_row_fast(TensorType type, const float* src, void* dst, int64_t n) {
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels() && quantize_row_avx2(type, src, dst, n)) return;
#endif
  quantize_row(type, src, dst, n);
}

double fma_peak_loop(int64_t iterations) {
#if defined(KVCHAT_HAVE_AVX512_TU)
  if (use_avx512_kernels()) return fma_peak_loop_avx512(iterations);
#endif
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

namespace {
#include "backend/cpu/streaming_read.inl"
}  // namespace

uint64_t streaming_read(const uint8_t* p, uint64_t bytes) {
#if defined(KVCHAT_HAVE_AVX512_TU)
  if (use_avx512_kernels()) return streaming_read_avx512(p, bytes);
#endif
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels()) return streaming_read_avx2(p, bytes);
#endif
  return streaming_read_lines(p, bytes);
}

namespace {
// Value i of a float weight row (F32, F16 or BF16).
float float_value(TensorType type, const uint8_t* row, int64_t i) {
  if (type == TensorType::F32) return reinterpret_cast<const float*>(row)[i];
  const uint16_t h = reinterpret_cast<const uint16_t*>(row)[i];
  return type == TensorType::F16 ? f16_to_f32(h) : bf16_to_f32(h);
}
}  // namespace

void float_rows_dot_scalar(TensorType type, const uint8_t* rows, uint64_t row_bytes, int64_t n_rows,
                           const float* X, int64_t ldx, int64_t n_tokens, int64_t n, float* Y,
                           int64_t ldy) {
  for (int64_t r = 0; r < n_rows; ++r) {
    for (int64_t t = 0; t < n_tokens; ++t) {
      float sum = 0;
      for (int64_t i = 0; i < n; ++i)
        sum += float_value(type, rows + r * row_bytes, i) * X[t * ldx + i];
      Y[t * ldy + r] = sum;
    }
  }
}

void float_rows_dot(TensorType type, const uint8_t* rows, uint64_t row_bytes, int64_t n_rows,
                    const float* X, int64_t ldx, int64_t n_tokens, int64_t n, float* Y,
                    int64_t ldy) {
#if defined(KVCHAT_HAVE_AVX2_TU)
#if defined(KVCHAT_HAVE_AVX512_TU)
  if (use_avx512_kernels())
    return float_rows_dot_avx512(type, rows, row_bytes, n_rows, X, ldx, n_tokens, n, Y, ldy);
#endif
  if (use_avx2_kernels())
    return float_rows_dot_avx2(type, rows, row_bytes, n_rows, X, ldx, n_tokens, n, Y, ldy);
#endif
  float_rows_dot_scalar(type, rows, row_bytes, n_rows, X, ldx, n_tokens, n, Y, ldy);
}

}  // namespace kvchat::cpu
