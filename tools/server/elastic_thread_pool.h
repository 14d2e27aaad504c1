// ElasticThreadPool: the HTTP server's task queue. Each accepted connection is one task that
// holds its thread until the connection closes, so a thread is started whenever a task
// arrives and none is idle, up to max_threads (then tasks wait in order). httplib's own
// pool starts a fixed number of threads up front; this one costs nothing until a crowd of
// connections (slow clients among them) needs the threads, and keeps them afterwards.
#pragma once

#include <httplib.h>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kvchat::server {

class ElasticThreadPool final : public httplib::TaskQueue {
 public:
  explicit ElasticThreadPool(size_t max_threads) : max_threads_(max_threads) {}
  ~ElasticThreadPool() override { shutdown(); }
  ElasticThreadPool(const ElasticThreadPool&) = delete;
  ElasticThreadPool& operator=(const ElasticThreadPool&) = delete;

  void enqueue(std::function<void()> fn) override;
  // Runs what is queued, then joins every thread (httplib calls it when listening ends).
  void shutdown() override;
  size_t threads() const;  // started so far

 private:
  void work();

  const size_t max_threads_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;  // threads waiting for a job
  bool shutdown_ = false;
};

}  // namespace kvchat::server
