// The grid emulator (test equipment): a kernel launch validated as a device validates it, its
// blocks run one after another (index order; KVCHAT_EMU_BLOCK_ORDER=reverse for the other
// way), each block's threads as cooperative fibers (fiber.h) on the launching host thread.
//
// Scheduling inside a block: passes over the threads in index order; a thread runs until it
// suspends — at __syncthreads, __syncwarp, a shuffle or __pipeline_wait_prior — or returns.
//   __syncthreads  released when every thread that has not exited has arrived (sm_70+: exited
//                  threads do not hold a barrier); a barrier that can never complete is a
//                  deadlock, reported with the kernel's name.
//   warp collective (shuffle, __syncwarp): each lane of the member mask deposits its value and
//                  waits until all lanes of the mask arrived; the lanes must agree on the
//                  collective and the mask, be in it, and not have exited.
// Shared memory: one arena per block; static arrays (KV_SHARED) at their declared size, the
// dynamic one at the launched size, 16-byte aligned with 64-byte redzones between them,
// filled with a NaN pattern (0x7fbadbad) at each block's start; under ASan the redzones are
// poisoned. shared_check.cpp checks every access that kernel code makes (bounds, races).
#include <sys/mman.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "emu.h"
#include "fiber.h"

#if KVCHAT_EMU_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace kvchat_emu {

ThreadState* g_thread = nullptr;
BlockState g_block{};
uintptr_t g_shared_lo = 0;
uintptr_t g_shared_span = 0;
uint32_t g_phase = 0;
uint32_t g_warp_generation[32];

