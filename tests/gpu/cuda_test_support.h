// Shared by the gpu tests: device detection and skipping, a device buffer, random inputs,
// weight matrices of every type with their exact CPU dequantization, and the checks of the
// embedding, GEMV and dequantization kernels against numeric/dequantize.cpp (bit-equal f32
// values; f16 within its one rounding; the GEMV against a float64 dot of the dequantized
// rows). Test executables are one translation unit each.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend/cuda/cuda_ops.h"
#include "gguf/tensor_type.h"
#include "numeric/convert.h"
#include "numeric/half.h"
#include "numeric/quant_blocks.h"
#include "random_blocks.h"

#define SKIP_WITHOUT_DEVICE()                 \
  do {                                        \
    if (!::kvchat::gpu_test::have_device()) { \
      GTEST_SKIP() << "no CUDA device";       \
    }                                         \
  } while (0)

// The host twins (tests/cuda_host: test_cuda_*_host, KVCHAT_CUDA_HOST_EMULATION) run the same
// kernels through the grid emulator on the CPU, thousands of times slower than a device: they
// take smaller shapes that keep every path (chunk and scalar, tails, alignments) and leave out
// what only a device measures (speed).
#ifdef KVCHAT_CUDA_HOST_EMULATION
#define KVCHAT_ON_DEVICE_OR_HOST(device, host) (host)
#else
#define KVCHAT_ON_DEVICE_OR_HOST(device, host) (device)
#endif
#define SKIP_ON_HOST_EMULATION(why)                                 \
  do {                                                              \
    if (KVCHAT_ON_DEVICE_OR_HOST(false, true)) GTEST_SKIP() << why; \
  } while (0)

#define ASSERT_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call
#define ASSERT_ALLOC(buf) ASSERT_EQ((buf).err, cudaSuccess) << "cudaMalloc " #buf

namespace kvchat::gpu_test {

using cuda::DeviceMatrix;
using cuda::GemvArgs;
using cuda::GemvInput;
using gguf::TensorType;

inline bool have_device() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return n > 0;
}

// A device buffer of n T's (RAII). Check `err` after construction.
template <class T>
struct DevBuf {
  T* p = nullptr;
  size_t n = 0;
  cudaError_t err = cudaSuccess;

  explicit DevBuf(size_t count) : n(count) {
    err = cudaMalloc(reinterpret_cast<void**>(&p), std::max<size_t>(bytes(), 1));
  }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;

  size_t bytes() const { return n * sizeof(T); }
  cudaError_t poison() { return cudaMemset(p, 0xFF, bytes()); }
  cudaError_t upload(const std::vector<T>& v) {
    return cudaMemcpy(p, v.data(), std::min(bytes(), v.size() * sizeof(T)), cudaMemcpyHostToDevice);
  }
  cudaError_t download(std::vector<T>& v) const {
    v.resize(n);
    return cudaMemcpy(v.data(), p, bytes(), cudaMemcpyDeviceToHost);
  }
};

