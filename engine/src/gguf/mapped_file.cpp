#include "gguf/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kvchat::gguf {

Result<std::unique_ptr<MappedFile>> MappedFile::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{path + ": cannot open: " + std::strerror(errno)};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    std::string msg = path + ": cannot stat: " + std::strerror(errno);
    ::close(fd);
    return Error{msg};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{path + ": not a regular file"};
  }
  if (st.st_size == 0) {
    ::close(fd);
    return Error{path + ": the file is empty (expected a GGUF model)"};
  }
  void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  int map_errno = errno;
  ::close(fd);
  if (p == MAP_FAILED) return Error{path + ": cannot map: " + std::strerror(map_errno)};
  return std::unique_ptr<MappedFile>(
      new MappedFile(static_cast<const uint8_t*>(p), static_cast<size_t>(st.st_size)));
}

MappedFile::~MappedFile() { ::munmap(const_cast<uint8_t*>(data_), size_); }

}  // namespace kvchat::gguf
