// The x8 layouts (repack.h), the repacking both ways, the scalar definition of the dots over
// a repacked matrix, and the choice of kernel path.
#include "backend/cpu/repack.h"

#include <cstring>
#include <vector>

#include "backend/cpu/dot.h"
#include "backend/cpu/quant_dot.h"
#include "numeric/weight_type_traits.h"

namespace kvchat::cpu {

using gguf::TensorType;

namespace {

// The x8 layout of a type (the repack column of numeric/weight_type_traits.h) and its block bytes.
const RepackLayout& layout_of(TensorType type) {
  static constexpr RepackLayout kNone{};
  const WeightTypeTraits* t = weight_type_traits(type);
  return t && t->repack ? *t->repack : kNone;
}

uint64_t block_bytes_of(TensorType type) {
  return static_cast<uint64_t>(weight_type_traits(type)->block_bytes);
}

// Copies `count` units of kUnit bytes between one row's field and the x8 field (a fixed-size
// memcpy: a register move, not a call).
template <bool kToX8, int kUnit>
void move_units(int count, uint8_t* plain, uint8_t* packed) {
  for (int i = 0; i < count; ++i) {
    if constexpr (kToX8) {
      std::memcpy(packed + i * kRepackRows * kUnit, plain + i * kUnit, kUnit);
    } else {
      std::memcpy(plain + i * kUnit, packed + i * kRepackRows * kUnit, kUnit);
    }
  }
}

// Copies between one original block of row r (`block`) and the x8 block (`x8`).
template <bool kToX8>
void move_block(const RepackLayout& layout, int r, uint8_t* block, uint8_t* x8) {
  int at = 0;
  for (int f = 0; f < layout.n_fields; ++f) {
    const RepackField& field = layout.fields[f];
    const int count = field.bytes / field.unit;
    uint8_t* packed = x8 + at + r * field.unit;
    uint8_t* plain = block + field.offset;
    switch (field.unit) {
      case 1: move_units<kToX8, 1>(count, plain, packed); break;
      case 2: move_units<kToX8, 2>(count, plain, packed); break;
      default: move_units<kToX8, 4>(count, plain, packed); break;
    }
    at += field.bytes * static_cast<int>(kRepackRows);
  }
}

}  // namespace

bool repackable(TensorType type) {
  const WeightTypeTraits* t = weight_type_traits(type);
  return t && t->repack;
}

void repack_rows(TensorType type, const uint8_t* src, uint64_t row_bytes, int64_t rows,
                 uint8_t* dst) {
  const RepackLayout& layout = layout_of(type);
  const uint64_t bb = block_bytes_of(type), nb = row_bytes / bb;
  for (int64_t g = 0; g < rows / kRepackRows; ++g) {
    const uint8_t* group = src + g * kRepackRows * row_bytes;
    uint8_t* out = dst + g * kRepackRows * row_bytes;
    for (uint64_t k = 0; k < nb; ++k) {
      for (int r = 0; r < kRepackRows; ++r) {
        move_block<true>(layout, r, const_cast<uint8_t*>(group + r * row_bytes + k * bb),
                         out + k * kRepackRows * bb);
      }
    }
  }
}

void unpack_row(TensorType type, const uint8_t* packed, uint64_t row_bytes, int64_t row,
                uint8_t* dst) {
  const RepackLayout& layout = layout_of(type);
  const uint64_t bb = block_bytes_of(type), nb = row_bytes / bb;
  const uint8_t* group = packed + (row / kRepackRows) * kRepackRows * row_bytes;
  for (uint64_t k = 0; k < nb; ++k) {
    move_block<false>(layout, static_cast<int>(row % kRepackRows), dst + k * bb,
                      const_cast<uint8_t*>(group + k * kRepackRows * bb));
  }
}

// The definition: each row unpacked and dotted by quant_dot_scalar.
void repacked_rows_scalar(TensorType type, const uint8_t* data, uint64_t row_bytes, int64_t r0,
                          int64_t r1, const void* act, uint64_t act_stride, int64_t n_tokens,
                          int64_t n, float* Y, int64_t ldy) {
  std::vector<uint8_t> row(row_bytes);  // (row_bytes) one row in the original layout
  for (int64_t r = r0; r < r1; ++r) {
    unpack_row(type, data, row_bytes, r, row.data());
    for (int64_t t = 0; t < n_tokens; ++t) {
      Y[t * ldy + r] =
          quant_dot_scalar(type, row.data(), static_cast<const uint8_t*>(act) + t * act_stride, n);
    }
  }
}

// Builds without a kernel file: its entry point is the definition (never chosen by
// repacked_rows there: the CPU checks of dot.h say false without the file).
#define KVCHAT_REPACKED_FALLBACK(isa)                                                            \
  void repacked_rows_##isa(TensorType type, const uint8_t* data, uint64_t row_bytes, int64_t r0, \
                           int64_t r1, const void* act, uint64_t act_stride, int64_t n_tokens,   \
                           int64_t n, float* Y, int64_t ldy) {                                   \
    repacked_rows_scalar(type, data, row_bytes, r0, r1, act, act_stride, n_tokens, n, Y, ldy);   \
  }
#if !defined(KVCHAT_HAVE_AVX2_TU)
KVCHAT_REPACKED_FALLBACK(avx2)
#endif
#if !defined(KVCHAT_HAVE_AVXVNNI_TU)
KVCHAT_REPACKED_FALLBACK(avxvnni)
#endif
#if !defined(KVCHAT_HAVE_AVX512_TU)
KVCHAT_REPACKED_FALLBACK(avx512)
#endif
#undef KVCHAT_REPACKED_FALLBACK

void repacked_rows(TensorType type, const uint8_t* data, uint64_t row_bytes, int64_t r0, int64_t r1,
                   const void* act, uint64_t act_stride, int64_t n_tokens, int64_t n, float* Y,
                   int64_t ldy) {
#if defined(KVCHAT_HAVE_AVX512_TU)
  if (use_avx512_kernels())
    return repacked_rows_avx512(type, data, row_bytes, r0, r1, act, act_stride, n_tokens, n, Y,
                                ldy);
#endif
#if defined(KVCHAT_HAVE_AVXVNNI_TU)
  if (use_avxvnni_kernels()) {
    return repacked_rows_avxvnni(type, data, row_bytes, r0, r1, act, act_stride, n_tokens, n, Y,
                                 ldy);
  }
#endif
#if defined(KVCHAT_HAVE_AVX2_TU)
  if (use_avx2_kernels())
    return repacked_rows_avx2(type, data, row_bytes, r0, r1, act, act_stride, n_tokens, n, Y, ldy);
#endif
  repacked_rows_scalar(type, data, row_bytes, r0, r1, act, act_stride, n_tokens, n, Y, ldy);
}

}  // namespace kvchat::cpu
