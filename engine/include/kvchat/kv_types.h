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

// K/V pairs typed apart ("K/V") that the what-if table and the quality measurement show
// beside the single types: keys carry most of 4-bit KV's loss, so these keep keys finer.
std::vector<std::string> kv_type_pairs_shown();  // "f16/q8_0", "q8_0/q4_0", "q8_0/q4_0r"

}  // namespace kvchat
