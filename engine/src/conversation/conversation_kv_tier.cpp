// Conversation::park and Conversation::resume: the session's state set aside for the RAM
// tier (kvchat/kv_ram_tier.h) together with the token checkpoints that map the
// conversation's texts onto the ids it holds.
#include "kvchat/conversation.h"

#include <algorithm>
#include <any>
#include "session/parked_kv.h"

namespace kvchat {

namespace {

template <typename Checkpoint>
struct ParkedTexts {
  std::vector<Checkpoint> checkpoints;
  Checkpoint last_reply;
};

}  // namespace

ParkedKvPtr Conversation::park() const {
  ParkedKvPtr parked = session_->park();
  if (parked) parked->owner_state = ParkedTexts<Checkpoint>{checkpoints_, last_reply_};
  return parked;
}

Status Conversation::resume(ParkedKvPtr parked) {
  if (!parked) return Error{"nothing was parked"};
  ParkedTexts<Checkpoint> texts;
  if (const auto* kept = std::any_cast<ParkedTexts<Checkpoint>>(&parked->owner_state)) {
    texts = *kept;
  }
  if (auto st = session_->resume(std::move(parked)); !st) return st;
  checkpoints_ = std::move(texts.checkpoints);
  last_reply_ = std::move(texts.last_reply);
  return {};
}

namespace {

// Parks what `conversation` holds under `key` (nothing for an empty key or an empty session).
bool park_into(KvRamTier& tier, const Conversation& conversation, const std::string& key,
               KvTierKind kind) {
  if (key.empty()) return false;
  return tier.put(key, kind, conversation.park());
}

// Resumes `enter` (when there is one) into `conversation`; out says how it went.
void resume_into(Conversation& conversation, ParkedKvPtr enter, KvSwitch& out) {
  if (!enter) return;
  if (auto st = conversation.resume(std::move(enter)); st) {
    out.from_ram = true;
  } else {
    out.note = st.message();
  }
}

}  // namespace

KvSwitch switch_conversation_kv(KvRamTier& tier, Conversation& conversation,
                                const std::string& leave_key, std::string_view enter_prefix) {
  KvSwitch out;
  // Taken before the other is parked: the budget is never spent on the entry that leaves.
  ParkedKvPtr enter = tier.take_recent(enter_prefix);
  out.parked = park_into(tier, conversation, leave_key, KvTierKind::Conversation);
  resume_into(conversation, std::move(enter), out);
  if (!out.from_ram) {
    conversation.forget_texts();
    conversation.session().truncate(0);
  }
  tier.enforce();
  out.held_tokens = conversation.session().n_past();
  return out;
}

KvSwitch switch_branch_kv(KvRamTier& tier, Conversation& conversation, const std::string& leave_key,
                          std::string_view enter_prefix, std::span<const TokenId> target) {
  KvSwitch out;
  Session& session = conversation.session();
  const std::vector<TokenId>& held = session.tokens();
  const auto shared = static_cast<int32_t>(
      std::mismatch(held.begin(), held.end(), target.begin(), target.end()).first - held.begin());
  ParkedKvPtr enter = tier.take_best(enter_prefix, target, shared);
  out.parked = park_into(tier, conversation, leave_key, KvTierKind::Branch);
  resume_into(conversation, std::move(enter), out);
  if (!out.from_ram && shared < session.n_past()) session.truncate(shared);
  tier.enforce();
  out.held_tokens = session.n_past();
  return out;
}

bool park_branch_before_fork(KvRamTier& tier, Conversation& conversation,
                             const std::string& leave_key, std::span<const TokenId> target) {
  const std::vector<TokenId>& held = conversation.session().tokens();
  const auto shared = static_cast<size_t>(
      std::mismatch(held.begin(), held.end(), target.begin(), target.end()).first - held.begin());
  if (shared >= held.size()) return false;  // target goes on from all that is held
  const bool parked = park_into(tier, conversation, leave_key, KvTierKind::Branch);
  tier.enforce();
  return parked;
}

}  // namespace kvchat
