// Grouped (GQA) attention over the paged KV cache (backend/cpu/attention.h), scalar and
// AVX2 kernels, against a float64 computation written here from the definition:
// s_t = q.k_t * scale, cap * tanh(s / cap) when capped, a = softmax(s), out = sum a_t v_t
// over [max(0, p - window + 1), p] (the whole causal prefix without a window).
// K and V come from the cache itself (decoded by kv/kv_codec.h, rotated types rotated
// back), so the reference sees the same stored values; for q8_0/q4_0 keys the query is
// quantized here to 16 bits per 32 values (scale max|q|/32767, round to nearest) exactly as
// the kernels promise (rotated types: the rotated query, rotated back), and the
// unquantized query is checked with a looser bound.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/attention.h"
#include "backend/cpu/dot.h"
#include "kv/kv_cache.h"
#include "kv/kv_codec.h"
#include "kv/kv_rotation.h"
#include "kv/kv_type.h"
#include "numeric/convert.h"

namespace kvchat::cpu {
namespace {

struct Case {
  KvType type = KvType::F32;
  std::optional<KvType> type_v;  // V's type when typed apart from K's
  int32_t group = 1;
  int32_t n_kv_heads = 2;
  int32_t head_dim = 64;
  int32_t block_tokens = 16;
  int32_t pos0 = 0;
  int32_t n_tokens = 1;
  int32_t window = 0;
  float softcap = 0;
  bool windowed_cache =
      false;  // the layer lives in the cache's windowed group, freed rows poisoned
};

std::string describe(const Case& c, AttentionPath path) {
  return kv_types_name(c.type, c.type_v.value_or(c.type)) + " group " + std::to_string(c.group) +
         " hd " + std::to_string(c.head_dim) + " bt " + std::to_string(c.block_tokens) + " pos0 " +
         std::to_string(c.pos0) + " tokens " + std::to_string(c.n_tokens) + " window " +
         std::to_string(c.window) + " cap " + std::to_string(c.softcap) +
         (path == AttentionPath::Scalar ? " scalar" : " avx2");
}

// The query quantized to 16 bits per 32 values and back, as the integer kernels see it.
std::vector<double> quantized_query(const float* q, int64_t n) {
  std::vector<double> out(n);
  for (int64_t k = 0; k < n; k += 32) {
    float amax = 0;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(q[k + j]));
    const float d = amax / 32767.0f;
    for (int j = 0; j < 32; ++j) {
      out[k + j] = amax == 0
                       ? 0.0
                       : double{d} * std::clamp(std::nearbyint(q[k + j] / d), -32767.0f, 32767.0f);
    }
  }
  return out;
}

// Rotated types: the kernels quantize the rotated query; rotated back, it is the query the
// decoded keys are dotted with.
std::vector<double> rotated_quantized_query(const float* q, int32_t hd) {
  std::vector<float> r(q, q + hd);
  rotate_heads(r.data(), 1, hd);
  const std::vector<double> qq = quantized_query(r.data(), hd);
  std::vector<float> back(qq.begin(), qq.end());
  unrotate_heads(back.data(), 1, hd);
  return {back.begin(), back.end()};
}

struct Errors {
  double err_exact = 0;  // against the reference with the query as the kernels use it
  double err_plain = 0;  // against the reference with the f32 query
  double max_out = 0;
};

Errors run_case(const Case& c, AttentionPath path) {
  const int32_t hd = c.head_dim, n_heads = c.group * c.n_kv_heads, kv_dim = c.n_kv_heads * hd;
  const int32_t layer = 1, end = c.pos0 + c.n_tokens;
  KvCacheConfig cfg;
  cfg.n_layers = 3;
  cfg.n_kv_heads = c.n_kv_heads;
  cfg.head_dim = hd;
  cfg.max_tokens = end + 8;
  cfg.block_tokens = c.block_tokens;
  cfg.chunk_blocks = 2;
  cfg.type = c.type;
  cfg.type_v = c.type_v;
  if (c.windowed_cache) {
    cfg.windowed = {0, 1, 0};
    cfg.window = c.window;
    cfg.window_slack = 0;
    cfg.poison_freed = true;
  }
  auto kv = KvCache::create(cfg);
  EXPECT_TRUE(kv) << kv.message();
  EXPECT_TRUE(kv->reserve(end));

  std::mt19937 rng(1000 + c.group * 31 + c.pos0 + static_cast<int>(c.type) * 7 + hd);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  std::vector<float> row(kv_dim);
  for (int32_t l = 0; l < cfg.n_layers; ++l) {
    for (int32_t t = 0; t < end; ++t) {
      for (float& x : row) x = uni(rng);
      kv->write_key(l, t, row.data());
      for (float& x : row) x = uni(rng);
      kv->write_value(l, t, row.data());
    }
  }
  kv->set_size(end);  // frees windowed rows out of reach (poisoned) when the layer is windowed

  // Stored K and V of the layer as f32 (positions before the first one read may be freed;
  // rotated types decoded back, kv/kv_codec.h).
  std::vector<float> keys(static_cast<size_t>(end) * kv_dim), values(keys.size());
  const int32_t first_read = c.window > 0 ? std::max(0, c.pos0 - c.window + 1) : 0;
  for (int32_t t = first_read; t < end; ++t) {
    decode_kv_heads(c.type, kv->key_row(layer, t), &keys[t * kv_dim], c.n_kv_heads, hd);
    decode_kv_heads(cfg.value_type(), kv->value_row(layer, t), &values[t * kv_dim], c.n_kv_heads,
                    hd);
  }

  const int64_t q_dim = static_cast<int64_t>(n_heads) * hd, stride = q_dim + 8;  // padded rows
  std::vector<float> q(c.n_tokens * stride);
  std::uniform_real_distribution<float> big(-3.0f, 3.0f);
  for (float& x : q) x = big(rng);
  std::vector<float> out(c.n_tokens * stride, -77.0f);

  AttentionArgs a;
  a.kv = &*kv;
  a.layer = layer;
  a.q = q.data();
  a.q_stride = stride;
  a.out = out.data();
  a.out_stride = stride;
  a.pos0 = c.pos0;
  a.n_tokens = c.n_tokens;
  a.n_heads = n_heads;
  a.n_kv_heads = c.n_kv_heads;
  a.head_dim = hd;
  a.window = c.window;
  a.scale = 1.0f / std::sqrt(static_cast<float>(hd));
  a.softcap = c.softcap;
  const int64_t items = attention_items(a);
  EXPECT_EQ(items, c.n_tokens * c.n_kv_heads);
  // Two ranges on two scratches: one sized up front, one that grows.
  AttentionScratch s1(end, c.group, hd), s2;
  attend_items(a, 0, items / 2, s1, path);
  attend_items(a, items / 2, items, s2, path);

  const bool quant = kv_block_values(c.type) > 1;
  Errors r;
  for (int32_t b = 0; b < c.n_tokens; ++b) {
    const int32_t pos = c.pos0 + b, first = c.window > 0 ? std::max(0, pos - c.window + 1) : 0;
    for (int32_t h = 0; h < n_heads; ++h) {
      const int32_t kvh = h / c.group;
      const float* qh = &q[b * stride + h * hd];
      const std::vector<double> qq = !quant               ? std::vector<double>(qh, qh + hd)
                                     : kv_rotated(c.type) ? rotated_quantized_query(qh, hd)
                                                          : quantized_query(qh, hd);
      for (int variant = 0; variant < 2; ++variant) {
        std::vector<double> s;
        for (int32_t t = first; t <= pos; ++t) {
          double dot = 0;
          for (int32_t d = 0; d < hd; ++d) {
            dot += (variant == 0 ? qq[d] : static_cast<double>(qh[d])) *
                   keys[t * kv_dim + kvh * hd + d];
          }
          dot *= a.scale;
          if (c.softcap > 0) dot = c.softcap * std::tanh(dot / c.softcap);
          s.push_back(dot);
        }
        const double m = *std::max_element(s.begin(), s.end());
        double sum = 0;
        for (double& x : s) sum += (x = std::exp(x - m));
        for (int32_t d = 0; d < hd; ++d) {
          double o = 0;
          for (int32_t t = first; t <= pos; ++t)
            o += s[t - first] / sum * values[t * kv_dim + kvh * hd + d];
          const double got = out[b * stride + h * hd + d];
          double& err = variant == 0 ? r.err_exact : r.err_plain;
          err = std::max(err, std::isfinite(got) ? std::fabs(got - o) : 1e9);
          r.max_out = std::max(r.max_out, std::fabs(o));
        }
      }
    }
    for (int64_t i = q_dim; i < stride; ++i)
      EXPECT_EQ(out[b * stride + i], -77.0f) << "padding written";
  }
  return r;
}

std::vector<AttentionPath> paths() {
  std::vector<AttentionPath> p = {AttentionPath::Scalar};
  if (cpu_has_avx2()) p.push_back(AttentionPath::Avx2);
  return p;
}

void check(const Case& c) {
  const bool quant = kv_block_values(c.type) > 1;
  for (AttentionPath path : paths()) {
    const Errors r = run_case(c, path);
    EXPECT_LT(r.err_exact, 5e-6) << describe(c, path);
    // The 16-bit query moves the outputs by ~1e-5 at most.
    EXPECT_LT(r.err_plain, quant ? 1e-4 : 5e-6) << describe(c, path);
    EXPECT_GT(r.max_out, 0.05) << describe(c, path);  // not a degenerate average
  }
}

TEST(Attention, DecodeEveryTypeAndGroup) {
  for (KvType t : kAllKvTypes) {
    for (int32_t g : {1, 2, 4, 8}) {
      Case c;
      c.type = t;
      c.group = g;
      c.pos0 = 40;  // 41 positions over blocks of 16: two whole blocks and a partial one
      check(c);
    }
  }
}

TEST(Attention, PrefillEveryTypeAndGroup) {
  for (KvType t : kAllKvTypes) {
    for (int32_t g : {1, 2, 4, 8}) {
      Case c;
      c.type = t;
      c.group = g;
      c.block_tokens = 5;
      c.n_tokens = 23;
      check(c);
      c.pos0 = 12;  // a continuation: earlier positions already cached
      c.n_tokens = 9;
      check(c);
    }
  }
}

TEST(Attention, OddGroupsAndHeadSizes) {
  for (KvType t : kAllKvTypes) {
    if (kv_rotated(t)) continue;  // head_dim 96 is no power of two: refused below
    for (int32_t g : {3, 7, 12}) {
      Case c;
      c.type = t;
      c.group = g;
      c.head_dim = 96;
      c.block_tokens = 7;
      c.pos0 = 30;
      c.n_tokens = 3;
      check(c);
    }
  }
  for (KvType t : {KvType::F32, KvType::F16}) {
    for (int32_t hd : {8, 36, 72}) {  // not multiples of 32; 36 leaves a scalar tail
      Case c;
      c.type = t;
      c.group = 4;
      c.head_dim = hd;
      c.pos0 = 19;
      c.n_tokens = 2;
      check(c);
    }
  }
}

// K and V typed apart: keys read in K's kernels (the query rotated or not as K is), values
// in V's (the sum rotated back when V is rotated), each row in its own size.
TEST(Attention, KeysAndValuesTypedApart) {
  const std::pair<KvType, KvType> pairs[] = {{KvType::Q8_0, KvType::Q4_0},
                                             {KvType::F16, KvType::Q4_0R},
                                             {KvType::Q4_0R, KvType::Q8_0},
                                             {KvType::Q8_0R, KvType::F32},
                                             {KvType::F32, KvType::Q8_0R}};
  for (const auto& [k, v] : pairs) {
    for (int32_t g : {1, 4}) {
      Case c;
      c.type = k;
      c.type_v = v;
      c.group = g;
      c.block_tokens = 5;
      c.n_tokens = 9;
      c.pos0 = 20;
      check(c);
    }
  }
}

TEST(Attention, RotatedTypesRefuseHeadsThatAreNoPowerOfTwoByName) {
  KvCacheConfig cfg;
  cfg.n_layers = 1;
  cfg.n_kv_heads = 2;
  cfg.head_dim = 96;
  cfg.max_tokens = 16;
  for (KvType t : {KvType::Q8_0R, KvType::Q4_0R}) {
    cfg.type = t;
    auto kv = KvCache::create(cfg);
    ASSERT_FALSE(kv);
    EXPECT_NE(kv.message().find(std::string(kv_type_name(t)) + " rotates each head"),
              std::string::npos)
        << kv.message();
    EXPECT_NE(kv.message().find("power of two"), std::string::npos);
    EXPECT_NE(kv.message().find("96"), std::string::npos);
  }
  cfg.head_dim = 128;
  cfg.type = KvType::Q4_0R;
  EXPECT_TRUE(KvCache::create(cfg));
}

TEST(Attention, WindowedLayers) {
  for (KvType t : kAllKvTypes) {
    for (int32_t g : {1, 4}) {
      Case c;
      c.type = t;
      c.group = g;
      c.block_tokens = 4;
      c.window = 7;
      c.n_tokens = 20;  // prefill: early tokens see fewer than 7 positions
      check(c);
      // Decode in a cache that freed (and poisoned) the rows out of the window.
      c.windowed_cache = true;
      c.pos0 = 50;
      c.n_tokens = 1;
      check(c);
    }
  }
}

TEST(Attention, Softcap) {
  for (KvType t : kAllKvTypes) {
    Case c;
    c.type = t;
    c.group = 2;
    c.softcap = 0.5f;  // scores span several units: the cap changes them a lot
    c.pos0 = 33;
    c.n_tokens = 4;
    check(c);
    c.window = 10;
    check(c);
  }
}

TEST(Attention, DecodeLongContextCrossesManyBlocks) {
  for (KvType t : kAllKvTypes) {
    Case c;
    c.type = t;
    c.group = 8;
    c.pos0 = 700;
    c.n_kv_heads = 1;
    check(c);
  }
}

}  // namespace
}  // namespace kvchat::cpu
