#include "backend/cpu/matmul.h"

#include <algorithm>

namespace kvchat::cpu {

void MatMul::run(const WeightView& w, const float* X, int64_t n_tokens, float* Y, int64_t ldy) {
  act_.prepare(X, n_tokens, w.cols, w.type);
  if (scratch_.size() < static_cast<size_t>(pool_.size())) scratch_.resize(pool_.size());
  const int64_t n_tiles = (w.rows + kMatmulRowAlign - 1) / kMatmulRowAlign;
  pool_.parallel_for(n_tiles, [&](int64_t t0, int64_t t1, int thread) {
    matmul_rows(w, act_, t0 * kMatmulRowAlign, std::min(w.rows, t1 * kMatmulRowAlign), Y, ldy, scratch_[thread]);
  });
}

uint64_t MatMul::scratch_bytes() const {
  uint64_t total = act_.scratch_bytes();
  for (const auto& s : scratch_) total += s.bytes();
  return total;
}

}  // namespace kvchat::cpu
