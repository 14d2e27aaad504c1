// The snapshot directory's disk budget: total bytes, least recently used first,
// eviction down to the budget that never removes the snapshot in use; loading a
// snapshot counts as a use.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "kvchat/model.h"
#include "kvchat/session.h"
#include "kvchat/snapshot_store.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

namespace fs = std::filesystem;

// A file of `bytes` bytes last modified `age_s` seconds before a fixed time.
void make_file(const std::string& path, uint64_t bytes, int64_t age_s) {
  std::ofstream(path, std::ios::binary) << std::string(bytes, 'x');
  const timespec t[2] = {{1700000000 - age_s, 0}, {1700000000 - age_s, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), t, 0), 0);
}

std::vector<std::string> names(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(fs::path(p).filename().string());
  return out;
}

TEST(SnapshotStore, UsageCountsSnapshotsOnlyOldestFirst) {
  test::TempDir dir;
  make_file(dir.file("c.kvsnap"), 300, 10);
  make_file(dir.file("a.kvsnap"), 100, 30);
  make_file(dir.file("b.kvsnap"), 200, 20);
  make_file(dir.file("a.kvsnap.tmp"), 5000, 99);  // a save in progress: not a snapshot
  make_file(dir.file("notes.txt"), 7000, 99);
  fs::create_directory(dir.file("d.kvsnap"));
  auto u = snapshot_disk_usage(dir.path());
  ASSERT_TRUE(u) << u.message();
  EXPECT_EQ(u->total_bytes, 600u);
  ASSERT_EQ(u->files.size(), 3u);
  EXPECT_EQ(fs::path(u->files[0].path).filename(), "a.kvsnap");
  EXPECT_EQ(fs::path(u->files[2].path).filename(), "c.kvsnap");
  EXPECT_EQ(u->files[1].bytes, 200u);

  auto missing = snapshot_disk_usage(dir.file("none"));
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->total_bytes, 0u);
}

TEST(SnapshotStore, EvictsLeastRecentlyUsedDownToTheBudgetSparingTheOneInUse) {
  test::TempDir dir;
  make_file(dir.file("a.kvsnap"), 100, 50);  // oldest, but in use
  make_file(dir.file("b.kvsnap"), 200, 40);
  make_file(dir.file("c.kvsnap"), 300, 30);
  make_file(dir.file("d.kvsnap"), 400, 20);
  make_file(dir.file("e.kvsnap"), 500, 10);
  const std::vector<std::string> keep = {dir.file("a.kvsnap")};
  auto e = evict_snapshots(dir.path(), 1000, keep);
  ASSERT_TRUE(e) << e.message();
  EXPECT_EQ(e->bytes_before, 1500u);
  EXPECT_EQ(e->bytes_after, 1000u);  // b and c go: 1500 - 200 - 300
  EXPECT_EQ(names(e->evicted), (std::vector<std::string>{"b.kvsnap", "c.kvsnap"}));
  EXPECT_TRUE(fs::exists(dir.file("a.kvsnap")));
  EXPECT_FALSE(fs::exists(dir.file("b.kvsnap")));
  EXPECT_TRUE(fs::exists(dir.file("d.kvsnap")));

  // Within budget: nothing happens. No budget (0): nothing happens.
  auto none = evict_snapshots(dir.path(), 1000, keep);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->evicted.empty());
  EXPECT_TRUE(evict_snapshots(dir.path(), 0, keep)->evicted.empty());

  // The one in use alone over the budget stays; everything else goes.
  auto tight = evict_snapshots(dir.path(), 50, keep);
  ASSERT_TRUE(tight);
  EXPECT_EQ(names(tight->evicted), (std::vector<std::string>{"d.kvsnap", "e.kvsnap"}));
  EXPECT_EQ(tight->bytes_after, 100u);
  EXPECT_TRUE(fs::exists(dir.file("a.kvsnap")));
}

TEST(SnapshotStore, LoadingASnapshotMakesItTheMostRecentlyUsed) {
  auto model = Model::load(test::shared_path("models/kjv-demo-f16.gguf"));
  ASSERT_TRUE(model) << model.message();
  test::TempDir dir;
  SessionOptions o;
  o.n_threads = 2;
  o.n_ctx = 64;
  auto s = Session::create(model.value(), o);
  ASSERT_TRUE(s);
  ASSERT_TRUE((*s)->eval(model.value()->tokenizer().encode("In the beginning", true)));
  ASSERT_TRUE((*s)->save_snapshot(dir.file("old.kvsnap")));
  const timespec t[2] = {{1600000000, 0}, {1600000000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, dir.file("old.kvsnap").c_str(), t, 0), 0);
  make_file(dir.file("newer.kvsnap"), 10, 0);  // 1700000000
  ASSERT_EQ(fs::path(snapshot_disk_usage(dir.path())->files[0].path).filename(), "old.kvsnap");

  auto r = Session::create(model.value(), o);
  ASSERT_TRUE(r);
  ASSERT_TRUE((*r)->load_snapshot(dir.file("old.kvsnap")));
  auto u = snapshot_disk_usage(dir.path());
  ASSERT_TRUE(u);
  EXPECT_EQ(fs::path(u->files[0].path).filename(), "newer.kvsnap");
  auto e = evict_snapshots(dir.path(), 1, {});
  ASSERT_TRUE(e);
  EXPECT_EQ(names(e->evicted), (std::vector<std::string>{"newer.kvsnap", "old.kvsnap"}));
}

}  // namespace
}  // namespace kvchat
