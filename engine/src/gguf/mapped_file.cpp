#include "gguf/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "gguf/mapping_guard.h"
#include "util/huge_pages.h"
#include "util/file_io.h"

namespace kvchat::gguf {

namespace {

int64_t mtime_ns(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

std::string errno_text(int e) { return std::strerror(e); }

// len bytes of anonymous read-write memory for read_in(), on huge pages where the kernel
// gives them: read_in() moves its chunks (multiples of kHugePageBytes) to the same offsets
// of a mapping that starts on a huge-page boundary (open()), so they stay huge pages there.
void* anonymous_chunk(size_t len) {
  void* p = map_huge_aligned(len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
  if (p != MAP_FAILED) advise_huge_pages(p, len);
  return p;
}

// pread until n bytes are in dst or the file gives no more: got says how many arrived; the
// last pread's result is returned (n > 0 when all came, 0 at the end of the file, < 0 on
// an error, errno set). EINTR is retried.
ssize_t pread_full(int fd, uint8_t* dst, size_t n, size_t at, size_t& got) {
  got = 0;
  ssize_t r = 1;
  while (got < n) {
    r = ::pread(fd, dst + got, n - got, static_cast<off_t>(at + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  return r;
}

}  // namespace

Result<std::unique_ptr<MappedFile>> MappedFile::open(const std::string& path) {
  auto opened = file_io::open_regular_file(path);  // never blocks on a FIFO
  if (!opened) return Error{path + ": " + opened.message()};
  const int fd = opened->fd;
  const struct stat& st = opened->st;
  if (st.st_size == 0) {
    ::close(fd);
    return Error{path + ": the file is empty (expected a GGUF model)"};
  }
  void* p = map_huge_aligned(static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd);
  int map_errno = errno;
  if (p == MAP_FAILED) {
    ::close(fd);
    return Error{path + ": cannot map: " + std::strerror(map_errno)};
  }
  const int slot = mapping_guard::register_range(p, static_cast<size_t>(st.st_size));
  return std::unique_ptr<MappedFile>(new MappedFile(path, fd, static_cast<const uint8_t*>(p),
                                                    static_cast<size_t>(st.st_size), st.st_dev,
                                                    st.st_ino, mtime_ns(st), slot));
}

MappedFile::~MappedFile() {
  mapping_guard::unregister_range(guard_slot_);
  ::munmap(const_cast<uint8_t*>(data_), size_);
  ::close(fd_);
}

bool MappedFile::read_in_complete() const { return read_in_done_.load() >= size_; }

std::string MappedFile::damage() const {
  const std::lock_guard<std::mutex> lock(damage_mutex_);
  if (!damage_.empty()) return damage_;
  const bool faulted = mapping_guard::faulted(guard_slot_);
  // Once every page is anonymous the file no longer matters (a fault before stays a fault).
  if (!faulted && read_in_complete() && !released_.load()) return {};
  struct stat now {};
  if (::fstat(fd_, &now) != 0) {  // this inode: a rename over the path changes nothing here
    if (faulted) damage_ = "cut short while in use";
    return damage_;
  }
  const uint64_t now_size = static_cast<uint64_t>(now.st_size);
  if (faulted || now_size < size_) {
    const std::string sizes =
        " (" + std::to_string(size_) + " bytes when opened, " + std::to_string(now_size) + " now)";
    // A fault with the file whole again: cut and rewritten in between (or a read error).
    damage_ = now_size < size_ ? "cut short while in use" + sizes
                               : "cut short or rewritten while in use, a read of it failed" + sizes;
  } else if (mtime_ns(now) != mtime_ns_) {
    damage_ =
        "modified in place while in use (its weights are read from the file as they are needed)";
  }
  return damage_;
}

Status MappedFile::read_in(const std::function<bool(double)>& progress) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  constexpr size_t kChunk = 4 * kHugePageBytes;  // 8 MiB per step (whole huge pages)
  const size_t mapped = (size_ + page - 1) / page * page;
  while (read_in_done_ < size_) {
    const size_t at = read_in_done_;
    const size_t len = std::min(kChunk, mapped - at);  // whole pages
    const size_t want = std::min(len, size_ - at);     // file bytes in them
    void* buf = anonymous_chunk(len);
    if (buf == MAP_FAILED) {
      return Error{path_ + ": cannot allocate memory for the weights: " + errno_text(errno)};
    }
    size_t got = 0;
    if (const ssize_t n = pread_full(fd_, static_cast<uint8_t*>(buf), want, at, got); got < want) {
      const int e = errno;
      ::munmap(buf, len);
      struct stat st {};
      const bool shorter =
          n == 0 && ::fstat(fd_, &st) == 0 && static_cast<uint64_t>(st.st_size) < size_;
      if (shorter) {
        return Error{path_ + ": the model file was cut short while it was being read (" +
                     std::to_string(size_) + " bytes when opened, " + std::to_string(st.st_size) +
                     " now); load it again once it is complete"};
      }
      return Error{path_ + ": reading the weights failed at byte " + std::to_string(at + got) +
                   ": " + (n == 0 ? std::string("unexpected end of file") : errno_text(e))};
    }
    ::mprotect(buf, len, PROT_READ);
    // Atomically puts the copy where the file's pages were (the old pages are unmapped).
    void* target = const_cast<uint8_t*>(data_) + at;
    if (::mremap(buf, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, target) == MAP_FAILED) {
      const int e = errno;
      ::munmap(buf, len);
      return Error{path_ + ": cannot move the weights into memory: " + errno_text(e)};
    }
    read_in_done_ = std::min(size_, at + len);
    if (progress &&
        !progress(static_cast<double>(read_in_done_.load()) / static_cast<double>(size_))) {
      return Error{path_ + ": loading cancelled"};
    }
  }
  if (progress && read_in_done_ >= size_) progress(1.0);  // also when already complete
  return {};
}

void MappedFile::release_pages(const uint8_t* p, size_t n) {
  const std::lock_guard<std::mutex> lock(mutex_);  // not while read_in() replaces pages
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  if (p < data_ || p + n > data_ + size_) return;
  const size_t begin = (static_cast<size_t>(p - data_) + page - 1) / page * page;
  const size_t end = static_cast<size_t>(p + n - data_) / page * page;
  if (end <= begin) return;
  // A fresh private mapping of the same file range at the same addresses: the old pages
  // (anonymous after read_in, or file pages already resident) are dropped at once.
  void* at = const_cast<uint8_t*>(data_) + begin;
  if (::mmap(at, end - begin, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd_, static_cast<off_t>(begin)) !=
      MAP_FAILED) {
    released_.store(true);
  }
}

bool MappedFile::copy_out(const uint8_t* p, size_t n, uint8_t* dst) const {
  if (p < data_ || n > size_ || static_cast<size_t>(p - data_) > size_ - n) return false;
  size_t got = 0;
  pread_full(fd_, dst, n, static_cast<size_t>(p - data_), got);
  return got == n;
}

std::string MappedFile::change_on_disk() const {
  struct stat now {};
  if (::stat(path_.c_str(), &now) != 0) {
    return errno == ENOENT ? "deleted" : "unreadable (" + errno_text(errno) + ")";
  }
  if (now.st_dev != dev_ || now.st_ino != ino_) return "replaced by another file";
  if (static_cast<uint64_t>(now.st_size) < size_) {
    return "cut short from " + std::to_string(size_) + " to " + std::to_string(now.st_size) +
           " bytes";
  }
  if (static_cast<uint64_t>(now.st_size) != size_ || mtime_ns(now) != mtime_ns_) return "modified";
  return {};
}

}  // namespace kvchat::gguf
