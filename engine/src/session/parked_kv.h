// ParkedKv: what Session::park() keeps of a session, and what Session::resume() gives back
// (kvchat/session.h). The cache shares its blocks with the session it came from.
#pragma once

#include <any>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "kv/kv_cache.h"
#include "kvchat/session.h"

namespace kvchat {

struct ParkedKv {
  std::weak_ptr<const Model> model;  // the session's (never kept alive by what is parked)
  std::unique_ptr<KvCache> kv;       // KvCache::fork() of the session's cache
  std::vector<TokenId> tokens;       // (n_past) the session's tokens
  std::vector<float> last_logits;    // (n_vocab) the logits after the last token
  std::vector<int32_t> turn_starts;
  int32_t n_keep = 0;
  int32_t published_blocks = 0;
  std::optional<Session::SnapshotJournal> journal;
  // What the owner keeps beside the KV (Conversation: its token checkpoints).
  std::any owner_state;
};

}  // namespace kvchat
