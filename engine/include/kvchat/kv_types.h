// The KV element types a session can use, and what one value costs in each
// (quantized types count their f16 block scales): for showing costs before choosing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kvchat {

struct KvTypeCost {
  std::string name;        // "f32", "f16", "q8_0", "q4_0"
  uint32_t bytes_num = 0;  // bytes per value = bytes_num / bytes_den
  uint32_t bytes_den = 1;  // (q8_0: 34/32, q4_0: 18/32)
};

std::vector<KvTypeCost> kv_type_costs();

}  // namespace kvchat
