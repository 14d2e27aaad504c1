#include "backend/cpu/attention.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "backend/cpu/attention_kernels.h"
#include "backend/cpu/cpu_ops.h"
#include "backend/cpu/dot.h"
#include "kv/kv_cache.h"
#include "kv/kv_rotation.h"
#include "numeric/half.h"
#include "numeric/quant_blocks.h"

namespace kvchat::cpu {

using namespace attention_detail;

namespace {

constexpr int32_t kQ = kQuantBlock;  // values per quantized block (32)

bool quantized(KvType t) { return t == KvType::Q8_0 || t == KvType::Q4_0; }

// One KV head of one position as f32: src is head_dim values of `type`.
void head_to_f32(KvType type, const uint8_t* src, float* dst, int32_t hd) {
  switch (type) {
    case KvType::F32: std::copy_n(reinterpret_cast<const float*>(src), hd, dst); break;
    case KvType::F16: {
      const auto* h = reinterpret_cast<const uint16_t*>(src);
      for (int32_t d = 0; d < hd; ++d) dst[d] = f16_to_f32(h[d]);
      break;
    }
    case KvType::Q8_0: {
      const auto* b = reinterpret_cast<const BlockQ8_0*>(src);
      for (int32_t k = 0; k < hd / kQ; ++k) {
        const float s = f16_to_f32(b[k].d);
        for (int j = 0; j < kQ; ++j) dst[k * kQ + j] = s * b[k].qs[j];
      }
      break;
    }
    case KvType::Q4_0: {
      const auto* b = reinterpret_cast<const BlockQ4_0*>(src);
      for (int32_t k = 0; k < hd / kQ; ++k) {
        const float s = f16_to_f32(b[k].d);
        for (int j = 0; j < kQ / 2; ++j) {
          dst[k * kQ + j] = s * ((b[k].qs[j] & 0x0f) - 8);
          dst[k * kQ + j + kQ / 2] = s * ((b[k].qs[j] >> 4) - 8);
        }
      }
      break;
    }
    default: break;  // rotated types arrive here as their layout (kv_layout)
  }
}

// Quantizes the group's query heads (n = group * head_dim values) per 32 values:
// scale = max|x| / 32767, quant = round(x / scale) in [-32767, 32767].
void quantize_query(const float* q, int64_t n, int16_t* quants, float* scales) {
  for (int64_t k = 0; k < n / kQ; ++k) {
    const float* x = q + k * kQ;
    float amax = 0;
    for (int j = 0; j < kQ; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float scale = amax / 32767.0f;
    for (int j = 0; j < kQ; ++j) {
      const int32_t v = scale > 0 ? static_cast<int32_t>(std::nearbyint(x[j] / scale)) : 0;
      quants[k * kQ + j] = static_cast<int16_t>(std::clamp(v, -32767, 32767));
    }
    scales[k] = scale;
  }
}

// Asks for the head_bytes of each of the first (up to 16) of n rows, stride apart, to be
// brought into the cache; within a block the hardware prefetcher follows the stride.
void prefetch_rows(const uint8_t* rows, int64_t stride, int32_t n, int64_t head_bytes) {
  for (int32_t j = 0; j < std::min(n, 16); ++j) {
    for (int64_t b = 0; b < head_bytes; b += 64) __builtin_prefetch(rows + j * stride + b);
  }
}

#if defined(KVCHAT_HAVE_AVX2_TU)
bool use_avx2(AttentionPath path) { return path != AttentionPath::Scalar && cpu_has_avx2(); }
#endif

}  // namespace

// ---- scalar kernels (the definition the AVX2 ones are tested against) ----

namespace attention_detail {

void key_scores_scalar(const KeyScoreArgs& a) {
  const int32_t hd = a.head_dim;
  for (int32_t j = 0; j < a.n; ++j) {
    const uint8_t* row = a.rows + j * a.stride;
    if (quantized(a.type)) {
      // Integer dot per 32-value block, scaled by both blocks' scales.
      for (int32_t g = 0; g < a.group; ++g) {
        const int16_t* qq = a.qq.quants + static_cast<int64_t>(g) * hd;
        const float* qs = a.qq.scales + static_cast<int64_t>(g) * (hd / kQ);
        float sum = 0;
        for (int32_t k = 0; k < hd / kQ; ++k) {
          int32_t isum = 0;
          float d = 0;
          if (a.type == KvType::Q8_0) {
            const auto& b = reinterpret_cast<const BlockQ8_0*>(row)[k];
            for (int i = 0; i < kQ; ++i) isum += b.qs[i] * qq[k * kQ + i];
            d = f16_to_f32(b.d);
          } else {
            const auto& b = reinterpret_cast<const BlockQ4_0*>(row)[k];
            for (int i = 0; i < kQ / 2; ++i) {
              isum += ((b.qs[i] & 0x0f) - 8) * qq[k * kQ + i] +
                      ((b.qs[i] >> 4) - 8) * qq[k * kQ + i + kQ / 2];
            }
            d = f16_to_f32(b.d);
          }
          sum += d * qs[k] * static_cast<float>(isum);
        }
        a.scores[g * a.ld + j] = sum * a.scale;
      }
      continue;
    }
    float* k = a.tile;
    head_to_f32(a.type, row, k, hd);
    for (int32_t g = 0; g < a.group; ++g) {
      const float* q = a.q + static_cast<int64_t>(g) * hd;
      float sum = 0;
      for (int32_t d = 0; d < hd; ++d) sum += q[d] * k[d];
      a.scores[g * a.ld + j] = sum * a.scale;
    }
  }
}

void value_sum_scalar(const ValueSumArgs& a) {
  const int32_t hd = a.head_dim;
  for (int32_t j = 0; j < a.n; ++j) {
    float* v = a.tile;
    head_to_f32(a.type, a.rows + j * a.stride, v, hd);
    for (int32_t g = 0; g < a.group; ++g) {
      const float w = a.weights[g * a.ld + j];
      float* o = a.out + static_cast<int64_t>(g) * hd;
      for (int32_t d = 0; d < hd; ++d) o[d] += w * v[d];
    }
  }
}

float exp_sum_scalar(float* x, int64_t n, float max) {
  float sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - max);
    sum += x[i];
  }
  return sum;
}

float max_scalar(const float* x, int64_t n) {
  float m = x[0];
  for (int64_t i = 1; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

}  // namespace attention_detail

// ---- driver ----

void AttentionScratch::reserve(int32_t n_ctx, int32_t group, int32_t head_dim) {
  const int64_t ld = (static_cast<int64_t>(std::max(n_ctx, 1)) + 15) / 16 * 16;
  if (ld > score_ld_ || static_cast<int64_t>(group) * ld > static_cast<int64_t>(scores_.size())) {
    score_ld_ = std::max(ld, score_ld_);
    scores_.resize(static_cast<size_t>(group) * score_ld_);
  }
  const size_t qn = static_cast<size_t>(group) * head_dim;
  if (q_quants_.size() < qn) {
    q_quants_.resize(qn);
    q_scales_.resize(qn / kQ + 1);
    q_rotated_.resize(qn);
  }
}

uint64_t AttentionScratch::bytes() const {
  return (scores_.size() + tile_.size() + q_scales_.size() + inv_sums_.size() + q_rotated_.size()) *
             sizeof(float) +
         q_quants_.size() * sizeof(int16_t);
}

int64_t attention_items(const AttentionArgs& args) { return args.n_tokens * args.n_kv_heads; }

namespace {

// The kernels of one path: the scalar ones, or the AVX2 ones when built and available.
struct Kernels {
  void (*key_scores)(const KeyScoreArgs&) = key_scores_scalar;
  void (*value_sum)(const ValueSumArgs&) = value_sum_scalar;
  float (*exp_sum)(float*, int64_t, float) = exp_sum_scalar;
  float (*row_max)(const float*, int64_t) = max_scalar;
};

// The kernels `path` runs.
inline Kernels kernels_for(AttentionPath path) {
  Kernels k;
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2(path)) {
    k.key_scores = key_scores_avx2;
    k.value_sum = value_sum_avx2;
    k.exp_sum = exp_sum_avx2;
    k.row_max = max_avx2;
  }
#endif
  return k;
}

// Token b's cache and position.
inline const KvCache& cache_of(const AttentionArgs& args, int64_t b) {
  return args.steps ? *args.steps[b].kv : *args.kv;
}
inline int32_t pos_of(const AttentionArgs& args, int64_t b) {
  return args.steps ? args.steps[b].pos : args.pos0 + static_cast<int32_t>(b);
}

// The rows [first, pos] of one KV head of one layer, walked in runs that stay inside one
// KV block (the next run's rows fetched meanwhile: blocks are not adjacent in memory).
struct HeadRows {
  const KvCache& kv;
  int32_t layer, kvh, first, pos, block_tokens;
  int64_t row_bytes[2], head_bytes[2];  // K, V (typed apart: their own sizes)

  // The run from position t: to the end of its KV block, or to pos.
  int32_t run_at(int32_t t) const { return std::min(pos + 1 - t, block_tokens - t % block_tokens); }
};

// Pass 1: scores (group, ld) of every position of h, from `scores`; ka holds everything
// but rows, n and scores.
inline void score_keys(const HeadRows& h, KeyScoreArgs& ka, float* scores,
                       void (*key_scores)(const KeyScoreArgs&)) {
  prefetch_rows(h.kv.key_head(h.layer, h.first, h.kvh), h.row_bytes[0], h.run_at(h.first),
                h.head_bytes[0]);
  for (int32_t t = h.first; t <= h.pos;) {
    const int32_t run = h.run_at(t);
    if (t + run <= h.pos)
      prefetch_rows(h.kv.key_head(h.layer, t + run, h.kvh), h.row_bytes[0], h.run_at(t + run),
                    h.head_bytes[0]);
    ka.rows = h.kv.key_head(h.layer, t, h.kvh);
    ka.n = run;
    ka.scores = scores + (t - h.first);
    key_scores(ka);
    t += run;
  }
}

// Pass 2: out (group, head_dim) += sum_t e_t v_t over every position of h, V rows read
// once for all the group's heads, e (group, ld) from `weights`; va holds everything but
// rows, n and weights. The first run's rows are already fetched.
inline void sum_values(const HeadRows& h, ValueSumArgs& va, const float* weights,
                       void (*value_sum)(const ValueSumArgs&)) {
  for (int32_t t = h.first; t <= h.pos;) {
    const int32_t run = h.run_at(t);
    if (t + run <= h.pos)
      prefetch_rows(h.kv.value_head(h.layer, t + run, h.kvh), h.row_bytes[1], h.run_at(t + run),
                    h.head_bytes[1]);
    va.rows = h.kv.value_head(h.layer, t, h.kvh);
    va.n = run;
    va.weights = weights + (t - h.first);
    value_sum(va);
    t += run;
  }
}

// Softcap and softmax numerators of the n scores of each of the group's heads (group,
// ld), in place; inv_sum (group): 1 / each head's sum, the division coming at the end.
inline void softmax_numerators(float* scores, int64_t ld, int32_t group, int32_t n,
                               float softcap_value, float* inv_sum, const Kernels& k) {
  for (int32_t g = 0; g < group; ++g) {
    float* sc = scores + g * ld;
    if (softcap_value > 0) softcap(sc, n, softcap_value);
    const float sum = k.exp_sum(sc, n, k.row_max(sc, n));
    inv_sum[g] = 1.0f / sum;
  }
}

// One item: token b's KV head kvh, for the group's query heads. s is reserved for the
// latest position and the group; ld: its score row length; inv_sum (group).
inline void attend_item(const AttentionArgs& args, int64_t item, AttentionScratch& s,
                        const Kernels& k, int64_t ld, float* inv_sum) {
  const int32_t hd = args.head_dim, group = args.n_heads / args.n_kv_heads;
  const int64_t b = item / args.n_kv_heads;
  const int32_t kvh = static_cast<int32_t>(item % args.n_kv_heads);
  const KvCache& kv = cache_of(args, b);
  // K and V may be typed apart. Rotated types (kv/kv_rotation.h) are read in their
  // layout's kernels: rotated keys against the rotated query, and the sum of rotated values
  // rotated back at the end.
  const KvType key_type = kv_layout(kv.key_type()), value_type = kv_layout(kv.value_type());
  const bool keys_rotated = kv_rotated(kv.key_type()), values_rotated = kv_rotated(kv.value_type());
  const int32_t bt = kv.config().block_tokens;
  if (s.tile_.size() < static_cast<size_t>(bt) * hd) s.tile_.resize(static_cast<size_t>(bt) * hd);
  const int32_t pos = pos_of(args, b);
  const int32_t first = args.window > 0 ? std::max(0, pos - args.window + 1) : 0;
  const int32_t n = pos + 1 - first;
  // The group's query heads and outputs are contiguous: heads kvh*group .. +group-1.
  const float* q = args.q + b * args.q_stride + static_cast<int64_t>(kvh) * group * hd;
  float* out = args.out + b * args.out_stride + static_cast<int64_t>(kvh) * group * hd;
  if (keys_rotated) {
    std::copy_n(q, static_cast<int64_t>(group) * hd, s.q_rotated_.data());
    rotate_heads(s.q_rotated_.data(), group, hd);
    q = s.q_rotated_.data();
  }
  const HeadRows rows{
      kv,
      args.layer,
      kvh,
      first,
      pos,
      bt,
      {static_cast<int64_t>(kv.row_bytes(0)), static_cast<int64_t>(kv.row_bytes(1))},
      {static_cast<int64_t>(kv.head_bytes(0)), static_cast<int64_t>(kv.head_bytes(1))}};

  KeyScoreArgs ka;
  ka.type = key_type;
  ka.stride = rows.row_bytes[0];
  ka.q = q;
  ka.group = group;
  ka.head_dim = hd;
  ka.scale = args.scale;
  ka.ld = ld;
  ka.tile = s.tile_.data();
  if (quantized(key_type)) {
    quantize_query(q, static_cast<int64_t>(group) * hd, s.q_quants_.data(), s.q_scales_.data());
    ka.qq = {s.q_quants_.data(), s.q_scales_.data()};
  }
  score_keys(rows, ka, s.scores_.data(), k.key_scores);
  // The first run of V rows is fetched while the scores become softmax numerators.
  prefetch_rows(kv.value_head(args.layer, first, kvh), rows.row_bytes[1], rows.run_at(first),
                rows.head_bytes[1]);
  softmax_numerators(s.scores_.data(), ld, group, n, args.softcap, inv_sum, k);
  std::fill_n(out, static_cast<int64_t>(group) * hd, 0.0f);
  ValueSumArgs va;
  va.type = value_type;
  va.stride = rows.row_bytes[1];
  va.ld = ld;
  va.group = group;
  va.head_dim = hd;
  va.out = out;
  va.tile = s.tile_.data();
  sum_values(rows, va, s.scores_.data(), k.value_sum);
  for (int32_t g = 0; g < group; ++g) {
    for (int32_t d = 0; d < hd; ++d) out[g * hd + d] *= inv_sum[g];
  }
  if (values_rotated) unrotate_heads(out, group, hd);
}

}  // namespace

void attend_items(const AttentionArgs& args, int64_t i0, int64_t i1, AttentionScratch& s,
                  AttentionPath path) {
  if (i0 >= i1) return;
  const int32_t hd = args.head_dim, group = args.n_heads / args.n_kv_heads;
  const Kernels k = kernels_for(path);

  int32_t last_pos = 0;  // the latest position of the items' tokens
  for (int64_t b = i0 / args.n_kv_heads; b <= (i1 - 1) / args.n_kv_heads; ++b)
    last_pos = std::max(last_pos, pos_of(args, b));
  s.reserve(last_pos + 1, group, hd);
  const int64_t ld = s.score_ld_;
  if (s.inv_sums_.size() < static_cast<size_t>(group)) s.inv_sums_.resize(group);
  float* inv_sum = s.inv_sums_.data();

  for (int64_t item = i0; item < i1; ++item) attend_item(args, item, s, k, ld, inv_sum);
}

}  // namespace kvchat::cpu
