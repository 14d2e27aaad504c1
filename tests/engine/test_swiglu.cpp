// The SwiGLU gate of the CPU backend (cpu_ops.h swiglu): the AVX2 path and the scalar
// definition against silu(g) * up in float64, and the AVX2 path's results independent of
// where a value sits in the range (the threads split the rows differently for decode and
// prefill).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "backend/cpu/cpu_ops.h"
#include "backend/cpu/dot.h"

namespace kvchat {
namespace {

struct Inputs {
  std::vector<float> gate, up;
};

// Gates over the range a model's see (and beyond: +-100, where e^-g under- or overflows:
// silu(-100) is ~4e-42, which either path may give as 0 or ~1e-36), zeros and both signs.
Inputs random_inputs(int64_t n) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> wide(-100.0f, 100.0f), narrow(-8.0f, 8.0f);
  Inputs in;
  for (int64_t i = 0; i < n; ++i) {
    in.gate.push_back(i % 5 == 0 ? wide(rng) : narrow(rng));
    in.up.push_back(narrow(rng));
  }
  in.gate[3] = 0.0f, in.gate[4] = -0.0f, in.gate[5] = 1e-30f, in.gate[6] = -87.5f;
  return in;
}

void expect_near_silu(const Inputs& in, const std::vector<float>& got, const char* path) {
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = in.gate[i], want = g / (1.0 + std::exp(-g)) * in.up[i];
    EXPECT_NEAR(got[i], want, 4e-7 * std::fabs(want) + 1e-30)
        << path << " value " << i << " g=" << g;
  }
}

TEST(Swiglu, ScalarAndAvx2AreSiluTimesUp) {
  const Inputs in = random_inputs(1003);
  for (bool scalar : {true, false}) {
    if (!scalar && !cpu::cpu_has_avx2()) continue;
    cpu::force_scalar_kernels(scalar);
    std::vector<float> gate = in.gate;
    cpu::swiglu(gate.data(), in.up.data(), static_cast<int64_t>(gate.size()));
    cpu::force_scalar_kernels(false);
    expect_near_silu(in, gate, scalar ? "scalar" : "avx2");
  }
}

// The same values gated as one range and as ranges starting anywhere: the same bits.
TEST(Swiglu, ResultDoesNotDependOnTheRangeSplit) {
  const Inputs in = random_inputs(203);
  std::vector<float> whole = in.gate;
  cpu::swiglu(whole.data(), in.up.data(), 203);
  for (int64_t split : {1, 3, 8, 13, 100}) {
    std::vector<float> parts = in.gate;
    cpu::swiglu(parts.data(), in.up.data(), split);
    cpu::swiglu(parts.data() + split, in.up.data() + split, 203 - split);
    EXPECT_EQ(std::memcmp(parts.data(), whole.data(), whole.size() * sizeof(float)), 0)
        << "split at " << split;
  }
}

}  // namespace
}  // namespace kvchat
