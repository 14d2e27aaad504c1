// What a KV row holds, in each KV type: encoding heads of floats into a type's layout and
// back, the rotated types' rotation applied and undone (kv/kv_rotation.h). Every piece of
// code that turns floats into cached K/V or back outside the attention kernels (the
// backends' writes, context shift, re-encoding to another type, snapshots) goes through
// these, so a rotated row never reaches a reader that does not expect it.
#pragma once

#include <cstdint>

#include "kv/kv_type.h"

namespace kvchat {

// x (n_heads, head_dim) encoded into dst (n_heads * head_bytes) in t's layout; rotated
// types rotate a copy of x first (q4_0r then fits each block's scale by least squares).
// head_dim must be usable by t (kv_type_unusable).
void encode_kv_heads(KvType t, const float* x, int32_t n_heads, int32_t head_dim, uint8_t* dst);
// The inverse: src (n_heads heads in t's layout) decoded into x (n_heads, head_dim).
void decode_kv_heads(KvType t, const uint8_t* src, float* x, int32_t n_heads, int32_t head_dim);
// n_rows rows of n_heads heads each, from one KV type to another (decoded, then encoded).
void convert_kv_rows(KvType from, const uint8_t* src, KvType to, uint8_t* dst, int64_t n_rows,
                     int32_t n_heads, int32_t head_dim);

}  // namespace kvchat
