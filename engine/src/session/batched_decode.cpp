// Session::decode_together: the next token of several sessions in one forward pass
// (Backend::forward_steps), each session's state updated as its own eval would.
#include <algorithm>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "kv/kv_cache.h"
#include "kvchat/session.h"

namespace kvchat {

Status Session::decode_together(std::span<Session* const> sessions,
                                std::span<const TokenId> tokens) {
  if (sessions.empty()) return Error{"no sessions to decode"};
  if (sessions.size() != tokens.size()) {
    return Error{std::to_string(sessions.size()) + " sessions but " +
                 std::to_string(tokens.size()) + " tokens"};
  }
  const Model* model = sessions[0] ? sessions[0]->model_.get() : nullptr;
  const int32_t n_vocab = model ? model->info().n_vocab : 0;
  for (size_t i = 0; i < sessions.size(); ++i) {
    const Session* s = sessions[i];
    const std::string which = "session " + std::to_string(i);
    if (!s) return Error{which + " is null"};
    if (s->model_.get() != model) return Error{which + " is not of the first session's model"};
    if (std::find(sessions.begin(), sessions.begin() + i, s) != sessions.begin() + i)
      return Error{which + " is listed twice"};
    if (s->options_.no_kv_cache) return Error{which + " recomputes without a KV cache"};
    if (tokens[i] < 0 || tokens[i] >= n_vocab) {
      return Error{"token id " + std::to_string(tokens[i]) + " of " + which +
                   " is outside the vocabulary [0, " + std::to_string(n_vocab) + ")"};
    }
    if (s->n_past() + 1 > s->n_ctx_) {
      return Error{which + "'s context is full (" + std::to_string(s->n_past()) + " of " +
                   std::to_string(s->n_ctx_) + " tokens): make room first"};
    }
  }

  // Each session's steps: the tokens a truncation into freed windowed rows left without
  // K/V (Session::forward), then its new token. first_step: (sessions + 1) offsets.
  std::vector<SequenceStep> steps;
  std::vector<size_t> first_step;
  for (size_t i = 0; i < sessions.size(); ++i) {
    Session& s = *sessions[i];
    first_step.push_back(steps.size());
    for (int32_t p = s.kv_->size(); p < s.n_past(); ++p)
      steps.push_back({s.tokens_[p], p, s.kv_.get()});
    steps.push_back({tokens[i], s.n_past(), s.kv_.get()});
  }
  first_step.push_back(steps.size());
  auto release = [&](size_t n) {  // the reservations of sessions [0, n) given back
    for (size_t i = 0; i < n; ++i) sessions[i]->kv_->truncate(sessions[i]->kv_->size());
  };
  for (size_t i = 0; i < sessions.size(); ++i) {
    Session& s = *sessions[i];
    if (auto st = s.kv_->reserve(s.n_past() + 1); !st) {
      s.notify({SessionEvent::Kind::KvOutOfMemory, st.message(), s.n_past(), s.n_past(), 0});
      release(i);
      return st;
    }
  }

  // One pass on the first session's backend when every session runs on a CPU backend (its
  // buffers are per chunk, its caches grow on demand: any session's KV fits); otherwise each
  // session's own backend over its own steps.
  std::vector<float> logits(steps.size() * static_cast<size_t>(n_vocab));  // (steps, n_vocab)
  const bool one_pass = std::all_of(sessions.begin(), sessions.end(), [](const Session* s) {
    return s->backend_->name() == "cpu" && !s->backend_->kv_memory();
  });
  Status st;
  if (one_pass) {
    st = sessions[0]->backend_->forward_steps(steps, n_vocab, logits.data());
  } else {
    for (size_t i = 0; i < sessions.size() && st; ++i) {
      const size_t b = first_step[i], n = first_step[i + 1] - b;
      st = sessions[i]->backend_->forward_steps(std::span(steps).subspan(b, n), n_vocab,
                                                logits.data() + b * n_vocab);
    }
  }
  if (st) st = model->check_weights();  // weights read from a file cut short: zeros
  if (!st) {
    release(sessions.size());
    return st;
  }

  for (size_t i = 0; i < sessions.size(); ++i) {
    Session& s = *sessions[i];
    const size_t last = first_step[i + 1] - 1;
    s.tokens_evaluated_ += first_step[i + 1] - first_step[i];
    s.kv_->set_size(s.n_past() + 1);
    s.tokens_.push_back(tokens[i]);
    s.last_logits_.assign(logits.begin() + static_cast<int64_t>(last * n_vocab),
                          logits.begin() + static_cast<int64_t>((last + 1) * n_vocab));
    s.check_warning();
  }
  return {};
}

}  // namespace kvchat
