// Block-quantized formats (GGML layouts): 32 values share one f16 scale d.
//   Q8_0: value[j] = d * qs[j],                         qs int8      -> 34 bytes / 32 values
//   Q4_0: value[j] = d * ((qs[j] & 0xF) - 8)  j < 16,
//         value[j+16] = d * ((qs[j] >> 4) - 8)         qs 4-bit     -> 18 bytes / 32 values
#pragma once

#include <cstdint>

namespace kvchat {

constexpr int kQuantBlock = 32;

struct BlockQ8_0 {
  uint16_t d;  // f16 scale
  int8_t qs[kQuantBlock];
};
static_assert(sizeof(BlockQ8_0) == 34);

struct BlockQ4_0 {
  uint16_t d;  // f16 scale
  uint8_t qs[kQuantBlock / 2];
};
static_assert(sizeof(BlockQ4_0) == 18);

}  // namespace kvchat
