// Memory figures of this process and machine, read from /proc (Linux).
#pragma once

#include <cstdint>

namespace kvchat {

struct ProcessMemory {
  uint64_t resident_bytes = 0;   // /proc/self/statm, resident pages
  uint64_t total_bytes = 0;      // /proc/meminfo MemTotal
  uint64_t available_bytes = 0;  // /proc/meminfo MemAvailable
};

// Zeros where the figures cannot be read.
ProcessMemory read_process_memory();
// The same, read from /proc at most every 250 ms and cached in between (it is asked for
// after every token; the figures change far more slowly than tokens arrive). Thread-safe.
ProcessMemory recent_process_memory();

}  // namespace kvchat
