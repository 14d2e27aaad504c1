// Memory that the kernel is asked to back with transparent huge pages (2 MiB on x86-64).
// Decode streams every weight once per token: with 4 KiB pages each page costs a TLB walk
// and the hardware prefetchers stop at every page's end (docs/PERFORMANCE.md, issue 44).
// A huge page needs a 2 MiB-aligned range, so both helpers align to kHugePageBytes. The
// advice is only advice: where the kernel has none to give (THP "never", fragmented
// memory) the same memory comes in 4 KiB pages.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kvchat {

constexpr size_t kHugePageBytes = size_t{2} << 20;

// madvise(MADV_HUGEPAGE) where the system has it; nothing otherwise.
void advise_huge_pages(void* p, size_t bytes);

// mmap(nullptr, size, prot, flags, fd, 0) at a kHugePageBytes-aligned address (size plus
// one huge page of address space reserved, the slack given back); MAP_FAILED on failure,
// errno set. Unmapped with munmap(p, size) as any mapping.
void* map_huge_aligned(size_t size, int prot, int flags, int fd);

// bytes (rounded up to whole huge pages) of kHugePageBytes-aligned memory advised to use
// huge pages; nullptr when out of memory. Freed with std::free.
uint8_t* alloc_huge_pages(uint64_t bytes);

}  // namespace kvchat
