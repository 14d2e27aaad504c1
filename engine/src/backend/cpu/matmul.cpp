#include "backend/cpu/matmul.h"

namespace kvchat::cpu {

void MatMul::rows(const WeightView& w, const PreparedActivations& x, int64_t r0, int64_t r1,
                  float* Y, int64_t ldy, int thread) {
  matmul_rows(w, x, r0, r1, Y, ldy, scratch_[thread]);
}

uint64_t MatMul::scratch_bytes() const {
  uint64_t total = 0;
  for (const RowScratch& s : scratch_) total += s.bytes();
  return total;
}

}  // namespace kvchat::cpu
