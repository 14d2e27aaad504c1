// The CUDA backend's element-wise, norm, GEMV, conversion and KV-write kernels against
// the CPU implementations (numeric/convert, numeric/half, cpu_ops), on fixed-seed random
// inputs. Every output buffer is poisoned (0xFF bytes, a NaN for floats) before a kernel
// runs, so a value it fails to write is caught. Without a CUDA device every test skips.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/cpu_ops.h"
#include "backend/cpu/dot.h"
#include "backend/cuda/cuda_ops.h"
#include "cuda_test_support.h"
#include "gguf/tensor_type.h"
#include "numeric/convert.h"
#include "numeric/half.h"

namespace kvchat {
namespace {

using namespace gpu_test;

// ---- embed_rows ------------------------------------------------------------------------

TEST(CudaEmbed, EveryTypeMatchesDequantizeRow) {
  SKIP_WITHOUT_DEVICE();
  for (TensorType t :
       {TensorType::F32, TensorType::F16, TensorType::BF16, TensorType::Q8_0, TensorType::Q4_0}) {
    check_embed(t, KVCHAT_ON_DEVICE_OR_HOST(1000, 100), KVCHAT_ON_DEVICE_OR_HOST(4096, 1024),
                false);
    check_embed(t, 33, 96, false);  // 3 quant blocks a row: rows alternate 4-byte alignment
    check_embed(t, 33, 96, true);   // scalar path
  }
  for (TensorType t : {TensorType::F32, TensorType::F16, TensorType::BF16})
    check_embed(t, 10, 100, false);
}

TEST(CudaEmbed, ZeroTokensLaunchesNothing) {
  SKIP_WITHOUT_DEVICE();
  const DeviceMatrix dm{TensorType::F16, nullptr, 10, 64, 128};
  EXPECT_EQ(cuda::embed_rows(dm, nullptr, 0, nullptr, nullptr), cudaSuccess);
}

// ---- gemv ------------------------------------------------------------------------------

#ifdef KVCHAT_CUDA_HOST_EMULATION  // the same paths (multi-chunk rows, tails) on fewer rows
const int64_t kGemvShapes[][2] = {{100, 64}, {67, 1024}, {35, 1056}, {37, 96}, {1001, 64}};
#else
const int64_t kGemvShapes[][2] = {{1000, 64}, {4097, 4096}, {1000, 11008}, {37, 96}, {40001, 64}};
#endif

void check_gemv_type(TensorType type) {
  for (const auto& s : kGemvShapes) {
    check_gemv({type, s[0], s[1]});
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Misaligned weights: the quantized types stay on the chunk path with shifted blocks,
  // the others fall back to scalar reads. Misaligned x: the scalar fallback for all.
  const int natural = type == TensorType::F32 ? 4 : 2;
  check_gemv({type, 37, 96, natural});
  if (::testing::Test::HasFatalFailure()) return;
  check_gemv({type, 37, 96, 0, 1});
  if (::testing::Test::HasFatalFailure()) return;
  if (type == TensorType::F32 || type == TensorType::F16 || type == TensorType::BF16) {
    check_gemv({type, 37, 100});  // cols not a multiple of the chunk: scalar fallback
  }
}

TEST(CudaGemv, F32) {
  SKIP_WITHOUT_DEVICE();
  check_gemv_type(TensorType::F32);
}
TEST(CudaGemv, F16) {
  SKIP_WITHOUT_DEVICE();
  check_gemv_type(TensorType::F16);
}
TEST(CudaGemv, BF16) {
  SKIP_WITHOUT_DEVICE();
  check_gemv_type(TensorType::BF16);
}
TEST(CudaGemv, Q8_0) {
  SKIP_WITHOUT_DEVICE();
  check_gemv_type(TensorType::Q8_0);
}
TEST(CudaGemv, Q4_0) {
  SKIP_WITHOUT_DEVICE();
  check_gemv_type(TensorType::Q4_0);
}

TEST(CudaGemv, ZeroTokensWritesNothing) {
  SKIP_WITHOUT_DEVICE();
  DevBuf<float> y(16);
  ASSERT_ALLOC(y);
  ASSERT_CUDA(y.poison());
  const DeviceMatrix dm{TensorType::F16, nullptr, 16, 64, 128};
  ASSERT_CUDA(cuda::gemv(dm, nullptr, y.p, 0, GemvArgs{}, nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  std::vector<float> got;
  ASSERT_CUDA(y.download(got));
  for (float v : got) EXPECT_TRUE(std::isnan(v));
}

// Decode GEMV speed on the shapes of an 8B model (Llama 3: 4096 wide, 14336 FFN, 128256
// vocab), n = 1, against a device-to-device copy (bytes read + written per second).
// Prints the fractions; fails only far below the 85% target (a broken fast path).
TEST(CudaGemvPerf, DecodeShapesNearCopyBandwidth) {
  SKIP_WITHOUT_DEVICE();
  SKIP_ON_HOST_EMULATION("speed: only a device measures it");
  const int64_t shapes[][2] = {
      {4096, 4096}, {1024, 4096}, {14336, 4096}, {4096, 14336}, {128256, 4096}};
  const size_t max_bytes = 128256ull * 4096 * 2;
  DevBuf<uint8_t> w(max_bytes), copy(max_bytes);
  DevBuf<float> x(2 * 14336), y(128256), scale(1), gain(14336);
  ASSERT_ALLOC(w);
  ASSERT_ALLOC(copy);
  ASSERT_ALLOC(x);
  ASSERT_ALLOC(y);
  ASSERT_ALLOC(scale);
  ASSERT_ALLOC(gain);
  ASSERT_CUDA(cudaMemset(w.p, 0x11, max_bytes));  // small finite values in every type
  ASSERT_CUDA(cudaMemset(x.p, 0, x.bytes()));
  ASSERT_CUDA(cudaMemset(scale.p, 0, scale.bytes()));
  ASSERT_CUDA(cudaMemset(gain.p, 0, gain.bytes()));
  cudaEvent_t start, stop;
  ASSERT_CUDA(cudaEventCreate(&start));
  ASSERT_CUDA(cudaEventCreate(&stop));
  auto time_ms = [&](auto&& op, int reps) {
    float ms = -1;
    for (int i = 0; i < 3; ++i) op();
    if (cudaEventRecord(start) != cudaSuccess) return -1.0f;
    for (int i = 0; i < reps; ++i) op();
    if (cudaEventRecord(stop) != cudaSuccess || cudaEventSynchronize(stop) != cudaSuccess)
      return -1.0f;
    if (cudaEventElapsedTime(&ms, start, stop) != cudaSuccess) return -1.0f;
    return ms / reps;
  };
  const float copy_ms =
      time_ms([&] { (void)cudaMemcpyAsync(copy.p, w.p, max_bytes, cudaMemcpyDeviceToDevice); }, 10);
  ASSERT_GT(copy_ms, 0.0f);
  const double copy_gbs = 2.0 * max_bytes / copy_ms / 1e6;
  std::printf("device-to-device copy: %.0f GB/s (read + write)\n", copy_gbs);
  double f16_bytes = 0, f16_ms = 0;
  std::vector<TensorType> types = {TensorType::F16, TensorType::BF16, TensorType::Q8_0,
                                   TensorType::Q4_0};
  types.insert(types.end(), new_block_types().begin(), new_block_types().end());  // printed only
  for (TensorType type : types) {
    for (GemvInput mode : {GemvInput::Plain, GemvInput::RmsNorm, GemvInput::SwiGlu}) {
      for (const auto& s : shapes) {
        if (mode == GemvInput::SwiGlu && s[1] != 14336) continue;
        const DeviceMatrix dm{type, w.p, s[0], s[1], row_bytes_of(type, s[1])};
        GemvArgs args;
        args.input = mode;
        args.scale = scale.p;
        args.gain = gain.p;
        const float ms = time_ms([&] { (void)cuda::gemv(dm, x.p, y.p, 1, args, nullptr); }, 20);
        ASSERT_CUDA(cudaGetLastError());
        ASSERT_GT(ms, 0.0f);
        const double bytes = static_cast<double>(dm.row_bytes) * dm.rows;
        std::printf("gemv %-4s %-7s n=1 %6lld x %5lld: %7.1f us, %5.0f GB/s = %3.0f%% of copy\n",
                    name(type), name(mode), static_cast<long long>(s[0]),
                    static_cast<long long>(s[1]), ms * 1e3, bytes / ms / 1e6,
                    100.0 * bytes / ms / 1e6 / copy_gbs);
        if (type == TensorType::F16) {
          f16_bytes += bytes;
          f16_ms += ms;
        }
      }
    }
  }
  const double fraction = f16_bytes / f16_ms / 1e6 / copy_gbs;
  std::printf("f16, all shapes and modes: %.0f%% of copy bandwidth (target 85%%)\n",
              100.0 * fraction);
  EXPECT_GE(fraction, 0.5);
  ASSERT_CUDA(cudaEventDestroy(start));
  ASSERT_CUDA(cudaEventDestroy(stop));
}

// ---- rmsnorm / rms_scale ---------------------------------------------------------------

TEST(CudaRmsNorm, MatchesCpu) {
  SKIP_WITHOUT_DEVICE();
  for (int dim : {4096, 100, 5}) {
    SCOPED_TRACE("dim=" + std::to_string(dim));
    const int n = 3;
    const float eps = 1e-5f;
    const std::vector<float> x = uniform(n * dim, 21, -3.0f, 3.0f),
                             gain = uniform(dim, 22, 0.5f, 1.5f);
    DevBuf<float> dx(n * dim), dg(dim), dout(n * dim), dscale(n);
    ASSERT_ALLOC(dx);
    ASSERT_ALLOC(dg);
    ASSERT_ALLOC(dout);
    ASSERT_ALLOC(dscale);
    ASSERT_CUDA(dx.upload(x));
    ASSERT_CUDA(dg.upload(gain));
    ASSERT_CUDA(dout.poison());
    ASSERT_CUDA(dscale.poison());
    ASSERT_CUDA(cuda::rmsnorm(dx.p, dg.p, dout.p, n, dim, eps, nullptr));
    ASSERT_CUDA(cuda::rms_scale(dx.p, dscale.p, n, dim, eps, nullptr));
    ASSERT_CUDA(cudaDeviceSynchronize());
    std::vector<float> out, scale;
    ASSERT_CUDA(dout.download(out));
    ASSERT_CUDA(dscale.download(scale));
    std::vector<float> want(dim);
    for (int t = 0; t < n; ++t) {
      cpu::rmsnorm(want.data(), x.data() + t * dim, gain.data(), dim, eps);
      double ss = 0;
      for (int i = 0; i < dim; ++i) ss += static_cast<double>(x[t * dim + i]) * x[t * dim + i];
      const double s = 1.0 / std::sqrt(ss / dim + eps);
      EXPECT_NEAR(scale[t], s, 1e-6 * s) << "token " << t;
      for (int i = 0; i < dim; ++i) {
        ASSERT_NEAR(out[t * dim + i], want[i], 1e-6 * std::fabs(want[i]) + 1e-30)
            << "token " << t << " i " << i;
      }
    }
    // In place.
    ASSERT_CUDA(cuda::rmsnorm(dx.p, dg.p, dx.p, n, dim, eps, nullptr));
    ASSERT_CUDA(cudaDeviceSynchronize());
    std::vector<float> inplace;
    ASSERT_CUDA(dx.download(inplace));
    EXPECT_EQ(inplace, out);
  }
}

// ---- rope ------------------------------------------------------------------------------

// rope_cs (max_pos, n_rot/2): the backend's table, RopeCosSin's values (mscale included).
std::vector<float2> make_rope_cs(int max_pos, const RopeTable& t) {
  RopeCosSin cs(t);
  cs.cover(max_pos);
  const auto* first = reinterpret_cast<const float2*>(cs.at(0));
  return std::vector<float2>(first, first + static_cast<size_t>(max_pos) * (t.n_rot / 2));
}

void check_rope(RopeStyle style, int head_dim, int n_rot, float base, const RopeScaling& scaling,
                bool with_q, bool with_k) {
  SCOPED_TRACE(std::string(style == RopeStyle::Neox ? "neox" : "norm") +
               " head_dim=" + std::to_string(head_dim) + " n_rot=" + std::to_string(n_rot) +
               " base=" + std::to_string(base) +
               " scaling=" + std::to_string(static_cast<int>(scaling.type)) + (with_q ? " q" : "") +
               (with_k ? " k" : ""));
  const int n = 5, n_q = 8, n_kv = 2, max_pos = 5000;
  const std::vector<int32_t> positions = {0, 1, 17, 4095, 4999};
  const RopeTable table = make_rope_table(style, n_rot, base, scaling, nullptr);
  const std::vector<float2> cs = make_rope_cs(max_pos, table);
  const std::vector<float> q = uniform(n * n_q * head_dim, 31, -2.0f, 2.0f),
                           k = uniform(n * n_kv * head_dim, 32, -2.0f, 2.0f);
  DevBuf<float> dq(q.size()), dk(k.size());
  DevBuf<int32_t> dpos(n);
  DevBuf<float2> dcs(cs.size());
  ASSERT_ALLOC(dq);
  ASSERT_ALLOC(dk);
  ASSERT_ALLOC(dpos);
  ASSERT_ALLOC(dcs);
  ASSERT_CUDA(dq.upload(q));
  ASSERT_CUDA(dk.upload(k));
  ASSERT_CUDA(dpos.upload(positions));
  ASSERT_CUDA(dcs.upload(cs));
  ASSERT_CUDA(cuda::rope(with_q ? dq.p : nullptr, n_q, with_k ? dk.p : nullptr, n_kv, n, head_dim,
                         n_rot, style == RopeStyle::Neox, dpos.p, dcs.p, nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  std::vector<float> gq, gk;
  ASSERT_CUDA(dq.download(gq));
  ASSERT_CUDA(dk.download(gk));
  std::vector<float> wq = q, wk = k;
  for (int b = 0; b < n; ++b) {
    if (with_q) cpu::rope(wq.data() + b * n_q * head_dim, n_q, head_dim, table, positions[b]);
    if (with_k) cpu::rope(wk.data() + b * n_kv * head_dim, n_kv, head_dim, table, positions[b]);
  }
  // Separately rounded products and sums on both sides: expected bit-identical.
  size_t differ = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    ASSERT_NEAR(gq[i], wq[i], 1e-6) << "q[" << i << "]";
    differ += gq[i] != wq[i];
  }
  for (size_t i = 0; i < k.size(); ++i) {
    ASSERT_NEAR(gk[i], wk[i], 1e-6) << "k[" << i << "]";
    differ += gk[i] != wk[i];
  }
  EXPECT_EQ(differ, 0u) << "values within 1e-6 but not bit-identical";
}

TEST(CudaRope, MatchesCpuForEveryStyleAndScaling) {
  SKIP_WITHOUT_DEVICE();
  RopeScaling yarn;
  yarn.type = RopeScalingType::Yarn;
  yarn.factor = 4;
  yarn.orig_ctx = 1024;
  RopeScaling linear;
  linear.type = RopeScalingType::Linear;
  linear.factor = 2;
  for (RopeStyle style : {RopeStyle::Norm, RopeStyle::Neox}) {
    check_rope(style, 64, 64, 10000.0f, {}, true, true);
    check_rope(style, 128, 128, 500000.0f, {}, true, true);
    check_rope(style, 64, 32, 10000.0f, {}, true,
               true);  // partial rotation: dims >= n_rot untouched
    check_rope(style, 64, 64, 10000.0f, {}, true, false);
    check_rope(style, 64, 64, 10000.0f, {}, false, true);
    check_rope(style, 128, 128, 1000000.0f, yarn, true, true);  // mscale != 1
    check_rope(style, 96, 96, 10000.0f, linear, true, true);
  }
}

// ---- glu ------------------------------------------------------------------------------

TEST(CudaGlu, SwiGluAndGeGluMatchCpu) {
  SKIP_WITHOUT_DEVICE();
  const int n = 3, n_ff = 1001;
  std::vector<float> gate_up = uniform(n * 2 * n_ff, 41, -12.0f, 12.0f);
  gate_up[0] = -100.0f;  // e^100 overflows: silu -> -0
  gate_up[1] = 100.0f;
  for (bool gelu : {false, true}) {
    SCOPED_TRACE(gelu ? "GeGLU" : "SwiGLU");
    DevBuf<float> dgu(gate_up.size()), dout(n * n_ff);
    ASSERT_ALLOC(dgu);
    ASSERT_ALLOC(dout);
    ASSERT_CUDA(dgu.upload(gate_up));
    ASSERT_CUDA(dout.poison());
    ASSERT_CUDA(cuda::glu(gelu, dgu.p, dout.p, n, n_ff, nullptr));
    ASSERT_CUDA(cudaDeviceSynchronize());
    std::vector<float> got;
    ASSERT_CUDA(dout.download(got));
    for (int t = 0; t < n; ++t) {
      std::vector<float> g(gate_up.begin() + t * 2 * n_ff, gate_up.begin() + t * 2 * n_ff + n_ff);
      cpu::force_scalar_kernels(true);  // the scalar definition (expf per value)
      cpu::gated_activation(gelu ? FfnActivation::GeluTanhGlu : FfnActivation::SiluGlu, g.data(),
                            gate_up.data() + t * 2 * n_ff + n_ff, n_ff);
      cpu::force_scalar_kernels(false);
      for (int i = 0; i < n_ff; ++i) {
        // GeGLU's 1 + tanh(u) cancels where tanh(u) is near -1: the device's and glibc's
        // tanhf (a few ulp of 1 apart) then differ by that much times 0.5 x up.
        const float x = gate_up[t * 2 * n_ff + i], up = gate_up[t * 2 * n_ff + n_ff + i];
        const double cancel = gelu ? 4e-7 * std::fabs(0.5 * x * up) : 0.0;
        ASSERT_NEAR(got[t * n_ff + i], g[i], 4e-6 * std::fabs(g[i]) + cancel + 1e-30)
            << "t " << t << " i " << i;
      }
    }
  }
}

// ---- biases, scales, soft-caps, per-head norms ------------------------------------------

TEST(CudaElementwise, BiasScaleSoftcapAndHeadNormMatchCpu) {
  SKIP_WITHOUT_DEVICE();
  const int n = 4, cols = 384, hd = 64;
  const std::vector<float> x = uniform(n * cols, 61, -40.0f, 40.0f),
                           bias = uniform(cols, 62, -1, 1);
  const std::vector<float> gain = uniform(hd, 63, 0.5f, 1.5f);
  DevBuf<float> dx(x.size()), db(bias.size()), dg(gain.size());
  ASSERT_ALLOC(dx);
  ASSERT_ALLOC(db);
  ASSERT_ALLOC(dg);
  ASSERT_CUDA(db.upload(bias));
  ASSERT_CUDA(dg.upload(gain));
  std::vector<float> got;

  ASSERT_CUDA(dx.upload(x));
  ASSERT_CUDA(cuda::add_bias(dx.p, db.p, n, cols, nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  ASSERT_CUDA(dx.download(got));
  for (int t = 0; t < n; ++t) {
    std::vector<float> want(x.begin() + t * cols, x.begin() + (t + 1) * cols);
    cpu::add_bias(want.data(), bias.data(), cols);
    for (int i = 0; i < cols; ++i)
      ASSERT_EQ(got[t * cols + i], want[i]) << "bias " << t << "," << i;
  }

  ASSERT_CUDA(dx.upload(x));
  ASSERT_CUDA(cuda::scale_values(dx.p, n * cols, 48.0f, nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  ASSERT_CUDA(dx.download(got));
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], x[i] * 48.0f) << "scale " << i;

  ASSERT_CUDA(dx.upload(x));
  ASSERT_CUDA(cuda::softcap_values(dx.p, n * cols, 30.0f, nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  ASSERT_CUDA(dx.download(got));
  std::vector<float> capped = x;
  cpu::softcap(capped.data(), static_cast<int64_t>(capped.size()), 30.0f);
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_NEAR(got[i], capped[i], 4e-6 * std::fabs(capped[i])) << "softcap " << i;

  // q/k norms: rmsnorm in place over (n * heads, head_dim) rows, one gain.
  ASSERT_CUDA(dx.upload(x));
  ASSERT_CUDA(cuda::rmsnorm(dx.p, dg.p, dx.p, n * cols / hd, hd, 1e-6f, nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  ASSERT_CUDA(dx.download(got));
  std::vector<float> normed = x;
  cpu::rmsnorm_heads(normed.data(), n * cols / hd, hd, gain.data(), 1e-6f);
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_NEAR(got[i], normed[i], 2e-6 * std::fabs(normed[i]) + 1e-30) << "head norm " << i;
}

// ---- conversions -----------------------------------------------------------------------

// Random bit patterns (NaN, inf, subnormals included) plus the rounding edge cases.
std::vector<float> conversion_inputs() {
  std::mt19937 rng(51);
  std::vector<float> v;
  for (int i = 0; i < 200003; ++i) v.push_back(f32_from_bits(static_cast<uint32_t>(rng())));
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> ex(-30, 18);
  for (int i = 0; i < 200000; ++i)
    v.push_back((i & 1 ? -1.0f : 1.0f) * std::ldexp(mant(rng), ex(rng)));
  const float specials[] = {0.0f,
                            -0.0f,
                            INFINITY,
                            -INFINITY,
                            NAN,
                            -NAN,
                            f32_from_bits(0x7f800001u),
                            f32_from_bits(0xffc12345u),
                            65504.0f,
                            65519.996f,
                            65520.0f,
                            -65520.0f,
                            1.0f + std::ldexp(1.0f, -11),
                            1.0f + 3 * std::ldexp(1.0f, -11),
                            std::ldexp(1.0f, -24),
                            std::ldexp(1.0f, -25),
                            std::ldexp(3.0f, -26),
                            std::ldexp(1.0f, -14),
                            std::ldexp(1023.5f, -24),
                            std::ldexp(1.0f, -149),
                            f32_from_bits(0x3f808000u),
                            f32_from_bits(0x3f818000u),
                            f32_from_bits(0x7f7fffffu),
                            f32_from_bits(0x7f7f8000u)};
  for (float s : specials) v.push_back(s);
  return v;
}

TEST(CudaConvert, F16AndBf16AreBitIdenticalToHalfH) {
  SKIP_WITHOUT_DEVICE();
  const std::vector<float> src = conversion_inputs();
  const int64_t n = static_cast<int64_t>(src.size());
  DevBuf<float> dsrc(n);
  DevBuf<uint16_t> dh(n), db(n);
  ASSERT_ALLOC(dsrc);
  ASSERT_ALLOC(dh);
  ASSERT_ALLOC(db);
  ASSERT_CUDA(dsrc.upload(src));
  ASSERT_CUDA(dh.poison());
  ASSERT_CUDA(db.poison());
  ASSERT_CUDA(cuda::f32_to_f16(dsrc.p, reinterpret_cast<__half*>(dh.p), n, nullptr));
  ASSERT_CUDA(cuda::f32_to_bf16(dsrc.p, reinterpret_cast<__nv_bfloat16*>(db.p), n, nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  std::vector<uint16_t> h, b;
  ASSERT_CUDA(dh.download(h));
  ASSERT_CUDA(db.download(b));
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(h[i], f32_to_f16(src[i])) << "f16 of bits 0x" << std::hex << bits_from_f32(src[i]);
    ASSERT_EQ(b[i], f32_to_bf16(src[i])) << "bf16 of bits 0x" << std::hex << bits_from_f32(src[i]);
  }
}

TEST(CudaConvert, AddInplace) {
  SKIP_WITHOUT_DEVICE();
  const int64_t n = 100003;
  const std::vector<float> y = uniform(n, 61), x = uniform(n, 62);
  DevBuf<float> dy(n), dx(n);
  ASSERT_ALLOC(dy);
  ASSERT_ALLOC(dx);
  ASSERT_CUDA(dy.upload(y));
  ASSERT_CUDA(dx.upload(x));
  ASSERT_CUDA(cuda::add_inplace(dy.p, dx.p, n, nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  std::vector<float> got;
  ASSERT_CUDA(dy.download(got));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], y[i] + x[i]) << i;
}

TEST(CudaConvert, DequantizeToF16) {
  SKIP_WITHOUT_DEVICE();
  for (TensorType t :
       {TensorType::F32, TensorType::F16, TensorType::BF16, TensorType::Q8_0, TensorType::Q4_0}) {
    check_dequantize_to_f16(t, 37, 4096, false);
    check_dequantize_to_f16(t, 37, 96, false);
    check_dequantize_to_f16(t, 37, 96, true);
  }
}

// ---- kv_write --------------------------------------------------------------------------

// Rows of kv_dim values with edge cases in some 32-value blocks: all zeros, all -0, |x|
// ties (negative first / positive first), a scale that overflows f16, a scale that
// underflows to 0, exact .5 ties after scaling (Q8_0 with d = 1, Q4_0 with d = 1).
std::vector<float> kv_inputs(int n, int dim, uint32_t seed) {
  std::vector<float> v = uniform(static_cast<size_t>(n) * dim, seed, -3.0f, 3.0f);
  for (int blk = 0; blk < n * dim / 32; ++blk) {
    float* x = v.data() + blk * 32;
    switch ((blk + static_cast<int>(seed)) % 12) {
      case 0: std::fill(x, x + 32, 0.0f); break;
      case 1: std::fill(x, x + 32, -0.0f); break;
      case 2: x[3] = -5.0f, x[9] = 5.0f, x[20] = -5.0f; break;
      case 3: x[3] = 5.0f, x[9] = -5.0f; break;
      case 4: x[5] = 1e30f; break;
      case 5:
        for (int j = 0; j < 32; ++j) x[j] *= 1e-9f;
        break;
      case 6:
        x[0] = 127.0f;
        for (int j = 1; j < 32; ++j) x[j] = static_cast<float>(j - 16) + 0.5f;
        break;
      case 7:
        x[0] = -8.0f;
        for (int j = 1; j < 32; ++j) x[j] = static_cast<float>(j % 16 - 8) + 0.5f;
        break;
      default: break;
    }
  }
  return v;
}

void check_kv_write(TensorType type) {
  SCOPED_TRACE(name(type));
  const int n_layers = 3, block_tokens = 16, n_kv_heads = 2, head_dim = 64,
            dim = n_kv_heads * head_dim;
  const int n_blocks = 6, n_slots = 9, layer = 1;
  const uint64_t row_bytes = row_bytes_of(type, dim);
  const uint64_t block_bytes = static_cast<uint64_t>(n_layers) * 2 * block_tokens * row_bytes;
  // Token block b lives in slot slot_of[b] of one buffer: shuffled, some slots unused.
  std::vector<int> slot_of(n_slots);
  std::iota(slot_of.begin(), slot_of.end(), 0);
  std::shuffle(slot_of.begin(), slot_of.end(), std::mt19937(81));
  slot_of.resize(n_blocks);
  // Positions spanning every block, not in order.
  std::vector<int32_t> positions = {0,  15, 16, 17, 31, 40, 47, 48, 63, 64,
                                    70, 95, 5,  33, 80, 94, 1,  50, 66, 79};
  std::shuffle(positions.begin(), positions.end(), std::mt19937(82));
  const int n = static_cast<int>(positions.size());
  const std::vector<float> k = kv_inputs(n, dim, 83), v = kv_inputs(n, dim, 84);

  DevBuf<uint8_t> pool(block_bytes * n_slots);
  DevBuf<uint8_t*> table(n_blocks);
  DevBuf<float> dk(k.size()), dv(v.size());
  DevBuf<int32_t> dpos(n);
  ASSERT_ALLOC(pool);
  ASSERT_ALLOC(table);
  ASSERT_ALLOC(dk);
  ASSERT_ALLOC(dv);
  ASSERT_ALLOC(dpos);
  std::vector<uint8_t*> ptrs(n_blocks);
  for (int b = 0; b < n_blocks; ++b) ptrs[b] = pool.p + slot_of[b] * block_bytes;
  ASSERT_CUDA(table.upload(ptrs));
  ASSERT_CUDA(dk.upload(k));
  ASSERT_CUDA(dv.upload(v));
  ASSERT_CUDA(dpos.upload(positions));
  ASSERT_CUDA(pool.poison());

  cuda::DeviceKv kv;
  kv.blocks = table.p;
  kv.type = type;
  kv.n_layers = n_layers;
  kv.block_tokens = block_tokens;
  kv.n_kv_heads = n_kv_heads;
  kv.head_dim = head_dim;
  kv.row_bytes = row_bytes;
  ASSERT_CUDA(cuda::kv_write(kv, layer, dk.p, dv.p, n, dpos.p, nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  std::vector<uint8_t> got;
  ASSERT_CUDA(pool.download(got));

  std::vector<uint8_t> want(got.size(), 0xFF);
  for (int b = 0; b < n; ++b) {
    const int pos = positions[b];
    for (int which = 0; which < 2; ++which) {
      const uint64_t off =
          slot_of[pos / block_tokens] * block_bytes + cuda::kv_row_offset(kv, layer, which, pos);
      quantize_row(type, (which == 0 ? k : v).data() + b * dim, want.data() + off, dim);
    }
  }
  for (size_t i = 0; i < want.size(); ++i) {
    const uint64_t slot = i / block_bytes, in_block = i % block_bytes;
    ASSERT_EQ(got[i], want[i]) << "slot " << slot << " layer "
                               << in_block / (2 * block_tokens * row_bytes) << " kv "
                               << in_block / (block_tokens * row_bytes) % 2 << " row "
                               << in_block / row_bytes % block_tokens << " byte "
                               << in_block % row_bytes;
  }
}

TEST(CudaKvWrite, EveryTypeIsBitIdenticalToQuantizeRow) {
  SKIP_WITHOUT_DEVICE();
  for (TensorType t : {TensorType::F32, TensorType::F16, TensorType::Q8_0, TensorType::Q4_0}) {
    check_kv_write(t);
    if (HasFatalFailure()) return;
  }
}

TEST(CudaKvWrite, F16RowsKeepSpecialValues) {
  SKIP_WITHOUT_DEVICE();
  // One token, one block: the conversion edge cases through kv_write's f16 path.
  const std::vector<float> inputs = conversion_inputs();
  const int dim = 128;
  const uint64_t row_bytes = 2 * dim;
  const uint64_t block_bytes = 2 * 16 * row_bytes;  // 1 layer
  DevBuf<uint8_t> pool(block_bytes);
  DevBuf<uint8_t*> table(1);
  DevBuf<float> dk(dim), dv(dim);
  DevBuf<int32_t> dpos(1);
  ASSERT_ALLOC(pool);
  ASSERT_ALLOC(table);
  ASSERT_ALLOC(dk);
  ASSERT_ALLOC(dv);
  ASSERT_ALLOC(dpos);
  ASSERT_CUDA(table.upload({pool.p}));
  ASSERT_CUDA(dpos.upload({3}));
  std::vector<float> k(inputs.end() - dim, inputs.end()), v(inputs.begin(), inputs.begin() + dim);
  ASSERT_CUDA(dk.upload(k));
  ASSERT_CUDA(dv.upload(v));
  ASSERT_CUDA(pool.poison());
  cuda::DeviceKv kv;
  kv.blocks = table.p;
  kv.type = TensorType::F16;
  kv.n_layers = 1;
  kv.n_kv_heads = 1;
  kv.head_dim = dim;
  kv.row_bytes = row_bytes;
  ASSERT_CUDA(cuda::kv_write(kv, 0, dk.p, dv.p, 1, dpos.p, nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  std::vector<uint8_t> got;
  ASSERT_CUDA(pool.download(got));
  for (int which = 0; which < 2; ++which) {
    const uint8_t* row = got.data() + cuda::kv_row_offset(kv, 0, which, 3);
    for (int i = 0; i < dim; ++i) {
      uint16_t h;
      std::memcpy(&h, row + 2 * i, 2);
      ASSERT_EQ(h, f32_to_f16((which == 0 ? k : v)[i])) << "kv " << which << " i " << i;
    }
  }
}

}  // namespace
}  // namespace kvchat
