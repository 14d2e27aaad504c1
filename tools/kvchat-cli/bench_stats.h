// The spread of a benchmark figure over repeated runs: on a shared, noisy machine one
// sample swings a lot, so bench reports the median and the range of N samples.
#pragma once

#include <vector>

namespace kvchat::cli {

struct Spread {
  double min = 0, median = 0, max = 0;
  // Each of the three times `factor` (a figure that is a fixed multiple of the sampled
  // one, e.g. bytes/s = tokens/s x bytes per token; factor >= 0 keeps the order).
  Spread scaled(double factor) const { return {min * factor, median * factor, max * factor}; }
};

// min, median (the middle sample; with an even count, the mean of the two middle ones)
// and max of `samples`, in any order; all zero when there are none.
Spread spread_of(std::vector<double> samples);

}  // namespace kvchat::cli
