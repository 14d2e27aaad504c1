// Host emulation of cuBLAS (test equipment, never shipped): cublasGemmEx and the handle calls
// the CUDA backend makes, with cuBLAS's documented meaning, computed by a plain reference loop
// on the emulated device.
//
// cublasGemmEx(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C,
// Ctype, ldc, computeType, algo) computes C = alpha * op(A) * op(B) + beta * C, every matrix
// column-major: op(A) is m x k (A is stored lda x k for N, lda x m for T/C), op(B) is k x n
// (B stored ldb x n for N, ldb x k for T/C), C is m x n stored ldc x n.
//   - Refused with CUBLAS_STATUS_INVALID_VALUE, as cuBLAS documents: m, n or k negative; an
//     op other than N, T, C; lda < max(1, N ? m : k); ldb < max(1, N ? k : n);
//     ldc < max(1, m); alpha or beta null.
//   - Refused with CUBLAS_STATUS_NOT_SUPPORTED: a (computeType, Atype, Btype, Ctype)
//     combination outside the documented table (the real-valued rows; the complex rows are
//     not emulated and refused too), or an algo that is no cublasGemmAlgo_t value.
//   - m = 0 or n = 0: nothing is done. k = 0: C = beta * C.
//   - beta = 0: C is not read (NaN or garbage there does not propagate).
//   - alpha and beta are host pointers (CUBLAS_POINTER_MODE_HOST), read when the call is
//     made, of the scale type: float for the 32F compute types, __half bits for 16F, double
//     for 64F, int32 for 32I.
//   - Each dot product accumulates in the compute type, in order over k (float for 32F;
//     16-bit inputs are widened exactly; correctly rounded half for 16F; double for 64F;
//     wrapping int32 for 32I). Inputs are rounded first where the compute type or math mode
//     says the device's tensor cores would see them so: TF32 (10-bit mantissa, to nearest,
//     ties away, as cvt.rna.tf32.f32) for CUBLAS_COMPUTE_32F_FAST_TF32 or
//     CUBLAS_TF32_TENSOR_OP_MATH with f32 inputs; f16 for CUBLAS_COMPUTE_32F_FAST_16F or the
//     deprecated CUBLAS_TENSOR_OP_MATH with f32 inputs; bf16 for CUBLAS_COMPUTE_32F_FAST_16BF.
//     The _PEDANTIC compute types and CUBLAS_PEDANTIC_MATH never round. The result is
//     converted to Ctype with round-to-nearest-even.
//   - Every matrix's extent (the last column only to its used rows) must lie inside one live
//     device allocation (kvchat_emu::is_device_range): one that does not is what a device
//     faults on, so kvchat_emu::fault is called and the call answers
//     CUBLAS_STATUS_EXECUTION_FAILED. The work itself runs through kvchat_emu::submit on the
//     handle's stream, so a captured stream records it into its graph.
#include <cublas_v2.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "kvchat_emu/device_api.h"
#include "numeric/half.h"

struct cublasContext {
  cudaStream_t stream = nullptr;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
};