namespace {

constexpr int kMaxThreads = 1024;
constexpr size_t kStaticLimit = 48 << 10;     // static shared memory per block
constexpr size_t kOptInLimit = 227 << 10;     // static + dynamic, opted in
constexpr size_t kDefaultDynamic = 48 << 10;  // dynamic without the attribute
constexpr size_t kRedzone = 64;
constexpr size_t kArenaBytes = kOptInLimit + 64 * kRedzone + (64 << 10);
constexpr uint32_t kPoison = 0x7fbadbadu;  // a quiet NaN

enum class Wait { None, Barrier, Warp, Exited };

struct Copy {
  void* dst;
  const void* src;
  size_t bytes, zfill;
};

struct Lane {
  ThreadState state;
  int tid = 0, warp = 0, lane = 0;
  Wait wait = Wait::None;
  uint64_t result = 0;           // of the last warp collective
  std::vector<Copy> open_batch;  // cp.async since the last commit
  std::deque<std::vector<Copy>> batches;
};

struct WarpSync {
  bool open = false;
  int kind = 0;  // 0: __syncwarp; 1 + ShuffleMode
  unsigned mask = 0, arrived = 0;
  const char* what = "";
  uint64_t value[32];
  int src[32];
};

struct Array {
  const void* tag;
  size_t offset, bytes;
  const char* name;
};

struct Run {  // the launch being executed
  const char* kernel = "";
  dim3 grid, block;
  size_t dynamic = 0, dynamic_offset = 0;
  int threads = 0, live = 0, at_barrier = 0;
  std::vector<Array> arrays;
  size_t used = 0;  // arena bytes laid out
  bool failed = false;
};

alignas(64) uint8_t g_arena[kArenaBytes];
std::vector<Lane> g_lanes(kMaxThreads);
WarpSync g_warps[kMaxThreads / 32];
Lane* g_lane = nullptr;
Run g_run;
const std::function<void()>* g_body = nullptr;

std::string coords(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

void poison_fill(size_t offset, size_t bytes) {
  for (size_t i = 0; i < bytes; i += 4) {
    const size_t n = std::min<size_t>(4, bytes - i);
    std::memcpy(g_arena + offset + i, &kPoison, n);
  }
}

// Lays out an array of `bytes` at the arena's end: 16-byte aligned, a redzone before it.
size_t place(size_t bytes) {
  const size_t offset = (g_run.used + kRedzone + 15) / 16 * 16;
  g_run.used = offset + bytes;
  if (g_run.used + kRedzone > kArenaBytes) return SIZE_MAX;
  std::memset(g_shared_valid + offset, 1, bytes);
#if KVCHAT_EMU_ASAN
  ASAN_UNPOISON_MEMORY_REGION(g_arena + offset, bytes);
#endif
  poison_fill(offset, bytes);
  return offset;
}

void begin_launch_arena() {
  std::memset(g_shared_valid, 0, std::min(kArenaBytes, g_run.used + kRedzone));
  g_run.used = 0;
  g_run.arrays.clear();
#if KVCHAT_EMU_ASAN
  ASAN_POISON_MEMORY_REGION(g_arena, kArenaBytes);
#endif
  g_run.dynamic_offset = g_run.dynamic > 0 ? place(g_run.dynamic) : 0;
}

void fiber_entry();

// Any thread failing: records it, prints once, and stops the launch.
void record_failure(cudaError_t err, const std::string& what) {
  if (g_run.failed) return;
  g_run.failed = true;
  std::string where = std::string("kernel ") + g_run.kernel + " block " + coords(g_block.idx);
  if (g_lane) where += " thread " + coords(g_lane->state.idx);
  set_sticky(err, where + ": " + what);
}

// The next thread after `after` that can run, or -1.
int next_runnable(int after) {
  if (!fiber::hand_off_allowed() || g_run.failed) return -1;
  for (int i = after + 1; i < g_run.threads; ++i) {
    if (g_lanes[i].wait == Wait::None) return i;
  }
  return -1;
}

void suspend_current() {
  Lane& me = *g_lane;
  if (const int next = next_runnable(me.tid); next >= 0) {
    g_lane = &g_lanes[next];
    g_thread = &g_lane->state;
    fiber::hand_off(fiber::at(me.tid), fiber::at(next));
  } else {
    fiber::suspend(fiber::at(me.tid));
  }
  g_lane = &me;  // the scheduler set it to whichever thread it resumed
  g_thread = &me.state;
}

void release_barrier() {
  for (int i = 0; i < g_run.threads; ++i) {
    if (g_lanes[i].wait == Wait::Barrier) g_lanes[i].wait = Wait::None;
  }
  g_run.at_barrier = 0;
  ++g_phase;
}

std::string mask_text(unsigned mask) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", mask);
  return buf;
}

// Checks that every lane of `mask` in `warp` exists and has not exited.
void check_mask_lanes(int warp, unsigned mask, const char* what) {
  for (int l = 0; l < 32; ++l) {
    if (!((mask >> l) & 1u)) continue;
    const int tid = warp * 32 + l;
    if (tid >= g_run.threads || g_lanes[tid].wait == Wait::Exited) {
      fail_thread(cudaErrorLaunchFailure,
                  std::string(what) + " with member mask " + mask_text(mask) + ": lane " +
                      std::to_string(l) + " of warp " + std::to_string(warp) +
                      (tid >= g_run.threads ? " does not exist" : " has exited"));
    }
  }
}

// The calling lane joins its warp's collective `kind`; returns when all lanes of the mask
// have joined (the last one to arrive completes it for all).
void gather(int kind, unsigned mask, const char* what, uint64_t value, int src) {
  Lane& me = *g_lane;
  if (!((mask >> me.lane) & 1u)) {
    fail_thread(cudaErrorLaunchFailure, std::string(what) + ": the calling lane " +
                                            std::to_string(me.lane) + " is not in its mask " +
                                            mask_text(mask));
  }
  WarpSync& w = g_warps[me.warp];
  if (!w.open) {
    check_mask_lanes(me.warp, mask, what);
    w.open = true;
    w.kind = kind;
    w.mask = mask;
    w.arrived = 0;
    w.what = what;
  } else if (w.kind != kind || w.mask != mask) {
    fail_thread(cudaErrorLaunchFailure, std::string(what) + " with mask " + mask_text(mask) +
                                            " while lanes of warp " + std::to_string(me.warp) +
                                            " wait in " + w.what + " with mask " +
                                            mask_text(w.mask));
  }
  w.value[me.lane] = value;
  w.src[me.lane] = src;
  w.arrived |= 1u << me.lane;
  if (w.arrived != w.mask) {
    me.wait = Wait::Warp;
    suspend_current();
    return;
  }
  // Complete: deliver every lane's result and wake them.
  for (int l = 0; l < 32; ++l) {
    if (!((w.mask >> l) & 1u)) continue;
    Lane& t = g_lanes[me.warp * 32 + l];
    if (kind != 0) {
      const int s = w.src[l];
      if (!((w.mask >> s) & 1u)) {
        fail_thread(cudaErrorLaunchFailure, std::string(what) + ": lane " + std::to_string(l) +
                                                " reads lane " + std::to_string(s) +
                                                ", which is not in the member mask " +
                                                mask_text(w.mask));
      }
      t.result = w.value[s];
    }
    t.wait = Wait::None;
  }
  w.open = false;
  if (kind == 0) ++g_warp_generation[me.warp];
}

void complete_batch(Lane& me) {
  for (const Copy& c : me.batches.front()) {
    std::memcpy(c.dst, c.src, c.bytes - c.zfill);
    if (c.zfill) std::memset(static_cast<uint8_t*>(c.dst) + (c.bytes - c.zfill), 0, c.zfill);
    note_shared_access(c.dst, c.bytes, true);
  }
  me.batches.pop_front();
}

void on_exit(Lane& me) {
  me.wait = Wait::Exited;
  --g_run.live;
  WarpSync& w = g_warps[me.warp];
  if (w.open && ((w.mask >> me.lane) & 1u) && !((w.arrived >> me.lane) & 1u)) {
    fail_thread(cudaErrorLaunchFailure,
                std::string("exited while lanes of its warp wait for it in ") + w.what + " (mask " +
                    mask_text(w.mask) + ")");
  }
  if (g_run.live > 0 && g_run.at_barrier == g_run.live) release_barrier();
}

void fiber_entry() {
  Lane& me = *g_lane;
  fiber::started(fiber::at(me.tid));
  (*g_body)();
  Lane& done = *g_lane;
  on_exit(done);
  if (const int next = next_runnable(done.tid); next >= 0) {
    g_lane = &g_lanes[next];
    g_thread = &g_lane->state;
    fiber::finish_to(fiber::at(done.tid), fiber::at(next));
  }
  fiber::finish(fiber::at(done.tid));
}

// Runs block `idx`; false when the launch failed.
bool run_block(uint3 idx) {
  g_block.idx = idx;
  for (const Array& a : g_run.arrays) poison_fill(a.offset, a.bytes);
  if (g_run.dynamic > 0) poison_fill(g_run.dynamic_offset, g_run.dynamic);
  ++g_phase;
  const dim3 b = g_run.block;
  for (int i = 0; i < g_run.threads; ++i) {
    Lane& l = g_lanes[i];
    l.state.idx = {static_cast<unsigned>(i) % b.x, static_cast<unsigned>(i) / b.x % b.y,
                   static_cast<unsigned>(i) / (b.x * b.y)};
    l.tid = l.state.tid = i;
    l.warp = l.state.warp = i / 32;
    l.lane = i % 32;
    l.wait = Wait::None;
    l.open_batch.clear();
    l.batches.clear();
    fiber::prepare(fiber::at(i), &fiber_entry);
  }
  for (int w = 0; w < (g_run.threads + 31) / 32; ++w) {
    g_warps[w] = WarpSync{};
    g_warp_generation[w] = 0;
  }
  g_run.live = g_run.threads;
  g_run.at_barrier = 0;
  while (g_run.live > 0 && !g_run.failed) {
    bool ran = false;
    for (int i = 0; i < g_run.threads && !g_run.failed; ++i) {
      Lane& l = g_lanes[i];
      if (l.wait != Wait::None) continue;
      ran = true;
      g_lane = &l;
      g_thread = &l.state;
      fiber::resume(fiber::at(i));
    }
    if (!ran && !g_run.failed) {
      g_lane = nullptr;
      std::string state;
      int at_barrier = 0, at_warp = 0;
      for (int i = 0; i < g_run.threads; ++i) {
        at_barrier += g_lanes[i].wait == Wait::Barrier;
        at_warp += g_lanes[i].wait == Wait::Warp;
      }
      record_failure(cudaErrorLaunchFailure,
                     "deadlock: " + std::to_string(at_barrier) +
                         " threads wait at __syncthreads, " + std::to_string(at_warp) +
                         " in warp collectives, " + std::to_string(g_run.threads - g_run.live) +
                         " exited");
    }
  }
  g_lane = nullptr;
  g_thread = nullptr;
  return !g_run.failed;
}

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}

