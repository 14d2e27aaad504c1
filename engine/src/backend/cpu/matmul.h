// The parallel driver of the matrix products: Y (n_tokens, rows) = X (n_tokens, cols) . W^T
// with W's rows cut into chunks that the threads of a ThreadPool::run body claim. Each thread
// calls the single-threaded row kernel (matmul_rows, row_kernels.h) on the chunks it claims,
// so several weights that read the same input ({wq, wk, wv}, {w_gate, w_up}) are computed in
// one parallel phase and a thread can finish its own rows (bias, RoPE, activation, residual)
// without a barrier.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "backend/cpu/row_kernels.h"
#include "model/model_weights.h"

namespace kvchat::cpu {

// Thread `thread` of `n_threads`'s share [first, second) of [0, n), handed out in units of
// `align` (static: for the cheap per-token work, the norms of long chunks).
inline std::pair<int64_t, int64_t> split_range(int64_t n, int64_t align, int thread,
                                               int n_threads) {
  const int64_t units = (n + align - 1) / align;
  const int64_t u0 = units * thread / n_threads, u1 = units * (thread + 1) / n_threads;
  return {std::min(n, u0 * align), std::min(n, u1 * align)};
}

// The dynamic split. A phase cuts [0, n) into chunks of whole units (kMatmulRowAlign rows, a
// group of heads, attention items) and every thread claims the next chunk from a shared
// counter until none is left: a thread that runs slower (a VM's vCPUs rarely run at equal
// speed; a core shared with another process) computes fewer chunks instead of making the
// others wait at the barrier. Chunk boundaries depend on n and the thread count only and
// stay on units, and a row's result does not depend on which thread computes it, so the
// output is the same bits whichever thread claims what.
//
// Chunks per thread aimed at: enough that a thread running at half speed costs a few chunk
// times, not half the phase.
constexpr int64_t kChunksPerThread = 8;
// Fewest multiply-adds in a chunk (a few us): each chunk costs a claim (an atomic on a line
// the other threads write too), a kernel call and its epilogue. kjv-demo decode (dim 192,
// 16 rows = 3k multiply-adds per token), 2 threads, fastest step of 600 on a quiet 2-vCPU
// VM: static split 175 us, chunks of 16 rows 194 us, a 16k floor 182 us, 64k 170 us. Real
// models' products are far above it (1B, dim 2048: 32k per 16 rows; 2 threads get 8 chunks each).
constexpr int64_t kMinChunkWork = 64 * 1024;

// [0, n) in chunks of `size` (the last one shorter).
struct Chunks {
  int64_t n = 0, size = 1;
  int64_t count() const { return (n + size - 1) / size; }
  std::pair<int64_t, int64_t> operator[](int64_t c) const {
    return {c * size, std::min(n, (c + 1) * size)};
  }
};

// [0, n) for n_threads in chunks of whole `align`s; align_work: the multiply-adds (or as
// costly operations) of one align. One thread: one chunk. Else kChunksPerThread chunks per
// thread, but none below kMinChunkWork and none so large that a thread would get no chunk.
inline Chunks make_chunks(int64_t n, int64_t align, int64_t align_work, int n_threads) {
  const int64_t units = (n + align - 1) / align;
  int64_t per = units;
  if (n_threads > 1) {
    const int64_t floor_units = (kMinChunkWork + align_work - 1) / std::max<int64_t>(align_work, 1);
    per = std::max({int64_t{1}, units / (int64_t{n_threads} * kChunksPerThread), floor_units});
    per = std::min(per, (units + n_threads - 1) / n_threads);
  }
  return {n, std::max<int64_t>(per, 1) * align};
}

// The counter of one phase's chunks, alone on its cache line (claims of one phase do not
// contend with another's line). Zeroed before the pool job that uses it
// (CpuBackend::forward_batch).
struct alignas(64) ChunkCounter {
  std::atomic<int64_t> next{0};
};

// Calls fn(c) for every chunk c in [0, n_chunks) that this thread claims. Relaxed: the
// atomic increment alone makes every chunk claimed once; the rows computed are published
// by the barrier after the phase.
template <class Fn>
void for_each_claimed(ChunkCounter& counter, int64_t n_chunks, Fn&& fn) {
  for (int64_t c = counter.next.fetch_add(1, std::memory_order_relaxed); c < n_chunks;
       c = counter.next.fetch_add(1, std::memory_order_relaxed)) {
    fn(c);
  }
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