namespace {

std::mutex g_handles_mutex;
std::unordered_set<cublasContext*>& live_handles() {
  static auto* handles = new std::unordered_set<cublasContext*>();  // outlives static dtors
  return *handles;
}

// Copies the handle's settings if it is live.
bool handle_state(cublasHandle_t handle, cublasContext* out) {
  if (!handle) return false;
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  if (!live_handles().count(handle)) return false;
  if (out) *out = *handle;
  return true;
}

// ---- element types ---------------------------------------------------------------------

size_t element_bytes(cudaDataType_t t) {
  switch (t) {
    case CUDA_R_16F:
    case CUDA_R_16BF: return 2;
    case CUDA_R_32F:
    case CUDA_R_32I: return 4;
    case CUDA_R_64F: return 8;
    case CUDA_R_8I: return 1;
    default: return 0;
  }
}

uint16_t load_u16(const void* p, int64_t i) {
  uint16_t v;
  std::memcpy(&v, static_cast<const unsigned char*>(p) + i * 2, 2);
  return v;
}

// Element i of a matrix of type t, widened (exactly) to float.
float load_float(const void* p, cudaDataType_t t, int64_t i) {
  switch (t) {
    case CUDA_R_16F: return kvchat::f16_to_f32(load_u16(p, i));
    case CUDA_R_16BF: return kvchat::bf16_to_f32(load_u16(p, i));
    case CUDA_R_8I: return static_cast<float>(static_cast<const int8_t*>(p)[i]);
    case CUDA_R_32F: {
      float v;
      std::memcpy(&v, static_cast<const unsigned char*>(p) + i * 4, 4);
      return v;
    }
    default: return 0.0f;  // not reached: the combination was refused
  }
}

void store_float(void* p, cudaDataType_t t, int64_t i, float v) {
  unsigned char* at = static_cast<unsigned char*>(p);
  switch (t) {
    case CUDA_R_16F: {
      const uint16_t h = kvchat::f32_to_f16(v);
      std::memcpy(at + i * 2, &h, 2);
      break;
    }
    case CUDA_R_16BF: {
      const uint16_t h = kvchat::f32_to_bf16(v);
      std::memcpy(at + i * 2, &h, 2);
      break;
    }
    case CUDA_R_32F: std::memcpy(at + i * 4, &v, 4); break;
    default: break;  // not reached
  }
}

// ---- roundings -------------------------------------------------------------------------

// To TF32 (the 10-bit mantissa of the tensor cores): to nearest, ties away from zero.
float round_tf32(float f) {
  uint32_t x = kvchat::bits_from_f32(f);
  if ((x & 0x7f800000u) == 0x7f800000u) return f;  // inf, nan: unchanged
  x = (x + 0x1000u) & ~0x1fffu;
  return kvchat::f32_from_bits(x);
}
float round_f16(float f) { return kvchat::f16_to_f32(kvchat::f32_to_f16(f)); }
float round_bf16(float f) { return kvchat::bf16_to_f32(kvchat::f32_to_bf16(f)); }

// Correctly rounded (to nearest even) double -> IEEE half, as bits.
uint16_t f64_to_f16(double d) {
  const uint16_t sign = std::signbit(d) ? 0x8000u : 0u;
  if (std::isnan(d)) return sign | 0x7e00u;
  const double a = std::fabs(d);
  if (a >= 65520.0) return sign | 0x7c00u;  // rounds to 65536 or beyond: inf
  if (a < 6.103515625e-05) {                // below 2^-14: subnormal steps of 2^-24
    return sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0));  // 1024 = min normal
  }
  int e = 0;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1): the half's exponent is e - 1
  int exp = e - 1;
  double mant = std::nearbyint(std::ldexp(a, 10 - exp));  // in [1024, 2048]
  if (mant >= 2048.0) {
    mant = 1024.0;
    ++exp;
  }
  return sign | static_cast<uint16_t>(((exp + 15) << 10) | (static_cast<int>(mant) - 1024));
}
float round_f16_from_double(double d) { return kvchat::f16_to_f32(f64_to_f16(d)); }

enum class InputRounding { none, tf32, f16, bf16 };

// ---- packing ---------------------------------------------------------------------------

// The operand rows of a product, each running over k: op(A)'s rows (i, 0..k-1), or op(B)'s
// columns (0..k-1, j). Row r, position kk is stored at p[kk + r * ld] when the row is
// contiguous in memory (A with T/C, B with N), at p[r + kk * ld] otherwise.
struct Operand {
  const void* p;
  cudaDataType_t type;
  int64_t ld;
  bool contiguous;
  int64_t at(int64_t r, int64_t kk) const { return contiguous ? kk + r * ld : r + kk * ld; }
};

