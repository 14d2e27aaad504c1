// ThreadPool: a fixed set of workers that run one job at a time together with the
// calling thread. A job is either parallel_for (an index range split into one contiguous
// range per thread) or run (one body per thread, phases separated by barrier()).
//
// Synchronisation is lock-free on the fast path: a start is one atomic increment that
// the workers see while they spin, the end of a job and every barrier one atomic
// counter. A thread that waits spins for a few microseconds (pause, then yield) and then
// sleeps on the word with std::atomic::wait; a waker calls notify only when a sleeper has
// announced itself, so back-to-back jobs cost no system call.
//
// One job at a time: run / parallel_for are called by one thread (the owner), never from
// inside a job body (not re-entrant).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace kvchat {

// A 32-bit word that threads wait on until it changes, spinning first, then sleeping.
// How long a waiter polls before it sleeps (per thread and kind of wait), adapted like a
// congestion window: doubled after a wait that spinning ended, halved after one that
// ended in sleep, within [min_ns, max_ns].
struct SpinBudget {
  int64_t ns, min_ns, max_ns;
};

class WaitWord {
 public:
  uint32_t load() const { return value_.load(std::memory_order_acquire); }
  // Returns once the word differs from `old` (acquire), spinning, then sleeping.
  void wait_while_equal(uint32_t old, SpinBudget& budget);
  // Increments the word (release) and wakes the threads asleep on it.
  void bump_and_wake();

 private:
  alignas(64) std::atomic<uint32_t> value_{0};
  std::atomic<int32_t> sleepers_{0};  // threads inside (or about to enter) value_.wait
};

class ThreadPool {
 public:
  // n_threads: total threads including the caller; <= 0: physical_core_count().
  explicit ThreadPool(int n_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return n_threads_; }

  // Runs fn(begin, end, thread_index) over [0, n) split into one contiguous range per
  // thread (thread t gets [n*t/T, n*(t+1)/T), skipped when empty; n == 1 runs on the
  // caller as thread 0); returns when all are done.
  void parallel_for(int64_t n, const std::function<void(int64_t, int64_t, int)>& fn);

  // Runs fn(thread_index, n_threads) once on every thread (the caller is thread 0);
  // returns when every call has returned. Inside fn, barrier() separates phases.
  void run(const std::function<void(int, int)>& fn);

  // Inside a run() body only, called by every thread the same number of times: returns
  // once all threads have reached it; what each wrote before is visible to all after.
  void barrier();

 private:
  void worker_loop(int index);
  // Every thread arrives once; the last one advances phase_. Returns whether it was last.
  bool arrive();

  int n_threads_;
  std::vector<std::thread> workers_;
  const std::function<void(int, int)>* job_ = nullptr;  // written before start_ is bumped
  bool stop_ = false;                                   // likewise
  WaitWord start_;                                      // bumped once per job (and to stop)
  WaitWord phase_;  // bumped when every thread has arrived (barriers and job ends)
  alignas(64) std::atomic<int32_t> arrived_{0};
};

}  // namespace kvchat
