// The shared-memory checker (test equipment). The emulated CUDA sources are compiled with
// g++ -fsanitize=thread but linked without the ThreadSanitizer runtime: every load and store
// of kernel code calls one of the __tsan_* hooks below, which ignore everything outside the
// running block's shared arena and check the rest:
//   bounds  a byte outside every shared array (a redzone, past an array's declared size or
//           the launched dynamic size) fails the launch (cudaErrorIllegalAddress);
//   races   per 4-byte word of the arena: the last writer (thread, barrier phase, its warp's
//           __syncwarp count) and the readers since the last barrier. A read of a word that
//           another thread wrote in the same barrier phase, or a write to a word that another
//           thread read or wrote in it, fails the launch (cudaErrorLaunchFailure) with the
//           kernel's name and the array and offset — unless both threads are in one warp and
//           a __syncwarp completed in between (the warp-synchronous pattern).
// Sub-word writes to different bytes of a word by different threads do not conflict.
// The hooks are not sanitizers: nothing else of ThreadSanitizer is emulated.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "emu.h"

namespace kvchat_emu {

namespace {

constexpr uint16_t kMany = 0xffff;

struct Cell {
  uint32_t w_phase = 0, r_phase = 0;
  uint16_t w_tid = 0, r_tid = 0;
  uint32_t w_gen = 0, r_gen = 0;
  int16_t w_warp = 0, r_warp = 0;  // -1: several warps
  uint8_t w_mask = 0;              // bytes of the word written in w_phase
};

std::vector<Cell> g_cells;  // per 4-byte word of the arena

bool race_check_from_env() {
  const char* v = std::getenv("KVCHAT_EMU_RACECHECK");
  return !(v && v[0] == '0');
}

[[noreturn]] void race(size_t offset, const char* what, int other) {
  fail_thread(
      cudaErrorLaunchFailure,
      std::string("shared-memory race at ") + describe_shared(offset) + ": " + what +
          (other == kMany ? std::string(" several threads") : " thread " + std::to_string(other)) +
          " since the last __syncthreads");
}

// Whether an access by (tid, warp) now is ordered after one by (other, other_warp) at warp
// generation `gen` in the same phase: the same thread, or one warp and a __syncwarp since.
bool ordered(int tid, int warp, int other, int other_warp, uint32_t gen) {
  if (other == tid) return true;
  return other != kMany && other_warp == warp && g_warp_generation[warp] != gen;
}

void check(uintptr_t addr, size_t bytes, bool write) {
  const size_t offset = addr - g_shared_lo;
  // Arrays are contiguous and redzones (64 bytes) wider than any access: the first and the
  // last byte tell whether an access leaves its array.
  for (const size_t at : {offset, offset + bytes - 1}) {
    if (at >= g_shared_span || !g_shared_valid[at]) {
      fail_thread(cudaErrorIllegalAddress,
                  std::string(write ? "write" : "read") + " of " + std::to_string(bytes) +
                      " bytes of shared memory out of bounds (" + describe_shared(at) + ")");
    }
  }
  if (!g_race_check) return;
  const int tid = g_thread->tid, warp = g_thread->warp;
  const uint32_t phase = g_phase, gen = g_warp_generation[warp];
  std::vector<Cell>& cs = g_cells;
  if (cs.empty()) cs.resize(g_shared_span / 4 + 1);
  for (size_t w = offset / 4; w <= (offset + bytes - 1) / 4; ++w) {
    const size_t lo = std::max(offset, w * 4), hi = std::min(offset + bytes, w * 4 + 4);
    const uint8_t mask = static_cast<uint8_t>(((1u << (hi - lo)) - 1u) << (lo - w * 4));
    Cell& c = cs[w];
    const bool written = c.w_phase == phase;
    if (written && (c.w_mask & mask) && !ordered(tid, warp, c.w_tid, c.w_warp, c.w_gen)) {
      race(lo, write ? "written after a write by" : "read after a write by", c.w_tid);
    }
    if (write) {
      if (c.r_phase == phase && !ordered(tid, warp, c.r_tid, c.r_warp, c.r_gen) &&
          !(c.r_tid == kMany && c.r_warp == warp && g_warp_generation[warp] != c.r_gen)) {
        race(lo, "written after a read by", c.r_tid);
      }
      if (written && c.w_tid != tid) {
        c.w_tid = kMany;  // disjoint bytes of one word from several threads
        c.w_mask |= mask;
      } else {
        c.w_mask = written ? static_cast<uint8_t>(c.w_mask | mask) : mask;
        c.w_tid = static_cast<uint16_t>(tid);
      }
      c.w_phase = phase;
      c.w_gen = gen;
      c.w_warp = static_cast<int16_t>(warp);
    } else {
      if (c.r_phase != phase) {
        c.r_phase = phase;
        c.r_tid = static_cast<uint16_t>(tid);
        c.r_warp = static_cast<int16_t>(warp);
      } else if (c.r_tid != tid) {
        c.r_tid = kMany;
        if (c.r_warp != warp) c.r_warp = -1;
      }
      c.r_gen = gen;
    }
  }
}

inline void access(const void* p, size_t bytes, bool write) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (a - g_shared_lo < g_shared_span) check(a, bytes, write);
}

}  // namespace

