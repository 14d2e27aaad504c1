// The app's one RAM tier (kvchat/kv_ram_tier.h): the KV of the chat's conversations and
// branches not shown, of the summary jobs between runs and of the local server's idle
// sessions, within one budget (MemoryState sets it from the data directory's settings,
// else the smaller of 25% of available RAM and 8 GiB). Keys: "c<conversation id>/..." for the chat,
// "summary/..." for summary jobs, "server/..." for the server's sessions.
#pragma once

#include <QList>
#include <QString>
#include <memory>

#include "kvchat/kv_ram_tier.h"

namespace kvchat::app {

// The tier (made on first use with the default budget). Thread-safe.
std::shared_ptr<KvRamTier> app_ram_tier();

// "c<id>/": the key prefix of a conversation's entries.
QString ram_tier_prefix(qint64 conversation);
// The conversations with an entry in the tier (from their keys).
QList<qint64> ram_tier_conversations(const KvRamTier& tier);

}  // namespace kvchat::app
