#include "util/thread_pool.h"

#include <algorithm>
#include <chrono>

#include "util/cpu_topology.h"

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__)
#include <immintrin.h>
#define KVCHAT_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define KVCHAT_CPU_RELAX() asm volatile("yield" ::: "memory")
#else
#define KVCHAT_CPU_RELAX() ((void)0)
#endif

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace kvchat {

namespace {

// Spin budgets. A wake-up from sleep costs tens of microseconds on a VM, and a sleeping
// party at one barrier makes the next wait long too, so sleeping must stay the exception
// while every thread has its core: barrier waits (threads inside one job, phases of ~10 us
// to a few ms) spin up to 2 ms; waits for the next job (the gap between two decoded
// tokens) up to 300 us. When another process has the awaited thread's core the waits end
// in sleep, the budget halves towards its floor and waiting costs little more than
// sleeping at once. Never sched_yield: on a loaded machine it hands the core to another
// process for a whole time slice.
thread_local SpinBudget t_barrier_spin{2'000'000, 20'000, 2'000'000};
thread_local SpinBudget t_start_spin{300'000, 5'000, 300'000};
constexpr int kPausesPerCheck = 8;  // pause instructions between two polls of the clock

// Sleeps while *word == old (spurious returns allowed); wakes every sleeper on word.
// Linux: the futex system calls directly (std::atomic::wait in libstdc++ spins and
// yields first); elsewhere std::atomic::wait / notify_all.
void sleep_while_equal(std::atomic<uint32_t>& word, uint32_t old) {
#if defined(__linux__)
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, old, nullptr, nullptr,
          0);
#else
  word.wait(old, std::memory_order_acquire);
#endif
}
void wake_all(std::atomic<uint32_t>& word) {
#if defined(__linux__)
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr,
          nullptr, 0);
#else
  word.notify_all();
#endif
}

}  // namespace

void WaitWord::wait_while_equal(uint32_t old, SpinBudget& budget) {
  if (value_.load(std::memory_order_acquire) != old) return;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(budget.ns);
  do {
    for (int i = 0; i < kPausesPerCheck; ++i) {
      if (value_.load(std::memory_order_acquire) != old) {
        budget.ns = std::min(budget.max_ns, budget.ns * 2);
        return;
      }
      KVCHAT_CPU_RELAX();
    }
  } while (std::chrono::steady_clock::now() < deadline);
  budget.ns = std::max(budget.min_ns, budget.ns / 2);
  // Sleep. Announcing the sleeper before the last check, both sequentially consistent,
  // pairs with bump_and_wake's increment-then-read: either the waker sees the sleeper and
  // wakes it, or this check sees the new value. The kernel compares the word with old
  // before it sleeps, so a wake between the check and the sleep is not lost.
  sleepers_.fetch_add(1, std::memory_order_seq_cst);
  while (value_.load(std::memory_order_seq_cst) == old) sleep_while_equal(value_, old);
  sleepers_.fetch_sub(1, std::memory_order_relaxed);
}

void WaitWord::bump_and_wake() {
  value_.fetch_add(1, std::memory_order_seq_cst);
  if (sleepers_.load(std::memory_order_seq_cst) > 0) wake_all(value_);
}

ThreadPool::ThreadPool(int n_threads) {
  if (n_threads <= 0) n_threads = physical_core_count();
  n_threads_ = n_threads > 0 ? n_threads : 1;
  workers_.reserve(n_threads_ - 1);
  for (int i = 1; i < n_threads_; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  stop_ = true;  // published by the release in bump_and_wake
  start_.bump_and_wake();
  for (auto& t : workers_) t.join();
}

bool ThreadPool::arrive() {
  // acq_rel: the last arriver acquires every earlier arriver's writes (the counter's
  // release sequence) and publishes them all with its bump of phase_.
  if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 < n_threads_) return false;
  // Nobody touches arrived_ again before seeing the new phase, so this reset is ordered
  // before their next arrival.
  arrived_.store(0, std::memory_order_relaxed);
  phase_.bump_and_wake();
  return true;
}

void ThreadPool::barrier() {
  if (n_threads_ == 1) return;
  // Read the phase before arriving: it cannot advance until this thread has arrived.
  const uint32_t phase = phase_.load();
  if (!arrive()) phase_.wait_while_equal(phase, t_barrier_spin);
}

void ThreadPool::run(const std::function<void(int, int)>& fn) {
  if (n_threads_ == 1) {
    fn(0, 1);
    return;
  }
  job_ = &fn;
  start_.bump_and_wake();  // release: job_ is visible to every worker that sees the start
  fn(0, n_threads_);
  // The end of a job is a barrier that only the caller waits on (workers arrive and go).
  barrier();
  job_ = nullptr;
}

void ThreadPool::parallel_for(int64_t n, const std::function<void(int64_t, int64_t, int)>& fn) {
  if (n <= 0) return;
  if (n_threads_ == 1 || n == 1) {
    fn(0, n, 0);
    return;
  }
  run([&](int thread, int n_threads) {
    const int64_t begin = n * thread / n_threads, end = n * (thread + 1) / n_threads;
    if (begin < end) fn(begin, end, thread);
  });
}

void ThreadPool::worker_loop(int index) {
  uint32_t seen = 0;  // the value at construction: a job may start before this line runs
  for (;;) {
    start_.wait_while_equal(seen, t_start_spin);
    seen = start_.load();
    if (stop_) return;
    (*job_)(index, n_threads_);
    arrive();
  }
}

}  // namespace kvchat