template <typename T, typename Load>
void pack_rows(const Operand& x, int64_t r0, int64_t rows, int64_t k, T* dst, int64_t dst_row,
               int64_t dst_k, Load load) {
  if (x.contiguous) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t kk = 0; kk < k; ++kk) dst[r * dst_row + kk * dst_k] = load(x.at(r0 + r, kk));
  } else {
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t r = 0; r < rows; ++r) dst[r * dst_row + kk * dst_k] = load(x.at(r0 + r, kk));
  }
}

// Every half widened once, then looked up: the forward pass converts millions of them.
const float* f16_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (uint32_t h = 0; h < 65536; ++h) t[h] = kvchat::f16_to_f32(static_cast<uint16_t>(h));
    return t;
  }();
  return table.data();
}

struct KeepInput {
  float operator()(float f) const { return f; }
};
struct ToTf32 {
  float operator()(float f) const { return round_tf32(f); }
};
struct ToF16 {
  float operator()(float f) const { return round_f16(f); }
};
struct ToBf16 {
  float operator()(float f) const { return round_bf16(f); }
};

// Packs rows of x widened to float (exactly) and then rounded as `round` says.
template <typename Round>
void pack_widened(const Operand& x, int64_t r0, int64_t rows, int64_t k, float* dst,
                  int64_t dst_row, int64_t dst_k, Round round) {
  switch (x.type) {
    case CUDA_R_16F: {
      const float* table = f16_table();
      const auto* p = static_cast<const uint16_t*>(x.p);
      pack_rows(x, r0, rows, k, dst, dst_row, dst_k, [=](int64_t i) { return round(table[p[i]]); });
      break;
    }
    case CUDA_R_16BF: {
      const auto* p = static_cast<const uint16_t*>(x.p);
      pack_rows(x, r0, rows, k, dst, dst_row, dst_k,
                [=](int64_t i) { return round(kvchat::bf16_to_f32(p[i])); });
      break;
    }
    case CUDA_R_32F: {
      const auto* p = static_cast<const float*>(x.p);
      pack_rows(x, r0, rows, k, dst, dst_row, dst_k, [=](int64_t i) { return round(p[i]); });
      break;
    }
    case CUDA_R_8I: {
      const auto* p = static_cast<const int8_t*>(x.p);
      pack_rows(x, r0, rows, k, dst, dst_row, dst_k,
                [=](int64_t i) { return round(static_cast<float>(p[i])); });
      break;
    }
    default: break;  // not reached: the combination was refused
  }
}

void pack_float(const Operand& x, int64_t r0, int64_t rows, int64_t k, float* dst, int64_t dst_row,
                int64_t dst_k, InputRounding rounding) {
  switch (rounding) {
    case InputRounding::none: pack_widened(x, r0, rows, k, dst, dst_row, dst_k, KeepInput{}); break;
    case InputRounding::tf32: pack_widened(x, r0, rows, k, dst, dst_row, dst_k, ToTf32{}); break;
    case InputRounding::f16: pack_widened(x, r0, rows, k, dst, dst_row, dst_k, ToF16{}); break;
    case InputRounding::bf16: pack_widened(x, r0, rows, k, dst, dst_row, dst_k, ToBf16{}); break;
  }
}

// ---- the product -----------------------------------------------------------------------

enum class Family { f32, f16, f64, i32 };

struct Gemm {
  Family family;
  InputRounding rounding;
  int64_t m, n, k;
  Operand a, b;  // a: op(A)'s m rows; b: op(B)'s n columns
  void* c;
  cudaDataType_t ctype;
  int64_t ldc;
  // The scale values, in the scale type of the family.
  float alpha_f, beta_f;
  double alpha_d, beta_d;
  int32_t alpha_i, beta_i;
};

constexpr int kRows = 8;  // op(A) rows per block: one 8-lane accumulator vector
constexpr int kCols = 4;  // C columns per block

typedef float v8f __attribute__((vector_size(kRows * sizeof(float))));

