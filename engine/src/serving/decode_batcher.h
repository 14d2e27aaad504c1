// DecodeBatcher: the decode steps of the requests generating at once, computed together
// (Session::decode_together: the CPU backend reads every weight once for all of them;
// attention per session over its own blocks). Each request's thread samples its token,
// then calls decode(); the first caller of a round gathers the others' tokens (until every
// joined generation has submitted one, or `gather` has passed since the round began), runs
// the batch and wakes them with their results. Generations join() after their prefill and
// leave() when they end, so sessions enter and leave the batch between steps.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "kvchat/result.h"
#include "kvchat/session.h"

namespace kvchat::serving {

struct DecodeBatchStats {
  uint64_t batches = 0;  // forward passes run
  uint64_t steps = 0;    // tokens decoded by them (steps / batches: the mean batch)
  int32_t max_batch = 0;
};

class DecodeBatcher {
 public:
  explicit DecodeBatcher(std::chrono::microseconds gather = std::chrono::milliseconds(2))
      : gather_(gather) {}

  void join();   // a generation will submit decode steps
  void leave();  // it submits no more
  // Appends `token` to `session` and evaluates it, in one forward pass with the tokens
  // other generations submit meanwhile. A batch that fails is retried one session at a
  // time, so that one session's error (its KV budget, say) is its own.
  Status decode(Session& session, TokenId token);

  DecodeBatchStats stats() const;

 private:
  struct Step {
    Session* session;
    TokenId token;
    bool done = false;
    Status status;
  };
  void run_batch(std::vector<Step*>& batch);  // without the lock

  const std::chrono::microseconds gather_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Step*> pending_;  // submitted, not yet taken by a round
  int32_t joined_ = 0;
  bool round_running_ = false;
  DecodeBatchStats stats_;
};

// join() on construction, leave() on destruction.
class DecodeBatchMembership {
 public:
  explicit DecodeBatchMembership(DecodeBatcher& batcher) : batcher_(batcher) { batcher_.join(); }
  ~DecodeBatchMembership() { batcher_.leave(); }
  DecodeBatchMembership(const DecodeBatchMembership&) = delete;
  DecodeBatchMembership& operator=(const DecodeBatchMembership&) = delete;

 private:
  DecodeBatcher& batcher_;
};

}  // namespace kvchat::serving
