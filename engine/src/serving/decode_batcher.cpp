#include "serving/decode_batcher.h"

#include <algorithm>

namespace kvchat::serving {

void DecodeBatcher::join() {
  std::lock_guard lock(mu_);
  ++joined_;
}

void DecodeBatcher::leave() {
  std::lock_guard lock(mu_);
  --joined_;
  cv_.notify_all();  // a gathering round may now have every remaining generation's token
}

void DecodeBatcher::run_batch(std::vector<Step*>& batch) {
  std::vector<Session*> sessions;
  std::vector<TokenId> tokens;
  for (const Step* s : batch) {
    sessions.push_back(s->session);
    tokens.push_back(s->token);
  }
  const Status together = Session::decode_together(sessions, tokens);
  if (together || batch.size() == 1) {
    for (Step* s : batch) s->status = together;
    return;
  }
  for (Step* s : batch) {  // nothing was changed: each alone, with its own verdict
    Session* one[1] = {s->session};
    const TokenId token[1] = {s->token};
    s->status = Session::decode_together(one, token);
  }
}

Status DecodeBatcher::decode(Session& session, TokenId token) {
  Step step{&session, token, false, Status::Ok()};
  std::unique_lock lock(mu_);
  pending_.push_back(&step);
  cv_.notify_all();  // a gathering round may be waiting for this token
  while (!step.done) {
    if (round_running_) {
      cv_.wait(lock);
      continue;
    }
    round_running_ = true;  // this thread runs the round
    cv_.wait_for(lock, gather_, [&] { return static_cast<int32_t>(pending_.size()) >= joined_; });
    std::vector<Step*> batch;
    batch.swap(pending_);
    lock.unlock();
    run_batch(batch);
    lock.lock();
    for (Step* s : batch) s->done = true;
    ++stats_.batches;
    stats_.steps += batch.size();
    stats_.max_batch = std::max(stats_.max_batch, static_cast<int32_t>(batch.size()));
    round_running_ = false;
    cv_.notify_all();
  }
  return step.status;
}

DecodeBatchStats DecodeBatcher::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

}  // namespace kvchat::serving