void execute(const char* name, dim3 grid, dim3 block, size_t dynamic,
             const std::function<void()>& body) {
  g_run.kernel = name;
  g_run.grid = grid;
  g_run.block = block;
  g_run.dynamic = dynamic;
  g_run.threads = static_cast<int>(block.x * block.y * block.z);
  g_run.failed = false;
  g_body = &body;
  if (!fiber::reserve(kMaxThreads)) {
    set_sticky(cudaErrorLaunchOutOfResources, std::string("kernel ") + name + ": no fiber stacks");
    return;
  }
  begin_launch_arena();
  g_block.dim = block;
  g_block.grid = grid;
  g_shared_lo = reinterpret_cast<uintptr_t>(g_arena);
  g_shared_span = kArenaBytes;
  const bool reverse = env_is("KVCHAT_EMU_BLOCK_ORDER", "reverse");
  const uint64_t count = static_cast<uint64_t>(grid.x) * grid.y * grid.z;
  for (uint64_t k = 0; k < count; ++k) {
    const uint64_t i = reverse ? count - 1 - k : k;
    const uint3 idx{static_cast<unsigned>(i % grid.x), static_cast<unsigned>(i / grid.x % grid.y),
                    static_cast<unsigned>(i / (static_cast<uint64_t>(grid.x) * grid.y))};
    if (!run_block(idx)) {
      fiber::scrub(g_run.threads);
      break;
    }
  }
  g_shared_span = 0;
#if KVCHAT_EMU_ASAN
  ASAN_POISON_MEMORY_REGION(g_arena, kArenaBytes);
#endif
  g_body = nullptr;
}

}  // namespace

