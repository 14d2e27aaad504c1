// File and memory byte sources (see byte_source.h).
#include "document/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/file_io.h"

namespace kvchat::document {
namespace {

std::string errno_text() { return std::strerror(errno); }

// A file opened once and read with pread, its identity (device, inode) and size checked
// against the path before every read.
class FileSource final : public ByteSource {
 public:
  FileSource(int fd, std::string path, const struct stat& st)
      : fd_(fd),
        path_(std::move(path)),
        size_(static_cast<uint64_t>(st.st_size)),
        dev_(st.st_dev),
        ino_(st.st_ino) {}
  ~FileSource() override { ::close(fd_); }

  Status check() const override {
    struct stat now {};
    const std::string where = " while it was being read (after " + std::to_string(offset_) +
                              " of " + std::to_string(size_) + " bytes)";
    if (::stat(path_.c_str(), &now) != 0) {
      if (errno == ENOENT) return Error{path_ + ": the file was deleted" + where};
      return Error{path_ + ": cannot check the file: " + errno_text()};
    }
    if (now.st_dev != dev_ || now.st_ino != ino_) {
      return Error{path_ + ": the file was replaced by another" + where};
    }
    if (::fstat(fd_, &now) != 0) return Error{path_ + ": cannot check the file: " + errno_text()};
    if (static_cast<uint64_t>(now.st_size) < size_) {
      return Error{path_ + ": the file shrank from " + std::to_string(size_) + " to " +
                   std::to_string(now.st_size) + " bytes" + where};
    }
    return {};
  }

  Status read(size_t max, std::string& out) override {
    out.clear();
    if (auto s = check(); !s) return s;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(max, size_ - offset_));
    out.resize(n);
    size_t got = 0;
    while (got < n) {
      const ssize_t r = ::pread(fd_, out.data() + got, n - got, static_cast<off_t>(offset_ + got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return Error{path_ + ": read error: " + errno_text()};
      if (r == 0) {
        return Error{path_ + ": the file ended at byte " + std::to_string(offset_ + got) +
                     " while it was being read (it had " + std::to_string(size_) + " bytes)"};
      }
      got += static_cast<size_t>(r);
    }
    offset_ += n;
    return {};
  }

  Status rewind() override {
    offset_ = 0;
    return check();
  }
  uint64_t size() const override { return size_; }
  uint64_t offset() const override { return offset_; }

 private:
  int fd_;
  std::string path_;
  uint64_t size_;
  dev_t dev_;
  ino_t ino_;
  uint64_t offset_ = 0;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string bytes) : bytes_(std::move(bytes)) {}
  Status read(size_t max, std::string& out) override {
    const size_t n = std::min(max, bytes_.size() - offset_);
    out.assign(bytes_, offset_, n);
    offset_ += n;
    return {};
  }
  Status check() const override { return {}; }
  Status rewind() override {
    offset_ = 0;
    return {};
  }
  uint64_t size() const override { return bytes_.size(); }
  uint64_t offset() const override { return offset_; }

 private:
  std::string bytes_;
  size_t offset_ = 0;
};

}  // namespace

Result<std::unique_ptr<ByteSource>> open_file_source(const std::string& path) {
  auto opened = file_io::open_regular_file(path);  // never blocks on a FIFO
  if (!opened) return Error{path + ": " + opened.message()};
  return std::unique_ptr<ByteSource>(new FileSource(opened->fd, path, opened->st));
}

std::unique_ptr<ByteSource> memory_source(std::string bytes) {
  return std::make_unique<MemorySource>(std::move(bytes));
}

}  // namespace kvchat::document
