#include "memory_bandwidth.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "backend/cpu/dot.h"
#include "util/cpu_topology.h"

namespace kvchat::cli {

namespace {

template <class Fn>
double timed_parallel(int n_threads, Fn fn) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 1; t < n_threads; ++t) threads.emplace_back(fn, t);
  fn(0);
  for (auto& th : threads) th.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Bandwidth measure_bandwidth(int n_threads, uint64_t buffer_bytes, int repeats) {
  if (n_threads <= 0) n_threads = physical_core_count();
  const size_t n = buffer_bytes / sizeof(double);
  std::unique_ptr<double[]> a(new double[n]), b(new double[n]);
  // Touch every page first (in parallel, so pages land near their threads).
  timed_parallel(n_threads, [&](int t) {
    const size_t lo = n * t / n_threads, hi = n * (t + 1) / n_threads;
    for (size_t i = lo; i < hi; ++i) a[i] = static_cast<double>(i), b[i] = 0;
  });
  Bandwidth bw;
  bw.buffer_bytes = n * sizeof(double);
  std::vector<uint64_t> sums(n_threads);
  for (int r = 0; r < repeats; ++r) {
    double copy_s = timed_parallel(n_threads, [&](int t) {
      const size_t lo = n * t / n_threads, hi = n * (t + 1) / n_threads;
      std::memcpy(b.get() + lo, a.get() + lo, (hi - lo) * sizeof(double));
    });
    bw.copy_bytes_per_second = std::max(bw.copy_bytes_per_second, 2.0 * bw.buffer_bytes / copy_s);
    double read_s = timed_parallel(n_threads, [&](int t) {
      const size_t lo = n * t / n_threads, hi = n * (t + 1) / n_threads;
      // As decode reads (8 streams, software prefetch, the kernels' vectors; dot.h).
      const uint64_t acc = cpu::streaming_read(reinterpret_cast<const uint8_t*>(b.get() + lo),
                                               (hi - lo) * sizeof(double));
      sums[t] = acc;
    });
    bw.read_bytes_per_second = std::max(bw.read_bytes_per_second, bw.buffer_bytes / read_s);
  }
  volatile uint64_t sink = sums[0];
  (void)sink;
  return bw;
}

double measure_fma_peak(int n_threads, int repeats) {
  if (n_threads <= 0) n_threads = physical_core_count();
  constexpr int64_t kIterations = 20'000'000;  // 240M FMAs: ~40 ms per thread at 3 GHz
  double best = 0;
  for (int r = 0; r < repeats; ++r) {
    std::vector<double> flops(n_threads);
    const double s =
        timed_parallel(n_threads, [&](int t) { flops[t] = cpu::fma_peak_loop(kIterations); });
    double total = 0;
    for (double f : flops) total += f;
    best = std::max(best, total / s);
  }
  return best;
}

}  // namespace kvchat::cli