// ---- what the checker asks -----------------------------------------------------------------
uint8_t g_shared_valid[kArenaBytes];

std::string describe_shared(size_t offset) {
  for (const Array& a : g_run.arrays) {
    if (offset >= a.offset && offset < a.offset + a.bytes)
      return std::string("'") + a.name + "' byte " + std::to_string(offset - a.offset) + " of " +
             std::to_string(a.bytes);
  }
  if (g_run.dynamic > 0 && offset >= g_run.dynamic_offset &&
      offset < g_run.dynamic_offset + g_run.dynamic)
    return "dynamic shared memory byte " + std::to_string(offset - g_run.dynamic_offset) + " of " +
           std::to_string(g_run.dynamic);
  return "arena offset " + std::to_string(offset) + ", outside every shared array";
}

void fail_thread(cudaError_t err, const std::string& what) {
  record_failure(err, what);
  if (!g_lane) std::abort();  // not inside a kernel thread: an emulator defect
  fiber::suspend(fiber::at(g_lane->tid));
  std::abort();  // a failed launch never resumes its threads
}

// ---- kernel-side primitives ----------------------------------------------------------------
void syncthreads() {
  Lane& me = *g_lane;
  me.wait = Wait::Barrier;
  if (++g_run.at_barrier == g_run.live) {
    release_barrier();
    return;
  }
  suspend_current();
}

void syncwarp(unsigned mask) { gather(0, mask, "__syncwarp", 0, 0); }

uint64_t shuffle(ShuffleMode mode, unsigned mask, uint64_t bits, int b, int c, const char* what) {
  // shfl.sync (PTX ISA): the segment of `width` lanes and the source lane j; a source outside
  // the segment (pval false) leaves the lane its own value.
  const int lane = g_lane->lane;
  const int segmask = (c >> 8) & 0x1f, cval = c & 0x1f;
  const int max_lane = (lane & segmask) | (cval & ~segmask);
  const int min_lane = lane & segmask;
  int j = lane;
  bool pval = false;
  switch (mode) {
    case ShuffleMode::Idx:
      j = min_lane | (b & 0x1f & ~segmask);
      pval = j <= max_lane;
      break;
    case ShuffleMode::Up:
      j = lane - b;
      pval = j >= max_lane;
      break;
    case ShuffleMode::Down:
      j = lane + b;
      pval = j <= max_lane;
      break;
    case ShuffleMode::Bfly:
      j = lane ^ (b & 0x1f);
      pval = j <= max_lane;
      break;
  }
  if (!pval) j = lane;
  gather(1 + static_cast<int>(mode), mask, what, bits, j);
  return g_lane->result;
}

