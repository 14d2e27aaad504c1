// Session: making room when the context is full (stop, shift, drop-oldest, sink-window), and
// changing the KV element type of a live conversation.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/cpu_ops.h"
#include "kv/kv_cache.h"
#include "kv/kv_codec.h"
#include "kvchat/session.h"
#include "model/model_hparams.h"
#include "numeric/convert.h"

namespace kvchat {

int32_t Session::kept_prefix(int32_t n_keep) const {
  return options_.context_policy == ContextPolicy::SinkWindow
             ? std::max(n_keep, std::max(options_.sink_tokens, 0))
             : n_keep;
}

Status Session::make_room(int32_t n) {
  if (n_past() + n <= n_ctx_) return {};
  const int32_t kept = std::min(kept_prefix(n_keep_), n_past());
  if (n > n_ctx_ - kept) {
    return Error{"the context is full: " + std::to_string(n) +
                 " new tokens cannot fit in a context of " + std::to_string(n_ctx_) + " tokens (" +
                 std::to_string(kept) + " kept)"};
  }
  switch (options_.context_policy) {
    case ContextPolicy::Stop: {
      const std::string msg = "the context is full: " + std::to_string(n_past()) + " of " +
                              std::to_string(n_ctx_) + " tokens used, " + std::to_string(n) +
                              " more do not fit (policy stop)";
      notify({SessionEvent::Kind::ContextFull, msg, n_past(), n_past(), 0});
      return Error{msg};
    }
    case ContextPolicy::Shift: return shift_context(n);
    case ContextPolicy::DropOldest: return drop_oldest_turns(n);
    case ContextPolicy::SinkWindow: return slide_sink_window(n);
  }
  return Error{"unknown context policy"};
}

Status Session::check_fits(std::span<const TokenId> sequence, int32_t keep) const {
  const auto total = static_cast<int64_t>(sequence.size());
  if (total <= n_ctx_) return {};
  if (options_.context_policy == ContextPolicy::Stop) {
    return Error{"the context is full: the conversation is " + std::to_string(total) +
                 " tokens and the context holds " + std::to_string(n_ctx_) + " (policy stop)"};
  }
  const int32_t kept = std::min(kept_prefix(n_keep_), keep);
  const int64_t n_new = total - keep;
  if (n_new > n_ctx_ - kept) {
    return Error{"the context is full: " + std::to_string(n_new) +
                 " new tokens cannot fit in a context of " + std::to_string(n_ctx_) + " tokens (" +
                 std::to_string(kept) + " kept), whatever the policy drops"};
  }
  return {};
}

// " (no re-evaluation)", or how many tokens are evaluated again and why.
static std::string reevaluation_clause(int32_t reevaluated) {
  return reevaluated > 0 ? " (" + std::to_string(reevaluated) +
                               " tokens are re-evaluated: windowed-layer rows they need were freed)"
                         : std::string(" (no re-evaluation)");
}

// llama.cpp-style context shift: keep the first n_keep tokens, discard the oldest half
// of the rest (or more if n needs it).
Status Session::shift_context(int32_t n) {
  const int32_t before = n_past();
  const int32_t movable = before - n_keep_;
  const int32_t discard = std::min(movable, std::max(movable / 2, before + n - n_ctx_));
  auto reevaluated = discard_middle(n_keep_, discard);
  if (!reevaluated) return reevaluated.error();
  notify({SessionEvent::Kind::ContextShifted,
          "the context was full: discarded " + std::to_string(discard) +
              " tokens after the first " + std::to_string(n_keep_) +
              " and re-rotated the keys of the " + std::to_string(before - n_keep_ - discard) +
              " that remain" + reevaluation_clause(*reevaluated),
          before, n_past(), 0});
  return {};
}

// StreamingLLM's attention sinks: the first tokens draw a large share of every query's
// attention whatever they say, so they stay; of the rest only the fewest whole KV blocks
// of tokens right after them that make room for n are dropped, so the context stays as
// full of recent text as it can.
Status Session::slide_sink_window(int32_t n) {
  const int32_t before = n_past();
  const int32_t keep = std::min(kept_prefix(n_keep_), before);
  const int32_t block = std::max(kv_->config().block_tokens, 1);
  const int32_t need = before + n - n_ctx_;
  const int32_t discard = std::min(before - keep, (need + block - 1) / block * block);
  auto reevaluated = discard_middle(keep, discard);
  if (!reevaluated) return reevaluated.error();
  notify({SessionEvent::Kind::ContextShifted,
          "the context was full (sink-window): kept the first " + std::to_string(keep) +
              " tokens and the last " + std::to_string(before - keep - discard) + ", dropped the " +
              std::to_string(discard) + " between and re-rotated the kept keys" +
              reevaluation_clause(*reevaluated),
          before, n_past(), 0});
  return {};
}

// Moves the remaining K/V down and rotates each moved key back by the distance it moved,
// so RoPE positions stay consistent.
Result<int32_t> Session::discard_middle(int32_t keep, int32_t discard) {
  const int32_t before = n_past();
  const ModelHParams& hp = model_->hparams();
  const KvType type = kv_->key_type();
  const int32_t kv_dim = kv_->config().kv_dim();
  const uint64_t row_bytes = kv_->row_bytes(0);
  std::vector<float> row(kv_dim);
  std::vector<float> cos_sin;  // (n_rot / 2, 2): the rotation by -discard, as cpu::rope's
  // Keys: decode, rotate back by `discard` positions with the layer's own table
  // (magnitude 1: the stored key already carries YaRN's mscale; the table is the one the
  // backend took for this n_ctx, LongRoPE's short or long), encode.
  auto rekey = [&](int32_t l, uint8_t* rows, int32_t n_rows) {
    const RopeTable& table = hp.rope(l, n_ctx_);
    cos_sin.resize(table.inv_freq.size() * 2);
    for (size_t i = 0; i < table.inv_freq.size(); ++i) {
      const double theta = -static_cast<double>(discard) * table.inv_freq[i];
      cos_sin[2 * i] = static_cast<float>(std::cos(theta));
      cos_sin[2 * i + 1] = static_cast<float>(std::sin(theta));
    }
    for (int32_t k = 0; k < n_rows; ++k) {
      uint8_t* encoded = rows + k * row_bytes;
      decode_kv_heads(type, encoded, row.data(), hp.n_kv_heads, hp.head_dim);
      cpu::rope_cached(row.data(), hp.n_kv_heads, hp.head_dim, table.style, table.n_rot,
                       cos_sin.data());
      encode_kv_heads(type, row.data(), hp.n_kv_heads, hp.head_dim, encoded);
    }
  };
  if (kv_->size() < before) {
    // Tokens wait for re-evaluation: keep only what is cached below the kept prefix.
    kv_->truncate(std::min(kv_->size(), keep));
  } else {
    // Windowed layers move only the rows they still hold.
    if (auto s = kv_->discard(keep, discard, rekey); !s) {
      notify({SessionEvent::Kind::KvOutOfMemory, s.message(), before, before, 0});
      return Error{s.message()};
    }
    // When the kept prefix's windowed rows were freed and too few rows moved to fill a
    // window, the cache keeps what it can and the next eval re-evaluates the rest.
    kv_->truncate(kv_->size());
  }
  tokens_.erase(tokens_.begin() + keep, tokens_.begin() + keep + discard);
  std::vector<int32_t> turns;
  for (int32_t t : turn_starts_) {
    if (t < keep)
      turns.push_back(t);
    else if (t - discard >= keep)
      turns.push_back(t - discard);
  }
  turn_starts_ = std::move(turns);
  warned_ = false;
  return n_past() - kv_->size();
}

// Drops whole turns after the kept prefix, oldest first, until n tokens fit with a
// quarter of the context free, then re-evaluates the turns that remain (their
// positions changed). The turn in progress is never dropped.
Status Session::drop_oldest_turns(int32_t n) {
  const int32_t before = n_past();
  const int32_t current = turn_starts_.empty() ? before : turn_starts_.back();
  std::vector<int32_t> droppable;  // turn starts after the kept prefix, before the current turn
  for (int32_t t : turn_starts_) {
    if (t >= n_keep_ && t < current) droppable.push_back(t);
  }
  droppable.push_back(current);  // the end of the last droppable turn
  const int32_t want_free = n + n_ctx_ / 4;
  // The first cut that leaves a quarter of the context free, else the largest one.
  int32_t cut = -1;  // drop [n_keep, cut)
  for (size_t k = 1; k < droppable.size(); ++k) {
    cut = droppable[k];
    if (before - (cut - n_keep_) + want_free <= n_ctx_) break;
  }
  if (cut < 0 || before - (cut - n_keep_) + n > n_ctx_) {
    const std::string msg =
        "the context is full and no whole turn can be dropped to make room for " +
        std::to_string(n) + " tokens (" + std::to_string(before) + " of " + std::to_string(n_ctx_) +
        " used; the current turn is " + std::to_string(before - current) + " tokens)";
    notify({SessionEvent::Kind::ContextFull, msg, before, before, 0});
    return Error{msg};
  }
  std::vector<TokenId> rest(tokens_.begin() + cut, tokens_.end());
  std::vector<int32_t> turns;
  for (int32_t t : turn_starts_) {
    if (t < n_keep_)
      turns.push_back(t);
    else if (t >= cut)
      turns.push_back(t - (cut - n_keep_));
  }
  const int32_t keep = n_keep_;
  const std::vector<float> logits = last_logits_;
  tokens_.resize(keep);
  kv_->truncate(keep);
  Status st = rest.empty() ? Status{} : forward(rest, nullptr);
  if (!st) return st;
  if (rest.empty()) last_logits_ = logits;
  turn_starts_ = std::move(turns);
  warned_ = false;
  // Only what happened: no "(the first 0 kept)", no "re-evaluated the 0 that follow".
  std::string said =
      "the context was full: dropped " + std::to_string(cut - keep) + " tokens of the oldest turns";
  if (keep > 0) said += " (the first " + std::to_string(keep) + " kept)";
  if (!rest.empty())
    said += " and re-evaluated the " + std::to_string(rest.size()) + " that follow";
  notify({SessionEvent::Kind::TurnsDropped, said, before, n_past(),
          static_cast<int32_t>(rest.size())});
  return {};
}

Status Session::set_kv_type(std::string_view name) {
  auto types = parse_kv_types(name);
  if (!types) {
    return Error{"unknown KV type '" + std::string(name) + "' (" + kv_type_choices() + ")"};
  }
  if (types->first == kv_->key_type() && types->second == kv_->value_type()) return {};
  KvCacheConfig c = kv_->config();
  const KvCacheConfig old = c;
  const std::string old_name = kv_->type_name();
  c.type = types->first;
  c.type_v = types->second;
  auto fresh = KvCache::create(c, kv_store_for(c));
  if (!fresh) return fresh.error();
  const int32_t n = kv_->size();  // less than n_past() while tokens wait for re-evaluation
  if (auto s = fresh->reserve(n); !s) {
    notify({SessionEvent::Kind::KvOutOfMemory, s.message(), n_past(), n_past(), 0});
    return s;
  }
  // Per layer: the rows of every token, decoded from the old type, encoded in the new
  // (freed windowed rows are zeros, and freed again below).
  std::vector<uint8_t> old_rows(static_cast<size_t>(n) *
                                std::max(kv_->row_bytes(0), kv_->row_bytes(1)));
  std::vector<uint8_t> new_rows(static_cast<size_t>(n) *
                                std::max(fresh->row_bytes(0), fresh->row_bytes(1)));
  for (int32_t l = 0; l < c.n_layers && n > 0; ++l) {
    for (int32_t which : {0, 1}) {
      if (auto s = kv_->export_layer(l, which, old_rows.data()); !s) return s;
      convert_kv_rows(old.type_of(which), old_rows.data(), c.type_of(which), new_rows.data(), n,
                      c.n_kv_heads, c.head_dim);
      if (auto s = fresh->import_rows(l, which, 0, n, new_rows.data()); !s) return s;
    }
  }
  fresh->pin_prefix(kept_prefix(n_keep_));
  fresh->set_size(n, kv_->window_head(), kv_->window_lo());
  fresh->set_share_scope(kv_->share_scope());
  *kv_ = std::move(fresh.value());
  published_blocks_ = 0;  // offered to the new store at the next step
  options_.kv_type = kv_->type_name();
  notify({SessionEvent::Kind::KvTypeChanged,
          "re-encoded the K/V of " + std::to_string(n_past()) + " tokens from " + old_name +
              " to " + kv_->type_name() + " (" + std::to_string(kv_->used_bytes()) + " bytes now)",
          n_past(), n_past(), 0});
  return {};
}

}  // namespace kvchat
