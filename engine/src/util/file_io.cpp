#include "util/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>

namespace kvchat::file_io {

namespace {

std::mutex g_hook_mutex;
FaultHook g_hook;

// The errno the hook injects for this operation, 0 for none.
int injected(FileOp op, const std::string& path) {
  const std::lock_guard<std::mutex> lock(g_hook_mutex);
  return g_hook ? g_hook(op, path) : 0;
}

std::string reason(int e) { return std::strerror(e); }

}  // namespace

void set_fault_hook(FaultHook hook) {
  const std::lock_guard<std::mutex> lock(g_hook_mutex);
  g_hook = std::move(hook);
}

int open_file(const std::string& path, int flags, int mode, std::string* error) {
  if (const int e = injected(FileOp::Open, path)) {
    if (error) *error = "cannot create " + path + ": " + reason(e);
    errno = e;
    return -1;
  }
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  if (fd < 0 && error) *error = "cannot create " + path + ": " + reason(errno);
  return fd;
}

std::string file_type_name(mode_t mode) {
  if (S_ISREG(mode)) return {};
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "of an unknown type";
}

Result<OpenedFile> open_regular_file(const std::string& path) {
  // O_NOCTTY: a terminal named as a model or document never becomes our controlling one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return Error{"cannot open: " + reason(errno)};
  OpenedFile f;
  f.fd = fd;
  auto refuse = [fd](std::string why) {
    ::close(fd);
    return Error{std::move(why)};
  };
  if (::fstat(fd, &f.st) != 0) return refuse("cannot stat: " + reason(errno));
  if (!S_ISREG(f.st.st_mode))
    return refuse("not a regular file (" + file_type_name(f.st.st_mode) + ")");
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return refuse("cannot clear O_NONBLOCK: " + reason(errno));
  }
  return f;
}

Status write_all(int fd, std::span<const uint8_t> bytes, const std::string& path) {
  if (const int e = injected(FileOp::Write, path))
    return Error{"cannot write " + path + ": " + reason(e)};
  const uint8_t* p = bytes.data();
  size_t n = bytes.size();
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Error{"cannot write " + path + ": " + reason(errno)};
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return {};
}

Status sync(int fd, const std::string& path) {
  if (const int e = injected(FileOp::Sync, path))
    return Error{"cannot sync " + path + ": " + reason(e)};
  if (::fsync(fd) != 0) return Error{"cannot sync " + path + ": " + reason(errno)};
  return {};
}

Status rename_file(const std::string& from, const std::string& to) {
  int e = injected(FileOp::Rename, to);
  if (!e && ::rename(from.c_str(), to.c_str()) != 0) e = errno;
  if (e) return Error{"cannot rename " + from + " to " + to + ": " + reason(e)};
  return {};
}

void sync_parent_directory(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp") {}

AtomicFile::~AtomicFile() { abandon(); }

void AtomicFile::abandon() {
  if (fd_ < 0) return;
  ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_.c_str());
}

Status AtomicFile::open() {
  abandon();
  std::string error;
  fd_ = open_file(tmp_, O_WRONLY | O_CREAT | O_TRUNC, 0644, &error);
  if (fd_ < 0) return Error{error};
  return {};
}

Status AtomicFile::write(std::span<const uint8_t> bytes) {
  if (fd_ < 0) return Error{"cannot write " + tmp_ + ": not open"};
  Status s = write_all(fd_, bytes, tmp_);
  if (!s) abandon();
  return s;
}

Status AtomicFile::commit() {
  if (fd_ < 0) return Error{"cannot commit " + path_ + ": nothing written"};
  if (Status s = sync(fd_, tmp_); !s) {
    abandon();
    return s;
  }
  if (::close(fd_) != 0) {
    const int e = errno;
    fd_ = -1;
    ::unlink(tmp_.c_str());
    return Error{"cannot close " + tmp_ + ": " + reason(e)};
  }
  fd_ = -1;
  if (Status s = rename_file(tmp_, path_); !s) {
    ::unlink(tmp_.c_str());
    return s;
  }
  sync_parent_directory(path_);
  return {};
}

Status write_file_atomically(const std::string& path, std::span<const uint8_t> bytes) {
  AtomicFile f(path);
  if (Status s = f.open(); !s) return s;
  if (Status s = f.write(bytes); !s) return s;
  return f.commit();
}

}  // namespace kvchat::file_io
