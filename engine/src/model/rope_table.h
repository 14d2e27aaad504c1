// RoPE as data: the rotation rate of every pair of a head's rotated values, with the
// scalings GGUF files ask for (linear, YaRN, Llama 3 frequency factors) folded in once at
// load, so the forward passes only compute theta = pos * inv_freq[i].
#pragma once

#include <cstdint>
#include <vector>

#include "model/architecture.h"

namespace kvchat {

// LongRope: Phi-3's per-pair divisors (rope_factors_short/long.weight), short or long by
// the context in use, with cos/sin x attn_factor.
enum class RopeScalingType : uint8_t { None, Linear, Yarn, Llama3, LongRope };

struct RopeScaling {
  RopeScalingType type = RopeScalingType::None;
  float factor = 1;      // {arch}.rope.scaling.factor (context multiplier; freq_scale = 1/factor)
  int32_t orig_ctx = 0;  // {arch}.rope.scaling.original_context_length
  float yarn_beta_fast = 32, yarn_beta_slow = 1;  // {arch}.rope.scaling.yarn_beta_fast/_slow
  float attn_factor = 1;  // {arch}.rope.scaling.attn_factor: extra magnitude (YaRN, LongRoPE)
  float llama3_low_freq_factor = 1, llama3_high_freq_factor = 4;  // Llama 3.1 defaults
};

// One RoPE configuration (a layer uses one): pair i of a head (0 <= i < n_rot/2) turns by
// theta = pos * inv_freq[i]; cos and sin are multiplied by mscale (1 unless YaRN/LongRoPE).
struct RopeTable {
  RopeStyle style = RopeStyle::Norm;
  int32_t n_rot = 0;            // rotated values per head (even, <= head_dim)
  std::vector<float> inv_freq;  // (n_rot / 2)
  float mscale = 1;
};

// The cos and sin of every pair's angle at positions [0, positions()), as a forward pass
// applies them: for pos, n_rot/2 pairs {cos(theta_i) * mscale, sin(theta_i) * mscale},
// theta_i = pos * inv_freq[i] evaluated in double, exactly the values cpu::rope computes
// on the fly. Owned by one backend (the model's RopeTable is shared and immutable) and
// grown by it, outside any parallel phase, as positions are reached: positions x n_rot
// floats, so memory follows the context used rather than the largest allowed.
class RopeCosSin {
 public:
  explicit RopeCosSin(const RopeTable& table) : table_(&table) {}
  const RopeTable& table() const { return *table_; }
  int32_t positions() const { return n_pos_; }
  // Makes positions [0, n_pos) available (amortised growth; earlier rows are kept).
  void cover(int32_t n_pos);
  // (n_rot / 2, 2): {cos, sin} of each pair at pos < positions().
  const float* at(int32_t pos) const {
    return cs_.data() + static_cast<int64_t>(pos) * table_->n_rot;
  }
  uint64_t bytes() const { return cs_.capacity() * sizeof(float); }

 private:
  const RopeTable* table_;
  int32_t n_pos_ = 0;
  std::vector<float> cs_;  // (n_pos, n_rot / 2, 2)
};

// base^(-2i/n_rot), divided by freq_factors[i] when given ((n_rot/2) values:
// rope_freqs.weight), then scaled: linear x 1/factor; YaRN blends interpolation (x 1/factor)
// and extrapolation (x 1) per pair by the ramp between its correction dims, with
// mscale = attn_factor * (1 + 0.1 ln(factor)); Llama3 uses the factors only; LongRope the
// factors (short or long, the caller's choice) with mscale = attn_factor.
RopeTable make_rope_table(RopeStyle style, int32_t n_rot, float base, const RopeScaling& scaling,
                          const float* freq_factors);

// Llama 3.1 frequency factors (what a converter writes as rope_freqs.weight): for pair i
// with wavelength w = 2 pi / base^(-2i/n_rot): 1 when w < orig_ctx / high_freq_factor;
// `factor` when w > orig_ctx / low_freq_factor; between them 1 / ((1 - s) / factor + s),
// s = (orig_ctx / w - low) / (high - low).                                 (n_rot / 2)
std::vector<float> llama3_freq_factors(int32_t n_rot, float base, const RopeScaling& scaling);

// YaRN's correction range [low, high] of pair indices: the pair whose wavelength fits
// beta_fast (resp. beta_slow) turns in orig_ctx, n_rot * ln(orig_ctx / (beta 2 pi)) /
// (2 ln base), floored (resp. ceiled) and clamped to [0, n_rot - 1].
void yarn_correction_dims(int32_t n_rot, int32_t orig_ctx, float base, float beta_fast,
                          float beta_slow, float dims[2]);

}  // namespace kvchat
