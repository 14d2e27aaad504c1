#include "util/huge_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>

namespace kvchat {

void advise_huge_pages(void* p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  ::madvise(p, bytes, MADV_HUGEPAGE);
#else
  (void)p, (void)bytes;
#endif
}

void* map_huge_aligned(size_t size, int prot, int flags, int fd) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t mapped = (size + page - 1) / page * page;
  void* reserve = ::mmap(nullptr, mapped + kHugePageBytes, PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserve == MAP_FAILED) return ::mmap(nullptr, size, prot, flags, fd, 0);
  const auto base = reinterpret_cast<uintptr_t>(reserve);
  const uintptr_t aligned = (base + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  void* p = ::mmap(reinterpret_cast<void*>(aligned), size, prot, flags | MAP_FIXED, fd, 0);
  if (p == MAP_FAILED) {
    ::munmap(reserve, mapped + kHugePageBytes);
    return MAP_FAILED;
  }
  if (aligned > base) ::munmap(reserve, aligned - base);
  const uintptr_t tail = aligned + mapped, end = base + mapped + kHugePageBytes;
  if (end > tail) ::munmap(reinterpret_cast<void*>(tail), end - tail);
  return p;
}

uint8_t* alloc_huge_pages(uint64_t bytes) {
  const uint64_t size = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  void* p = nullptr;
  if (posix_memalign(&p, kHugePageBytes, size) != 0) return nullptr;
  advise_huge_pages(p, size);
  return static_cast<uint8_t*>(p);
}

}  // namespace kvchat
