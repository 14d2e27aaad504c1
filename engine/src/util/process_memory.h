// Memory figures of this process and machine, read from /proc (Linux).
#pragma once

#include <cstdint>

namespace kvchat {

struct ProcessMemory {
  uint64_t resident_bytes = 0;     // /proc/self/statm, resident pages
  uint64_t total_bytes = 0;        // /proc/meminfo MemTotal
  uint64_t available_bytes = 0;    // /proc/meminfo MemAvailable
};

// Zeros where the figures cannot be read.
ProcessMemory read_process_memory();

}  // namespace kvchat
