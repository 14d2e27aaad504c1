#include "gguf/mapping_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <mutex>

namespace kvchat::gguf::mapping_guard {

namespace {

// One guarded range. end is stored before begin on registration and begin cleared first
// on removal, so the handler, which reads begin then end, never pairs a new begin with an
// old end.
struct Slot {
  std::atomic<uintptr_t> begin{0};  // 0: free
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> faulted{false};
};

Slot g_slots[kMaxRanges];
std::mutex g_register_mutex;  // registration only; the handler takes no lock
std::once_flag g_install_once;
struct sigaction g_previous {};
uintptr_t g_page = 4096;

// Hands the signal on as if our handler were not there.
void chain(int sig, siginfo_t* info, void* context) {
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) g_previous.sa_sigaction(sig, info, context);
    return;
  }
  if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(sig);
    return;
  }
  // The default action: with it restored, a fault re-executes the read on return and
  // dies of SIGBUS (ignoring a fault would loop forever); a sent signal is raised again.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  if (info->si_code <= 0) ::raise(sig);  // SI_USER, SI_QUEUE, ...: not a fault
}

void on_sigbus(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  if (info->si_code > 0) {  // raised by the kernel for an access at si_addr
    const uintptr_t addr = reinterpret_cast<uintptr_t>(info->si_addr);
    for (Slot& s : g_slots) {
      const uintptr_t begin = s.begin.load(std::memory_order_acquire);
      if (begin == 0 || addr < begin) continue;
      const uintptr_t end = s.end.load(std::memory_order_acquire);
      if (addr >= end) continue;
      // Every page from the faulting one on lies past the file's new end (a cut file
      // loses a tail), so one mapping covers all later faults of this range too.
      const uintptr_t from = addr & ~(g_page - 1);
      void* p = ::mmap(reinterpret_cast<void*>(from), end - from, PROT_READ,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
      if (p == MAP_FAILED) break;  // cannot help: die as without the guard
      s.faulted.store(true, std::memory_order_release);
      errno = saved_errno;
      return;
    }
  }
  errno = saved_errno;
  chain(sig, info, context);
}

void install() {
  g_page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGBUS, &sa, &g_previous);
}

}  // namespace

int register_range(const void* begin, size_t length) {
  std::call_once(g_install_once, install);
  const uintptr_t b = reinterpret_cast<uintptr_t>(begin);
  const uintptr_t e = b + (length + g_page - 1) / g_page * g_page;
  const std::lock_guard<std::mutex> lock(g_register_mutex);
  for (int k = 0; k < kMaxRanges; ++k) {
    Slot& s = g_slots[k];
    if (s.begin.load(std::memory_order_relaxed) != 0) continue;
    s.faulted.store(false, std::memory_order_relaxed);
    s.end.store(e, std::memory_order_release);
    s.begin.store(b, std::memory_order_release);
    return k;
  }
  return -1;
}

void unregister_range(int slot) {
  if (slot < 0 || slot >= kMaxRanges) return;
  const std::lock_guard<std::mutex> lock(g_register_mutex);
  g_slots[slot].begin.store(0, std::memory_order_release);
  g_slots[slot].end.store(0, std::memory_order_release);
}

bool faulted(int slot) {
  if (slot < 0 || slot >= kMaxRanges) return false;
  return g_slots[slot].faulted.load(std::memory_order_acquire);
}

}  // namespace kvchat::gguf::mapping_guard
