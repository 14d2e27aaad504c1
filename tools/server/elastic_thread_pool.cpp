#include "server/elastic_thread_pool.h"

namespace kvchat::server {

void ElasticThreadPool::enqueue(std::function<void()> fn) {
  {
    std::lock_guard lock(mu_);
    if (shutdown_) return;
    jobs_.push_back(std::move(fn));
    if (idle_ < jobs_.size() && threads_.size() < max_threads_) {
      threads_.emplace_back([this] { work(); });
    }
  }
  cv_.notify_one();
}

void ElasticThreadPool::shutdown() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    shutdown_ = true;
    threads.swap(threads_);
  }
  cv_.notify_all();
  for (std::thread& t : threads) t.join();
}

size_t ElasticThreadPool::threads() const {
  std::lock_guard lock(mu_);
  return threads_.size();
}

void ElasticThreadPool::work() {
  std::unique_lock lock(mu_);
  for (;;) {
    ++idle_;
    cv_.wait(lock, [this] { return !jobs_.empty() || shutdown_; });
    --idle_;
    if (jobs_.empty()) return;  // shut down and nothing left
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    lock.lock();
  }
}

}  // namespace kvchat::server
