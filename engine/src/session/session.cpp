#include "kvchat/session.h"

#include <algorithm>

#include "backend/backend.h"
#include "kv/kv_cache.h"

namespace kvchat {

Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::create(std::shared_ptr<const Model> model,
                                                 const SessionOptions& options) {
  if (!model) return Error{"no model"};
  const ModelInfo& info = model->info();
  auto kind = parse_backend_kind(options.backend);
  if (!kind) return kind.error();
  if (options.kv_block_tokens < 1 || options.kv_block_tokens > 4096) {
    return Error{"kv block size must be between 1 and 4096 tokens"};
  }
  std::unique_ptr<Session> s(new Session());
  s->n_ctx_ = options.n_ctx > 0 ? options.n_ctx : info.n_ctx_train;
  BackendOptions bo;
  bo.n_threads = options.n_threads;
  bo.n_ctx = s->n_ctx_;
  auto backend = make_backend(*kind, *model, bo);
  if (!backend) return backend.error();
  s->backend_ = std::move(backend.value());
  KvCacheShape shape;
  shape.n_layers = info.n_layers;
  shape.n_kv_heads = info.n_kv_heads;
  shape.head_dim = info.head_dim;
  shape.max_tokens = s->n_ctx_;
  shape.block_tokens = options.kv_block_tokens;
  s->kv_ = std::make_unique<KvCache>(shape);
  s->model_ = std::move(model);
  return s;
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
  const int32_t pos0 = n_past();
  const int32_t n = static_cast<int32_t>(tokens.size());
  if (auto s = kv_->reserve(pos0 + n); !s) return s;
  std::vector<float> logits(static_cast<size_t>(all_logits ? n : 1) * n_vocab);
  if (auto s = backend_->forward(tokens, pos0, *kv_, logits.data(), all_logits != nullptr); !s) {
    kv_->truncate(pos0);
    return s;
  }
  kv_->set_size(pos0 + n);
  tokens_.insert(tokens_.end(), tokens.begin(), tokens.end());
  last_logits_.assign(logits.end() - n_vocab, logits.end());
  if (all_logits) *all_logits = std::move(logits);
  return {};
}

void Session::truncate(int32_t n) {
  n = std::clamp(n, 0, n_past());
  tokens_.resize(n);
  kv_->truncate(n);
  last_logits_.clear();  // the logits after token n-1 are no longer known
}

std::string_view Session::backend_name() const { return backend_->name(); }

MemoryReport Session::memory_report() const {
  const ModelInfo& info = model_->info();
  MemoryReport r;
  r.backend = std::string(backend_->name());
  r.weights_bytes_by_type = info.weight_bytes_by_type;
  r.weights_bytes = info.weight_bytes();
  r.kv_type = "F32";
  r.kv_tokens = kv_->size();
  r.kv_capacity_tokens = kv_->capacity();
  r.kv_max_tokens = kv_->shape().max_tokens;
  r.kv_block_tokens = kv_->shape().block_tokens;
  r.kv_blocks = kv_->blocks_in_use();
  r.kv_bytes_per_token = kv_->bytes_per_token();
  r.kv_used_bytes = kv_->used_bytes();
  r.kv_allocated_bytes = kv_->allocated_bytes();
  r.kv_peak_allocated_bytes = kv_->peak_allocated_bytes();
  r.scratch_bytes = backend_->scratch_bytes() + last_logits_.capacity() * sizeof(float);
  return r;
}

}  // namespace kvchat
