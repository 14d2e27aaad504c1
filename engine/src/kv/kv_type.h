// Element types the KV cache can store K and V in, and what each costs.
// Quantized types store blocks of 32 values with an f16 scale (GGML layouts):
// q8_0 = 34 bytes per 32 values, q4_0 = 18 bytes per 32 values. The rotated types q8_0r
// and q4_0r store each head rotated (kv/kv_rotation.h) in the q8_0 / q4_0 layout.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "gguf/tensor_type.h"

namespace kvchat {

enum class KvType { F32, F16, Q8_0, Q4_0, Q8_0R, Q4_0R };

inline constexpr KvType kAllKvTypes[] = {KvType::F32,  KvType::F16,   KvType::Q8_0,
                                         KvType::Q4_0, KvType::Q8_0R, KvType::Q4_0R};

// "f32", "f16", "q8_0", "q4_0", "q8_0r", "q4_0r"
std::string_view kv_type_name(KvType t);
std::optional<KvType> parse_kv_type(std::string_view name);
// K's and V's types as one name: "q8_0" when they are the same, else "q8_0/q4_0" (K/V).
std::string kv_types_name(KvType k, KvType v);
// The inverse: "T" (both) or "K/V"; nullopt for anything else.
std::optional<std::pair<KvType, KvType>> parse_kv_types(std::string_view name);
// Every name, for messages: "f32, f16, q8_0, q4_0, q8_0r, q4_0r".
std::string kv_type_list();
// What a KV type option accepts, for its error: the list, "or K/V such as q8_0/q4_0".
std::string kv_type_choices();
// The type whose layout rows are stored in (q4_0r: q4_0; the others: themselves).
KvType kv_layout(KvType t);
// Whether rows hold each head rotated (kv/kv_rotation.h): q8_0r, q4_0r.
inline bool kv_rotated(KvType t) { return t == KvType::Q8_0R || t == KvType::Q4_0R; }
// The stored tensor type with the same layout (for dot products and conversions; a
// rotated type's rows decode to rotated values: kv/kv_codec.h undoes the rotation).
gguf::TensorType kv_storage_type(KvType t);
// Why `t` cannot store heads of head_dim values (a block that does not divide it, a
// rotation that needs a power of two), naming both; empty when it can.
std::string kv_type_unusable(KvType t, int64_t head_dim);

// Values per block and bytes per block: f32 1/4, f16 1/2, q8_0 32/34, q4_0 32/18.
int32_t kv_block_values(KvType t);
int32_t kv_block_bytes(KvType t);

// Bytes of `n_values` values (n_values a multiple of the block size).
inline uint64_t kv_bytes(KvType t, uint64_t n_values) {
  return n_values / kv_block_values(t) * kv_block_bytes(t);
}

// The formula the product shows: 2 (K and V) x layers x tokens x kv_heads x head_dim x
// bytes per element (exact for quantized types, scales included).
inline uint64_t kv_cache_bytes(KvType t, uint64_t n_layers, uint64_t n_tokens, uint64_t n_kv_heads,
                               uint64_t head_dim) {
  return 2 * n_layers * n_tokens * kv_bytes(t, n_kv_heads * head_dim);
}

}  // namespace kvchat