// acc[jj] lane r = sum over kk in order of ap[kk][r] * b[jj * b_ld + kk]: each lane is one
// dot product accumulated in float in order over k, as the scalar loop would.
template <int JN>
void micro_kernel(const float* ap, const float* b, int64_t b_ld, int64_t k, v8f* acc) {
  v8f c[JN];
  for (int jj = 0; jj < JN; ++jj) c[jj] = v8f{};
  for (int64_t kk = 0; kk < k; ++kk) {
    v8f a;
    std::memcpy(&a, ap + kk * kRows, sizeof a);
    for (int jj = 0; jj < JN; ++jj) {
      const float x = b[jj * b_ld + kk];
      c[jj] += a * v8f{x, x, x, x, x, x, x, x};
    }
  }
  for (int jj = 0; jj < JN; ++jj) acc[jj] = c[jj];
}

void run_f32(const Gemm& g) {
  // op(B)'s columns, as float rows over k: B itself when it already is that.
  std::vector<float> bbuf;
  const float* bt = nullptr;
  int64_t bt_ld = g.k;
  if (g.b.type == CUDA_R_32F && g.b.contiguous && g.rounding == InputRounding::none) {
    bt = static_cast<const float*>(g.b.p);
    bt_ld = g.b.ld;
  } else {
    bbuf.resize(static_cast<size_t>(g.n * g.k));
    pack_float(g.b, 0, g.n, g.k, bbuf.data(), g.k, 1, g.rounding);
    bt = bbuf.data();
  }
  std::vector<float> ap(static_cast<size_t>(g.k * kRows));
  for (int64_t i0 = 0; i0 < g.m; i0 += kRows) {
    const int64_t rows = std::min<int64_t>(kRows, g.m - i0);
    if (rows < kRows) std::fill(ap.begin(), ap.end(), 0.0f);
    pack_float(g.a, i0, rows, g.k, ap.data(), 1, kRows, g.rounding);
    for (int64_t j0 = 0; j0 < g.n; j0 += kCols) {
      const int64_t cols = std::min<int64_t>(kCols, g.n - j0);
      v8f acc[kCols];
      const float* b = bt + j0 * bt_ld;
      switch (cols) {
        case 4: micro_kernel<4>(ap.data(), b, bt_ld, g.k, acc); break;
        case 3: micro_kernel<3>(ap.data(), b, bt_ld, g.k, acc); break;
        case 2: micro_kernel<2>(ap.data(), b, bt_ld, g.k, acc); break;
        default: micro_kernel<1>(ap.data(), b, bt_ld, g.k, acc); break;
      }
      for (int64_t jj = 0; jj < cols; ++jj) {
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t at = (i0 + r) + (j0 + jj) * g.ldc;
          float v = g.alpha_f * acc[jj][r];
          if (g.beta_f != 0.0f) v += g.beta_f * load_float(g.c, g.ctype, at);
          store_float(g.c, g.ctype, at, v);
        }
      }
    }
  }
}

// Compute 16F: every step of the dot product rounded to half, as a half FMA would.
void run_f16(const Gemm& g) {
  std::vector<float> a(static_cast<size_t>(g.m * g.k)), b(static_cast<size_t>(g.n * g.k));
  pack_float(g.a, 0, g.m, g.k, a.data(), g.k, 1, InputRounding::none);
  pack_float(g.b, 0, g.n, g.k, b.data(), g.k, 1, InputRounding::none);
  for (int64_t j = 0; j < g.n; ++j) {
    for (int64_t i = 0; i < g.m; ++i) {
      const float* ar = a.data() + i * g.k;
      const float* br = b.data() + j * g.k;
      float acc = 0.0f;  // always a half value
      for (int64_t kk = 0; kk < g.k; ++kk) {
        // The product of two halves is exact in double, the sum rounds once, then to half.
        acc = round_f16_from_double(static_cast<double>(ar[kk]) * br[kk] + acc);
      }
      const int64_t at = i + j * g.ldc;
      double v = g.alpha_d * acc;
      if (g.beta_d != 0.0) v += g.beta_d * kvchat::f16_to_f32(load_u16(g.c, at));
      const uint16_t h = f64_to_f16(v);
      std::memcpy(static_cast<unsigned char*>(g.c) + at * 2, &h, 2);
    }
  }
}

