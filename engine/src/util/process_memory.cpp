#include "util/process_memory.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace kvchat {

ProcessMemory read_process_memory() {
  ProcessMemory m;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    unsigned long long size = 0, resident = 0;
    if (std::fscanf(f, "%llu %llu", &size, &resident) == 2) m.resident_bytes = resident * page;
    std::fclose(f);
  }
  if (FILE* f = std::fopen("/proc/meminfo", "r")) {
    char key[64];
    unsigned long long kib = 0;
    while (std::fscanf(f, "%63s %llu kB", key, &kib) == 2) {
      if (!std::strcmp(key, "MemTotal:")) m.total_bytes = kib * 1024;
      if (!std::strcmp(key, "MemAvailable:")) m.available_bytes = kib * 1024;
    }
    std::fclose(f);
  }
  return m;
}

ProcessMemory recent_process_memory() {
  using Clock = std::chrono::steady_clock;
  static std::mutex mu;
  static ProcessMemory cached;
  static Clock::time_point read_at;
  std::lock_guard<std::mutex> lock(mu);
  const Clock::time_point now = Clock::now();
  if (cached.total_bytes == 0 || now - read_at > std::chrono::milliseconds(250)) {
    cached = read_process_memory();
    read_at = now;
  }
  return cached;
}

}  // namespace kvchat
