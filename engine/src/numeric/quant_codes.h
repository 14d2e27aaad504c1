// The scalar unpacking of one weight block into integer codes and scales: the definition the
// scalar integer dots (backend/cpu/quant_dot.cpp) are built on. Reached through the codes32 /
// codes_k columns of numeric/weight_type_traits.h.
#pragma once

#include <cstdint>

#include "numeric/quant_blocks.h"

namespace kvchat {

// One 32-value weight block: codes (unsigned, or signed values for Q8_0/IQ4_NL), their
// integer offset (Q4_0 8, Q5_0 16), weight scale d and min m (Q4_1, Q5_1):
// value = d * (code - offset) + m.
struct Codes32 {
  int code[kQuantBlock];
  int offset;
  float d, m;
};

// One 256-value weight super-block: value[i] = d * scale[i / 16] * (code[i] - offset)
// - dmin * min[i / 16].
struct CodesK {
  int code[kSuperBlock];
  int scale[16], min[16];
  int offset;
  float d, dmin;
};

namespace codes {
Codes32 q8_0(const uint8_t* block);
Codes32 q4_0(const uint8_t* block);
Codes32 q4_1(const uint8_t* block);
Codes32 q5_0(const uint8_t* block);
Codes32 q5_1(const uint8_t* block);
Codes32 iq4_nl(const uint8_t* block);
CodesK q2_k(const uint8_t* block);
CodesK q3_k(const uint8_t* block);
CodesK q4_k(const uint8_t* block);
CodesK q5_k(const uint8_t* block);
CodesK q6_k(const uint8_t* block);
CodesK iq4_xs(const uint8_t* block);
}  // namespace codes

}  // namespace kvchat
