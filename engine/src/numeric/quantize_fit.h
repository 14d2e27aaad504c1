// Scale searches shared by the block encoders (numeric/quantize_*.cpp): each fits one group
// of n values to integer codes by trying a handful of candidate scales, refitting each by
// least squares for the codes it chose, and keeping the one of least squared error.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace kvchat::quant {

// v clamped to [lo, hi] and rounded to the nearest integer (halves to even); NaN gives lo.
// Branch-free (max/min, then the 1.5 * 2^23 addition that leaves the rounded integer in
// the low mantissa bits): the encoders round every value many times.
inline int round_clamp(float v, int lo, int hi) {
  v = v > lo ? v : static_cast<float>(lo);
  v = v < hi ? v : static_cast<float>(hi);
  constexpr float kRound = 12582912.0f;
  return static_cast<int>((v + kRound) - kRound);
}

// The value of largest magnitude (its sign kept); 0 for an all-zero group.
inline float signed_max(const float* x, int n) {
  float amax = 0, vmax = 0;
  for (int i = 0; i < n; ++i) {
    if (std::fabs(x[i]) > amax) amax = std::fabs(x[i]), vmax = x[i];
  }
  return vmax;
}

// value ~= scale * q - min, q in [0, nmax], scale >= 0, min >= 0 (so 0 stays in range).
struct AffineFit {
  float scale = 0, min = 0;
};
AffineFit fit_affine(const float* x, int n, int nmax);

// value ~= scale * q, q in [-nneg, nneg - 1]; the scale may be negative (then the largest
// positive value sits at -nneg, the format's wider side).
float fit_symmetric(const float* x, int n, int nneg);

// value ~= scale * levels[q] with the 16 sorted levels of IQ4_NL / IQ4_XS.
float fit_iq4(const float* x, int n);
// Midpoints between neighbouring IQ4 levels (kIq4nlValues).
inline constexpr float kIq4Midpoints[15] = {-115.5f, -93.5f, -74.0f, -57.0f, -42.0f,
                                            -28.5f,  -16.0f, -4.5f,  7.0f,   19.0f,
                                            31.5f,   45.5f,  61.0f,  79.0f,  101.0f};
// Index of the level nearest to t (t in level units): how many midpoints lie below t.
constexpr int nearest_iq4_level(float t) {
  int k = 0;
  if (t > kIq4Midpoints[k + 7]) k += 8;
  if (t > kIq4Midpoints[k + 3]) k += 4;
  if (t > kIq4Midpoints[k + 1]) k += 2;
  if (t > kIq4Midpoints[k]) k += 1;
  return k;
}
// The same by a table over half units (every midpoint between two levels is a multiple of
// 0.5, so a half-unit cell never straddles one).
struct Iq4LevelTable {
  static constexpr int kOffset = 300;  // cells for t in [-150, 150)
  uint8_t index[2 * kOffset] = {};
  // Cell c holds t in [(c - kOffset) / 2, (c - kOffset + 1) / 2): its centre decides.
  constexpr Iq4LevelTable() {
    for (int c = 0; c < 2 * kOffset; ++c)
      index[c] = static_cast<uint8_t>(nearest_iq4_level((c - kOffset + 0.5f) / 2));
  }
  int operator()(float t) const {
    const float cell = 2 * t + kOffset;
    if (!(cell >= 0)) return 0;
    if (!(cell < 2 * kOffset)) return 15;
    return index[static_cast<int>(cell)];
  }
};
inline constexpr Iq4LevelTable kIq4Level{};

}  // namespace kvchat::quant
