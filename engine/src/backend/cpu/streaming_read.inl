// The memory-bandwidth probe's read loop (dot.h, streaming_read), included by dot.cpp,
// dot_avx2.cpp and dot_avx512.cpp inside their anonymous namespaces: the compiler widens the
// per-line adds to each file's vectors. It reads as decode reads its weights: 8 streams side
// by side (decode's 8-row tiles), each with the line 1 KB ahead fetched, since the hardware
// prefetcher stops at every 4 KB page. A plain one-stream sum of 64-bit words read 14.8 GB/s
// with 2 threads on a Sapphire Rapids-class Xeon where this loop reads 31 GB/s (and decode
// itself 27).
#pragma once

// A 64-byte line as 8 words: one ZMM register with AVX-512, two YMM with AVX2, four XMM
// otherwise (GCC and clang vector extensions).
typedef uint64_t Line64 __attribute__((vector_size(64)));

inline uint64_t streaming_read_lines(const uint8_t* p, uint64_t bytes) {
  constexpr int kStreams = 8;
  constexpr uint64_t kLine = 64, kAhead = 1024;
  const uint64_t part = bytes / kStreams / kLine * kLine;
  Line64 acc[kStreams] = {};
  for (uint64_t i = 0; i < part; i += kLine) {
    for (int s = 0; s < kStreams; ++s) {
      const uint8_t* line = p + s * part + i;
      __builtin_prefetch(line + kAhead);
      Line64 w;
      std::memcpy(&w, line, sizeof w);
      acc[s] += w;
    }
  }
  uint64_t sum = 0;
  for (const Line64& a : acc) {
    for (int k = 0; k < 8; ++k) sum += a[k];
  }
  for (uint64_t i = kStreams * part; i < bytes; ++i) sum += p[i];  // the last few bytes
  return sum;
}
