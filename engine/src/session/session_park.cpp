// Session::park and Session::resume: a session's state set aside with its cache's blocks
// shared (the RAM tier's entries, kvchat/kv_ram_tier.h), and taken back.
#include "kvchat/session.h"
#include "kv/kv_cache.h"
#include "session/parked_kv.h"

namespace kvchat {

void ParkedKvDeleter::operator()(ParkedKv* parked) const { delete parked; }

ParkedKvPtr Session::park() const {
  if (options_.no_kv_cache || tokens_.empty()) return nullptr;
  ParkedKvPtr parked(new ParkedKv);
  parked->model = model_;
  parked->kv = std::make_unique<KvCache>(kv_->fork());
  parked->tokens = tokens_;
  parked->last_logits = last_logits_;
  parked->turn_starts = turn_starts_;
  parked->n_keep = n_keep_;
  parked->published_blocks = published_blocks_;
  parked->journal = journal_;
  return parked;
}

namespace {

// Why a cache of `parked` cannot stand for one of `live`; empty when it can.
std::string config_mismatch(const KvCacheConfig& parked, const KvCacheConfig& live) {
  if (parked.type != live.type || parked.value_type() != live.value_type()) {
    return "its KV type is " + kv_types_name(parked.type, parked.value_type()) + ", not " +
           kv_types_name(live.type, live.value_type());
  }
  if (parked.max_tokens != live.max_tokens) {
    return "its context is " + std::to_string(parked.max_tokens) + " tokens, not " +
           std::to_string(live.max_tokens);
  }
  if (parked.block_tokens != live.block_tokens || parked.n_layers != live.n_layers ||
      parked.kv_dim() != live.kv_dim() || parked.window != live.window ||
      parked.windowed != live.windowed) {
    return "its KV layout differs";
  }
  if (parked.memory != live.memory || parked.memory_layers != live.memory_layers) {
    return "its KV lives in another memory";
  }
  return {};
}

}  // namespace

Status Session::resume(ParkedKvPtr parked) {
  if (!parked || !parked->kv) return Error{"nothing was parked"};
  if (parked->model.lock().get() != model_.get()) {
    return Error{"the parked KV belongs to another model"};
  }
  if (const std::string why = config_mismatch(parked->kv->config(), kv_->config()); !why.empty()) {
    return Error{"the parked KV does not fit this session: " + why};
  }
  if (options_.kv_share_prefix && parked->kv->store() != kv_->store()) {
    return Error{"the parked KV comes from another prefix-sharing store"};
  }
  kv_ = std::move(parked->kv);
  tokens_ = std::move(parked->tokens);
  last_logits_ = std::move(parked->last_logits);
  turn_starts_ = std::move(parked->turn_starts);
  n_keep_ = parked->n_keep;
  published_blocks_ = parked->published_blocks;
  journal_ = std::move(parked->journal);
  warned_ = n_past() >= options_.context_warn_fraction * n_ctx_;
  return {};
}

}  // namespace kvchat
