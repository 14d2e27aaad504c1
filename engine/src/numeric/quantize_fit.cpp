#include "numeric/quantize_fit.h"

#include <limits>

#include "numeric/quant_blocks.h"

namespace kvchat::quant {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// For the codes a trial scale assigns: their squared error and the sums a least-squares
// refit of the scale (and min) needs.
struct Trial {
  float err = 0, sq = 0, sqq = 0, sxq = 0;  // over at most 32 values: float is plenty
};

Trial affine_trial(const float* x, int n, int nmax, float scale, float min) {
  const float inv = 1.0f / scale;
  Trial t;
  for (int i = 0; i < n; ++i) {
    const int q = round_clamp((x[i] + min) * inv, 0, nmax);
    const float e = x[i] - (scale * q - min);
    t.err += e * e, t.sq += q, t.sqq += float(q * q), t.sxq += x[i] * q;
  }
  return t;
}

Trial symmetric_trial(const float* x, int n, int nneg, float scale) {
  const float inv = 1.0f / scale;
  Trial t;
  for (int i = 0; i < n; ++i) {
    const int q = round_clamp(x[i] * inv, -nneg, nneg - 1);
    const float e = x[i] - scale * q;
    t.err += e * e, t.sqq += float(q * q), t.sxq += x[i] * q;
  }
  return t;
}

Trial iq4_trial(const float* x, int n, float scale) {
  const float inv = 1.0f / scale;
  Trial t;
  for (int i = 0; i < n; ++i) {
    const int l = kIq4nlValues[kIq4Level(x[i] * inv)];
    const float e = x[i] - scale * l;
    t.err += e * e, t.sqq += float(l * l), t.sxq += x[i] * l;
  }
  return t;
}

}  // namespace

AffineFit fit_affine(const float* x, int n, int nmax) {
  float lo = 0, hi = -kInf;
  double sx = 0;
  for (int i = 0; i < n; ++i) lo = std::min(lo, x[i]), hi = std::max(hi, x[i]), sx += x[i];
  AffineFit best{0, -lo};
  if (!(hi > lo)) return best;  // every value equals lo <= 0: min alone represents it
  double best_err = kInf;
  // Candidates: the range onto nmax +- a little (a slightly larger step can clip the
  // extremes and place the bulk of the values better); each refit once by least squares
  // for the codes it chose.
  for (const float widen : {-0.5f, 0.0f, 0.3f, 0.6f, 1.0f, 1.5f}) {
    float scale = (hi - lo) / (nmax + widen), min = -lo;
    for (int pass = 0; pass < 2; ++pass) {
      const Trial t = affine_trial(x, n, nmax, scale, min);
      if (t.err < best_err) best_err = t.err, best = {scale, min};
      if (pass == 1) break;
      const double det = double(n) * t.sqq - double(t.sq) * t.sq;
      if (det <= 0) break;
      double s = (double(n) * t.sxq - double(t.sq) * sx) / det;
      double m = -(sx - s * t.sq) / n;              // x ~= s q - m
      if (m < 0) m = 0, s = double(t.sxq) / t.sqq;  // min must stay >= 0: the slope alone through 0
      if (!(s > 0)) break;
      scale = static_cast<float>(s), min = static_cast<float>(m);
    }
  }
  return best;
}

float fit_symmetric(const float* x, int n, int nneg) {
  const float vmax = signed_max(x, n);
  if (vmax == 0) return 0;
  float best = vmax / -nneg;
  double best_err = kInf;
  for (const float target :
       {-nneg - 0.5f, float(-nneg), -nneg + 0.5f, -nneg + 1.0f, nneg - 1.0f, nneg - 0.5f}) {
    float scale = vmax / target;
    for (int pass = 0; pass < 2; ++pass) {
      const Trial t = symmetric_trial(x, n, nneg, scale);
      if (t.err < best_err) best_err = t.err, best = scale;
      if (t.sqq == 0 || t.sxq == 0) break;
      scale = t.sxq / t.sqq;  // least squares for the chosen codes
    }
  }
  return best;
}

float fit_iq4(const float* x, int n) {
  const float vmax = signed_max(x, n);
  if (vmax == 0) return 0;
  float best = vmax / -127.0f;
  double best_err = kInf;
  // The largest value onto the wide end (-127) or the other end (113), a little inside or out.
  for (const float target : {-127.0f, -121.0f, -115.0f, -133.0f, 113.0f, 107.0f, 119.0f}) {
    float scale = vmax / target;
    for (int pass = 0; pass < 2; ++pass) {
      const Trial t = iq4_trial(x, n, scale);
      if (t.err < best_err) best_err = t.err, best = scale;
      if (t.sxq == 0) break;
      scale = t.sxq / t.sqq;
    }
  }
  return best;
}

}  // namespace kvchat::quant
