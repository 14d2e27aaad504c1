// The CUDA kernels' per-value arithmetic (engine/src/backend/cuda/value_math.cuh), run on
// the CPU through host_emulation/'s intrinsics, against the CPU backend's ops
// (backend/cpu/cpu_ops.h) — the definition both backends must agree with:
//   - RoPE: every style (llama pairs, neox halves), partial rotation, and every scaling the
//     CPU reads (linear, YaRN, Llama 3 factors, LongRoPE short and long, a windowed layer's
//     own base), through the kernel's own index decomposition (rope_at): bit-equal to
//     cpu::rope_cached and cpu::rope;
//   - RMSNorm (rows and per-head q/k norms, the kernel's f32 block reduction emulated):
//     within 2 ulp of cpu::rmsnorm;
//   - SwiGLU and GeGLU (glu_at), soft-cap, biases, the embedding scale: bit-equal;
//   - sliding windows: the score mask against a by-hand rule, and the split-K decode's and
//     the tiled prefill's choice of positions (partition_attended/begin/end, window_first)
//     emulated over a cache whose rows before the window are NaN (freed): the attention of
//     every query equals a float64 softmax over exactly its window, and no freed row is read.
// Needs no GPU and no nvcc: every build runs it (the `gpu` tests check the kernels on a device).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/cpu_ops.h"
#include "backend/cpu/dot.h"
#include "backend/cuda/value_math.cuh"
#include "model/rope_table.h"