inline std::vector<float> uniform(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

inline uint64_t row_bytes_of(TensorType type, int64_t cols) {
  const auto traits = gguf::tensor_type_traits(static_cast<uint32_t>(type));
  return static_cast<uint64_t>(cols) / traits->block_elements * traits->block_bytes;
}

inline const char* name(TensorType t) { return gguf::tensor_type_name(t).data(); }

inline const char* name(GemvInput m) {
  switch (m) {
    case GemvInput::Plain: return "Plain";
    case GemvInput::RmsNorm: return "RmsNorm";
    case GemvInput::SwiGlu: return "SwiGlu";
  }
  return "?";
}

// A weight matrix encoded on the host, with its exact dequantized values (dequantize_row,
// the definition) for the references: quantize_row of random values for F32/F16/BF16/
// Q8_0/Q4_0, random valid blocks (fill_random_blocks) for the other block types.
struct HostMatrix {
  TensorType type;
  int64_t rows, cols;
  uint64_t row_bytes;
  std::vector<uint8_t> bytes;
  std::vector<float> values;  // (rows, cols) dequantized
};

inline HostMatrix make_matrix(TensorType type, int64_t rows, int64_t cols, uint32_t seed) {
  HostMatrix m{type, rows, cols, row_bytes_of(type, cols), {}, {}};
  m.bytes.resize(m.row_bytes * rows);
  m.values.resize(static_cast<size_t>(rows * cols));
  if (!scale_fields(type).empty()) {
    const auto traits = *gguf::tensor_type_traits(static_cast<uint32_t>(type));
    fill_random_blocks(type, m.bytes.data(),
                       static_cast<int64_t>(m.bytes.size() / traits.block_bytes), seed);
  } else {
    const std::vector<float> src = uniform(static_cast<size_t>(rows * cols), seed);
    for (int64_t r = 0; r < rows; ++r) {
      quantize_row(type, src.data() + r * cols, m.bytes.data() + r * m.row_bytes, cols);
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    dequantize_row(type, m.bytes.data() + r * m.row_bytes, m.values.data() + r * cols, cols);
  }
  return m;
}

// ---- kernel checks -----------------------------------------------------------------------

// embed_rows of a few tokens (first, last, repeated) is bit-equal to dequantize_row.
inline void check_embed(TensorType type, int64_t rows, int64_t cols, bool misaligned_out,
                        int w_offset = 0) {
  SCOPED_TRACE(std::string(name(type)) + " rows=" + std::to_string(rows) +
               " cols=" + std::to_string(cols) + (misaligned_out ? " misaligned out" : "") +
               " w_offset=" + std::to_string(w_offset));
  const HostMatrix m = make_matrix(type, rows, cols, 11);
  const std::vector<int32_t> tokens = {0, static_cast<int32_t>(rows - 1), 7,
                                       7, static_cast<int32_t>(rows / 2), 3};
  const int n = static_cast<int>(tokens.size());
  DevBuf<uint8_t> w(m.bytes.size() + 16);
  DevBuf<int32_t> tok(tokens.size());
  DevBuf<float> out(n * cols + 1);
  ASSERT_ALLOC(w);
  ASSERT_ALLOC(tok);
  ASSERT_ALLOC(out);
  ASSERT_CUDA(cudaMemcpy(w.p + w_offset, m.bytes.data(), m.bytes.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(tok.upload(tokens));
  ASSERT_CUDA(out.poison());
  const DeviceMatrix dm{type, w.p + w_offset, rows, cols, m.row_bytes};
  float* o = out.p + (misaligned_out ? 1 : 0);
  ASSERT_CUDA(cuda::embed_rows(dm, tok.p, n, o, nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  std::vector<float> got;
  ASSERT_CUDA(out.download(got));
  const size_t base = misaligned_out ? 1 : 0;
  for (int b = 0; b < n; ++b) {
    // Dequantization is exact on both sides: compare bits.
    ASSERT_EQ(std::memcmp(got.data() + base + b * cols, m.values.data() + tokens[b] * cols,
                          cols * sizeof(float)),
              0)
        << "token " << b;
  }
}

struct GemvCase {
  TensorType type;
  int64_t rows, cols;
  int w_offset = 0;  // bytes added to the weights' base (misaligned rows)
  int x_offset = 0;  // floats added to x's base (misaligned x: the scalar fallback)
};

inline void check_gemv(const GemvCase& c) {
  SCOPED_TRACE(std::string(name(c.type)) + " rows=" + std::to_string(c.rows) +
               " cols=" + std::to_string(c.cols) + " w_offset=" + std::to_string(c.w_offset) +
               " x_offset=" + std::to_string(c.x_offset));
  constexpr int kN = cuda::kGemvMaxTokens;
  const int64_t rows = c.rows, cols = c.cols;
  const HostMatrix m = make_matrix(c.type, rows, cols, static_cast<uint32_t>(rows * 31 + cols));
  const std::vector<float> x = uniform(kN * 2 * cols, 5, -4.0f, 4.0f);  // big enough for SwiGlu
  const std::vector<float> gain = uniform(cols, 6, 0.5f, 1.5f);
  const std::vector<float> scale = uniform(kN, 7, 0.25f, 2.0f);
  const std::vector<float> y0 = uniform(kN * rows, 8);

  DevBuf<uint8_t> w(m.bytes.size() + 16);
  DevBuf<float> dx(x.size() + 4), dgain(cols), dscale(kN), dy(kN * rows);
  ASSERT_ALLOC(w);
  ASSERT_ALLOC(dx);
  ASSERT_ALLOC(dgain);
  ASSERT_ALLOC(dscale);
  ASSERT_ALLOC(dy);
  ASSERT_CUDA(cudaMemcpy(w.p + c.w_offset, m.bytes.data(), m.bytes.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(
      cudaMemcpy(dx.p + c.x_offset, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  ASSERT_CUDA(dgain.upload(gain));
  ASSERT_CUDA(dscale.upload(scale));
  const DeviceMatrix dm{c.type, w.p + c.w_offset, rows, cols, m.row_bytes};

  for (GemvInput mode : {GemvInput::Plain, GemvInput::RmsNorm, GemvInput::SwiGlu}) {
    SCOPED_TRACE(name(mode));
    // The reference for all kN tokens, in double from the dequantized weights.
    std::vector<double> xin(kN * cols);
    for (int t = 0; t < kN; ++t) {
      for (int64_t i = 0; i < cols; ++i) {
        double v;
        if (mode == GemvInput::SwiGlu) {
          const double g = x[t * 2 * cols + i], u = x[t * 2 * cols + cols + i];
          v = g / (1.0 + std::exp(-g)) * u;
        } else {
          v = x[t * cols + i];
          if (mode == GemvInput::RmsNorm) v *= static_cast<double>(scale[t]) * gain[i];
        }
        xin[t * cols + i] = v;
      }
    }
    std::vector<double> ref(kN * rows);
    for (int64_t r = 0; r < rows; ++r) {
      const float* wr = m.values.data() + r * cols;
      for (int t = 0; t < kN; ++t) {
        const double* xt = xin.data() + t * cols;
        double s = 0;
        for (int64_t i = 0; i < cols; ++i) s += wr[i] * xt[i];
        ref[t * rows + r] = s;
      }
    }

    for (int n = 1; n <= kN; ++n) {
      for (bool acc : {false, true}) {
        SCOPED_TRACE("n=" + std::to_string(n) + (acc ? " accumulate" : ""));
        ASSERT_CUDA(dy.poison());
        if (acc) {
          ASSERT_CUDA(dy.upload(std::vector<float>(y0.begin(), y0.begin() + n * rows)));
        }
        GemvArgs args;
        args.input = mode;
        args.scale = dscale.p;
        args.gain = dgain.p;
        args.accumulate = acc;
        ASSERT_CUDA(cuda::gemv(dm, dx.p + c.x_offset, dy.p, n, args, nullptr));
        ASSERT_CUDA(cudaDeviceSynchronize());
        std::vector<float> got;
        ASSERT_CUDA(dy.download(got));
        double err2 = 0, ref2 = 0;
        for (int64_t k = 0; k < n * rows; ++k) {
          const double want = ref[k] + (acc ? y0[k] : 0.0);
          err2 += (got[k] - want) * (got[k] - want);
          ref2 += ref[k] * ref[k];
        }
        const double rel = std::sqrt(err2 / ref2);
        const double limit = c.type == TensorType::F32 ? 1e-5 : 1e-4;
        ASSERT_LE(rel, limit) << "relative L2 error";  // NaN (an unwritten value) fails too
        uint32_t bits;
        for (int64_t k = n * rows; k < kN * rows; ++k) {  // rows of tokens >= n untouched
          std::memcpy(&bits, &got[k], 4);
          ASSERT_EQ(bits, 0xFFFFFFFFu) << "wrote y[" << k / rows << "][" << k % rows << "]";
        }
      }
    }
  }
}

// dequantize_to_f16 is f32_to_f16 of dequantize_row (F16: the bytes themselves).
inline void check_dequantize_to_f16(TensorType type, int64_t rows, int64_t cols,
                                    bool misaligned_dst, int w_offset = 0) {
  SCOPED_TRACE(std::string(name(type)) + " rows=" + std::to_string(rows) +
               " cols=" + std::to_string(cols) + (misaligned_dst ? " misaligned dst" : "") +
               " w_offset=" + std::to_string(w_offset));
  const HostMatrix m = make_matrix(type, rows, cols, 71);
  DevBuf<uint8_t> w(m.bytes.size() + 16);
  DevBuf<uint16_t> dst(rows * cols + 1);
  ASSERT_ALLOC(w);
  ASSERT_ALLOC(dst);
  ASSERT_CUDA(cudaMemcpy(w.p + w_offset, m.bytes.data(), m.bytes.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(dst.poison());
  const DeviceMatrix dm{type, w.p + w_offset, rows, cols, m.row_bytes};
  const size_t base = misaligned_dst ? 1 : 0;
  ASSERT_CUDA(cuda::dequantize_to_f16(dm, reinterpret_cast<__half*>(dst.p + base), nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  std::vector<uint16_t> got;
  ASSERT_CUDA(dst.download(got));
  for (int64_t k = 0; k < rows * cols; ++k) {
    uint16_t want;
    if (type == TensorType::F16) {
      std::memcpy(&want, m.bytes.data() + (k / cols) * m.row_bytes + (k % cols) * 2, 2);
    } else {
      want = f32_to_f16(m.values[k]);
    }
    ASSERT_EQ(got[base + k], want) << "row " << k / cols << " col " << k % cols;
  }
  if (misaligned_dst) {
    EXPECT_EQ(got[0], 0xFFFF);
  } else {
    EXPECT_EQ(got[rows * cols], 0xFFFF);
  }
}

}  // namespace kvchat::gpu_test
