// Cooperative fibers for the grid emulator (test equipment): one stack per emulated thread of
// a block, from a pool mapped once, and a hand-written x86-64 context switch (the System V
// callee-saved registers and the stack pointer; no system call, unlike swapcontext). Under
// AddressSanitizer every switch is announced (__sanitizer_start/finish_switch_fiber).
#pragma once

#include <cstddef>
#include <cstdint>

namespace kvchat_emu::fiber {

#if defined(__SANITIZE_ADDRESS__)
#define KVCHAT_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KVCHAT_EMU_ASAN 1
#endif
#endif

// A fiber: its stack [lo, lo + bytes) and, while switched out, its saved stack pointer.
struct Fiber {
  uint8_t* lo = nullptr;
  size_t bytes = 0;
  void* sp = nullptr;
  void* asan_fake_stack = nullptr;
};

// The stacks of up to `count` fibers (each with a guard page below it), mapped on first use.
// False when the memory cannot be mapped.
bool reserve(int count);
Fiber& at(int index);

// Prepares fiber `f` to start in `entry` (which must never return) at its next resume.
void prepare(Fiber& f, void (*entry)());
// From the scheduler: runs `f` until it suspends (suspend) or finishes (finish).
void resume(Fiber& f);
// From inside a fiber: back to the scheduler; resume(f) continues after this call.
void suspend(Fiber& f);
// From inside a fiber that is done: back to the scheduler for good.
[[noreturn]] void finish(Fiber& f);
// From inside fiber `from`: straight on to fiber `to` (which then runs as if resumed by the
// scheduler); resume(from) later continues after this call. Both fibers suspend and resume
// at the same call sites, so the CPU predicts the returns: several times faster than a
// round trip through the scheduler. Not under AddressSanitizer (hand_off_allowed()).
void hand_off(Fiber& from, Fiber& to);
[[noreturn]] void finish_to(Fiber& from, Fiber& to);
constexpr bool hand_off_allowed() {
#if KVCHAT_EMU_ASAN
  return false;
#else
  return true;
#endif
}
// Announces the start of a fiber's first run (AddressSanitizer); called first in `entry`.
void started(Fiber& f);
// After a fiber was abandoned mid-run (a failed launch), its stack may hold poisoned frames:
// clears them before the stacks are used again (AddressSanitizer; nothing otherwise).
void scrub(int count);

}  // namespace kvchat_emu::fiber
