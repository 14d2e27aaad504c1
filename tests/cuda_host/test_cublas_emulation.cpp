// The emulated cuBLAS (tests/cuda_host/src/cublas_emulation.cpp) against cuBLAS's documented
// meaning, checked with independent float64 products: column-major storage, op N/T, leading
// dimensions with padding, alpha/beta, data, compute and scale types, math modes, refusals,
// and faults for extents outside device memory. The emulated device is a test double here
// (submit runs or defers the work, a registry of exact-size allocations): the emulated
// runtime is not linked.
#include <cublas_v2.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kvchat_emu/device_api.h"
#include "numeric/half.h"

// ---- the test double of the emulated device ---------------------------------------------

namespace {

struct FakeDevice {
  std::map<uintptr_t, size_t> allocations;  // start -> bytes
  std::vector<std::string> faults;
  std::vector<std::string> submitted;
  std::vector<cudaStream_t> streams;
  bool defer = false;  // as a captured stream: record, run later
  std::vector<std::function<void()>> deferred;
};

FakeDevice& device() {
  static FakeDevice d;
  return d;
}

}  // namespace

namespace kvchat_emu {

cudaError_t submit(cudaStream_t stream, const char* name, std::function<void()> work) {
  device().submitted.push_back(name);
  device().streams.push_back(stream);
  if (device().defer) {
    device().deferred.push_back(std::move(work));
  } else {
    work();
  }
  return cudaSuccess;
}

bool is_device_range(const void* p, size_t bytes) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  auto it = device().allocations.upper_bound(at);
  if (it == device().allocations.begin()) return false;
  --it;
  return at >= it->first && at - it->first <= it->second && bytes <= it->second - (at - it->first);
}

void fault(const char* what) { device().faults.push_back(what); }

}  // namespace kvchat_emu

namespace {

// A device allocation of exactly n elements of T (so ASan sees a read one past it too).
template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(size_t n) : data_(new T[n == 0 ? 1 : n]()), n_(n) {
    device().allocations[reinterpret_cast<uintptr_t>(data_.get())] = n * sizeof(T);
  }
  explicit DeviceArray(const std::vector<T>& v) : DeviceArray(v.size()) {
    std::copy(v.begin(), v.end(), data_.get());
  }
  ~DeviceArray() { device().allocations.erase(reinterpret_cast<uintptr_t>(data_.get())); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() { return data_.get(); }
  T& operator[](size_t i) { return data_[i]; }
  std::vector<T> to_vector() const { return std::vector<T>(data_.get(), data_.get() + n_); }

 private:
  std::unique_ptr<T[]> data_;
  size_t n_;
};

const float kNaN = std::numeric_limits<float>::quiet_NaN();

class CublasEmulation : public ::testing::Test {
 protected:
  void SetUp() override {
    device().faults.clear();
    device().submitted.clear();
    device().streams.clear();
    device().defer = false;
    device().deferred.clear();
    ASSERT_EQ(cublasCreate(&handle_), CUBLAS_STATUS_SUCCESS);
  }
  void TearDown() override {
    if (handle_) {
      EXPECT_EQ(cublasDestroy(handle_), CUBLAS_STATUS_SUCCESS);
    }
    EXPECT_TRUE(device().allocations.empty());
  }
  cublasHandle_t handle_ = nullptr;
};

// A column-major stored matrix: `rows` used rows of `ld`, `cols` columns; the padding rows
// (ld - rows) hold NaN, which must never reach a result.
struct Stored {
  int rows, cols, ld;
  std::vector<float> v;
  float at(int r, int c) const { return v[static_cast<size_t>(r) + static_cast<size_t>(c) * ld]; }
};

Stored make_stored(int rows, int cols, int ld, std::mt19937& rng, bool integers) {
  Stored s{rows, cols, ld, std::vector<float>(static_cast<size_t>(ld) * cols, kNaN)};
  std::uniform_int_distribution<int> small(-4, 4);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r)
      s.v[static_cast<size_t>(r) + static_cast<size_t>(c) * ld] =
          integers ? static_cast<float>(small(rng)) : real(rng);
  return s;
}

// op(X)(r, c) of a stored matrix, independently of the emulation's own indexing.
double op_at(const Stored& x, cublasOperation_t op, int r, int c) {
  return op == CUBLAS_OP_N ? x.at(r, c) : x.at(c, r);
}

// C = alpha op(A) op(B) + beta C in float64, C (m x n, ldc) column-major.
std::vector<double> reference(const Stored& a, cublasOperation_t ta, const Stored& b,
                              cublasOperation_t tb, const std::vector<float>& c, int m, int n,
                              int k, int ldc, double alpha, double beta) {
  std::vector<double> out(static_cast<size_t>(m) * n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += op_at(a, ta, i, p) * op_at(b, tb, p, j);
      const double old =
          beta == 0 ? 0 : beta * c[static_cast<size_t>(i) + static_cast<size_t>(j) * ldc];
      out[static_cast<size_t>(i) + static_cast<size_t>(j) * m] = alpha * s + old;
    }
  }
  return out;
}

