// The parallel driver of the matrix products: Y (n_tokens, rows) = X (n_tokens, cols) . W^T
// with W's rows split over the threads of a ThreadPool::run body. Each thread calls the
// single-threaded row kernel (matmul_rows, row_kernels.h) on its share, so several weights
// that read the same input ({wq, wk, wv}, {w_gate, w_up}) are computed in one parallel
// phase and a thread can finish its own rows (bias, RoPE, activation, residual) without a
// barrier.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "backend/cpu/row_kernels.h"
#include "model/model_weights.h"

namespace kvchat::cpu {

// Thread `thread` of `n_threads`'s share [first, second) of [0, n), handed out in units of
// `align` (a kernel tile, kMatmulRowAlign rows, or a head when the epilogue needs whole heads).
inline std::pair<int64_t, int64_t> split_range(int64_t n, int64_t align, int thread, int n_threads) {
  const int64_t units = (n + align - 1) / align;
  const int64_t u0 = units * thread / n_threads, u1 = units * (thread + 1) / n_threads;
  return {std::min(n, u0 * align), std::min(n, u1 * align)};
}

class MatMul {
 public:
  explicit MatMul(int n_threads) : scratch_(n_threads) {}

  // Y[b * ldy + r] = dot(w.row(r), X[b]) for r in [r0, r1), every token b of x; one
  // thread (its own scratch). The only call into the row kernel.
  void rows(const WeightView& w, const PreparedActivations& x, int64_t r0, int64_t r1, float* Y,
            int64_t ldy, int thread);

  uint64_t scratch_bytes() const;

 private:
  std::vector<RowScratch> scratch_;  // (n_threads)
};

}  // namespace kvchat::cpu
