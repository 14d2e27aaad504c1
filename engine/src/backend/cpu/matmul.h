// The parallel driver of the matrix products: Y (n_tokens, rows) = X (n_tokens, cols) . W^T
// with W's rows split over the threads of a ThreadPool::run body. Each thread calls the
// single-threaded row kernel (MatMul::rows) on its share, so several weights that read
// the same input ({wq, wk, wv}, {w_gate, w_up}) are computed in one parallel phase and a
// thread can finish its own rows (bias, RoPE, activation, residual) without a barrier.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "gguf/tensor_type.h"
#include "model/model_weights.h"

namespace kvchat::cpu {

// The input of a product as the row kernel reads it, prepared once per input (single
// thread) and then read by every thread. For now the f32 rows themselves; the integer
// kernels' PreparedActivations (row_kernels.h) adds the 8-bit quantization of X and takes
// this class's place (same prepare signature). Keeps a pointer to X: X must stay alive and
// unchanged while the product runs.
class MatInput {
 public:
  void prepare(const float* X, int64_t n_tokens, int64_t cols,
               std::span<const gguf::TensorType> /*weight_types*/) {
    x_ = X;
    n_tokens_ = n_tokens;
    cols_ = cols;
  }
  int64_t n_tokens() const { return n_tokens_; }
  int64_t cols() const { return cols_; }
  const float* f32(int64_t t) const { return x_ + t * cols_; }  // token t: (cols)
  uint64_t scratch_bytes() const { return 0; }

 private:
  const float* x_ = nullptr;
  int64_t n_tokens_ = 0, cols_ = 0;
};

// One thread's buffers for the row kernel (grown on first use).
struct MatScratch {
  std::vector<float> rows_f32;  // (tile rows, cols): weight rows converted to f32
  uint64_t bytes() const { return rows_f32.capacity() * sizeof(float); }
};

// Row-range splitting: rows are handed out in units of `align` rows (a kernel tile, or a
// head when the epilogue needs whole heads).
constexpr int64_t kRowAlign = 16;

// Thread `thread` of `n_threads`'s share [first, second) of [0, n) in units of `align`.
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
  void rows(const WeightView& w, const MatInput& x, int64_t r0, int64_t r1, float* Y, int64_t ldy,
            int thread);

  // Inside a ThreadPool::run body: this thread's share of all of w's rows.
  void share(const WeightView& w, const MatInput& x, float* Y, int64_t ldy, int thread, int n_threads) {
    const auto [r0, r1] = split_range(w.rows, kRowAlign, thread, n_threads);
    if (r0 < r1) rows(w, x, r0, r1, Y, ldy, thread);
  }

  uint64_t scratch_bytes() const;

 private:
  std::vector<MatScratch> scratch_;  // (n_threads)
};

}  // namespace kvchat::cpu
