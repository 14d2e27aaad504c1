// How many threads a CPU forward pass uses when the caller does not say: one per physical
// core (SMT siblings share a core's load ports and FMA units; util/thread_pool.h), except
// that a tiny model decodes on one: its decode step's work per phase is shorter than the
// barriers between the phases. Its prefill, long enough to share, still uses every core.
#pragma once

#include <cstdint>

namespace kvchat::cpu {

// Below this many weight bytes one thread decodes at least as fast as two (crossover
// measured in docs/PERFORMANCE.md, "Threads by default": stories260K 1 MB, kjv-demo 5.6 MB,
// tiny-256 x 8 layers 5.3 MB Q8_0 and 20 MB F32 decode faster on one; 97 MB on two).
constexpr uint64_t kOneThreadDecodeBelowWeightBytes = 32ull << 20;

// Whether decode steps (chunks of a few tokens) run on the calling thread alone: when the
// thread count was not asked for (requested <= 0) and the model is that small.
bool decode_on_one_thread(int32_t requested, uint64_t weight_bytes);

}  // namespace kvchat::cpu
