// The rotation of the rotated KV types (q8_0r, q4_0r): each head's vector x (head_dim
// values, a power of two) is stored as R x, R = H D / sqrt(head_dim), with D a fixed
// diagonal of random signs and H the Sylvester Hadamard matrix (a fast Walsh–Hadamard
// transform, head_dim log2(head_dim) additions). R is orthogonal, so
//   q . k = (R q) . (R k)   and   sum_t a_t (R v_t) = R (sum_t a_t v_t):
// attention rotates the query once and un-rotates its output, and never decodes a row
// back. Spreading each head's outliers over all its values before block quantization is
// what lowers the error of 4-bit keys. The sign vector is part of the snapshot format: it
// never changes.
#pragma once

#include <cstdint>

namespace kvchat {

// The largest head_dim the rotation takes.
inline constexpr int32_t kMaxRotatedHeadDim = 1024;

// Whether head_dim can be rotated: a power of two from 2 to kMaxRotatedHeadDim.
bool rotation_fits(int32_t head_dim);

// x (n_heads, head_dim) <- R x, head by head.
void rotate_heads(float* x, int32_t n_heads, int32_t head_dim);
// x (n_heads, head_dim) <- R^T x (the inverse), head by head.
void unrotate_heads(float* x, int32_t n_heads, int32_t head_dim);

}  // namespace kvchat