const bool g_race_check = race_check_from_env();

void note_shared_access(const void* p, size_t bytes, bool write) { access(p, bytes, write); }

}  // namespace kvchat_emu

// ---- the hooks that -fsanitize=thread code calls --------------------------------------------
#define KVCHAT_HOOK extern "C" __attribute__((visibility("hidden")))
using kvchat_emu::access;

KVCHAT_HOOK void __tsan_init() {}
KVCHAT_HOOK void __tsan_func_entry(void*) {}
KVCHAT_HOOK void __tsan_func_exit() {}
KVCHAT_HOOK void __tsan_ignore_thread_begin() {}
KVCHAT_HOOK void __tsan_ignore_thread_end() {}
KVCHAT_HOOK void __tsan_vptr_update(void**, void*) {}
KVCHAT_HOOK void __tsan_vptr_read(void**) {}

#define KVCHAT_RW_HOOKS(n)                                                             \
  KVCHAT_HOOK void __tsan_read##n(void* p) { access(p, n, false); }                    \
  KVCHAT_HOOK void __tsan_write##n(void* p) { access(p, n, true); }                    \
  KVCHAT_HOOK void __tsan_unaligned_read##n(void* p) { access(p, n, false); }          \
  KVCHAT_HOOK void __tsan_unaligned_write##n(void* p) { access(p, n, true); }          \
  KVCHAT_HOOK void __tsan_volatile_read##n(void* p) { access(p, n, false); }           \
  KVCHAT_HOOK void __tsan_volatile_write##n(void* p) { access(p, n, true); }           \
  KVCHAT_HOOK void __tsan_unaligned_volatile_read##n(void* p) { access(p, n, false); } \
  KVCHAT_HOOK void __tsan_unaligned_volatile_write##n(void* p) { access(p, n, true); }
KVCHAT_RW_HOOKS(1)
KVCHAT_RW_HOOKS(2)
KVCHAT_RW_HOOKS(4)
KVCHAT_RW_HOOKS(8)
KVCHAT_RW_HOOKS(16)
KVCHAT_HOOK void __tsan_read_range(void* p, unsigned long n) { access(p, n, false); }
KVCHAT_HOOK void __tsan_write_range(void* p, unsigned long n) { access(p, n, true); }

// Atomics of the instrumented sources (the backend's host code: reference counts, once
// flags): performed as sequentially consistent atomics; never shared memory.
#define KVCHAT_ATOMIC_HOOKS(bits, type)                                                            \
  KVCHAT_HOOK type __tsan_atomic##bits##_load(const volatile type* a, int) {                       \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                   \
  }                                                                                                \
  KVCHAT_HOOK void __tsan_atomic##bits##_store(volatile type* a, type v, int) {                    \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                      \
  }                                                                                                \
  KVCHAT_HOOK type __tsan_atomic##bits##_exchange(volatile type* a, type v, int) {                 \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                            \
  }                                                                                                \
  KVCHAT_HOOK type __tsan_atomic##bits##_fetch_add(volatile type* a, type v, int) {                \
    return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  KVCHAT_HOOK type __tsan_atomic##bits##_fetch_sub(volatile type* a, type v, int) {                \
    return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  KVCHAT_HOOK type __tsan_atomic##bits##_fetch_and(volatile type* a, type v, int) {                \
    return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  KVCHAT_HOOK type __tsan_atomic##bits##_fetch_or(volatile type* a, type v, int) {                 \
    return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                              \
  }                                                                                                \
  KVCHAT_HOOK type __tsan_atomic##bits##_fetch_xor(volatile type* a, type v, int) {                \
    return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                             \
  }                                                                                                \
  KVCHAT_HOOK int __tsan_atomic##bits##_compare_exchange_strong(volatile type* a, type* expected,  \
                                                                type v, int, int) {                \
    return __atomic_compare_exchange_n(a, expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
  }                                                                                                \
  KVCHAT_HOOK int __tsan_atomic##bits##_compare_exchange_weak(volatile type* a, type* expected,    \
                                                              type v, int, int) {                  \
    return __atomic_compare_exchange_n(a, expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
  }                                                                                                \
  KVCHAT_HOOK type __tsan_atomic##bits##_compare_exchange_val(volatile type* a, type expected,     \
                                                              type v, int, int) {                  \
    __atomic_compare_exchange_n(a, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);       \
    return expected;                                                                               \
  }
KVCHAT_ATOMIC_HOOKS(8, uint8_t)
KVCHAT_ATOMIC_HOOKS(16, uint16_t)
KVCHAT_ATOMIC_HOOKS(32, uint32_t)
KVCHAT_ATOMIC_HOOKS(64, uint64_t)
KVCHAT_HOOK void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
KVCHAT_HOOK void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
