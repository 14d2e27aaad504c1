// A STREAM-like measurement of this machine's memory bandwidth, taken in the same run
// as a benchmark so that ratios against it are meaningful on a shared, noisy machine.
#pragma once

#include <cstdint>

namespace kvchat::cli {

struct Bandwidth {
  double copy_bytes_per_second = 0;  // STREAM "copy": bytes read + bytes written per second
  double read_bytes_per_second = 0;  // a streaming read as decode reads (cpu::streaming_read)
  uint64_t buffer_bytes = 0;
};

// Best of `repeats` passes over buffers of `buffer_bytes` each (larger than the caches).
Bandwidth measure_bandwidth(int n_threads, uint64_t buffer_bytes, int repeats);

// The f32 FMA peak of n_threads threads (FLOP/s): best of `repeats` runs of a loop of
// independent 8-wide FMAs on every thread (AVX2/FMA when the CPU has it).
double measure_fma_peak(int n_threads, int repeats);

}  // namespace kvchat::cli
