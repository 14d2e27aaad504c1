// Keeps a process alive when a file it maps is cut short under the mapping.
//
// A read of a mapped page past a file's new end raises SIGBUS, which kills the process (a
// model read lazily through mmap, as kvchat-cli does, would die mid-reply). A mapping
// registered here is guarded instead: a process-wide SIGBUS handler (installed with the
// first registration) maps anonymous zero pages over the registered range from the
// faulting page to its end, marks the range as faulted, and returns, so the read goes on
// and sees zeros. Whoever computed something from the range checks faulted() afterwards
// and discards it (MappedFile::damage(), Model::check_weights()). Faults outside every
// registered range, and SIGBUS sent by kill(), go to the handler installed before ours,
// or to the default action (the process dies with SIGBUS as it would have).
//
// mmap(MAP_FIXED) from a signal handler is not on POSIX's async-signal-safe list, but on
// Linux it is a plain system call that takes no user-space lock; the handler touches only
// atomics and that call.
#pragma once

#include <cstddef>

namespace kvchat::gguf::mapping_guard {

// Guards [begin, begin + length) (length rounded up to whole pages). Returns the slot to
// pass to faulted() and unregister_range(), or -1 when every slot is taken (the range is
// then unguarded; kMaxRanges mappings at once is far more than one process maps).
constexpr int kMaxRanges = 256;
int register_range(const void* begin, size_t length);
// Before the range is unmapped; a slot of -1 is ignored.
void unregister_range(int slot);
// Whether a read in the slot's range faulted (the file was cut short under it) since it
// was registered. False for -1.
bool faulted(int slot);

}  // namespace kvchat::gguf::mapping_guard
