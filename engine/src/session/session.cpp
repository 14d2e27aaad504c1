#include "kvchat/session.h"

#include <algorithm>

#include "backend/backend.h"
#include "backend/offload_plan.h"
#include "kv/kv_cache.h"
#include "kv/kv_prefix_store.h"
#include "session/backend_self_check.h"
#include "util/process_memory.h"

namespace kvchat {

std::string_view context_policy_name(ContextPolicy p) {
  switch (p) {
    case ContextPolicy::Stop: return "stop";
    case ContextPolicy::DropOldest: return "drop-oldest";
    case ContextPolicy::Shift: return "shift";
    case ContextPolicy::SinkWindow: return "sink-window";
  }
  return "unknown";
}

Result<ContextPolicy> parse_context_policy(std::string_view name) {
  for (ContextPolicy p : {ContextPolicy::Stop, ContextPolicy::DropOldest, ContextPolicy::Shift,
                          ContextPolicy::SinkWindow}) {
    if (name == context_policy_name(p)) return p;
  }
  return Error{"unknown context policy '" + std::string(name) +
               "' (stop, drop-oldest, shift, sink-window)"};
}

std::string_view session_event_name(SessionEvent::Kind kind) {
  switch (kind) {
    case SessionEvent::Kind::ContextWarning: return "context-warning";
    case SessionEvent::Kind::ContextFull: return "context-full";
    case SessionEvent::Kind::ContextShifted: return "context-shifted";
    case SessionEvent::Kind::TurnsDropped: return "turns-dropped";
    case SessionEvent::Kind::KvTypeChanged: return "kv-type-changed";
    case SessionEvent::Kind::KvOutOfMemory: return "kv-out-of-memory";
  }
  return "unknown";
}

Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::create(std::shared_ptr<const Model> model,
                                                 const SessionOptions& options) {
  if (!model) return Error{"no model"};
  const ModelInfo& info = model->info();
  auto kind = parse_backend_kind(options.backend);
  if (!kind) return kind.error();
  auto kv_types = parse_kv_types(options.kv_type);
  if (!kv_types) {
    return Error{"unknown KV type '" + options.kv_type + "' (" + kv_type_choices() + ")"};
  }
  std::unique_ptr<Session> s(new Session());
  s->options_ = options;
  s->n_ctx_ = options.n_ctx > 0 ? options.n_ctx : info.n_ctx_train;

  // The backend first: it decides where the KV blocks live. "auto" takes CUDA when a
  // device is there and says why it did not otherwise.
  BackendOptions bo;
  bo.n_threads = options.n_threads;
  bo.n_ctx = s->n_ctx_;
  bo.gpu_layers = options.gpu_layers;
  bo.kv_type = kv_types_name(kv_types->first, kv_types->second);
  const bool asked_auto = options.backend == "auto";
  auto backend = make_backend(*kind, *model, bo);
  if (!backend && asked_auto) {
    s->backend_note_ = "using the CPU backend: " + backend.message();
    backend = make_backend(BackendKind::Cpu, *model, bo);
  }
  if (!backend) return backend.error();
  // CUDA is trusted with this model only once its logits on a few positions of it match
  // the CPU backend's. A failed check puts the session on the CPU, asked for "auto" or
  // "cuda" alike; a check that could not run keeps "auto" on the CPU and lets an
  // explicit "cuda" run, unverified, saying so.
  if (s->backend_note_.empty() && *kind == BackendKind::Cuda && options.backend_self_check) {
    const BackendSelfCheck check =
        run_backend_self_check(*kind, **backend, *model, s->n_ctx_, options.n_threads);
    const bool skipped = check.outcome == BackendSelfCheck::Outcome::Skipped;
    if (check.outcome == BackendSelfCheck::Outcome::Failed || (skipped && asked_auto)) {
      s->backend_note_ = std::string("using the CPU backend") +
                         (asked_auto ? "" : " instead of cuda") + ": " + check.detail;
      backend.value().reset();  // the device's memory back before the CPU backend is made
      backend = make_backend(BackendKind::Cpu, *model, bo);
      if (!backend) return backend.error();
    } else if (skipped) {
      s->backend_note_ = "using the CUDA backend unverified: " + check.detail;
    }
  }
  s->backend_ = std::move(backend.value());
  if (auto w = model->check_weights(); !w) return Error{w.message()};  // a backend copies weights

  KvCacheConfig kc = KvCacheConfig::for_model(info, s->n_ctx_);
  kc.block_tokens = options.kv_block_tokens;
  kc.chunk_blocks = options.kv_chunk_blocks;
  kc.budget_bytes = options.kv_budget_bytes;
  kc.type = kv_types->first;
  kc.type_v = kv_types->second;
  kc.memory = s->backend_->kv_memory();
  kc.memory_layers = s->backend_->kv_memory_layers();  // partial offload: the rest on the host
  kc.poison_freed = options.kv_poison_freed;
  kc.window_slack = options.kv_window_slack;
  s->model_ = std::move(model);
  auto kv = KvCache::create(kc, s->kv_store_for(kc));
  if (!kv) return kv.error();
  s->kv_ = std::make_unique<KvCache>(std::move(kv.value()));
  s->kv_->pin_prefix(s->kept_prefix(0));  // sink-window: the sinks' windowed rows
  return s;
}

std::shared_ptr<KvPrefixStore> Session::kv_store_for(const KvCacheConfig& config) const {
  if (!options_.kv_share_prefix || options_.no_kv_cache) return nullptr;
  // Sessions share K/V only when their backends compute the same values for the same tokens.
  const std::string tag = std::string(backend_->name()) +
                          "/threads=" + std::to_string(backend_->threads()) + "/" +
                          std::to_string(backend_->decode_threads());
  return shared_kv_prefix_store(*model_, config, tag);
}

void Session::notify(SessionEvent event) {
  if (on_event_) on_event_(event);
}

void Session::check_warning() {
  const bool over = n_past() >= options_.context_warn_fraction * n_ctx_;
  if (over && !warned_) {
    notify({SessionEvent::Kind::ContextWarning,
            "the context is " + std::to_string(n_past() * 100 / n_ctx_) + "% full (" +
                std::to_string(n_past()) + " of " + std::to_string(n_ctx_) + " tokens); policy " +
                std::string(context_policy_name(options_.context_policy)) +
                " applies when it is full",
            n_past(), n_past(), 0});
  }
  warned_ = over;
}

int32_t Session::kv_tokens() const { return kv_->size(); }

void Session::set_keep(int32_t n_keep) {
  n_keep_ = n_keep;
  // Windowed layers keep the prefix's rows (drop-oldest, shift) and the attention sinks'.
  kv_->pin_prefix(kept_prefix(n_keep_));
}

Status Session::forward(std::span<const TokenId> tokens, std::vector<float>* all_logits) {
  const int32_t n_vocab = model_->info().n_vocab;
  // Tokens whose K/V a truncation into freed windowed rows dropped go first.
  const int32_t pos0 = kv_->size();
  std::vector<TokenId> with_pending;
  if (pos0 < n_past()) {
    with_pending.assign(tokens_.begin() + pos0, tokens_.end());
    with_pending.insert(with_pending.end(), tokens.begin(), tokens.end());
  }
  std::span<const TokenId> run =
      with_pending.empty() ? tokens : std::span<const TokenId>(with_pending);
  int32_t n = static_cast<int32_t>(run.size());
  const int32_t n_new = static_cast<int32_t>(tokens.size());
  // Shared prefix blocks: whole blocks another session holds for the same tokens are
  // adopted instead of evaluated (the last token is always evaluated: its logits).
  int32_t adopted = 0;
  const int32_t bt = kv_->config().block_tokens;
  if (options_.kv_share_prefix && !all_logits && pos0 % bt == 0 &&
      (pos0 + n - 1) / bt > pos0 / bt) {
    std::vector<TokenId> sequence(tokens_.begin(), tokens_.begin() + pos0);
    sequence.insert(sequence.end(), run.begin(), run.end());
    adopted = kv_->adopt_prefix(sequence, pos0 + n - 1);
  }
  const int32_t pos = pos0 + adopted;  // where the evaluated tokens start
  if (adopted > 0) {
    run = run.subspan(static_cast<size_t>(adopted));
    n -= adopted;
  }
  if (auto s = kv_->reserve(pos + n); !s) {
    kv_->truncate(pos0);
    notify({SessionEvent::Kind::KvOutOfMemory, s.message(), n_past(), n_past(), 0});
    return s;
  }
  // Written into a reused buffer that replaces last_logits_ only on success, so a
  // decode step allocates nothing and a failure leaves the session unchanged.
  std::vector<float>& out = all_logits ? *all_logits : logits_buffer_;
  out.resize(static_cast<size_t>(all_logits ? n : 1) * n_vocab);
  if (auto s = backend_->forward(run, pos, *kv_, out.data(), all_logits != nullptr); !s) {
    kv_->truncate(pos0);
    return s;
  }
  if (auto s = model_->check_weights(); !s) {  // weights read from a file cut short: zeros
    kv_->truncate(pos0);
    return s;
  }
  if (all_logits && n > n_new)
    out.erase(out.begin(), out.end() - static_cast<int64_t>(n_new) * n_vocab);
  tokens_evaluated_ += n;
  prefix_hit_tokens_ += adopted;
  kv_->set_size(pos + n);
  tokens_.insert(tokens_.end(), tokens.begin(), tokens.end());
  if (options_.kv_share_prefix && kv_->size() / bt != published_blocks_) {
    kv_->publish_prefix(tokens_);  // this session's whole blocks, for the others
    published_blocks_ = kv_->size() / bt;
  }
  if (all_logits) {
    last_logits_.assign(out.end() - n_vocab, out.end());
  } else {
    std::swap(last_logits_, logits_buffer_);
  }
  return {};
}

Status Session::eval(std::span<const TokenId> tokens, std::vector<float>* all_logits) {
  if (tokens.empty()) return Error{"nothing to evaluate"};
  const int32_t n_vocab = model_->info().n_vocab;
  for (TokenId t : tokens) {
    if (t < 0 || t >= n_vocab) {
      return Error{"token id " + std::to_string(t) + " is outside the vocabulary [0, " +
                   std::to_string(n_vocab) + ")"};
    }
  }
  if (auto s = make_room(static_cast<int32_t>(tokens.size())); !s) return s;
  Status st;
  if (options_.no_kv_cache) {
    // Forget every cached K/V and run the whole sequence again: what a cache saves.
    std::vector<TokenId> all = tokens_;
    all.insert(all.end(), tokens.begin(), tokens.end());
    const std::vector<TokenId> before = tokens_;
    tokens_.clear();
    kv_->truncate(0);
    std::vector<float> logits_all;
    st = forward(all, all_logits ? &logits_all : nullptr);
    if (!st) {
      tokens_ = before;  // the KV of `before` is gone; the next eval recomputes it anyway
    } else if (all_logits) {
      all_logits->assign(logits_all.end() - tokens.size() * n_vocab, logits_all.end());
    }
  } else {
    st = forward(tokens, all_logits);
  }
  if (st) check_warning();
  return st;
}

Result<int32_t> Session::eval_sequence(std::span<const TokenId> sequence, bool starts_turn) {
  if (sequence.empty()) return Error{"nothing to evaluate"};
  const size_t common =
      std::mismatch(tokens_.begin(), tokens_.end(), sequence.begin(), sequence.end()).first -
      tokens_.begin();
  if (common == sequence.size() && common == tokens_.size() && !last_logits_.empty()) return 0;
  // Keep at least one token to evaluate, so that the next-token logits are fresh.
  const int32_t keep = static_cast<int32_t>(std::min(common, sequence.size() - 1));
  if (auto fits = check_fits(sequence, keep); !fits) return Error{fits.message()};
  truncate(keep);
  if (starts_turn) mark_turn();
  const uint64_t before = tokens_evaluated_;
  if (auto s = eval(sequence.subspan(keep)); !s) return Error{s.message()};
  return static_cast<int32_t>(tokens_evaluated_ - before);
}

void Session::truncate(int32_t n) {
  n = std::clamp(n, 0, n_past());
  if (n == n_past()) return;
  tokens_.resize(n);
  kv_->truncate(n);
  last_logits_.clear();  // the logits after token n-1 are no longer known
  while (!turn_starts_.empty() && turn_starts_.back() >= n) turn_starts_.pop_back();
  n_keep_ = std::min(n_keep_, n);
  warned_ = n_past() >= options_.context_warn_fraction * n_ctx_;
}

void Session::set_kv_share_scope(uint64_t scope) {
  if (scope == kv_->share_scope()) return;
  truncate(0);
  published_blocks_ = 0;
  kv_->set_share_scope(scope);
}

uint64_t Session::kv_share_scope() const { return kv_->share_scope(); }

void Session::mark_turn() {
  if (turn_starts_.empty() || turn_starts_.back() < n_past()) turn_starts_.push_back(n_past());
}

std::string_view Session::backend_name() const { return backend_->name(); }
int32_t Session::n_threads() const { return backend_->threads(); }
int32_t Session::decode_threads() const { return backend_->decode_threads(); }

MemoryReport Session::memory_report() const {
  const ModelInfo& info = model_->info();
  MemoryReport r;
  r.backend = std::string(backend_->name());
  r.weights_bytes_by_type = info.weight_bytes_by_type;
  r.weights_bytes = info.weight_bytes();
  r.kv_type = kv_->type_name();
  r.n_layers = info.n_layers;
  r.kv_tokens = kv_->size();
  r.kv_capacity_tokens = kv_->capacity();
  r.kv_max_tokens = kv_->config().max_tokens;
  r.kv_block_tokens = kv_->config().block_tokens;
  r.kv_blocks = kv_->blocks_in_use();
  r.kv_free_blocks = kv_->free_blocks();
  r.kv_bytes_per_token = kv_->bytes_per_token();
  r.kv_used_bytes = kv_->used_bytes();
  r.kv_allocated_bytes = kv_->allocated_bytes();
  r.kv_pool_bytes = kv_->pool_bytes();
  r.kv_budget_bytes = kv_->config().budget_bytes;
  r.kv_peak_used_bytes = kv_->peak_used_bytes();
  r.kv_peak_allocated_bytes = kv_->peak_allocated_bytes();
  if (kv_->has_windowed_layers()) {
    r.kv_window = kv_->config().window;
    r.kv_window_slack = kv_->config().window_slack;
    r.kv_windowed_layers = kv_->windowed_layers();
    r.kv_windowed_allocated_bytes = kv_->windowed_allocated_bytes();
    r.kv_window_freed_bytes = kv_->window_freed_bytes();
  }
  if (options_.kv_share_prefix) {
    r.kv_shared_bytes = kv_->shared_bytes();
    r.kv_prefix_hit_tokens = prefix_hit_tokens_;
    r.kv_store_shared_bytes = kv_->store()->shared_bytes();
  }
  r.scratch_bytes = backend_->scratch_bytes() + last_logits_.capacity() * sizeof(float);
  const ProcessMemory pm = recent_process_memory();
  r.process_resident_bytes = pm.resident_bytes;
  r.system_total_bytes = pm.total_bytes;
  r.system_available_bytes = pm.available_bytes;
  backend_->report_device_memory(r);
  // The host side of a split: the weights of layers [gpu_layers, n_layers) and the logits,
  // and the KV blocks in host memory. Without a GPU the host holds everything.
  const int32_t g = std::clamp(r.gpu_layers, 0, r.n_layers);
  r.host_weights_bytes =
      g > 0 ? split_weights(offload_shape(model_->hparams(), model_->weights()), g).host
            : r.weights_bytes;
  r.host_kv_bytes = kv_->allocated_bytes_on(true);
  return r;
}

}  // namespace kvchat
