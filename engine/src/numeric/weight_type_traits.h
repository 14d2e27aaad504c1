// One table of what kvchat knows about each stored weight type (weight_type_traits.cpp;
// gguf::tensor_type_traits reads its name and block columns):
// the facts the numeric code and the CPU backend used to decide each in its own
// switch over the type. A row per supported GGML type; unsupported ids have no row (nullptr),
// and their errors stay where they were (gguf::tensor_type_traits at load, with the names
// of gguf/tensor_type.cpp).
//
// Columns:
//   type, name         the GGML id and name ("Q4_K")
//   block_values       values per block: 1 (F32/F16/BF16), 32, or 256 (K- and XS-types)
//   block_bytes        bytes per block, = sizeof the Block struct of numeric/quant_blocks.h
//   activation         the activation format its dot products take (quant_dot.h): f32
//                      (FMA dots), Q8_32 (32-value types) or Q8_K (256-value types)
//   dequantize_row     the plain definition, row of n values -> f32 (numeric/dequantize.cpp)
//   quantize_row       f32 -> the type (numeric/convert.cpp, encoders of numeric/quantize.h)
//   codes32 / codes_k  the scalar unpacking of one block into integer codes and scales, the
//                      definition the scalar integer dot is built on (numeric/quant_codes.cpp);
//                      codes32 for Q8_32 types, codes_k for Q8_K types, else nullptr
//   repack             the x8 interleaved layout the repacked CPU kernels read
//                      (backend/cpu/repack.h), nullptr when the type has none
//
// What stays a switch: the per-ISA SIMD kernels (backend/cpu/*_avx2/_avxvnni/_avx512 and the
// .inl files) are templates instantiated per type in each ISA file; a switch there turns the
// type into the instantiated kernel's pointer, once per matrix row range (see
// quant_dot_tile_kernel in backend/cpu/quant_dot.h), not per row.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "gguf/tensor_type.h"
#include "numeric/quant_codes.h"

namespace kvchat {

// The activation format a weight type is dotted with (backend/cpu/quant_dot.h).
enum class ActivationFormat { F32, Q8_32, Q8_K };

// One field of an original block: `bytes` bytes at `offset`, interleaved in units of `unit`
// bytes in the x8 block (backend/cpu/repack.h).
struct RepackField {
  int offset, bytes, unit;
};
// The fields in their x8 order (the scales first: the kernels read them before the codes).
struct RepackLayout {
  int n_fields = 0;
  RepackField fields[5];
};

using DequantizeRowFn = void (*)(const void* src, float* dst, int64_t n);
using QuantizeRowFn = void (*)(const float* src, void* dst, int64_t n);
using Codes32Fn = Codes32 (*)(const uint8_t* block);
using CodesKFn = CodesK (*)(const uint8_t* block);

struct WeightTypeTraits {
  gguf::TensorType type;
  std::string_view name;
  int block_values;
  int block_bytes;
  ActivationFormat activation;
  DequantizeRowFn dequantize_row;
  QuantizeRowFn quantize_row;
  Codes32Fn codes32;           // nullptr unless activation == Q8_32
  CodesKFn codes_k;            // nullptr unless activation == Q8_K
  const RepackLayout* repack;  // nullptr: no x8 layout
};

// The row of `type`; nullptr for an id kvchat does not support. O(1).
const WeightTypeTraits* weight_type_traits(gguf::TensorType type);
// Every row, in the order of supported_tensor_type_names (gguf/tensor_type.h).
std::span<const WeightTypeTraits> weight_types();

}  // namespace kvchat
