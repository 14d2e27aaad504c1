// Y (n_tokens, w.rows) = X (n_tokens, w.cols) . W^T, rows split across the pool.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/cpu/row_kernels.h"
#include "model/model_weights.h"
#include "util/thread_pool.h"

namespace kvchat::cpu {

class MatMul {
 public:
  explicit MatMul(ThreadPool& pool) : pool_(pool) {}

  // X: (n_tokens, w.cols) row-major; Y: (n_tokens, ldy) row-major, columns [0, w.rows) written.
  void run(const WeightView& w, const float* X, int64_t n_tokens, float* Y, int64_t ldy);

  uint64_t scratch_bytes() const;

 private:
  ThreadPool& pool_;
  PreparedActivations act_;
  std::vector<RowScratch> scratch_;  // per thread
};

}  // namespace kvchat::cpu