cublasStatus_t gemm_f32(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                        int k, float alpha, const float* a, int lda, const float* b, int ldb,
                        float beta, float* c, int ldc) {
  return cublasGemmEx(h, ta, tb, m, n, k, &alpha, a, CUDA_R_32F, lda, b, CUDA_R_32F, ldb, &beta, c,
                      CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

// ---- handles ------------------------------------------------------------------------------

TEST_F(CublasEmulation, HandleKeepsStreamAndMathMode) {
  cudaStream_t s = nullptr;
  EXPECT_EQ(cublasGetStream(handle_, &s), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(s, nullptr);
  auto* stream = reinterpret_cast<cudaStream_t>(uintptr_t{0x1234});
  EXPECT_EQ(cublasSetStream(handle_, stream), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasGetStream(handle_, &s), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(s, stream);

  cublasMath_t mode = CUBLAS_TENSOR_OP_MATH;
  EXPECT_EQ(cublasGetMathMode(handle_, &mode), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(mode, CUBLAS_DEFAULT_MATH);
  EXPECT_EQ(cublasSetMathMode(handle_, CUBLAS_TF32_TENSOR_OP_MATH), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasGetMathMode(handle_, &mode), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(mode, CUBLAS_TF32_TENSOR_OP_MATH);
  const auto pedantic_strict = static_cast<cublasMath_t>(
      CUBLAS_PEDANTIC_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
  EXPECT_EQ(cublasSetMathMode(handle_, pedantic_strict), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasSetMathMode(handle_, static_cast<cublasMath_t>(7)), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(cublasGetMathMode(handle_, &mode), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(mode, pedantic_strict);

  // The work runs on the handle's stream, under cublasGemmEx's name.
  DeviceArray<float> a(std::vector<float>{2}), b(std::vector<float>{3}), c(1);
  EXPECT_EQ(gemm_f32(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, 1, a.get(), 1, b.get(), 1, 0,
                     c.get(), 1),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(device().submitted.size(), 1u);
  EXPECT_EQ(device().submitted[0], "cublasGemmEx");
  EXPECT_EQ(device().streams[0], stream);
  EXPECT_EQ(c[0], 6.0f);
}

TEST_F(CublasEmulation, NullOrDestroyedHandleIsNotInitialized) {
  float one = 1, zero = 0;
  DeviceArray<float> a(1), b(1), c(1);
  EXPECT_EQ(cublasGemmEx(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, a.get(), CUDA_R_32F, 1,
                         b.get(), CUDA_R_32F, 1, &zero, c.get(), CUDA_R_32F, 1, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(cublasSetStream(nullptr, nullptr), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(cublasSetMathMode(nullptr, CUBLAS_DEFAULT_MATH), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(cublasDestroy(nullptr), CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(cublasCreate(nullptr), CUBLAS_STATUS_INVALID_VALUE);

  cublasHandle_t other = nullptr;
  ASSERT_EQ(cublasCreate(&other), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(cublasDestroy(other), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(cublasGemmEx(other, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, a.get(), CUDA_R_32F, 1,
                         b.get(), CUDA_R_32F, 1, &zero, c.get(), CUDA_R_32F, 1, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_NOT_INITIALIZED);
  EXPECT_TRUE(device().submitted.empty());

  EXPECT_STREQ(cublasGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED), "CUBLAS_STATUS_NOT_SUPPORTED");
  EXPECT_NE(std::string(cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE)), "");
}

// ---- the product --------------------------------------------------------------------------

struct OpCase {
  cublasOperation_t ta, tb;
};

// Every op pair, with leading dimensions beyond the minimum (NaN padding) and sizes that are
// not multiples of any block, alpha and beta both in play. Small integers: every sum is exact
// in float, so the comparison is exact.
TEST_F(CublasEmulation, AllOpPairsWithPaddedLeadingDimensionsAreExact) {
  std::mt19937 rng(41);
  const int m = 13, n = 6, k = 11;
  for (OpCase oc : {OpCase{CUBLAS_OP_N, CUBLAS_OP_N}, OpCase{CUBLAS_OP_N, CUBLAS_OP_T},
                    OpCase{CUBLAS_OP_T, CUBLAS_OP_N}, OpCase{CUBLAS_OP_T, CUBLAS_OP_T},
                    OpCase{CUBLAS_OP_C, CUBLAS_OP_C}}) {
    SCOPED_TRACE("ops " + std::to_string(oc.ta) + "," + std::to_string(oc.tb));
    const bool an = oc.ta == CUBLAS_OP_N, bn = oc.tb == CUBLAS_OP_N;
    const int lda = (an ? m : k) + 3, ldb = (bn ? k : n) + 2, ldc = m + 5;
    Stored a = make_stored(an ? m : k, an ? k : m, lda, rng, true);
    Stored b = make_stored(bn ? k : n, bn ? n : k, ldb, rng, true);
    Stored c = make_stored(m, n, ldc, rng, true);
    const float alpha = 2, beta = -3;
    const auto want = reference(a, oc.ta, b, oc.tb, c.v, m, n, k, ldc, alpha, beta);
    DeviceArray<float> da(a.v), db(b.v), dc(c.v);
    ASSERT_EQ(gemm_f32(handle_, oc.ta, oc.tb, m, n, k, alpha, da.get(), lda, db.get(), ldb, beta,
                       dc.get(), ldc),
              CUBLAS_STATUS_SUCCESS);
    const auto got = dc.to_vector();
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < ldc; ++i) {
        const float g = got[static_cast<size_t>(i) + static_cast<size_t>(j) * ldc];
        if (i >= m) {
          EXPECT_TRUE(std::isnan(g)) << "padding row " << i << " of C written";
        } else {
          EXPECT_EQ(g, want[static_cast<size_t>(i) + static_cast<size_t>(j) * m]) << i << "," << j;
        }
      }
    }
  }
  EXPECT_TRUE(device().faults.empty());
}

// Real values, bigger than one block in every direction: float accumulation against float64.
TEST_F(CublasEmulation, RealValuesMatchFloat64Products) {
  std::mt19937 rng(7);
  const int m = 37, n = 9, k = 70;
  for (OpCase oc : {OpCase{CUBLAS_OP_N, CUBLAS_OP_N}, OpCase{CUBLAS_OP_N, CUBLAS_OP_T},
                    OpCase{CUBLAS_OP_T, CUBLAS_OP_N}, OpCase{CUBLAS_OP_T, CUBLAS_OP_T}}) {
    const bool an = oc.ta == CUBLAS_OP_N, bn = oc.tb == CUBLAS_OP_N;
    const int lda = (an ? m : k) + 1, ldb = (bn ? k : n) + 4, ldc = m + 2;
    Stored a = make_stored(an ? m : k, an ? k : m, lda, rng, false);
    Stored b = make_stored(bn ? k : n, bn ? n : k, ldb, rng, false);
    Stored c = make_stored(m, n, ldc, rng, false);
    const float alpha = 0.75f, beta = 0.5f;
    const auto want = reference(a, oc.ta, b, oc.tb, c.v, m, n, k, ldc, alpha, beta);
    DeviceArray<float> da(a.v), db(b.v), dc(c.v);
    ASSERT_EQ(gemm_f32(handle_, oc.ta, oc.tb, m, n, k, alpha, da.get(), lda, db.get(), ldb, beta,
                       dc.get(), ldc),
              CUBLAS_STATUS_SUCCESS);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i)
        EXPECT_NEAR(dc[static_cast<size_t>(i) + static_cast<size_t>(j) * ldc],
                    want[static_cast<size_t>(i) + static_cast<size_t>(j) * m], 2e-5);
  }
}

TEST_F(CublasEmulation, BetaZeroDoesNotReadC) {
  DeviceArray<float> a(std::vector<float>{1, 2, 3, 4}), b(std::vector<float>{5, 6, 7, 8});
  DeviceArray<float> c(std::vector<float>(4, kNaN));
  // A = [1 3; 2 4], B = [5 7; 6 8] column-major: A B = [23 31; 34 46].
  ASSERT_EQ(gemm_f32(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, 1, a.get(), 2, b.get(), 2, 0,
                     c.get(), 2),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(c.to_vector(), (std::vector<float>{23, 34, 31, 46}));
  // beta = 1 does read it: C = A B + C.
  ASSERT_EQ(gemm_f32(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, 0.5f, a.get(), 2, b.get(), 2, 1,
                     c.get(), 2),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(c.to_vector(), (std::vector<float>{34.5f, 51, 46.5f, 69}));
  // A^T B^T = (B A)^T: B A = [5*1+7*2, 5*3+7*4; 6*1+8*2, 6*3+8*4] = [19 43; 22 50].
  ASSERT_EQ(gemm_f32(handle_, CUBLAS_OP_T, CUBLAS_OP_T, 2, 2, 2, 1, a.get(), 2, b.get(), 2, 0,
                     c.get(), 2),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(c.to_vector(), (std::vector<float>{19, 43, 22, 50}));
}

TEST_F(CublasEmulation, KZeroScalesCAndMZeroDoesNothing) {
  DeviceArray<float> c(std::vector<float>{1, 2, 3, 4, 5, 6});
  // k = 0: C = beta C; A and B are not read (null is fine).
  ASSERT_EQ(gemm_f32(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 3, 2, 0, 1, nullptr, 3, nullptr, 1, 2,
                     c.get(), 3),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(c.to_vector(), (std::vector<float>{2, 4, 6, 8, 10, 12}));
  ASSERT_EQ(gemm_f32(handle_, CUBLAS_OP_T, CUBLAS_OP_N, 3, 2, 0, 1, nullptr, 1, nullptr, 1, 0,
                     c.get(), 3),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(c.to_vector(), (std::vector<float>(6, 0.0f)));
  EXPECT_TRUE(device().faults.empty());
  // m = 0 or n = 0: success, nothing submitted, nothing touched.
  device().submitted.clear();
  ASSERT_EQ(gemm_f32(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 0, 2, 4, 1, nullptr, 1, nullptr, 4, 0,
                     nullptr, 1),
            CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(gemm_f32(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 3, 0, 4, 1, nullptr, 3, nullptr, 4, 0,
                     nullptr, 3),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_TRUE(device().submitted.empty());
  EXPECT_TRUE(device().faults.empty());
}

// ---- 16-bit inputs ------------------------------------------------------------------------

uint16_t to16(float f, cudaDataType_t t) {
  return t == CUDA_R_16F ? kvchat::f32_to_f16(f) : kvchat::f32_to_bf16(f);
}
float from16(uint16_t h, cudaDataType_t t) {
  return t == CUDA_R_16F ? kvchat::f16_to_f32(h) : kvchat::bf16_to_f32(h);
}

TEST_F(CublasEmulation, HalfAndBfloat16InputsWithFloatAndSameTypeOutput) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> real(-2.0f, 2.0f);
  const int m = 19, n = 5, k = 33;
  for (cudaDataType_t t : {CUDA_R_16F, CUDA_R_16BF}) {
    for (cudaDataType_t ct : {CUDA_R_32F, t}) {
      for (OpCase oc : {OpCase{CUBLAS_OP_N, CUBLAS_OP_N}, OpCase{CUBLAS_OP_T, CUBLAS_OP_N},
                        OpCase{CUBLAS_OP_N, CUBLAS_OP_T}, OpCase{CUBLAS_OP_T, CUBLAS_OP_T}}) {
        SCOPED_TRACE("type " + std::to_string(t) + " C " + std::to_string(ct));
        const bool an = oc.ta == CUBLAS_OP_N, bn = oc.tb == CUBLAS_OP_N;
        const int lda = (an ? m : k) + 2, ldb = (bn ? k : n) + 1, ldc = m + 3;
        // Stored as 16-bit; the float copies hold exactly the widened values (NaN padding).
        Stored a{an ? m : k, an ? k : m, lda, {}}, b{bn ? k : n, bn ? n : k, ldb, {}};
        std::vector<uint16_t> a16(static_cast<size_t>(lda) * a.cols, to16(kNaN, t));
        std::vector<uint16_t> b16(static_cast<size_t>(ldb) * b.cols, to16(kNaN, t));
        for (auto& v : a16) v = to16(real(rng), t);
        for (auto& v : b16) v = to16(real(rng), t);
        for (int c = 0; c < a.cols; ++c)
          for (int r = a.rows; r < lda; ++r)
            a16[static_cast<size_t>(r) + static_cast<size_t>(c) * lda] = to16(kNaN, t);
        for (int c = 0; c < b.cols; ++c)
          for (int r = b.rows; r < ldb; ++r)
            b16[static_cast<size_t>(r) + static_cast<size_t>(c) * ldb] = to16(kNaN, t);
        for (uint16_t h : a16) a.v.push_back(from16(h, t));
        for (uint16_t h : b16) b.v.push_back(from16(h, t));
        std::vector<float> cvals(static_cast<size_t>(ldc) * n);
        for (auto& v : cvals) v = from16(to16(real(rng), t), t);  // representable in either C type
        const float alpha = 1.5f, beta = -0.5f;
        const auto want = reference(a, oc.ta, b, oc.tb, cvals, m, n, k, ldc, alpha, beta);

        DeviceArray<uint16_t> da(a16), db(b16);
        std::vector<float> got(static_cast<size_t>(m) * n);
        if (ct == CUDA_R_32F) {
          DeviceArray<float> dc(cvals);
          ASSERT_EQ(
              cublasGemmEx(handle_, oc.ta, oc.tb, m, n, k, &alpha, da.get(), t, lda, db.get(), t,
                           ldb, &beta, dc.get(), ct, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS);
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < m; ++i)
              EXPECT_NEAR(dc[static_cast<size_t>(i) + static_cast<size_t>(j) * ldc],
                          want[static_cast<size_t>(i) + static_cast<size_t>(j) * m], 2e-5);
        } else {
          std::vector<uint16_t> c16(cvals.size());
          for (size_t i = 0; i < c16.size(); ++i) c16[i] = to16(cvals[i], t);
          DeviceArray<uint16_t> dc(c16);
          ASSERT_EQ(
              cublasGemmEx(handle_, oc.ta, oc.tb, m, n, k, &alpha, da.get(), t, lda, db.get(), t,
                           ldb, &beta, dc.get(), ct, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS);
          // Rounded once to the 16-bit type: within half an ulp of it (plus float's error).
          const double ulp = t == CUDA_R_16F ? 1.0 / 1024 : 1.0 / 128;
          for (int j = 0; j < n; ++j) {
            for (int i = 0; i < m; ++i) {
              const double w = want[static_cast<size_t>(i) + static_cast<size_t>(j) * m];
              const double g = from16(dc[static_cast<size_t>(i) + static_cast<size_t>(j) * ldc], t);
              EXPECT_LE(std::fabs(g - w), 0.5 * ulp * std::max(std::fabs(w), 1.0) + 1e-4)
                  << i << "," << j;
            }
          }
        }
      }
    }
  }
}

// ---- compute types and math modes -----------------------------------------------------

float one_product(cublasHandle_t h, float a, float b, cublasComputeType_t compute) {
  DeviceArray<float> da(std::vector<float>{a}), db(std::vector<float>{b}), dc(1);
  const float one = 1, zero = 0;
  EXPECT_EQ(
      cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, da.get(), CUDA_R_32F, 1, db.get(),
                   CUDA_R_32F, 1, &zero, dc.get(), CUDA_R_32F, 1, compute, CUBLAS_GEMM_DEFAULT),
      CUBLAS_STATUS_SUCCESS);
  return dc[0];
}

TEST_F(CublasEmulation, InputRoundingFollowsComputeTypeAndMathMode) {
  const float x = 1.0f + std::ldexp(1.0f, -20);  // beyond TF32's 10 mantissa bits
  const float y = 1.0f + std::ldexp(1.0f, -9);   // beyond bf16's 7, within f16's 10
  const float tie = 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -23);  // f16: rounds up
  EXPECT_EQ(one_product(handle_, x, 1, CUBLAS_COMPUTE_32F), x);  // DEFAULT math: never TF32
  EXPECT_EQ(one_product(handle_, x, 1, CUBLAS_COMPUTE_32F_PEDANTIC), x);
  EXPECT_EQ(one_product(handle_, x, 1, CUBLAS_COMPUTE_32F_FAST_TF32), 1.0f);
  EXPECT_EQ(one_product(handle_, y, 1, CUBLAS_COMPUTE_32F_FAST_TF32), y);
  EXPECT_EQ(one_product(handle_, y, 1, CUBLAS_COMPUTE_32F_FAST_16F), y);
  EXPECT_EQ(one_product(handle_, tie, 1, CUBLAS_COMPUTE_32F_FAST_16F),
            1.0f + std::ldexp(1.0f, -10));
  EXPECT_EQ(one_product(handle_, y, 1, CUBLAS_COMPUTE_32F_FAST_16BF), 1.0f);
  // TF32 rounds to nearest: 1 + 2^-11 + 2^-12 goes up to 1 + 2^-10.
  EXPECT_EQ(one_product(handle_, 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -12), 1,
                        CUBLAS_COMPUTE_32F_FAST_TF32),
            1.0f + std::ldexp(1.0f, -10));

  ASSERT_EQ(cublasSetMathMode(handle_, CUBLAS_TF32_TENSOR_OP_MATH), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(one_product(handle_, x, 1, CUBLAS_COMPUTE_32F), 1.0f);
  EXPECT_EQ(one_product(handle_, x, 1, CUBLAS_COMPUTE_32F_PEDANTIC), x);
  ASSERT_EQ(cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(one_product(handle_, x, 1, CUBLAS_COMPUTE_32F), x);
  ASSERT_EQ(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(one_product(handle_, x, 1, CUBLAS_COMPUTE_32F), x);
}

TEST_F(CublasEmulation, Compute16FAccumulatesInHalf) {
  // 2048 + 1 + 1 in half: 2049 is a tie between 2048 and 2050 and goes to even 2048, twice.
  std::vector<uint16_t> a = {kvchat::f32_to_f16(2048), kvchat::f32_to_f16(1),
                             kvchat::f32_to_f16(1)};
  std::vector<uint16_t> b(3, kvchat::f32_to_f16(1));
  DeviceArray<uint16_t> da(a), db(b), dc(std::vector<uint16_t>{kvchat::f32_to_f16(kNaN)});
  const uint16_t one = kvchat::f32_to_f16(1), zero = kvchat::f32_to_f16(0);
  ASSERT_EQ(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 3, &one, da.get(), CUDA_R_16F, 1,
                         db.get(), CUDA_R_16F, 3, &zero, dc.get(), CUDA_R_16F, 1,
                         CUBLAS_COMPUTE_16F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(kvchat::f16_to_f32(dc[0]), 2048.0f);
  // The same with 32F compute keeps the ones: 2050, exact in half.
  const float onef = 1, zerof = 0;
  ASSERT_EQ(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 3, &onef, da.get(), CUDA_R_16F, 1,
                         db.get(), CUDA_R_16F, 3, &zerof, dc.get(), CUDA_R_16F, 1,
                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(kvchat::f16_to_f32(dc[0]), 2050.0f);
}

TEST_F(CublasEmulation, Compute64FAnd32I) {
  // 64F, alpha and beta read as double.
  DeviceArray<double> a(std::vector<double>{1.0, 2.0, 3.0, 4.0}), b(std::vector<double>{0.5, 0.25});
  DeviceArray<double> c(std::vector<double>{100, 200});
  const double alpha = 2, beta = 1;
  // A (2x2) = [1 3; 2 4], x = [0.5 0.25]: A x = [1.25; 2]; C = 2 A x + C.
  ASSERT_EQ(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 2, 1, 2, &alpha, a.get(), CUDA_R_64F, 2,
                         b.get(), CUDA_R_64F, 2, &beta, c.get(), CUDA_R_64F, 2, CUBLAS_COMPUTE_64F,
                         CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(c.to_vector(), (std::vector<double>{102.5, 204}));

  DeviceArray<int8_t> ia(std::vector<int8_t>{-128, 127, 3, -5}), ib(std::vector<int8_t>{2, -1});
  DeviceArray<int32_t> ic(std::vector<int32_t>{7, 9});
  const int32_t ialpha = 3, ibeta = -1;
  // A^T (A stored 2x2 col-major [-128 3; 127 -5]) times b: [-128*2 + 127*-1; 3*2 + -5*-1].
  ASSERT_EQ(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, 2, 1, 2, &ialpha, ia.get(), CUDA_R_8I,
                         2, ib.get(), CUDA_R_8I, 2, &ibeta, ic.get(), CUDA_R_32I, 2,
                         CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(ic.to_vector(), (std::vector<int32_t>{3 * (-256 - 127) - 7, 3 * 11 - 9}));

  // int8 inputs with 32F compute and f32 C: float scale values.
  DeviceArray<float> fc(std::vector<float>{kNaN, kNaN});
  const float falpha = 0.5f, fbeta = 0.0f;
  ASSERT_EQ(cublasGemmEx(handle_, CUBLAS_OP_T, CUBLAS_OP_N, 2, 1, 2, &falpha, ia.get(), CUDA_R_8I,
                         2, ib.get(), CUDA_R_8I, 2, &fbeta, fc.get(), CUDA_R_32F, 2,
                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(fc.to_vector(), (std::vector<float>{-191.5f, 5.5f}));
}

// ---- refusals -----------------------------------------------------------------------------

TEST_F(CublasEmulation, RefusesWhatCublasRefuses) {
  DeviceArray<float> a(64), b(64), c(64);
  DeviceArray<uint16_t> h(64);
  const float one = 1;
  auto call = [&](cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const void* al,
                  int lda, int ldb, const void* be, int ldc) {
    return cublasGemmEx(handle_, ta, tb, m, n, k, al, a.get(), CUDA_R_32F, lda, b.get(), CUDA_R_32F,
                        ldb, be, c.get(), CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
  const auto N = CUBLAS_OP_N, T = CUBLAS_OP_T;
  EXPECT_EQ(call(N, N, 4, 2, 3, &one, 4, 3, &one, 4), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(call(N, N, 4, 2, 3, &one, 3, 3, &one, 4), CUBLAS_STATUS_INVALID_VALUE);  // lda < m
  EXPECT_EQ(call(T, N, 4, 2, 3, &one, 2, 3, &one, 4), CUBLAS_STATUS_INVALID_VALUE);  // lda < k
  EXPECT_EQ(call(T, N, 4, 2, 3, &one, 3, 3, &one, 4), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(call(N, N, 4, 2, 3, &one, 4, 2, &one, 4), CUBLAS_STATUS_INVALID_VALUE);  // ldb < k
  EXPECT_EQ(call(N, T, 4, 2, 3, &one, 4, 1, &one, 4), CUBLAS_STATUS_INVALID_VALUE);  // ldb < n
  EXPECT_EQ(call(N, N, 4, 2, 3, &one, 4, 3, &one, 3), CUBLAS_STATUS_INVALID_VALUE);  // ldc < m
  EXPECT_EQ(call(N, N, 0, 2, 3, &one, 0, 3, &one, 1), CUBLAS_STATUS_INVALID_VALUE);  // lda < 1
  EXPECT_EQ(call(N, N, -1, 2, 3, &one, 4, 3, &one, 4), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(call(N, N, 4, -2, 3, &one, 4, 3, &one, 4), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(call(N, N, 4, 2, -3, &one, 4, 3, &one, 4), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(call(static_cast<cublasOperation_t>(7), N, 4, 2, 3, &one, 4, 3, &one, 4),
            CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(call(N, N, 4, 2, 3, nullptr, 4, 3, &one, 4), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(call(N, N, 4, 2, 3, &one, 4, 3, nullptr, 4), CUBLAS_STATUS_INVALID_VALUE);
  EXPECT_EQ(device().submitted.size(), 2u);  // only the two accepted calls ran

  // Type combinations outside the documented table.
  struct Combo {
    cudaDataType_t at, bt, ct;
    cublasComputeType_t compute;
  };
  for (Combo cb :
       {Combo{CUDA_R_16F, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F},
        Combo{CUDA_R_32F, CUDA_R_32F, CUDA_R_16F, CUBLAS_COMPUTE_32F},
        Combo{CUDA_R_16F, CUDA_R_16F, CUDA_R_16BF, CUBLAS_COMPUTE_32F},
        Combo{CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_16F},
        Combo{CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_16F},
        Combo{CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_64F},
        Combo{CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32},
        Combo{CUDA_R_16F, CUDA_R_16F, CUDA_R_32I, CUBLAS_COMPUTE_32I},
        Combo{CUDA_R_8I, CUDA_R_8I, CUDA_R_32F, CUBLAS_COMPUTE_32I},
        Combo{CUDA_C_32F, CUDA_C_32F, CUDA_C_32F, CUBLAS_COMPUTE_32F},
        Combo{CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, static_cast<cublasComputeType_t>(0)}}) {
    SCOPED_TRACE(std::to_string(cb.at) + "," + std::to_string(cb.bt) + "," + std::to_string(cb.ct) +
                 " compute " + std::to_string(cb.compute));
    EXPECT_EQ(cublasGemmEx(handle_, N, N, 2, 2, 2, &one, h.get(), cb.at, 2, h.get(), cb.bt, 2, &one,
                           c.get(), cb.ct, 2, cb.compute, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_NOT_SUPPORTED);
  }
  EXPECT_EQ(cublasGemmEx(handle_, N, N, 2, 2, 2, &one, a.get(), CUDA_R_32F, 2, b.get(), CUDA_R_32F,
                         2, &one, c.get(), CUDA_R_32F, 2, CUBLAS_COMPUTE_32F,
                         static_cast<cublasGemmAlgo_t>(50)),
            CUBLAS_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(
      cublasGemmEx(handle_, N, N, 2, 2, 2, &one, a.get(), CUDA_R_32F, 2, b.get(), CUDA_R_32F, 2,
                   &one, c.get(), CUDA_R_32F, 2, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT_TENSOR_OP),
      CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(device().submitted.size(), 3u);
  EXPECT_TRUE(device().faults.empty());
}

// ---- faults -------------------------------------------------------------------------------

TEST_F(CublasEmulation, ExtentsOutsideDeviceMemoryFault) {
  // A: 4x3 column-major with lda 4 is 12 floats.
  DeviceArray<float> a(12), b(6), c(8);
  EXPECT_EQ(gemm_f32(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 4, 2, 3, 1, a.get(), 4, b.get(), 3, 0,
                     c.get(), 4),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_TRUE(device().faults.empty());
  // lda 5: the last column is needed only to its 4 used rows, still 2*5+4 = 14 > 12 floats.
  EXPECT_EQ(gemm_f32(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 4, 2, 3, 1, a.get(), 5, b.get(), 3, 0,
                     c.get(), 4),
            CUBLAS_STATUS_EXECUTION_FAILED);
  ASSERT_EQ(device().faults.size(), 1u);
  EXPECT_NE(device().faults[0].find("cublasGemmEx: A"), std::string::npos) << device().faults[0];
  EXPECT_NE(device().faults[0].find("lda=5"), std::string::npos) << device().faults[0];
  // op T with a 4-row A stored 3x4 (12 floats, lda 3): fits exactly; lda 4 does not (3*4+3).
  EXPECT_EQ(gemm_f32(handle_, CUBLAS_OP_T, CUBLAS_OP_N, 4, 2, 3, 1, a.get(), 3, b.get(), 3, 0,
                     c.get(), 4),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(gemm_f32(handle_, CUBLAS_OP_T, CUBLAS_OP_N, 4, 2, 3, 1, a.get(), 4, b.get(), 3, 0,
                     c.get(), 4),
            CUBLAS_STATUS_EXECUTION_FAILED);
  // B too short, C too short, C on the host, C one element past the start.
  EXPECT_EQ(gemm_f32(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 4, 3, 2, 1, a.get(), 4, b.get(), 2, 0,
                     c.get(), 4),
            CUBLAS_STATUS_EXECUTION_FAILED);  // C: 12 > 8
  EXPECT_EQ(gemm_f32(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 4, 2, 4, 1, a.get(), 4, b.get(), 4, 0,
                     c.get(), 4),
            CUBLAS_STATUS_EXECUTION_FAILED);  // A 16 > 12 and B 8 > 6
  float host[8] = {};
  EXPECT_EQ(
      gemm_f32(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 4, 2, 3, 1, a.get(), 4, b.get(), 3, 0, host, 4),
      CUBLAS_STATUS_EXECUTION_FAILED);
  EXPECT_EQ(gemm_f32(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 4, 2, 3, 1, a.get(), 4, b.get(), 3, 0,
                     c.get() + 1, 4),
            CUBLAS_STATUS_EXECUTION_FAILED);
  EXPECT_EQ(device().faults.size(), 6u);
  EXPECT_NE(device().faults.back().find("cublasGemmEx: C"), std::string::npos);
  EXPECT_EQ(device().submitted.size(), 2u);  // faulted calls ran nothing
}

// Recorded (as into a captured graph): the scale values are those of the call, the product is
// computed when the work runs, and a buffer freed before then faults instead of being read.
TEST_F(CublasEmulation, DeferredWorkReadsScalesAtTheCall) {
  DeviceArray<float> a(std::vector<float>{2}), b(std::vector<float>{5}), c(std::vector<float>{1});
  device().defer = true;
  float alpha = 3, beta = 1;
  ASSERT_EQ(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &alpha, a.get(), CUDA_R_32F, 1,
                         b.get(), CUDA_R_32F, 1, &beta, c.get(), CUDA_R_32F, 1, CUBLAS_COMPUTE_32F,
                         CUBLAS_GEMM_DEFAULT),
            CUBLAS_STATUS_SUCCESS);
  alpha = 100;
  beta = 0;
  EXPECT_EQ(c[0], 1.0f);
  ASSERT_EQ(device().deferred.size(), 1u);
  device().deferred[0]();
  EXPECT_EQ(c[0], 31.0f);  // 3 * 2 * 5 + 1
  device().deferred[0]();
  EXPECT_EQ(c[0], 61.0f);  // replayed: C read again

  {
    DeviceArray<float> gone(std::vector<float>{7});
    ASSERT_EQ(cublasGemmEx(handle_, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &alpha, gone.get(),
                           CUDA_R_32F, 1, b.get(), CUDA_R_32F, 1, &beta, c.get(), CUDA_R_32F, 1,
                           CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
              CUBLAS_STATUS_SUCCESS);
  }
  device().deferred.back()();
  EXPECT_EQ(device().faults.size(), 1u);
  EXPECT_EQ(c[0], 61.0f);
}

// ---- the backend's call ----------------------------------------------------------------

// engine/src/backend/cuda/gemm.cpp: row-major W (rows, cols), row-major x (n, cols), y (n
// rows of ldy): y = x W^T, as cublasGemmEx(T, N, rows, n, cols, W, lda = cols, x, ldb = cols,
// y, ldc = ldy), compute 32F, W and x both of the weight's type (x converted), y f32.
struct BackendCase {
  int rows, cols, n;
  int64_t ldy;
};

cublasStatus_t backend_gemm(cublasHandle_t h, const void* w, const void* x, cudaDataType_t type,
                            int rows, int cols, int n, float* y, int64_t ldy, bool accumulate,
                            int lda_override = 0, cublasOperation_t ta = CUBLAS_OP_T) {
  const float alpha = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  const int lda = lda_override ? lda_override : cols;
  return cublasGemmEx(h, ta, CUBLAS_OP_N, rows, n, cols, &alpha, w, type, lda, x, type, cols, &beta,
                      y, CUDA_R_32F, static_cast<int>(ldy), CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT);
}

TEST_F(CublasEmulation, BackendCallIsRowMajorXTimesWTransposed) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  for (cudaDataType_t type : {CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF}) {
    for (BackendCase bc : {BackendCase{5, 16, 1, 5}, BackendCase{24, 40, 7, 24},
                           BackendCase{17, 33, 3, 20}, BackendCase{64, 96, 9, 70}}) {
      for (bool accumulate : {false, true}) {
        SCOPED_TRACE("type " + std::to_string(type) + " rows " + std::to_string(bc.rows) +
                     " accumulate " + std::to_string(accumulate));
        const int rows = bc.rows, cols = bc.cols, n = bc.n;
        std::vector<float> w(static_cast<size_t>(rows) * cols), x(static_cast<size_t>(n) * cols);
        for (auto& v : w) v = real(rng);
        for (auto& v : x) v = real(rng);
        std::vector<float> y0(static_cast<size_t>(n) * bc.ldy, kNaN);
        for (int t = 0; t < n; ++t)
          for (int r = 0; r < rows; ++r)
            y0[static_cast<size_t>(t) * bc.ldy + r] = accumulate ? real(rng) : kNaN;
        // The device sees 16-bit weights and x as the backend converts them.
        if (type != CUDA_R_32F) {
          for (auto& v : w) v = from16(to16(v, type), type);
          for (auto& v : x) v = from16(to16(v, type), type);
        }
        // The plain row-major loop.
        std::vector<double> want(static_cast<size_t>(n) * rows);
        for (int t = 0; t < n; ++t) {
          for (int r = 0; r < rows; ++r) {
            double s = 0;
            for (int c = 0; c < cols; ++c)
              s += static_cast<double>(x[static_cast<size_t>(t) * cols + c]) *
                   w[static_cast<size_t>(r) * cols + c];
            want[static_cast<size_t>(t) * rows + r] =
                s + (accumulate ? y0[static_cast<size_t>(t) * bc.ldy + r] : 0.0);
          }
        }
        DeviceArray<float> dy(y0);
        if (type == CUDA_R_32F) {
          DeviceArray<float> dw(w), dx(x);
          ASSERT_EQ(backend_gemm(handle_, dw.get(), dx.get(), type, rows, cols, n, dy.get(), bc.ldy,
                                 accumulate),
                    CUBLAS_STATUS_SUCCESS);
        } else {
          std::vector<uint16_t> w16(w.size()), x16(x.size());
          for (size_t i = 0; i < w.size(); ++i) w16[i] = to16(w[i], type);
          for (size_t i = 0; i < x.size(); ++i) x16[i] = to16(x[i], type);
          DeviceArray<uint16_t> dw(w16), dx(x16);
          ASSERT_EQ(backend_gemm(handle_, dw.get(), dx.get(), type, rows, cols, n, dy.get(), bc.ldy,
                                 accumulate),
                    CUBLAS_STATUS_SUCCESS);
        }
        const auto got = dy.to_vector();
        for (int t = 0; t < n; ++t) {
          for (int64_t r = 0; r < bc.ldy; ++r) {
            const float g = got[static_cast<size_t>(t * bc.ldy + r)];
            if (r >= rows) {
              EXPECT_TRUE(std::isnan(g)) << "y padding written at " << t << "," << r;
            } else {
              EXPECT_NEAR(g, want[static_cast<size_t>(t) * rows + static_cast<size_t>(r)], 2e-5);
            }
          }
        }
      }
    }
  }
  EXPECT_TRUE(device().faults.empty());
}

// A wrong leading dimension or a swapped op in the backend's call gives another result (or a
// fault), never the right one: such a bug fails the backend's tests.
TEST_F(CublasEmulation, WrongLeadingDimensionOrOpIsNotForgiven) {
  const int rows = 6, cols = 6, n = 3;
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> small(-4, 4);
  // W with room for a wrong lda of cols + 1 (a bigger allocation, so nothing faults).
  std::vector<float> w(static_cast<size_t>(rows) * (cols + 1)), x(static_cast<size_t>(n) * cols);
  for (auto& v : w) v = static_cast<float>(small(rng));
  for (auto& v : x) v = static_cast<float>(small(rng));
  DeviceArray<float> dw(w), dx(x);
  auto result = [&](int lda, cublasOperation_t ta) {
    DeviceArray<float> dy(static_cast<size_t>(n) * rows);
    EXPECT_EQ(backend_gemm(handle_, dw.get(), dx.get(), CUDA_R_32F, rows, cols, n, dy.get(), rows,
                           false, lda, ta),
              CUBLAS_STATUS_SUCCESS);
    return dy.to_vector();
  };
  const auto right = result(cols, CUBLAS_OP_T);
  // The independent row-major loop agrees with the right call.
  for (int t = 0; t < n; ++t) {
    for (int r = 0; r < rows; ++r) {
      double s = 0;
      for (int c = 0; c < cols; ++c)
        s += x[static_cast<size_t>(t) * cols + c] * w[static_cast<size_t>(r) * cols + c];
      EXPECT_EQ(right[static_cast<size_t>(t) * rows + r], s);
    }
  }
  EXPECT_NE(result(cols + 1, CUBLAS_OP_T), right);  // lda off by one
  EXPECT_NE(result(cols, CUBLAS_OP_N), right);      // W not transposed (square: no ld error)
  EXPECT_TRUE(device().faults.empty());
  // And a wrong ldy writes other places of y.
  DeviceArray<float> dy(static_cast<size_t>(n) * (rows + 1));
  ASSERT_EQ(backend_gemm(handle_, dw.get(), dx.get(), CUDA_R_32F, rows, cols, n, dy.get(), rows + 1,
                         false),
            CUBLAS_STATUS_SUCCESS);
  const auto wrong_ldy = dy.to_vector();
  EXPECT_NE(std::vector<float>(wrong_ldy.begin(), wrong_ldy.begin() + n * rows), right);
  // With the exact-size W of the backend, lda = cols + 1 runs past it: a fault.
  DeviceArray<float> exact(std::vector<float>(w.begin(), w.begin() + rows * cols));
  DeviceArray<float> dy2(static_cast<size_t>(n) * rows);
  EXPECT_EQ(backend_gemm(handle_, exact.get(), dx.get(), CUDA_R_32F, rows, cols, n, dy2.get(), rows,
                         false, cols + 1),
            CUBLAS_STATUS_EXECUTION_FAILED);
  EXPECT_EQ(device().faults.size(), 1u);
}

// The forward pass runs through this on every test: a prefill-sized f16 product stays quick.
TEST_F(CublasEmulation, PrefillSizedProductIsQuick) {
  const int rows = 512, cols = 512, n = 64;
  std::vector<uint16_t> w(static_cast<size_t>(rows) * cols, kvchat::f32_to_f16(0.5f));
  std::vector<uint16_t> x(static_cast<size_t>(n) * cols, kvchat::f32_to_f16(0.25f));
  DeviceArray<uint16_t> dw(w), dx(x);
  DeviceArray<float> dy(static_cast<size_t>(n) * rows);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(
      backend_gemm(handle_, dw.get(), dx.get(), CUDA_R_16F, rows, cols, n, dy.get(), rows, false),
      CUBLAS_STATUS_SUCCESS);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(dy[0], 64.0f);
  EXPECT_EQ(dy[static_cast<size_t>(n) * rows - 1], 64.0f);
  std::printf("512x512 by 64 f16 product: %.1f ms (%.2f GFLOP/s)\n", ms,
              2.0 * rows * cols * n / (ms * 1e6));
  EXPECT_LT(ms, 5000.0);  // generous: shared machines and sanitizers
}

}  // namespace
