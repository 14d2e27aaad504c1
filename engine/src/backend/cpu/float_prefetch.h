// Decode's software prefetch for the AVX2 and AVX-512 float dots (dot_avx2.cpp,
// dot_avx512.cpp). Decode reads every weight once, an R-row tile at a time; a 2048-wide
// model's rows are 4 KB, one page each, and the hardware prefetcher stops at each page, so
// it left a third of the DRAM bandwidth unused (issue 44). While a tile sums values
// [i, i + 32) of its rows, the same place in the next tile's rows is fetched: one 64-byte
// line of a 16-bit row, two of an F32 row.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "gguf/tensor_type.h"

namespace kvchat::cpu {

template <gguf::TensorType kType, int R>
inline void prefetch_next_tile(const uint8_t* rows, uint64_t row_bytes, int64_t i) {
  constexpr int kBytes = kType == gguf::TensorType::F32 ? 4 : 2;
  const uint8_t* next_tile = rows + R * row_bytes;
  for (int r = 0; r < R; ++r) {
    const char* ahead = reinterpret_cast<const char*>(next_tile + r * row_bytes + i * kBytes);
    _mm_prefetch(ahead, _MM_HINT_T0);
    if constexpr (kBytes == 4) _mm_prefetch(ahead + 64, _MM_HINT_T0);
  }
}

}  // namespace kvchat::cpu
