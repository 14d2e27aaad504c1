// A read-only memory mapping of a whole file (POSIX mmap), and the way to make it
// independent of the file: read_in() replaces the mapped pages by anonymous memory
// holding the same bytes (at the same addresses), after which the file may be cut short,
// rewritten or replaced on disk without touching what is mapped. Before read_in(), a
// file cut short under the mapping makes a read of a page past its new end raise SIGBUS,
// as any mmap of a file does.
#pragma once

#include <sys/types.h>

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

  // Whether the file at the path still is the one opened, unchanged: empty when it is,
  // else what happened ("cut short from N to M bytes", "replaced by another file",
  // "deleted", "modified"), for a message.
  std::string change_on_disk() const;

 private:
  MappedFile(std::string path, int fd, const uint8_t* data, size_t size, dev_t dev, ino_t ino,
             int64_t mtime_ns)
      : path_(std::move(path)),
        fd_(fd),
        data_(data),
        size_(size),
        dev_(dev),
        ino_(ino),
        mtime_ns_(mtime_ns) {}
  std::string path_;
  int fd_;  // kept open: read_in() reads this inode even after a rename over the path
  const uint8_t* data_;
  size_t size_;
  size_t read_in_done_ = 0;  // bytes of the mapping already anonymous; guarded by mutex_
  mutable std::mutex mutex_;
  dev_t dev_;
  ino_t ino_;
  int64_t mtime_ns_;
};

}  // namespace kvchat::gguf
