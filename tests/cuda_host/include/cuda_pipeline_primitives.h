// Host emulation of the pipeline primitives (cp.async) (test equipment): a copy of 4, 8 or 16
// bytes from global to shared memory that completes only at the __pipeline_wait_prior that
// covers its batch, so a read before that wait sees the arena's poison, as a device may.
#pragma once

#include <cstddef>

#include "cuda_runtime.h"

inline void __pipeline_memcpy_async(void* __restrict__ dst_shared,
                                    const void* __restrict__ src_global, size_t size_and_align,
                                    size_t zfill = 0) {
  kvchat_emu::pipeline_memcpy_async(dst_shared, src_global, size_and_align, zfill);
}
inline void __pipeline_commit() { kvchat_emu::pipeline_commit(); }
inline void __pipeline_wait_prior(size_t prior) { kvchat_emu::pipeline_wait_prior(prior); }
