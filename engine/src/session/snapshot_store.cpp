#include "kvchat/snapshot_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace kvchat {

namespace fs = std::filesystem;

namespace {

// The same file whether named relatively, absolutely or through links.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  const bool eq = fs::equivalent(a, b, ec);
  return !ec && eq;
}

}  // namespace

Result<SnapshotDiskUsage> snapshot_disk_usage(const std::string& dir,
                                              const std::string& extension) {
  SnapshotDiskUsage usage;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return usage;
  fs::directory_iterator it(dir, ec);
  if (ec) return Error{dir + ": cannot list the snapshot directory: " + ec.message()};
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return Error{dir + ": cannot list the snapshot directory: " + ec.message()};
    const std::string name = it->path().filename().string();
    if (name.size() <= extension.size() || !name.ends_with(extension)) continue;
    struct stat st {};
    if (::stat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      continue;  // gone meanwhile, or not a file
    SnapshotFile f;
    f.path = it->path().string();
    f.bytes = static_cast<uint64_t>(st.st_size);
    f.last_used_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    usage.total_bytes += f.bytes;
    usage.files.push_back(std::move(f));
  }
  std::sort(
      usage.files.begin(), usage.files.end(), [](const SnapshotFile& a, const SnapshotFile& b) {
        return a.last_used_ns != b.last_used_ns ? a.last_used_ns < b.last_used_ns : a.path < b.path;
      });
  return usage;
}

Result<SnapshotEviction> evict_snapshots(const std::string& dir, uint64_t budget_bytes,
                                         std::span<const std::string> keep,
                                         const std::string& extension) {
  auto usage = snapshot_disk_usage(dir, extension);
  if (!usage) return usage.error();
  SnapshotEviction e;
  e.bytes_before = e.bytes_after = usage->total_bytes;
  if (budget_bytes == 0) return e;
  for (const SnapshotFile& f : usage->files) {
    if (e.bytes_after <= budget_bytes) break;
    if (std::any_of(keep.begin(), keep.end(),
                    [&](const std::string& k) { return same_file(k, f.path); }))
      continue;
    if (::unlink(f.path.c_str()) != 0 && errno != ENOENT) {
      return Error{f.path + ": cannot remove the snapshot: " + std::strerror(errno)};
    }
    e.evicted.push_back(f.path);
    e.bytes_after -= f.bytes;
  }
  return e;
}

}  // namespace kvchat
