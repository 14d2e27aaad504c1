#include "fiber.h"

#include <sys/mman.h>

#include <vector>

#if KVCHAT_EMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

// kvchat_emu_switch(save, to): pushes the callee-saved registers, stores the stack pointer in
// *save, loads `to` and pops the registers saved there; `ret` continues where that stack left.
asm(R"(
  .text
  .p2align 4
  .globl kvchat_emu_switch
  .hidden kvchat_emu_switch
  .type kvchat_emu_switch,@function
kvchat_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size kvchat_emu_switch,.-kvchat_emu_switch
)");
extern "C" void kvchat_emu_switch(void** save, void* to);

namespace kvchat_emu::fiber {

namespace {

#if KVCHAT_EMU_ASAN
constexpr size_t kStackBytes = 512 << 10;  // ASan's frames are several times larger
#else
constexpr size_t kStackBytes = 64 << 10;
#endif
constexpr size_t kGuard = 4096;

std::vector<Fiber> g_fibers;
void* g_scheduler_sp = nullptr;
#if KVCHAT_EMU_ASAN
void* g_scheduler_fake_stack = nullptr;
const void* g_scheduler_lo = nullptr;
size_t g_scheduler_bytes = 0;
#endif

}  // namespace

bool reserve(int count) {
  if (static_cast<int>(g_fibers.size()) >= count) return true;
  const int first = static_cast<int>(g_fibers.size());
  const size_t each = kStackBytes + kGuard;
  const size_t n = static_cast<size_t>(count - first);
  void* map = mmap(nullptr, each * n, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (map == MAP_FAILED) return false;
  auto* base = static_cast<uint8_t*>(map);
  for (size_t i = 0; i < n; ++i) {
    uint8_t* guard = base + i * each;
    mprotect(guard, kGuard, PROT_NONE);  // a stack overflow faults instead of corrupting
    Fiber f;
    f.lo = guard + kGuard;
    f.bytes = kStackBytes;
    g_fibers.push_back(f);
  }
  return true;
}

Fiber& at(int index) { return g_fibers[static_cast<size_t>(index)]; }

void prepare(Fiber& f, void (*entry)()) {
  // The initial frame, popped by kvchat_emu_switch: six registers, then `entry` as the return
  // address, so `entry` starts with rsp = 8 mod 16 as after a call.
  auto** sp = reinterpret_cast<void**>(f.lo + f.bytes);
  *--sp = nullptr;  // entry's (never used) return address
  *--sp = reinterpret_cast<void*>(entry);
  for (int r = 0; r < 6; ++r) *--sp = nullptr;
  f.sp = sp;
}

void resume(Fiber& f) {
#if KVCHAT_EMU_ASAN
  __sanitizer_start_switch_fiber(&g_scheduler_fake_stack, f.lo, f.bytes);
#endif
  kvchat_emu_switch(&g_scheduler_sp, f.sp);
#if KVCHAT_EMU_ASAN
  __sanitizer_finish_switch_fiber(g_scheduler_fake_stack, nullptr, nullptr);
#endif
}

void started(Fiber& f) {
  (void)f;
#if KVCHAT_EMU_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &g_scheduler_lo, &g_scheduler_bytes);
#endif
}

void suspend(Fiber& f) {
#if KVCHAT_EMU_ASAN
  __sanitizer_start_switch_fiber(&f.asan_fake_stack, g_scheduler_lo, g_scheduler_bytes);
#endif
  kvchat_emu_switch(&f.sp, g_scheduler_sp);
#if KVCHAT_EMU_ASAN
  __sanitizer_finish_switch_fiber(f.asan_fake_stack, &g_scheduler_lo, &g_scheduler_bytes);
#endif
}

void finish(Fiber& f) {
#if KVCHAT_EMU_ASAN
  __sanitizer_start_switch_fiber(nullptr, g_scheduler_lo, g_scheduler_bytes);
#endif
  kvchat_emu_switch(&f.sp, g_scheduler_sp);
  __builtin_unreachable();
}

void hand_off(Fiber& from, Fiber& to) { kvchat_emu_switch(&from.sp, to.sp); }

void finish_to(Fiber& from, Fiber& to) {
  kvchat_emu_switch(&from.sp, to.sp);
  __builtin_unreachable();
}

void scrub(int count) {
#if KVCHAT_EMU_ASAN
  for (int i = 0; i < count && i < static_cast<int>(g_fibers.size()); ++i)
    ASAN_UNPOISON_MEMORY_REGION(g_fibers[static_cast<size_t>(i)].lo, kStackBytes);
#else
  (void)count;
#endif
}

}  // namespace kvchat_emu::fiber