namespace kvchat {
namespace {

namespace math = cuda::math;

std::vector<float> random_values(size_t n, uint32_t seed, float lo = -2.0f, float hi = 2.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// ---- RoPE ------------------------------------------------------------------------------

struct RopeCase {
  std::string name;
  RopeStyle style;
  int32_t head_dim, n_rot;
  float base;
  RopeScaling scaling;
  std::vector<float> factors;  // (n_rot / 2) frequency factors or LongRoPE divisors; empty: none
};

std::vector<RopeCase> rope_cases() {
  std::vector<RopeCase> cases;
  for (RopeStyle style : {RopeStyle::Norm, RopeStyle::Neox}) {
    const std::string s = style == RopeStyle::Neox ? "neox" : "norm";
    cases.push_back({s + "-plain", style, 64, 64, 10000.0f, {}, {}});
    cases.push_back({s + "-partial", style, 64, 32, 10000.0f, {}, {}});  // phi-2 style
    RopeScaling linear;
    linear.type = RopeScalingType::Linear;
    linear.factor = 4;
    cases.push_back({s + "-linear", style, 128, 128, 500000.0f, linear, {}});
    RopeScaling yarn;
    yarn.type = RopeScalingType::Yarn;
    yarn.factor = 4;
    yarn.orig_ctx = 32768;
    cases.push_back({s + "-yarn", style, 128, 128, 1000000.0f, yarn, {}});
    RopeScaling llama3;
    llama3.type = RopeScalingType::Llama3;
    llama3.factor = 8;
    llama3.orig_ctx = 8192;
    cases.push_back({s + "-llama3", style, 128, 128, 500000.0f, llama3,
                     llama3_freq_factors(128, 500000.0f, llama3)});
    RopeScaling longrope;
    longrope.type = RopeScalingType::LongRope;
    longrope.orig_ctx = 4096;
    longrope.attn_factor = 1.19f;
    std::vector<float> short_f(48), long_f(48);
    for (int i = 0; i < 48; ++i) {
      short_f[i] = 1.0f + 0.1f * i / 47;
      long_f[i] = 1.0f + 39.0f * i / 47;
    }
    cases.push_back({s + "-longrope-short", style, 96, 96, 10000.0f, longrope, short_f});
    cases.push_back({s + "-longrope-long", style, 96, 96, 10000.0f, longrope, long_f});
    cases.push_back({s + "-window-base", style, 256, 256, 10000.0f, {}, {}});  // gemma3 local
  }
  return cases;
}

class RopeOnHost : public ::testing::TestWithParam<RopeCase> {};

TEST_P(RopeOnHost, KernelIndexingBitEqualToCpuRope) {
  const RopeCase& c = GetParam();
  const RopeTable table = make_rope_table(c.style, c.n_rot, c.base, c.scaling,
                                          c.factors.empty() ? nullptr : c.factors.data());
  const int n = 5, n_q = 4, n_kv = 2, hd = c.head_dim;
  const std::vector<int> positions = {0, 1, 17, 4095, 70000};
  RopeCosSin cs(table);
  cs.cover(70001);
  const auto* rope_cs = reinterpret_cast<const float2*>(cs.at(0));  // (max_pos, n_rot/2)

  std::vector<float> q = random_values(static_cast<size_t>(n) * n_q * hd, 1);   // (n, n_q, hd)
  std::vector<float> k = random_values(static_cast<size_t>(n) * n_kv * hd, 2);  // (n, n_kv, hd)
  std::vector<float> want_q = q, want_k = k, ref_q = q, ref_k = k;
  const long long total = static_cast<long long>(n) * (n_q + n_kv) * (c.n_rot / 2);
  for (long long idx = 0; idx < total; ++idx) {  // every thread of the kernel's grid
    math::rope_at(idx, q.data(), n_q, k.data(), n_kv, hd, c.n_rot, c.style == RopeStyle::Neox,
                  positions.data(), rope_cs);
  }
  for (int b = 0; b < n; ++b) {
    cpu::rope_cached(&want_q[b * n_q * hd], n_q, hd, c.style, c.n_rot, cs.at(positions[b]));
    cpu::rope_cached(&want_k[b * n_kv * hd], n_kv, hd, c.style, c.n_rot, cs.at(positions[b]));
    cpu::rope(&ref_q[b * n_q * hd], n_q, hd, table, positions[b]);
    cpu::rope(&ref_k[b * n_kv * hd], n_kv, hd, table, positions[b]);
  }
  int bad = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    if ((bits(q[i]) != bits(want_q[i]) || bits(q[i]) != bits(ref_q[i])) && ++bad < 5)
      ADD_FAILURE() << "q[" << i << "] " << q[i] << " vs " << want_q[i] << " / " << ref_q[i];
  }
  for (size_t i = 0; i < k.size(); ++i) {
    if ((bits(k[i]) != bits(want_k[i]) || bits(k[i]) != bits(ref_k[i])) && ++bad < 5)
      ADD_FAILURE() << "k[" << i << "] " << k[i] << " vs " << want_k[i] << " / " << ref_k[i];
  }
  // The rotation did something (at position 70000), and left values past n_rot alone.
  const std::vector<float> before = random_values(q.size(), 1);
  const size_t last = static_cast<size_t>(n - 1) * n_q * hd;
  EXPECT_NE(bits(q[last]), bits(before[last]));
  if (c.n_rot < hd) {
    EXPECT_EQ(bits(q[last + hd - 1]), bits(before[last + hd - 1]));
  }
}

INSTANTIATE_TEST_SUITE_P(EveryStyleAndScaling, RopeOnHost, ::testing::ValuesIn(rope_cases()),
                         [](const ::testing::TestParamInfo<RopeCase>& info) {
                           std::string n = info.param.name;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

// ---- RMSNorm ---------------------------------------------------------------------------

// The rmsnorm kernel's sum of squares: 256 threads each fmaf over i = t, t + 256, ...;
// a butterfly inside each warp of 32, then the 8 warp sums the same way.
float emulated_block_sum_squares(const float* x, int dim) {
  constexpr int kThreads = 256;
  float lane[kThreads] = {};
  for (int t = 0; t < kThreads; ++t)
    for (int i = t; i < dim; i += kThreads) lane[t] = std::fmaf(x[i], x[i], lane[t]);
  auto butterfly = [](float* v) {  // 32 values: after the xor steps every lane holds the sum
    for (int off = 16; off > 0; off >>= 1) {
      float next[32];
      for (int l = 0; l < 32; ++l) next[l] = v[l] + v[l ^ off];
      std::memcpy(v, next, sizeof(next));
    }
    return v[0];
  };
  float warps[32] = {};
  for (int w = 0; w < kThreads / 32; ++w) warps[w] = butterfly(lane + 32 * w);
  return butterfly(warps);
}

TEST(RmsNormOnHost, RowsAndHeadsWithinTwoUlpOfCpu) {
  for (int dim : {64, 128, 256, 2048, 3072}) {
    SCOPED_TRACE(dim);
    const std::vector<float> x = random_values(dim, 7 + dim);
    const std::vector<float> gain = random_values(dim, 9 + dim, 0.5f, 1.5f);
    std::vector<float> want(dim);
    cpu::rmsnorm(want.data(), x.data(), gain.data(), dim, 1e-6f);
    const float s = math::rms_inverse(emulated_block_sum_squares(x.data(), dim), dim, 1e-6f);
    for (int i = 0; i < dim; ++i) {
      const float got = math::rms_apply(x[i], s, gain[i]);
      EXPECT_LE(std::abs(got - want[i]),
                2 * std::numeric_limits<float>::epsilon() * std::abs(want[i]) + 1e-30f)
          << i;
    }
  }
}

// ---- GLU, soft-cap, biases, scales -------------------------------------------------------

TEST(ActivationsOnHost, GluSoftcapBiasAndScaleBitEqualToCpu) {
  const int n = 3, n_ff = 200;
  std::vector<float> gate_up = random_values(static_cast<size_t>(n) * 2 * n_ff, 11, -6, 6);
  for (bool gelu : {false, true}) {
    SCOPED_TRACE(gelu ? "GeGLU" : "SwiGLU");
    for (int t = 0; t < n; ++t) {
      std::vector<float> gate(gate_up.begin() + t * 2 * n_ff,
                              gate_up.begin() + t * 2 * n_ff + n_ff);
      const float* up = gate_up.data() + t * 2 * n_ff + n_ff;
      // The scalar definition (AVX2's SwiGLU computes e^x its own way, within a few ulp).
      cpu::force_scalar_kernels(true);
      cpu::gated_activation(gelu ? FfnActivation::GeluTanhGlu : FfnActivation::SiluGlu, gate.data(),
                            up, n_ff);
      cpu::force_scalar_kernels(false);
      for (int i = 0; i < n_ff; ++i) {
        const float got =
            math::glu_at(static_cast<long long>(t) * n_ff + i, gate_up.data(), n_ff, gelu);
        ASSERT_EQ(bits(got), bits(gate[i])) << t << "," << i << ": " << got << " vs " << gate[i];
      }
    }
  }
  std::vector<float> logits = random_values(500, 12, -200, 200);
  std::vector<float> want = logits;
  cpu::softcap(want.data(), static_cast<int64_t>(want.size()), 30.0f);
  for (size_t i = 0; i < logits.size(); ++i) {
    EXPECT_EQ(bits(math::softcap(logits[i], 30.0f)), bits(want[i])) << i;
    EXPECT_LT(std::abs(want[i]), 30.0f);
  }
  std::vector<float> x = random_values(96, 13), bias = random_values(96, 14);
  std::vector<float> with_bias = x;
  cpu::add_bias(with_bias.data(), bias.data(), 96);
  for (int i = 0; i < 96; ++i) {
    EXPECT_EQ(bits(math::add_bias(x[i], bias[i])), bits(with_bias[i]));
    const float scale = std::sqrt(2304.0f);  // gemma2-2b's sqrt(n_embd)
    EXPECT_EQ(bits(math::scaled(x[i], scale)), bits(x[i] * scale));
  }
}

// ---- Sliding windows and the attention kernels' position ranges ---------------------------

TEST(WindowOnHost, MaskIsCausalAndKeepsTheLastWindowPositions) {
  for (int window : {0, 1, 8, 100}) {
    for (int pos = 0; pos < 300; pos += 7) {
      for (int k = 0; k < 310; ++k) {
        const bool attended = k <= pos && (window == 0 || k > pos - window);
        const float s = math::masked_score(1.5f, 0.5f, 0.0f, k, pos, window);
        ASSERT_EQ(std::isinf(s) && s < 0, !attended) << window << " " << pos << " " << k;
        if (attended) {
          ASSERT_EQ(s, 0.75f);
        }
      }
    }
  }
  // The soft-cap comes after the scale, as on the CPU.
  EXPECT_EQ(bits(math::capped_score(80.0f, 1.0f, 50.0f)), bits(50.0f * std::tanh(80.0f / 50.0f)));
}

// One query's attention output (hd) over keys/values (n_pos, hd), as the split-K decode
// computes it: partials per attended partition from partition_begin to partition_end, merged.
std::vector<float> emulated_decode(const std::vector<float>& q, const std::vector<float>& keys,
                                   const std::vector<float>& values, int hd, int pos, int window,
                                   int part_tokens, float scale, float softcap, int* lowest_read) {
  const int n_parts = pos / part_tokens + 1;
  std::vector<float> m(n_parts, -INFINITY), l(n_parts, 0);
  std::vector<std::vector<float>> acc(n_parts, std::vector<float>(hd, 0));
  for (int p = 0; p < n_parts; ++p) {
    if (!math::partition_attended(p, pos, window, part_tokens)) continue;
    const int begin = math::partition_begin(p, pos, window, part_tokens);
    const int end = math::partition_end(p, pos, part_tokens);
    for (int t = begin; t < end; ++t) {
      *lowest_read = std::min(*lowest_read, t);
      float dot = 0;
      for (int d = 0; d < hd; ++d) dot = std::fmaf(q[d], keys[t * hd + d], dot);
      const float s = math::capped_score(dot, scale, softcap);
      const float m_new = std::max(m[p], s);
      const float alpha = std::exp(m[p] - m_new);
      const float e = std::exp(s - m_new);
      l[p] = l[p] * alpha + e;
      for (int d = 0; d < hd; ++d) acc[p][d] = acc[p][d] * alpha + e * values[t * hd + d];
      m[p] = m_new;
    }
  }
  const int p0 = math::first_partition(pos, window, part_tokens);
  const int p1 = math::last_partition(pos, part_tokens);
  float mx = -INFINITY;
  for (int p = p0; p <= p1; ++p) mx = std::max(mx, m[p]);
  std::vector<float> out(hd, 0);
  float sum = 0;
  for (int p = p0; p <= p1; ++p) {
    const float w = std::exp(m[p] - mx);
    sum += w * l[p];
    for (int d = 0; d < hd; ++d) out[d] += w * acc[p][d];
  }
  for (float& o : out) o /= sum;
  return out;
}

// The tiled prefill's positions for a query at qpos in a tile whose first query sits at
// tile_pos, as the kernel runs them: tiles of bk keys from window_first(tile_pos) / bk to
// qpos / bk; keys in [window_first(tile_pos), qpos] are loaded (the others are zeros), every
// key's score goes through masked_score, a tile max, the all-masked guard, then p * v for
// all bk keys of the tile (masked ones with p = 0).
std::vector<float> emulated_prefill(const std::vector<float>& q, const std::vector<float>& keys,
                                    const std::vector<float>& values, int hd, int tile_pos,
                                    int qpos, int window, int bk, float scale, float softcap,
                                    int* lowest_read) {
  const int kbegin = math::window_first(tile_pos, window);
  float m = -INFINITY, l = 0;
  std::vector<float> o(hd, 0), kt(hd), vt(hd);
  for (int tile = kbegin / bk; tile <= qpos / bk; ++tile) {
    std::vector<float> s(bk), vrows(static_cast<size_t>(bk) * hd, 0.0f);
    float mx = -INFINITY;
    for (int j = 0; j < bk; ++j) {
      const int t = tile * bk + j;
      const bool loaded = t >= kbegin && t <= qpos;
      if (loaded) *lowest_read = std::min(*lowest_read, t);
      float dot = 0;
      for (int d = 0; d < hd; ++d) {
        const float kv = loaded ? keys[t * hd + d] : 0.0f;
        dot = std::fmaf(q[d], kv, dot);
        vrows[j * hd + d] = loaded ? values[t * hd + d] : 0.0f;
      }
      s[j] = math::masked_score(dot, scale, softcap, t, qpos, window);
      mx = std::max(mx, s[j]);
    }
    const float m_new = std::max(m, mx);
    const bool none_yet = m_new == -INFINITY;
    const float alpha = none_yet ? 1.0f : std::exp(m - m_new);
    m = m_new;
    l *= alpha;
    for (float& x : o) x *= alpha;
    for (int j = 0; j < bk; ++j) {
      const float p = none_yet ? 0.0f : std::exp(s[j] - m_new);
      l += p;
      for (int d = 0; d < hd; ++d) o[d] = std::fmaf(p, vrows[j * hd + d], o[d]);
    }
  }
  for (float& x : o) x /= l;
  return o;
}

TEST(WindowOnHost, DecodeAndPrefillReadExactlyTheWindowAndMatchFloat64) {
  const int hd = 32, n_pos = 700;
  const std::vector<float> q = random_values(hd, 21, -1, 1);
  std::vector<float> keys = random_values(static_cast<size_t>(n_pos) * hd, 22, -1, 1);
  std::vector<float> values = random_values(static_cast<size_t>(n_pos) * hd, 23, -1, 1);
  for (float softcap : {0.0f, 2.0f}) {
    for (int window : {0, 1, 50, 64, 300}) {
      for (int pos : {0, 5, 63, 64, 65, 299, 300, 511, 512, 699}) {
        SCOPED_TRACE("window " + std::to_string(window) + " pos " + std::to_string(pos) +
                     " softcap " + std::to_string(softcap));
        const int lo = math::window_first(pos, window);
        // Rows before the window are freed: NaN, so reading one shows in the output.
        std::vector<float> k = keys, v = values;
        for (int t = 0; t < lo; ++t)
          for (int d = 0; d < hd; ++d) k[t * hd + d] = v[t * hd + d] = NAN;
        // float64 truth over [lo, pos].
        std::vector<double> s(pos + 1), want(hd, 0);
        double mx = -1e300, sum = 0;
        for (int t = lo; t <= pos; ++t) {
          double dot = 0;
          for (int d = 0; d < hd; ++d) dot += static_cast<double>(q[d]) * keys[t * hd + d];
          dot *= 0.125;
          if (softcap > 0) dot = softcap * std::tanh(dot / softcap);
          s[t] = dot;
          mx = std::max(mx, dot);
        }
        for (int t = lo; t <= pos; ++t) {
          const double e = std::exp(s[t] - mx);
          sum += e;
          for (int d = 0; d < hd; ++d) want[d] += e * values[t * hd + d];
        }
        for (int part_tokens : {64, 128, 512}) {
          int lowest = n_pos;
          const auto got =
              emulated_decode(q, k, v, hd, pos, window, part_tokens, 0.125f, softcap, &lowest);
          EXPECT_EQ(lowest, lo) << "decode, partitions of " << part_tokens;
          for (int d = 0; d < hd; ++d)
            ASSERT_NEAR(got[d], want[d] / sum, 1e-5) << "decode, partitions of " << part_tokens;
        }
        for (int tile_back : {0, 3, 31}) {  // the query's place in its prefill tile
          // The tile's first query reaches further back: its window is what the cache
          // keeps (KvCache frees only before the chunk's first window); before it, NaN.
          const int tile_pos = std::max(0, pos - tile_back);
          const int kept = math::window_first(tile_pos, window);
          std::vector<float> kp = keys, vp = values;
          for (int t = 0; t < kept; ++t)
            for (int d = 0; d < hd; ++d) kp[t * hd + d] = vp[t * hd + d] = NAN;
          int lowest = n_pos;
          const auto got =
              emulated_prefill(q, kp, vp, hd, tile_pos, pos, window, 32, 0.125f, softcap, &lowest);
          EXPECT_EQ(lowest, kept) << "prefill";
          for (int d = 0; d < hd; ++d) ASSERT_NEAR(got[d], want[d] / sum, 1e-5) << "prefill";
        }
      }
    }
  }
}

}  // namespace
}  // namespace kvchat