void* shared_static(const void* tag, size_t bytes, const char* name) {
  for (const Array& a : g_run.arrays) {
    if (a.tag == tag) return g_arena + a.offset;
  }
  size_t statics = bytes;
  for (const Array& a : g_run.arrays) statics += a.bytes;
  const size_t offset = place(bytes);
  if (statics > kStaticLimit || offset == SIZE_MAX || statics + g_run.dynamic > kOptInLimit) {
    fail_thread(cudaErrorLaunchOutOfResources,
                std::string("static shared memory of ") + std::to_string(statics) +
                    " bytes (with '" + name + "') exceeds the device's 48 KiB per block");
  }
  g_run.arrays.push_back({tag, offset, bytes, name});
  return g_arena + offset;
}

void* shared_dynamic() {
  // Declared without a launch size, it is an array of zero bytes: any access is out of bounds.
  return g_arena + (g_run.dynamic > 0 ? g_run.dynamic_offset : kArenaBytes - kRedzone);
}

void pipeline_memcpy_async(void* dst, const void* src, size_t bytes, size_t zfill) {
  const uintptr_t d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  if ((bytes != 4 && bytes != 8 && bytes != 16) || d % bytes != 0 || s % bytes != 0 ||
      zfill > bytes) {
    fail_thread(cudaErrorLaunchFailure, "__pipeline_memcpy_async of " + std::to_string(bytes) +
                                            " bytes from " + std::to_string(s % 16) +
                                            " mod 16 to " + std::to_string(d % 16) +
                                            " mod 16: cp.async needs 4, 8 or 16 aligned bytes");
  }
  const size_t off = d - g_shared_lo;
  if (d < g_shared_lo || off + bytes > kArenaBytes || !g_shared_valid[off] ||
      !g_shared_valid[off + bytes - 1]) {
    fail_thread(cudaErrorIllegalAddress,
                "__pipeline_memcpy_async to a destination outside shared memory (" +
                    (d >= g_shared_lo && off < kArenaBytes ? describe_shared(off)
                                                           : std::string("not in the arena")) +
                    ")");
  }
  if (!device_range(src, bytes - zfill)) {
    fail_thread(cudaErrorIllegalAddress,
                "__pipeline_memcpy_async from a source outside every device allocation");
  }
  g_lane->open_batch.push_back({dst, src, bytes, zfill});
}

void pipeline_commit() {
  Lane& me = *g_lane;
  me.batches.push_back(std::move(me.open_batch));
  me.open_batch.clear();
}

void pipeline_wait_prior(size_t prior) {
  Lane& me = *g_lane;
  while (me.batches.size() > prior) complete_batch(me);
  suspend_current();  // others run first: an ordering that needs a barrier here shows
}

std::string name_from_signature(const char* pretty) {
  std::string s = pretty;
  const size_t at = s.find("K = ");
  if (at == std::string::npos) return s;
  size_t end = s.rfind(']');
  if (end == std::string::npos || end < at) end = s.size();
  std::string name = s.substr(at + 4, end - at - 4);
  if (!name.empty() && name[0] == '&') name.erase(0, 1);
  return name;
}

void launch_grid(const char* name, const void* func, dim3 grid, dim3 block, size_t dynamic_smem,
                 cudaStream_t stream, std::function<void()> body) {
  std::lock_guard lock(device_mutex());
  const uint64_t threads = static_cast<uint64_t>(block.x) * block.y * block.z;
  if (threads == 0 || threads > kMaxThreads || block.x > 1024 || block.y > 1024 || block.z > 64 ||
      grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 0x7fffffffu || grid.y > 65535 ||
      grid.z > 65535) {
    set_last_error(cudaErrorInvalidConfiguration);
    return;
  }
  const size_t allowed = std::max<size_t>(kDefaultDynamic, max_dynamic_smem(func));
  if (dynamic_smem > allowed) {
    set_last_error(cudaErrorInvalidValue);
    return;
  }
  auto shared_body = std::make_shared<std::function<void()>>(std::move(body));
  const std::string kernel = name;
  const cudaError_t err = enqueue(stream, name, [kernel, grid, block, dynamic_smem, shared_body] {
    execute(kernel.c_str(), grid, block, dynamic_smem, *shared_body);
  });
  if (err != cudaSuccess) set_last_error(err);
}

}  // namespace kvchat_emu