void run_f64(const Gemm& g) {
  std::vector<double> a(static_cast<size_t>(g.m * g.k)), b(static_cast<size_t>(g.n * g.k));
  auto load = [](const Operand& x) {
    return [&x](int64_t i) {
      double v;
      std::memcpy(&v, static_cast<const unsigned char*>(x.p) + i * 8, 8);
      return v;
    };
  };
  pack_rows(g.a, 0, g.m, g.k, a.data(), g.k, 1, load(g.a));
  pack_rows(g.b, 0, g.n, g.k, b.data(), g.k, 1, load(g.b));
  unsigned char* c = static_cast<unsigned char*>(g.c);
  for (int64_t j = 0; j < g.n; ++j) {
    for (int64_t i = 0; i < g.m; ++i) {
      double acc = 0.0;
      for (int64_t kk = 0; kk < g.k; ++kk) acc += a[i * g.k + kk] * b[j * g.k + kk];
      const int64_t at = i + j * g.ldc;
      double v = g.alpha_d * acc;
      if (g.beta_d != 0.0) {
        double old;
        std::memcpy(&old, c + at * 8, 8);
        v += g.beta_d * old;
      }
      std::memcpy(c + at * 8, &v, 8);
    }
  }
}

// Compute 32I: int8 inputs, int32 accumulation and scaling, wrapping as the device's
// integer units do (computed in uint32: no undefined overflow on the host).
void run_i32(const Gemm& g) {
  std::vector<int32_t> a(static_cast<size_t>(g.m * g.k)), b(static_cast<size_t>(g.n * g.k));
  auto load = [](const Operand& x) {
    return [&x](int64_t i) { return static_cast<int32_t>(static_cast<const int8_t*>(x.p)[i]); };
  };
  pack_rows(g.a, 0, g.m, g.k, a.data(), g.k, 1, load(g.a));
  pack_rows(g.b, 0, g.n, g.k, b.data(), g.k, 1, load(g.b));
  unsigned char* c = static_cast<unsigned char*>(g.c);
  const uint32_t alpha = static_cast<uint32_t>(g.alpha_i), beta = static_cast<uint32_t>(g.beta_i);
  for (int64_t j = 0; j < g.n; ++j) {
    for (int64_t i = 0; i < g.m; ++i) {
      uint32_t acc = 0;
      for (int64_t kk = 0; kk < g.k; ++kk) {
        acc += static_cast<uint32_t>(a[i * g.k + kk] * b[j * g.k + kk]);
      }
      const int64_t at = i + j * g.ldc;
      uint32_t v = alpha * acc;
      if (beta != 0) {
        uint32_t old;
        std::memcpy(&old, c + at * 4, 4);
        v += beta * old;
      }
      std::memcpy(c + at * 4, &v, 4);
    }
  }
}

void run(const Gemm& g) {
  switch (g.family) {
    case Family::f32: run_f32(g); break;
    case Family::f16: run_f16(g); break;
    case Family::f64: run_f64(g); break;
    case Family::i32: run_i32(g); break;
  }
}

// ---- argument checks -------------------------------------------------------------------

bool valid_op(cublasOperation_t op) {
  return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

bool valid_algo(cublasGemmAlgo_t algo) {
  const int a = static_cast<int>(algo);
  return a == -1 || (a >= 0 && a <= 23) || (a >= 99 && a <= 115);
}

// The documented cublasGemmEx table (real-valued rows): which family computes, or false.
bool supported(cublasComputeType_t compute, cudaDataType_t at, cudaDataType_t bt, cudaDataType_t ct,
               Family* family) {
  if (at != bt) return false;
  switch (compute) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
      *family = Family::f16;
      return at == CUDA_R_16F && ct == CUDA_R_16F;
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
      *family = Family::f32;
      if (at == CUDA_R_16F || at == CUDA_R_16BF) return ct == at || ct == CUDA_R_32F;
      return (at == CUDA_R_8I || at == CUDA_R_32F) && ct == CUDA_R_32F;
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
      *family = Family::f32;
      return at == CUDA_R_32F && ct == CUDA_R_32F;
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
      *family = Family::f64;
      return at == CUDA_R_64F && ct == CUDA_R_64F;
    case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC:
      *family = Family::i32;
      return at == CUDA_R_8I && ct == CUDA_R_32I;
  }
  return false;
}

