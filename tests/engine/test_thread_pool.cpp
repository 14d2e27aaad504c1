// ThreadPool: every index covered exactly once, phases separated by barrier(), many tiny
// jobs back to back (the spinning fast path) and jobs after idle gaps (the sleeping path),
// at 1, 2, 3 and 8 threads (more threads than cores included).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "util/cpu_topology.h"
#include "util/thread_pool.h"

namespace kvchat {
namespace {

class ThreadPoolTest : public ::testing::TestWithParam<int> {};

TEST_P(ThreadPoolTest, ParallelForCoversEveryIndexOnceInContiguousRanges) {
  const int T = GetParam();
  ThreadPool pool(T);
  ASSERT_EQ(pool.size(), T);
  for (int64_t n : {0, 1, 2, 3, 7, 8, 9, 100, 1001}) {
    std::vector<std::atomic<int>> hits(n);
    std::vector<std::atomic<int>> calls_by_thread(T);
    pool.parallel_for(n, [&](int64_t begin, int64_t end, int thread) {
      ASSERT_GE(thread, 0);
      ASSERT_LT(thread, T);
      EXPECT_LT(begin, end);
      // thread t owns [n*t/T, n*(t+1)/T); a single item runs on the caller
      EXPECT_EQ(begin, n == 1 ? 0 : n * thread / T);
      EXPECT_EQ(end, n == 1 ? 1 : n * (thread + 1) / T);
      if (n == 1) {
        EXPECT_EQ(thread, 0);
      }
      calls_by_thread[thread].fetch_add(1);
      for (int64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
    });
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "n=" << n << " i=" << i;
    for (int t = 0; t < T; ++t) EXPECT_LE(calls_by_thread[t].load(), 1) << "n=" << n;
  }
}

TEST_P(ThreadPoolTest, ManyTinyJobsCountExactly) {
  const int T = GetParam();
  ThreadPool pool(T);
  const int jobs = T <= 2 ? 100000 : 20000;
  std::atomic<int64_t> sum{0};
  std::atomic<int64_t> calls{0};
  int64_t expected = 0;
  for (int j = 0; j < jobs; ++j) {
    const int64_t n = 1 + j % 5;  // 1..5 items: some threads get none
    pool.parallel_for(n, [&](int64_t begin, int64_t end, int) {
      calls.fetch_add(1, std::memory_order_relaxed);
      for (int64_t i = begin; i < end; ++i) sum.fetch_add(i + 1, std::memory_order_relaxed);
    });
    expected += n * (n + 1) / 2;
    // parallel_for returned: every chunk's effect is visible now, not later.
    ASSERT_EQ(sum.load(std::memory_order_relaxed), expected) << "job " << j;
  }
  int64_t expected_calls = 0;
  for (int j = 0; j < jobs; ++j) expected_calls += std::min<int64_t>(1 + j % 5, T);
  EXPECT_EQ(calls.load(), expected_calls);
}

TEST_P(ThreadPoolTest, RunCallsEveryThreadOnce) {
  const int T = GetParam();
  ThreadPool pool(T);
  for (int rep = 0; rep < 1000; ++rep) {
    std::vector<int> seen(T, 0);  // plain ints: each thread writes its own slot
    pool.run([&](int thread, int n_threads) {
      ASSERT_EQ(n_threads, T);
      seen[thread] += 1;
    });
    for (int t = 0; t < T; ++t) ASSERT_EQ(seen[t], 1) << "rep " << rep << " thread " << t;
  }
}

// Phase p: each thread writes its own slot of row p (plain memory), then barrier(); then
// every thread reads the whole row p: all slots must hold what phase p wrote.
TEST_P(ThreadPoolTest, BarrierMakesEveryPhaseWritesVisible) {
  const int T = GetParam();
  ThreadPool pool(T);
  constexpr int kPhases = 200;
  for (int rep = 0; rep < 50; ++rep) {
    std::vector<std::vector<int64_t>> rows(kPhases, std::vector<int64_t>(T, -1));
    std::vector<int> errors(T, 0);
    pool.run([&](int thread, int n_threads) {
      for (int p = 0; p < kPhases; ++p) {
        rows[p][thread] = int64_t{p} * 1000 + thread + rep;
        pool.barrier();
        for (int t = 0; t < n_threads; ++t) {
          if (rows[p][t] != int64_t{p} * 1000 + t + rep) ++errors[thread];
        }
      }
    });
    for (int t = 0; t < T; ++t) ASSERT_EQ(errors[t], 0) << "rep " << rep << " thread " << t;
  }
}

// A barrier orders a shared counter: after barrier k, exactly k * T increments happened
// before it; no thread can have incremented for phase k + 1 before all read phase k
// (a second barrier separates reading from the next increments).
TEST_P(ThreadPoolTest, BarrierOrdersPhasesOfASharedCounter) {
  const int T = GetParam();
  ThreadPool pool(T);
  std::atomic<int64_t> counter{0};
  std::vector<int> errors(T, 0);
  constexpr int kPhases = 500;
  pool.run([&](int thread, int n_threads) {
    for (int p = 1; p <= kPhases; ++p) {
      counter.fetch_add(1, std::memory_order_relaxed);
      pool.barrier();
      if (counter.load(std::memory_order_relaxed) != int64_t{p} * n_threads) ++errors[thread];
      pool.barrier();
    }
  });
  for (int t = 0; t < T; ++t) EXPECT_EQ(errors[t], 0) << "thread " << t;
  EXPECT_EQ(counter.load(), int64_t{kPhases} * T);
}

// Idle gaps longer than the spin: workers and the caller go to sleep and must be woken.
TEST_P(ThreadPoolTest, JobsAfterIdleGapsAndSlowThreads) {
  const int T = GetParam();
  ThreadPool pool(T);
  std::atomic<int> total{0};
  for (int j = 0; j < 20; ++j) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // workers fall asleep
    pool.run([&](int thread, int) {
      // Alternately the caller and the last worker is slow, so the others sleep in the
      // barrier / the end of the job.
      if (thread == (j % 2 == 0 ? 0 : T - 1))
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      total.fetch_add(1);
      pool.barrier();
      total.fetch_add(1);
    });
    ASSERT_EQ(total.load(), 2 * T * (j + 1));
  }
}

TEST_P(ThreadPoolTest, ConstructedAndDestroyedRepeatedly) {
  const int T = GetParam();
  for (int rep = 0; rep < 200; ++rep) {
    ThreadPool pool(T);
    if (rep % 2 == 0) {
      // A job at once, before the workers may even have started.
      std::atomic<int> n{0};
      pool.run([&](int, int) { n.fetch_add(1); });
      ASSERT_EQ(n.load(), T);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, ThreadPoolTest, ::testing::Values(1, 2, 3, 8));

TEST(CpuTopology, PhysicalCoresBetweenOneAndHardwareThreads) {
  const int cores = physical_core_count();
  EXPECT_GE(cores, 1);
  const unsigned hw = std::thread::hardware_concurrency();
  if (hw > 0) {
    EXPECT_LE(cores, static_cast<int>(hw));
  }
  ThreadPool pool(0);
  EXPECT_EQ(pool.size(), cores);
}

}  // namespace
}  // namespace kvchat
