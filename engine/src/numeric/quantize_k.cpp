// Encoders of the K-types (super-blocks of 256 values) and of Q8_K, their activation
// format. Per sub-block a scale (and min) is searched (quant::fit_*); the super-block's f16
// d (and dmin) is the largest sub-block scale over the sub-scale range; the sub-scales are
// rounded to their bits (affine types: the best of the rounded codes and their neighbours);
// the codes are then chosen against the scales exactly as stored. On the same f32 weights
// the error is at or below llama.cpp's reference quantizer's (without importance matrix).
#include <cstring>
#include <limits>

#include "numeric/half.h"
#include "numeric/quantize.h"
#include "numeric/quantize_fit.h"

namespace kvchat {

using quant::round_clamp;

namespace {

float inverse(float d) { return d != 0 ? 1.0f / d : 0.0f; }

// Sub-scale codes of an affine K-type: fits[s] rounded against the f16 super-scales d/dmin
// (both chosen so the largest sub-scale / sub-min codes to kMaxCode).
template <int kSubs, int kMaxCode>
void affine_sub_scales(const quant::AffineFit* fits, uint16_t& d, uint16_t& dmin, int* sc,
                       int* mn) {
  float max_scale = 0, max_min = 0;
  for (int s = 0; s < kSubs; ++s)
    max_scale = std::max(max_scale, fits[s].scale), max_min = std::max(max_min, fits[s].min);
  d = f32_to_f16(max_scale / kMaxCode);
  dmin = f32_to_f16(max_min / kMaxCode);
  const float inv_d = inverse(f16_to_f32(d)), inv_m = inverse(f16_to_f32(dmin));
  for (int s = 0; s < kSubs; ++s) {
    sc[s] = round_clamp(fits[s].scale * inv_d, 0, kMaxCode);
    mn[s] = round_clamp(fits[s].min * inv_m, 0, kMaxCode);
  }
}

// Codes 0..nmax of `count` values against value = scale * q - min as stored.
void affine_codes(const float* x, int count, float scale, float min, int nmax, int* q) {
  const float inv = inverse(scale);
  for (int i = 0; i < count; ++i) q[i] = scale > 0 ? round_clamp((x[i] + min) * inv, 0, nmax) : 0;
}

// The rounded sub-scale and sub-min codes are each one grid step from the fit: try their
// neighbours (+-1) against the stored d / dmin and keep the pair of least squared error.
void refine_affine_sub_scale(const float* x, int count, float d, float dmin, int nmax, int max_code,
                             int& sc, int& mn) {
  float best = std::numeric_limits<float>::infinity();
  int best_sc = sc, best_mn = mn;
  for (int s = std::max(sc - 1, 0); s <= std::min(sc + 1, max_code); ++s) {
    for (int m = std::max(mn - 1, 0); m <= std::min(mn + 1, max_code); ++m) {
      const float scale = d * s, min = dmin * m, inv = inverse(scale);
      float err = 0;
      for (int i = 0; i < count; ++i) {
        const int q = scale > 0 ? round_clamp((x[i] + min) * inv, 0, nmax) : 0;
        const float e = x[i] - (scale * q - min);
        err += e * e;
      }
      if (err < best) best = err, best_sc = s, best_mn = m;
    }
  }
  sc = best_sc;
  mn = best_mn;
}

// Signed sub-scale codes in [lo, hi] against the f16 d chosen so the sub-scale of largest
// magnitude codes to lo (the wider, negative side).
template <int kSubs>
void symmetric_sub_scales(const float* scales, int lo, int hi, uint16_t& d, int* codes) {
  d = f32_to_f16(quant::signed_max(scales, kSubs) / lo);
  const float inv = inverse(f16_to_f32(d));
  for (int s = 0; s < kSubs; ++s) codes[s] = round_clamp(scales[s] * inv, lo, hi);
}

// Codes in [-nneg, nneg) of `count` values against value = scale * q, offset by nneg.
void symmetric_codes(const float* x, int count, float scale, int nneg, int* q) {
  const float inv = inverse(scale);
  for (int i = 0; i < count; ++i)
    q[i] = (scale != 0 ? round_clamp(x[i] * inv, -nneg, nneg - 1) : 0) + nneg;
}

// The 2-bit codes of Q2_K / Q3_K: value i -> byte 32 (i / 128) + i % 32, bits 2 ((i % 128) / 32).
void pack_2bit(const int* q, uint8_t* qs) {
  std::memset(qs, 0, kSuperBlock / 4);
  for (int i = 0; i < kSuperBlock; ++i)
    qs[(i / 128) * 32 + i % 32] |= static_cast<uint8_t>((q[i] & 3) << (2 * ((i % 128) / 32)));
}

// The 4-bit codes of Q4_K / Q5_K: value i -> byte 32 (i / 64) + i % 32, low nibble for the
// first 32 values of each 64, high nibble for the next 32.
void pack_4bit_k(const int* q, uint8_t* qs) {
  for (int c = 0; c < kSuperBlock / 64; ++c) {
    for (int l = 0; l < 32; ++l)
      qs[32 * c + l] =
          static_cast<uint8_t>((q[64 * c + l] & 0xF) | ((q[64 * c + 32 + l] & 0xF) << 4));
  }
}

// Bit `bit` of code i -> bit i / 32 of byte i % 32 (Q3_K hmask, Q5_K qh).
void pack_bit_planes(const int* q, int bit, uint8_t* out) {
  std::memset(out, 0, kSuperBlock / 8);
  for (int i = 0; i < kSuperBlock; ++i)
    out[i % 32] |= static_cast<uint8_t>(((q[i] >> bit) & 1) << (i / 32));
}

// 8 six-bit scales and mins of Q4_K / Q5_K into 12 bytes (the inverse of k_scale_min):
// bytes 0..3 scale j (6 bits) + top 2 bits of scale j+4; bytes 4..7 min j + top 2 bits of
// min j+4; bytes 8..11 the low 4 bits of scale j+4 (low nibble) and of min j+4 (high).
void pack_k_scales(const int* sc, const int* mn, uint8_t* out) {
  for (int j = 0; j < 4; ++j) {
    out[j] = static_cast<uint8_t>((sc[j] & 63) | ((sc[j + 4] >> 4) << 6));
    out[j + 4] = static_cast<uint8_t>((mn[j] & 63) | ((mn[j + 4] >> 4) << 6));
    out[j + 8] = static_cast<uint8_t>((sc[j + 4] & 0xF) | ((mn[j + 4] & 0xF) << 4));
  }
}

// 16 six-bit codes of Q3_K into 12 bytes (the inverse of q3_k_scales): low 4 bits of code j
// in byte j % 8 (low nibble for j < 8, high for j >= 8); top 2 bits in byte 8 + j % 4 at
// bits 2 (j / 4).
void pack_q3_k_scales(const int* codes, uint8_t* out) {
  std::memset(out, 0, 12);
  for (int j = 0; j < 16; ++j) {
    out[j % 8] |= static_cast<uint8_t>((codes[j] & 0xF) << (j < 8 ? 0 : 4));
    out[8 + j % 4] |= static_cast<uint8_t>((codes[j] >> 4) << (2 * (j / 4)));
  }
}

// Q4_K and Q5_K: 8 sub-blocks of 32, codes 0..kMax, 6-bit scales and mins.
template <int kMax>
void affine_k_super_block(const float* x, uint16_t& d, uint16_t& dmin, uint8_t* scales, int* q) {
  quant::AffineFit fits[8];
  for (int s = 0; s < 8; ++s) fits[s] = quant::fit_affine(x + 32 * s, 32, kMax);
  int sc[8], mn[8];
  affine_sub_scales<8, 63>(fits, d, dmin, sc, mn);
  const float dd = f16_to_f32(d), dm = f16_to_f32(dmin);
  for (int s = 0; s < 8; ++s) {
    refine_affine_sub_scale(x + 32 * s, 32, dd, dm, kMax, 63, sc[s], mn[s]);
    affine_codes(x + 32 * s, 32, dd * sc[s], dm * mn[s], kMax, q + 32 * s);
  }
  pack_k_scales(sc, mn, scales);
}

}  // namespace

void quantize_row_q2_k(const float* x, BlockQ2_K* y, int64_t n) {
  int q[kSuperBlock];
  for (int64_t k = 0; k < n / kSuperBlock; ++k, x += kSuperBlock) {
    quant::AffineFit fits[16];
    for (int s = 0; s < 16; ++s) fits[s] = quant::fit_affine(x + 16 * s, 16, 3);
    int sc[16], mn[16];
    affine_sub_scales<16, 15>(fits, y[k].d, y[k].dmin, sc, mn);
    const float d = f16_to_f32(y[k].d), dmin = f16_to_f32(y[k].dmin);
    for (int s = 0; s < 16; ++s) {
      refine_affine_sub_scale(x + 16 * s, 16, d, dmin, 3, 15, sc[s], mn[s]);
      y[k].scales[s] = static_cast<uint8_t>(sc[s] | (mn[s] << 4));
      affine_codes(x + 16 * s, 16, d * sc[s], dmin * mn[s], 3, q + 16 * s);
    }
    pack_2bit(q, y[k].qs);
  }
}

void quantize_row_q3_k(const float* x, BlockQ3_K* y, int64_t n) {
  int q[kSuperBlock];
  for (int64_t k = 0; k < n / kSuperBlock; ++k, x += kSuperBlock) {
    float scales[16];
    for (int s = 0; s < 16; ++s) scales[s] = quant::fit_symmetric(x + 16 * s, 16, 4);
    int codes[16], stored[16];
    symmetric_sub_scales<16>(scales, -32, 31, y[k].d, codes);
    const float d = f16_to_f32(y[k].d);
    for (int s = 0; s < 16; ++s) {
      stored[s] = codes[s] + 32;
      symmetric_codes(x + 16 * s, 16, d * codes[s], 4, q + 16 * s);  // q - 4 in [-4, 3]
    }
    pack_q3_k_scales(stored, y[k].scales);
    pack_2bit(q, y[k].qs);
    pack_bit_planes(q, 2, y[k].hmask);  // set: the code is q & 3 as is; clear: q & 3 - 4
  }
}

void quantize_row_q4_k(const float* x, BlockQ4_K* y, int64_t n) {
  int q[kSuperBlock];
  for (int64_t k = 0; k < n / kSuperBlock; ++k, x += kSuperBlock) {
    affine_k_super_block<15>(x, y[k].d, y[k].dmin, y[k].scales, q);
    pack_4bit_k(q, y[k].qs);
  }
}

void quantize_row_q5_k(const float* x, BlockQ5_K* y, int64_t n) {
  int q[kSuperBlock];
  for (int64_t k = 0; k < n / kSuperBlock; ++k, x += kSuperBlock) {
    affine_k_super_block<31>(x, y[k].d, y[k].dmin, y[k].scales, q);
    pack_4bit_k(q, y[k].qs);
    pack_bit_planes(q, 4, y[k].qh);
  }
}

void quantize_row_q6_k(const float* x, BlockQ6_K* y, int64_t n) {
  int q[kSuperBlock];
  for (int64_t k = 0; k < n / kSuperBlock; ++k, x += kSuperBlock) {
    float scales[16];
    for (int s = 0; s < 16; ++s) scales[s] = quant::fit_symmetric(x + 16 * s, 16, 32);
    int codes[16];
    symmetric_sub_scales<16>(scales, -128, 127, y[k].d, codes);
    const float d = f16_to_f32(y[k].d);
    for (int s = 0; s < 16; ++s) {
      y[k].scales[s] = static_cast<int8_t>(codes[s]);
      symmetric_codes(x + 16 * s, 16, d * codes[s], 32, q + 16 * s);  // q - 32 in [-32, 31]
    }
    // Value i (half c, quarter k, l = i % 32): low 4 bits in ql[64c + 32(k & 1) + l] (low
    // nibble for k < 2), high 2 bits in qh[32c + l] at bits 2k.
    std::memset(y[k].ql, 0, sizeof(y[k].ql));
    std::memset(y[k].qh, 0, sizeof(y[k].qh));
    for (int i = 0; i < kSuperBlock; ++i) {
      const int c = i / 128, quarter = (i % 128) / 32, l = i % 32;
      y[k].ql[64 * c + 32 * (quarter & 1) + l] |=
          static_cast<uint8_t>((q[i] & 0xF) << (quarter < 2 ? 0 : 4));
      y[k].qh[32 * c + l] |= static_cast<uint8_t>((q[i] >> 4) << (2 * quarter));
    }
  }
}

}  // namespace kvchat
