// A read-only memory mapping of a whole file (POSIX mmap), and the way to make it
// independent of the file: read_in() replaces the mapped pages by anonymous memory
// holding the same bytes (at the same addresses), after which the file may be cut short,
// rewritten or replaced on disk without touching what is mapped. Before read_in(), a
// file cut short under the mapping would make a read of a page past its new end raise
// SIGBUS, as any mmap of a file does; the mapping is guarded (gguf/mapping_guard.h), so
// such a read sees zeros instead and damage() says so from then on.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "kvchat/result.h"

namespace kvchat::gguf {

class MappedFile {
 public:
  static Result<std::unique_ptr<MappedFile>> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }

  // Reads the file (with pread, never through the mapping) into anonymous memory that
  // replaces the mapping chunk by chunk, each chunk atomically (mremap): a reader on
  // another thread sees the same bytes throughout. progress(fraction) is called after
  // each chunk; returning false stops with an error containing "cancelled" (the rest
  // stays mapped from the file, correct and usable). A file found shorter than when it
  // was opened gives an error naming both sizes. Idempotent once complete.
  Status read_in(const std::function<bool(double)>& progress);
  bool read_in_complete() const;

  // Whether the mapped bytes still are the file's bytes as opened: empty while they are,
  // else why not, for a message ("cut short while in use (N bytes when opened, M now)",
  // "modified in place while in use"). Cheap (an atomic, and an fstat while any page still
  // comes from the file); whoever computed something from bytes() checks it afterwards and
  // discards the result when it is not empty. Sticky: once damaged, always damaged.
  std::string damage() const;

  // Gives back the memory of the whole pages inside [p, p + n) (a part of bytes()): they are
  // mapped from the file again, not resident until read (whoever no longer reads them, e.g.
  // a backend that keeps its own repacked copy of a tensor). Their bytes stay the file's;
  // from then on damage() watches the file again, as before read_in(). Best effort: on
  // failure the pages just stay as they were.
  void release_pages(const uint8_t* p, size_t n);

  // The n bytes at p (a part of bytes()) into dst with pread from the file, not through
  // the mapping: no page faults on the mapping (4 KiB each) and nothing left resident in
  // it. False when [p, p + n) is not inside the mapping or the file no longer gives those
  // bytes (the caller copies from bytes() then, which damage() watches).
  bool copy_out(const uint8_t* p, size_t n, uint8_t* dst) const;

  // Whether the file at the path still is the one opened, unchanged: empty when it is,
  // else what happened ("cut short from N to M bytes", "replaced by another file",
  // "deleted", "modified"), for a message.
  std::string change_on_disk() const;

 private:
  MappedFile(std::string path, int fd, const uint8_t* data, size_t size, dev_t dev, ino_t ino,
             int64_t mtime_ns, int guard_slot)
      : path_(std::move(path)),
        fd_(fd),
        data_(data),
        size_(size),
        dev_(dev),
        ino_(ino),
        mtime_ns_(mtime_ns),
        guard_slot_(guard_slot) {}
  std::string path_;
  int fd_;  // kept open: read_in() reads this inode even after a rename over the path
  const uint8_t* data_;
  size_t size_;
  // Bytes of the mapping already anonymous; written under mutex_, read without it.
  std::atomic<size_t> read_in_done_{0};
  std::atomic<bool> released_{false};  // some pages mapped from the file again (release_pages)
  mutable std::mutex mutex_;           // held by read_in() throughout
  dev_t dev_;
  ino_t ino_;
  int64_t mtime_ns_;
  int guard_slot_;                   // mapping_guard's slot, -1 when unguarded
  mutable std::mutex damage_mutex_;  // not mutex_: damage() must not wait for read_in()
  mutable std::string damage_;       // the first damage found, kept
};

}  // namespace kvchat::gguf