InputRounding input_rounding(cublasComputeType_t compute, cublasMath_t math, cudaDataType_t at) {
  switch (compute) {
    case CUBLAS_COMPUTE_32F_FAST_TF32: return InputRounding::tf32;
    case CUBLAS_COMPUTE_32F_FAST_16F: return InputRounding::f16;
    case CUBLAS_COMPUTE_32F_FAST_16BF: return InputRounding::bf16;
    case CUBLAS_COMPUTE_32F: {
      // The math mode reaches only single-precision inputs.
      if (at != CUDA_R_32F) return InputRounding::none;
      const int base = static_cast<int>(math) & ~CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
      if (base == CUBLAS_TF32_TENSOR_OP_MATH) return InputRounding::tf32;
      if (base == CUBLAS_TENSOR_OP_MATH) return InputRounding::f16;
      return InputRounding::none;
    }
    default: return InputRounding::none;
  }
}

// Bytes a stored matrix spans: `cols` columns of `ld` elements, the last one only to its
// `rows` used rows; 0 when nothing of it is read.
uint64_t extent_bytes(int64_t rows, int64_t cols, int64_t ld, size_t elem) {
  if (rows <= 0 || cols <= 0) return 0;
  return static_cast<uint64_t>((cols - 1) * ld + rows) * elem;
}

const char* op_name(cublasOperation_t op) {
  return op == CUBLAS_OP_N ? "N" : op == CUBLAS_OP_T ? "T" : "C";
}

// Whether the matrix lies in device memory; if not, faults the device as a read or write
// past the allocation would.
bool check_range(const char* name, const void* p, cublasOperation_t op, int64_t rows, int64_t cols,
                 int64_t ld, size_t elem, const char* access) {
  const uint64_t bytes = extent_bytes(rows, cols, ld, elem);
  if (bytes == 0 || kvchat_emu::is_device_range(p, bytes)) return true;
  char what[320];
  std::snprintf(what, sizeof what,
                "cublasGemmEx: %s (op %s, %" PRId64 "x%" PRId64 " stored with ld%c=%" PRId64
                ", %" PRIu64 " bytes from %p) %s past its allocation",
                name, op_name(op), rows, cols, static_cast<char>(name[0] - 'A' + 'a'), ld, bytes, p,
                access);
  kvchat_emu::fault(what);
  return false;
}

}  // namespace

