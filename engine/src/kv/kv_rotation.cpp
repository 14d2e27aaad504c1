#include "kv/kv_rotation.h"

#include <array>
#include <cmath>

namespace kvchat {

namespace {

// D: kMaxRotatedHeadDim signs, each the top bit of splitmix64 of its index from a fixed
// seed; a head of head_dim values uses the first head_dim.
const std::array<float, kMaxRotatedHeadDim>& signs() {
  static const std::array<float, kMaxRotatedHeadDim> table = [] {
    std::array<float, kMaxRotatedHeadDim> t{};
    uint64_t state = 0x6b76636861742d72ULL;  // "kvchat-r"
    for (float& s : t) {
      uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      z ^= z >> 31;
      s = (z >> 63) != 0 ? -1.0f : 1.0f;
    }
    return t;
  }();
  return table;
}

// x (n) <- H x / sqrt(n): the unnormalised Walsh–Hadamard butterflies, then the scale.
void hadamard(float* x, int32_t n) {
  for (int32_t len = 1; len < n; len <<= 1) {
    for (int32_t i = 0; i < n; i += 2 * len) {
      for (int32_t j = i; j < i + len; ++j) {
        const float a = x[j], b = x[j + len];
        x[j] = a + b;
        x[j + len] = a - b;
      }
    }
  }
  const float scale = 1.0f / std::sqrt(static_cast<float>(n));
  for (int32_t i = 0; i < n; ++i) x[i] *= scale;
}

}  // namespace

bool rotation_fits(int32_t head_dim) {
  return head_dim >= 2 && head_dim <= kMaxRotatedHeadDim && (head_dim & (head_dim - 1)) == 0;
}

void rotate_heads(float* x, int32_t n_heads, int32_t head_dim) {
  const float* d = signs().data();
  for (int32_t h = 0; h < n_heads; ++h) {
    float* v = x + static_cast<int64_t>(h) * head_dim;
    for (int32_t i = 0; i < head_dim; ++i) v[i] *= d[i];
    hadamard(v, head_dim);
  }
}

void unrotate_heads(float* x, int32_t n_heads, int32_t head_dim) {
  const float* d = signs().data();
  for (int32_t h = 0; h < n_heads; ++h) {
    float* v = x + static_cast<int64_t>(h) * head_dim;
    hadamard(v, head_dim);  // H is symmetric and H H = n I: H / sqrt(n) is its own inverse
    for (int32_t i = 0; i < head_dim; ++i) v[i] *= d[i];
  }
}

}  // namespace kvchat
