// The engine's file-writing layer: write / fsync / rename with messages that name the
// file and the reason, an atomic whole-file writer (temp file, fsync, rename, directory
// fsync), and a test seam that makes any of these fail with a chosen errno (ENOSPC, EIO)
// the way a full or failing disk does. Snapshot and journal writers go through it so that
// their handling of a full disk is tested without filling one. Also the one way the engine
// opens a user's file for reading: open_regular_file() never blocks on a FIFO and refuses
// what is not a regular file (a FIFO, a directory, /dev/zero) before anything reads it.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "kvchat/result.h"

namespace kvchat::file_io {

enum class FileOp { Open, Write, Sync, Rename };

// Test seam: called before each operation with the file it concerns; a non-zero return
// is the errno that operation fails with (nothing is done). Empty: no faults (the
// default). Process-wide; set it only in tests, while no other thread writes files.
using FaultHook = std::function<int(FileOp op, const std::string& path)>;
void set_fault_hook(FaultHook hook);

// open(2) with O_CLOEXEC; -1 with *error set ("cannot create <path>: <reason>").
int open_file(const std::string& path, int flags, int mode, std::string* error);
// Writes all of `bytes` (retrying short writes and EINTR).
Status write_all(int fd, std::span<const uint8_t> bytes, const std::string& path);
Status sync(int fd, const std::string& path);
Status rename_file(const std::string& from, const std::string& to);
// Best effort: makes a rename in `path`'s directory durable (some file systems refuse).
void sync_parent_directory(const std::string& path);

// A regular file opened for reading: its descriptor (the caller closes it) and its fstat.
struct OpenedFile {
  int fd = -1;
  struct stat st {};
};

// Opens `path` read-only without blocking: O_NONBLOCK makes open() return at once on a
// FIFO (which would otherwise wait for a writer), fstat on the descriptor (not the path, so
// nothing can be swapped in between) refuses anything that is not a regular file, and
// O_NONBLOCK is then cleared. The error is the reason without the path, for the caller to
// prefix: "cannot open: <reason>", "not a regular file (a FIFO)" (a directory, a character
// device, a block device, a socket).
Result<OpenedFile> open_regular_file(const std::string& path);
// "a FIFO", "a directory", "a character device", ... for a message; "" for a regular file.
std::string file_type_name(mode_t mode);

// Writes a file atomically: bytes go to path + ".tmp"; commit() fsyncs it, renames it over
// `path` and fsyncs the directory. Until commit() succeeds the file at `path` is exactly
// as it was; a failure (or destruction without commit) removes the temp file.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  Status open();
  Status write(std::span<const uint8_t> bytes);
  Status commit();
  const std::string& temp_path() const { return tmp_; }

 private:
  void abandon();
  std::string path_, tmp_;
  int fd_ = -1;
};

// AtomicFile in one call.
Status write_file_atomically(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace kvchat::file_io