extern "C" {

cublasStatus_t cublasCreate(cublasHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  auto* h = new cublasContext();
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  live_handles().insert(h);
  *handle = h;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  {
    std::lock_guard<std::mutex> lock(g_handles_mutex);
    if (!live_handles().erase(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  if (!handle || !live_handles().count(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t* stream) {
  cublasContext state;
  if (!handle_state(handle, &state)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!stream) return CUBLAS_STATUS_INVALID_VALUE;
  *stream = state.stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  if (!handle || !live_handles().count(handle)) return CUBLAS_STATUS_NOT_INITIALIZED;
  const int bits = static_cast<int>(mode);
  const int base = bits & ~CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
  if (base < CUBLAS_DEFAULT_MATH || base > CUBLAS_TF32_TENSOR_OP_MATH) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  handle->math = mode;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode) {
  cublasContext state;
  if (!handle_state(handle, &state)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = state.math;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode(cublasHandle_t handle, cublasPointerMode_t* mode) {
  if (!handle_state(handle, nullptr)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
  *mode = CUBLAS_POINTER_MODE_HOST;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode) {
  if (!handle_state(handle, nullptr)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (mode == CUBLAS_POINTER_MODE_HOST) return CUBLAS_STATUS_SUCCESS;
  if (mode == CUBLAS_POINTER_MODE_DEVICE) return CUBLAS_STATUS_NOT_SUPPORTED;  // not emulated
  return CUBLAS_STATUS_INVALID_VALUE;
}

const char* cublasGetStatusName(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

const char* cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "the device lacks a required architectural feature";
    case CUBLAS_STATUS_MAPPING_ERROR: return "an access to device memory failed";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the device program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the requested functionality is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR: return "the requested functionality requires a license";
  }
  return "unknown error";
}

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const void* alpha,
                            const void* A, cudaDataType_t Atype, int lda, const void* B,
                            cudaDataType_t Btype, int ldb, const void* beta, void* C,
                            cudaDataType_t Ctype, int ldc, cublasComputeType_t computeType,
                            cublasGemmAlgo_t algo) {
  cublasContext state;
  if (!handle_state(handle, &state)) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!valid_op(transa) || !valid_op(transb)) return CUBLAS_STATUS_INVALID_VALUE;
  if (m < 0 || n < 0 || k < 0) return CUBLAS_STATUS_INVALID_VALUE;
  const bool a_n = transa == CUBLAS_OP_N, b_n = transb == CUBLAS_OP_N;
  if (lda < std::max(1, a_n ? m : k)) return CUBLAS_STATUS_INVALID_VALUE;
  if (ldb < std::max(1, b_n ? k : n)) return CUBLAS_STATUS_INVALID_VALUE;
  if (ldc < std::max(1, m)) return CUBLAS_STATUS_INVALID_VALUE;
  if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
  Gemm g{};
  if (!supported(computeType, Atype, Btype, Ctype, &g.family) || !valid_algo(algo)) {
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;

  // Host pointer mode: the scale values are read now, in the scale type.
  switch (g.family) {
    case Family::f32:
      std::memcpy(&g.alpha_f, alpha, 4);
      std::memcpy(&g.beta_f, beta, 4);
      break;
    case Family::f16:
      g.alpha_d = kvchat::f16_to_f32(load_u16(alpha, 0));
      g.beta_d = kvchat::f16_to_f32(load_u16(beta, 0));
      break;
    case Family::f64:
      std::memcpy(&g.alpha_d, alpha, 8);
      std::memcpy(&g.beta_d, beta, 8);
      break;
    case Family::i32:
      std::memcpy(&g.alpha_i, alpha, 4);
      std::memcpy(&g.beta_i, beta, 4);
      break;
  }
  const bool reads_c = g.family == Family::f32   ? g.beta_f != 0.0f
                       : g.family == Family::i32 ? g.beta_i != 0
                                                 : g.beta_d != 0.0;
  g.rounding = input_rounding(computeType, state.math, Atype);
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = Operand{A, Atype, lda, !a_n};
  g.b = Operand{B, Btype, ldb, b_n};
  g.c = C;
  g.ctype = Ctype;
  g.ldc = ldc;

  // A is stored (a_n ? m x k : k x m), B (b_n ? k x n : n x k), C m x n. With k = 0 neither
  // A nor B is read.
  const size_t ae = element_bytes(Atype), be = element_bytes(Btype), ce = element_bytes(Ctype);
  auto in_device = [=]() {
    return (k == 0 || (check_range("A", A, transa, a_n ? m : k, a_n ? k : m, lda, ae, "reads") &&
                       check_range("B", B, transb, b_n ? k : n, b_n ? n : k, ldb, be, "reads"))) &&
           check_range("C", C, CUBLAS_OP_N, m, n, ldc, ce, reads_c ? "reads" : "writes");
  };
  if (!in_device()) return CUBLAS_STATUS_EXECUTION_FAILED;
  const cudaError_t err = kvchat_emu::submit(state.stream, "cublasGemmEx", [g, in_device]() {
    // Checked again when it runs: a captured graph may run after a buffer was freed.
    if (in_device()) run(g);
  });
  return err == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

}  // extern "C"
