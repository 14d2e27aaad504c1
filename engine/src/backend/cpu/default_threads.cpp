#include "backend/cpu/default_threads.h"

namespace kvchat::cpu {

bool decode_on_one_thread(int32_t requested, uint64_t weight_bytes) {
  return requested <= 0 && weight_bytes < kOneThreadDecodeBelowWeightBytes;
}

}  // namespace kvchat::cpu
