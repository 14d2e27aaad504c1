// How many threads a CPU forward pass uses when the caller does not say: one per physical
// core (SMT siblings share a core's load ports and FMA units), except for models so small
// that a decode step's work per thread is shorter than the barriers between its phases.
#pragma once

#include <cstdint>

namespace kvchat::cpu {

// Below this many weight bytes a decode step is ~10 us of work per layer phase: one thread
// decodes faster than two (crossover measured in docs/PERFORMANCE.md, "Threads by default").
constexpr uint64_t kOneThreadBelowWeightBytes = 32ull << 20;

// requested > 0: that many; else physical_cores, or 1 below kOneThreadBelowWeightBytes.
int32_t default_cpu_threads(int32_t requested, uint64_t weight_bytes, int32_t physical_cores);

}  // namespace kvchat::cpu
