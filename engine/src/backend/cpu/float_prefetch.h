// Decode's software prefetch for the AVX2 and AVX-512 float dots (dot_avx2.cpp,
// dot_avx512.cpp, bf16_dot_avx512bf16.cpp). Decode reads every weight once, an R-row tile at a
// time; a 2048-wide model's rows are 4 KB, one page each, and the hardware prefetcher stops at
// each page, so it left a third of the DRAM bandwidth unused (issue 44). While a tile sums
// values [i, i + 32) of its rows, each row's line 1 KiB further on is fetched, and past a
// row's end the same place of the next tile's rows: R streams kept 1 KiB ahead through the
// tiles, as the read probe reads (streaming_read.inl). Fetching the next tile's rows at the
// same place instead (32 KiB ahead for 4 KB rows, beside the current tile in a 48 KiB L1)
// read 75-81% of the probe's bandwidth with 2 threads on a Sapphire Rapids-class Xeon, this
// 86-96% (F16 decode 11.4-12.2 -> 13.8-14.4 tok/s; docs/PERFORMANCE.md).
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "gguf/tensor_type.h"

namespace kvchat::cpu {

template <gguf::TensorType kType, int R>
inline void prefetch_rows_ahead(const uint8_t* rows, uint64_t row_bytes, int64_t i) {
  constexpr int kBytes = kType == gguf::TensorType::F32 ? 4 : 2;
  constexpr uint64_t kAhead = 1024;
  uint64_t at = static_cast<uint64_t>(i) * kBytes + kAhead;
  const uint8_t* tile = rows;
  if (at >= row_bytes) {  // into the following tiles' rows (more than one for rows under 1 KiB)
    const uint64_t tiles = at / row_bytes;
    at -= tiles * row_bytes;
    tile += tiles * R * row_bytes;
  }
  for (int r = 0; r < R; ++r) {
    const char* ahead = reinterpret_cast<const char*>(tile + r * row_bytes + at);
    _mm_prefetch(ahead, _MM_HINT_T0);
    if constexpr (kBytes == 4) _mm_prefetch(ahead + 64, _MM_HINT_T0);
  }
}

}  // namespace kvchat::cpu
