// The sampler's random number generator, defined bit for bit so that a seed
// gives the same stream on every platform and standard library:
//   - the 256-bit state is seeded with four successive outputs of splitmix64
//     started at `seed`;
//   - outputs come from xoshiro256** (Blackman & Vigna);
//   - a uniform double in [0, 1) takes the top 53 bits: (x >> 11) * 2^-53.
#pragma once

#include <bit>
#include <cstdint>

namespace kvchat::sampling {

// One splitmix64 step: advances `x` and returns the mixed value.
inline uint64_t splitmix64_next(uint64_t& x) {
  x += 0x9e3779b97f4a7c15ULL;
  uint64_t z = x;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Fills the xoshiro256** state from splitmix64(seed). Never all zero: splitmix64
// is a bijection of its counter, so four successive outputs cannot all be 0.
inline void xoshiro256ss_seed(uint64_t state[4], uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 4; ++i) state[i] = splitmix64_next(x);
}

// One xoshiro256** output; advances the state.
inline uint64_t xoshiro256ss_next(uint64_t state[4]) {
  const uint64_t result = std::rotl(state[1] * 5, 7) * 9;
  const uint64_t t = state[1] << 17;
  state[2] ^= state[0];
  state[3] ^= state[1];
  state[1] ^= state[2];
  state[0] ^= state[3];
  state[2] ^= t;
  state[3] = std::rotl(state[3], 45);
  return result;
}

// The top 53 bits of `bits` as a double in [0, 1).
inline double uniform53(uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

}  // namespace kvchat::sampling
