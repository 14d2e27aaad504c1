// The snapshot directory as a cache with a disk budget: how many bytes the KV snapshot
// journals take, and eviction of the least recently used ones (by modification time:
// every save writes the file and every load touches it) until they fit the budget.
// Evicting a snapshot never loses a conversation: it only means that reopening it
// re-evaluates its prompt.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kvchat/result.h"

namespace kvchat {

inline constexpr const char* kSnapshotExtension = ".kvsnap";

struct SnapshotFile {
  std::string path;
  uint64_t bytes = 0;
  int64_t last_used_ns = 0;  // modification time, ns since the epoch
};

struct SnapshotDiskUsage {
  uint64_t total_bytes = 0;
  std::vector<SnapshotFile> files;  // least recently used first
};

// The regular files ending in `extension` directly in `dir` (a missing directory holds
// none).
Result<SnapshotDiskUsage> snapshot_disk_usage(const std::string& dir,
                                              const std::string& extension = kSnapshotExtension);

struct SnapshotEviction {
  std::vector<std::string> evicted;  // least recently used first
  uint64_t bytes_before = 0;
  uint64_t bytes_after = 0;
};

// Removes the least recently used snapshots in `dir` until the rest take at most
// budget_bytes (0: no budget, nothing is removed). Files in `keep` (the snapshot being
// written or used) are never removed, even when they alone exceed the budget.
Result<SnapshotEviction> evict_snapshots(const std::string& dir, uint64_t budget_bytes,
                                         std::span<const std::string> keep,
                                         const std::string& extension = kSnapshotExtension);

}  // namespace kvchat
