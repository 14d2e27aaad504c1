// Tests of kvchat::Sampler and its RNG (engine/src/sampling/).
//
// Expected values come from code written independently here (a reference
// splitmix64 + xoshiro256** and a straightforward full-sort reference sampler),
// from hand computation, or from exact probabilities checked statistically.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <numeric>
#include <random>
#include <set>
#include <span>
#include <vector>

#include "kvchat/sampler.h"
#include "sampling/rng.h"

// ---------------------------------------------------------------------------
// Allocation counter: global operator new replaced for this test executable.
namespace {
std::atomic<long> g_allocations{0};
const void* volatile g_sink = nullptr;  // keeps test allocations observable
}  // namespace

// Every non-aligned form is replaced so that each allocation and its release go
// through the same pair (sanitizer runtimes supply their own otherwise).
// noinline: GCC otherwise inlines free() next to the operator new call and warns
// (-Wmismatched-new-delete) about the pairing that the replacement makes correct.
namespace {
void* counted_alloc(std::size_t size) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void* counted_alloc_or_abort(std::size_t size) noexcept {
  if (void* p = counted_alloc(size)) return p;
  std::abort();
}
}  // namespace

[[gnu::noinline]] void* operator new(std::size_t size) { return counted_alloc_or_abort(size); }
[[gnu::noinline]] void* operator new[](std::size_t size) { return counted_alloc_or_abort(size); }
[[gnu::noinline]] void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return counted_alloc(size);
}
[[gnu::noinline]] void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return counted_alloc(size);
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

using kvchat::Sampler;
using kvchat::SamplingParams;
using kvchat::TokenId;

// ---------------------------------------------------------------------------
// Independent reference RNG: splitmix64 seeding + xoshiro256**.
class RefRng {
 public:
  explicit RefRng(uint64_t seed) {
    uint64_t counter = seed;
    for (uint64_t& word : s_) {
      counter += 0x9E3779B97F4A7C15ULL;
      uint64_t z = counter;
      z ^= z >> 30;
      z *= 0xBF58476D1CE4E5B9ULL;
      z ^= z >> 27;
      z *= 0x94D049BB133111EBULL;
      z ^= z >> 31;
      word = z;
    }
  }
  RefRng(uint64_t a, uint64_t b, uint64_t c, uint64_t d) : s_{a, b, c, d} {}

  uint64_t next() {
    const uint64_t out = rot(s_[1] * 5, 7) * 9;
    const uint64_t shifted = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= shifted;
    s_[3] = rot(s_[3], 45);
    return out;
  }
  double uniform() { return std::ldexp(static_cast<double>(next() >> 11), -53); }
  const uint64_t* state() const { return s_; }

 private:
  static uint64_t rot(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// ---------------------------------------------------------------------------
// Independent reference sampler: full stable sort, probabilities normalized
// first, straight from the documented semantics. `u` is the uniform draw.
TokenId reference_sample(std::vector<float> logits, const std::vector<TokenId>& history,
                         const SamplingParams& p, double u) {
  const int n = static_cast<int>(logits.size());
  if (p.repeat_penalty != 1.0f && p.repeat_last_n > 0) {
    const size_t window = std::min(static_cast<size_t>(p.repeat_last_n), history.size());
    const std::set<TokenId> recent(history.end() - static_cast<std::ptrdiff_t>(window),
                                   history.end());
    for (TokenId id : recent) {
      if (id < 0 || id >= n) continue;
      float& l = logits[static_cast<size_t>(id)];
      l = l > 0.0f ? l / p.repeat_penalty : l * p.repeat_penalty;
    }
  }
  std::vector<int> idx(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
    return logits[static_cast<size_t>(a)] > logits[static_cast<size_t>(b)];
  });
  if (p.temperature <= 0.0f) return idx[0];
  if (p.top_k > 0 && p.top_k < n) idx.resize(static_cast<size_t>(p.top_k));

  const double top = logits[static_cast<size_t>(idx[0])];
  std::vector<double> prob;
  double sum = 0.0;
  for (int id : idx) {
    prob.push_back(std::exp((logits[static_cast<size_t>(id)] - top) / p.temperature));
    sum += prob.back();
  }
  for (double& q : prob) q /= sum;

  size_t keep = prob.size();
  if (p.top_p < 1.0f) {
    double cum = 0.0;
    for (size_t j = 0; j < prob.size(); ++j) {
      cum += prob[j];
      if (cum >= p.top_p - 1e-6) {
        keep = j + 1;
        break;
      }
    }
  }
  if (p.min_p > 0.0f) {
    size_t j = 1;
    while (j < keep && prob[j] >= p.min_p * prob[0] * (1.0 - 1e-6)) ++j;
    keep = j;
  }
  double kept_total = 0.0;
  for (size_t j = 0; j < keep; ++j) kept_total += prob[j];
  double cum = 0.0;
  for (size_t j = 0; j < keep; ++j) {
    cum += prob[j];
    if (u * kept_total < cum) return idx[j];
  }
  return idx[keep - 1];
}

// Params with every truncation and the penalty off.
SamplingParams plain(float temperature, uint64_t seed) {
  SamplingParams p;
  p.temperature = temperature;
  p.top_k = 0;
  p.top_p = 1.0f;
  p.min_p = 0.0f;
  p.repeat_penalty = 1.0f;
  p.repeat_last_n = 64;
  p.seed = seed;
  return p;
}

std::vector<float> log_probs(const std::vector<double>& probs) {
  std::vector<float> out;
  for (double q : probs) out.push_back(static_cast<float>(std::log(q)));
  return out;
}

// Draws `n` tokens from fresh copies of `logits`; counts per id.
std::map<TokenId, long> histogram(Sampler& s, const std::vector<float>& logits, long n) {
  std::map<TokenId, long> counts;
  std::vector<float> work;
  for (long i = 0; i < n; ++i) {
    work = logits;
    ++counts[s.sample(work, {})];
  }
  return counts;
}

std::set<TokenId> keys(const std::map<TokenId, long>& m) {
  std::set<TokenId> out;
  for (const auto& [k, v] : m) out.insert(k);
  return out;
}

// Pseudo-random logits in [lo, hi), from the reference RNG (platform independent).
std::vector<float> random_logits(size_t n, uint64_t seed, float lo, float hi) {
  RefRng r(seed);
  std::vector<float> out(n);
  for (float& x : out) x = lo + (hi - lo) * static_cast<float>(r.uniform());
  return out;
}

// Frequencies within 4 sigma of the exact probabilities.
void expect_frequencies(const std::map<TokenId, long>& counts, const std::vector<double>& exact,
                        long n) {
  for (size_t id = 0; id < exact.size(); ++id) {
    const auto it = counts.find(static_cast<TokenId>(id));
    const double observed = it == counts.end() ? 0.0 : static_cast<double>(it->second) / n;
    const double sigma = std::sqrt(exact[id] * (1.0 - exact[id]) / n);
    EXPECT_NEAR(observed, exact[id], 4.0 * sigma) << "id " << id;
  }
  long total = 0;
  for (const auto& [id, c] : counts) {
    EXPECT_GE(id, 0);
    EXPECT_LT(static_cast<size_t>(id), exact.size());
    total += c;
  }
  EXPECT_EQ(total, n);
}

// ---------------------------------------------------------------------------
// RNG

TEST(SamplerRng, SplitMix64PublishedVectorForSeed0) {
  // The well-known first outputs of splitmix64 started at 0.
  uint64_t state[4];
  kvchat::sampling::xoshiro256ss_seed(state, 0);
  EXPECT_EQ(state[0], 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(state[1], 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(state[2], 0x06C45D188009454FULL);
  EXPECT_EQ(state[3], 0xF88BB8A8724C81ECULL);
  RefRng ref(0);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(state[i], ref.state()[i]);
}

TEST(SamplerRng, XoshiroHandComputedFromState1234) {
  // s = {1,2,3,4}:
  //  out1 = rotl(2*5, 7) * 9 = 1280 * 9 = 11520; then s = {7, 0, 262146, rotl(6,45)}
  //  out2 = rotl(0*5, 7) * 9 = 0;                then s1 = 0 ^ (262146 ^ 7) = 262149
  //  out3 = rotl(262149*5, 7) * 9 = 1310745 * 128 * 9 = 1509978240
  uint64_t state[4] = {1, 2, 3, 4};
  EXPECT_EQ(kvchat::sampling::xoshiro256ss_next(state), 11520u);
  EXPECT_EQ(kvchat::sampling::xoshiro256ss_next(state), 0u);
  EXPECT_EQ(kvchat::sampling::xoshiro256ss_next(state), 1509978240u);
  RefRng ref(1, 2, 3, 4);
  EXPECT_EQ(ref.next(), 11520u);
  EXPECT_EQ(ref.next(), 0u);
  EXPECT_EQ(ref.next(), 1509978240u);
}

TEST(SamplerRng, MatchesIndependentReferenceForSeveralSeeds) {
  for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{42}, uint64_t{0xDEADBEEF},
                        std::numeric_limits<uint64_t>::max()}) {
    uint64_t state[4];
    kvchat::sampling::xoshiro256ss_seed(state, seed);
    RefRng ref(seed);
    for (int i = 0; i < 1000; ++i) {
      const uint64_t got = kvchat::sampling::xoshiro256ss_next(state);
      const uint64_t want = ref.next();
      ASSERT_EQ(got, want) << "seed " << seed << " output " << i;
    }
  }
}

TEST(SamplerRng, Uniform53TakesTheTop53Bits) {
  using kvchat::sampling::uniform53;
  EXPECT_EQ(uniform53(0), 0.0);
  EXPECT_EQ(uniform53(0x7FF), 0.0);  // only the low 11 bits: discarded
  EXPECT_EQ(uniform53(uint64_t{1} << 63), 0.5);
  EXPECT_EQ(uniform53(uint64_t{1} << 11), 0x1.0p-53);
  EXPECT_EQ(uniform53(std::numeric_limits<uint64_t>::max()), 1.0 - 0x1.0p-53);
  EXPECT_LT(uniform53(std::numeric_limits<uint64_t>::max()), 1.0);
}

TEST(SamplerRng, SamplerDrawsFollowTheSpecifiedStream) {
  // probs [0.5, 0.3, 0.2], no truncation: token = 0 if u < 0.5, 1 if u < 0.8, else 2.
  const std::vector<float> logits = log_probs({0.5, 0.3, 0.2});
  for (uint64_t seed : {uint64_t{0}, uint64_t{7}, uint64_t{123456789}}) {
    Sampler s(plain(1.0f, seed));
    RefRng ref(seed);
    for (int i = 0; i < 2000; ++i) {
      std::vector<float> work = logits;
      const TokenId got = s.sample(work, {});
      const double u = ref.uniform();
      if (std::abs(u - 0.5) < 1e-6 || std::abs(u - 0.8) < 1e-6) continue;  // float-rounding band
      const TokenId want = u < 0.5 ? 0 : (u < 0.8 ? 1 : 2);
      ASSERT_EQ(got, want) << "seed " << seed << " step " << i << " u " << u;
    }
  }
}

// ---------------------------------------------------------------------------
// argmax and greedy

TEST(SamplerArgmax, PicksTheLargestLowestIdOnTies) {
  const std::vector<float> a = {0.1f, 2.5f, -3.0f, 2.4f};
  EXPECT_EQ(kvchat::argmax(a), 1);
  const std::vector<float> ties = {1.0f, 5.0f, 3.0f, 5.0f, 5.0f};
  EXPECT_EQ(kvchat::argmax(ties), 1);
  const std::vector<float> negative = {-7.0f, -2.0f, -2.0f, -9.0f};
  EXPECT_EQ(kvchat::argmax(negative), 1);
  const std::vector<float> last = {-1.0f, -1.0f, 0.0f};
  EXPECT_EQ(kvchat::argmax(last), 2);
  const std::vector<float> one = {-100.0f};
  EXPECT_EQ(kvchat::argmax(one), 0);
  EXPECT_EQ(kvchat::argmax(std::span<const float>{}), -1);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> with_nan = {nan, 1.0f, nan, 2.0f, nan};
  EXPECT_EQ(kvchat::argmax(with_nan), 3);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> all_minus_inf = {-inf, -inf, -inf};
  EXPECT_EQ(kvchat::argmax(all_minus_inf), 0);
  const std::vector<float> nan_then_minus_inf = {nan, -inf, -inf};
  EXPECT_EQ(kvchat::argmax(nan_then_minus_inf), 1);
  const std::vector<float> all_nan = {nan, nan};
  EXPECT_EQ(kvchat::argmax(all_nan), 0);
  const std::vector<float> plus_inf = {1.0f, inf, inf};
  EXPECT_EQ(kvchat::argmax(plus_inf), 1);
}

TEST(SamplerGreedy, PicksTheMaxAndIgnoresTheRng) {
  const std::vector<float> logits = {0.5f, 3.0f, 2.9f, -1.0f, 3.0f, 1.0f};
  for (float temperature : {0.0f, -1.0f}) {
    for (uint64_t seed = 0; seed < 20; ++seed) {
      Sampler s(plain(temperature, seed));
      for (int i = 0; i < 10; ++i) {
        std::vector<float> work = logits;
        EXPECT_EQ(s.sample(work, {}), 1) << "seed " << seed;  // 1 and 4 tie: lowest id
      }
    }
  }
  // Completely flat logits: always id 0 whatever the seed.
  const std::vector<float> flat(100, 0.25f);
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Sampler s(plain(0.0f, seed));
    std::vector<float> work = flat;
    EXPECT_EQ(s.sample(work, {}), 0);
  }
}

TEST(SamplerGreedy, DefaultTruncationsDoNotMatterAtTemperatureZero) {
  SamplingParams p;  // top_k 40, top_p 0.95, min_p 0.05 ...
  p.temperature = 0.0f;
  p.repeat_penalty = 1.0f;
  const std::vector<float> logits = random_logits(5000, 3, -5.0f, 5.0f);
  Sampler s(p);
  std::vector<float> work = logits;
  EXPECT_EQ(s.sample(work, {}), kvchat::argmax(logits));
}

// ---------------------------------------------------------------------------
// top-k

TEST(SamplerTopK, TopK1AlwaysReturnsTheArgmax) {
  std::vector<float> logits = random_logits(500, 11, -3.0f, 3.0f);
  logits[123] = 7.0f;
  logits[321] = 7.0f;  // tie at the max: lowest id wins
  for (float temperature : {0.1f, 1.0f, 10.0f, 1000.0f}) {
    for (uint64_t seed = 0; seed < 50; ++seed) {
      SamplingParams p = plain(temperature, seed);
      p.top_k = 1;
      Sampler s(p);
      for (int i = 0; i < 4; ++i) {
        std::vector<float> work = logits;
        ASSERT_EQ(s.sample(work, {}), 123) << "temperature " << temperature << " seed " << seed;
      }
    }
  }
}

TEST(SamplerTopK, BoundaryTiesGoToTheLowerId) {
  // Sorted: id1 (3), id2 (3), id3 (3), id0 (1), id4 (0). top_k 2 keeps {1, 2}.
  const std::vector<float> logits = {1.0f, 3.0f, 3.0f, 3.0f, 0.0f};
  SamplingParams p = plain(100.0f, 5);
  p.top_k = 2;
  Sampler s(p);
  const auto counts = histogram(s, logits, 4000);
  EXPECT_EQ(keys(counts), (std::set<TokenId>{1, 2}));
}

TEST(SamplerTopK, RenormalizesOverTheKeptCandidates) {
  // probs [0.5, 0.3, 0.2], top_k 2 -> [0.625, 0.375].
  SamplingParams p = plain(1.0f, 99);
  p.top_k = 2;
  Sampler s(p);
  const long n = 200000;
  expect_frequencies(histogram(s, log_probs({0.5, 0.3, 0.2}), n), {0.625, 0.375, 0.0}, n);
}

// ---------------------------------------------------------------------------
// reproducibility

std::vector<TokenId> generate(const SamplingParams& p, size_t n_vocab, int n_tokens) {
  Sampler s(p);
  std::vector<TokenId> history = {1, 2, 3};
  std::vector<TokenId> out;
  for (int step = 0; step < n_tokens; ++step) {
    std::vector<float> logits =
        random_logits(n_vocab, 1000 + static_cast<uint64_t>(step % 17), -2.0f, 2.0f);
    const TokenId t = s.sample(logits, history);
    history.push_back(t);
    out.push_back(t);
  }
  return out;
}

TEST(SamplerReproducibility, SameSeedSameSequenceDifferentSeedsDiffer) {
  SamplingParams p;  // defaults: temperature 0.8, top_k 40, top_p 0.95, min_p 0.05, penalty 1.1
  p.seed = 2024;
  const auto a = generate(p, 1000, 1000);
  const auto b = generate(p, 1000, 1000);
  EXPECT_EQ(a, b);

  for (uint64_t other : {uint64_t{2025}, uint64_t{0}, uint64_t{1}}) {
    SamplingParams q = p;
    q.seed = other;
    const auto c = generate(q, 1000, 1000);
    int differing = 0;
    for (size_t i = 0; i < a.size(); ++i) differing += a[i] != c[i] ? 1 : 0;
    EXPECT_GT(differing, 500) << "seed " << other;
  }
}

TEST(SamplerReproducibility, SequenceMatchesTheReferenceSampler) {
  // The whole pipeline (penalty over a growing history, top-k, top-p, min-p, draw)
  // against the reference implementation fed by the reference RNG.
  SamplingParams p;
  p.seed = 77;
  p.repeat_last_n = 16;
  p.repeat_penalty = 1.3f;
  Sampler s(p);
  RefRng ref(p.seed);
  std::vector<TokenId> history;
  for (int step = 0; step < 1000; ++step) {
    const std::vector<float> logits =
        random_logits(300, 5000 + static_cast<uint64_t>(step % 5), -1.0f, 3.0f);
    std::vector<float> work = logits;
    const TokenId got = s.sample(work, history);
    const TokenId want = reference_sample(logits, history, p, ref.uniform());
    ASSERT_EQ(got, want) << "step " << step;
    history.push_back(got);
  }
}

// ---------------------------------------------------------------------------
// distributions

TEST(SamplerDistribution, TemperatureOneMatchesTheProbabilities) {
  Sampler s(plain(1.0f, 12345));
  const long n = 200000;
  expect_frequencies(histogram(s, log_probs({0.5, 0.3, 0.2}), n), {0.5, 0.3, 0.2}, n);
}

TEST(SamplerDistribution, TemperatureHalfSquaresTheProbabilities) {
  // softmax(log(p) / 0.5) = p^2 / sum(p^2) = [0.25, 0.09, 0.04] / 0.38.
  Sampler s(plain(0.5f, 678));
  const long n = 200000;
  expect_frequencies(histogram(s, log_probs({0.5, 0.3, 0.2}), n),
                     {0.25 / 0.38, 0.09 / 0.38, 0.04 / 0.38}, n);
}

TEST(SamplerDistribution, TemperatureTwoTakesSquareRoots) {
  // softmax(log(p) / 2) = sqrt(p) / sum(sqrt(p)).
  Sampler s(plain(2.0f, 91));
  const long n = 200000;
  const double a = std::sqrt(0.5), b = std::sqrt(0.3), c = std::sqrt(0.2);
  const double z = a + b + c;
  expect_frequencies(histogram(s, log_probs({0.5, 0.3, 0.2}), n), {a / z, b / z, c / z}, n);
}

// ---------------------------------------------------------------------------
// top-p and min-p

TEST(SamplerTopP, KeepsTheSmallestPrefixReachingTopP) {
  const std::vector<float> logits = log_probs({0.5, 0.3, 0.15, 0.05});
  {
    SamplingParams p = plain(1.0f, 1);
    p.top_p = 0.8f;  // 0.5 + 0.3 = 0.8 reaches it
    Sampler s(p);
    const long n = 20000;
    const auto counts = histogram(s, logits, n);
    EXPECT_EQ(keys(counts), (std::set<TokenId>{0, 1}));
    expect_frequencies(counts, {0.5 / 0.8, 0.3 / 0.8, 0.0, 0.0}, n);
  }
  {
    SamplingParams p = plain(1.0f, 2);
    p.top_p = 0.81f;  // needs 0.5 + 0.3 + 0.15
    Sampler s(p);
    const long n = 20000;
    const auto counts = histogram(s, logits, n);
    EXPECT_EQ(keys(counts), (std::set<TokenId>{0, 1, 2}));
    expect_frequencies(counts, {0.5 / 0.95, 0.3 / 0.95, 0.15 / 0.95, 0.0}, n);
  }
  {
    SamplingParams p = plain(1.0f, 3);
    p.top_p = 0.3f;  // the first alone suffices
    Sampler s(p);
    EXPECT_EQ(keys(histogram(s, logits, 2000)), (std::set<TokenId>{0}));
  }
  {
    SamplingParams p = plain(1.0f, 4);
    p.top_p = 0.0f;  // at least one is kept
    Sampler s(p);
    EXPECT_EQ(keys(histogram(s, logits, 2000)), (std::set<TokenId>{0}));
  }
  {
    SamplingParams p = plain(1.0f, 5);
    p.top_p = 1.0f;  // off
    Sampler s(p);
    EXPECT_EQ(keys(histogram(s, logits, 20000)), (std::set<TokenId>{0, 1, 2, 3}));
  }
}

TEST(SamplerTopP, AppliesAfterTopKOnTheRenormalizedDistribution) {
  // probs [0.4, 0.3, 0.2, 0.1]; top_k 2 -> [4/7, 3/7]; top_p 0.5 -> only id 0
  // (without top-k, 0.4 < 0.5 would also keep id 1).
  const std::vector<float> logits = log_probs({0.4, 0.3, 0.2, 0.1});
  SamplingParams p = plain(1.0f, 8);
  p.top_p = 0.5f;
  {
    Sampler s(p);
    EXPECT_EQ(keys(histogram(s, logits, 5000)), (std::set<TokenId>{0, 1}));
  }
  p.top_k = 2;
  {
    Sampler s(p);
    EXPECT_EQ(keys(histogram(s, logits, 5000)), (std::set<TokenId>{0}));
  }
}

TEST(SamplerTopP, UsesTheTemperatureScaledProbabilities) {
  // probs [0.5, 0.3, 0.2] at temperature 0.5 -> [0.658, 0.237, 0.105]; top_p 0.85 keeps
  // {0, 1} (0.895), whereas at temperature 1 it would need id 2 as well (0.8 < 0.85).
  const std::vector<float> logits = log_probs({0.5, 0.3, 0.2});
  SamplingParams p = plain(0.5f, 10);
  p.top_p = 0.85f;
  Sampler cold(p);
  EXPECT_EQ(keys(histogram(cold, logits, 10000)), (std::set<TokenId>{0, 1}));
  p.temperature = 1.0f;
  Sampler warm(p);
  EXPECT_EQ(keys(histogram(warm, logits, 10000)), (std::set<TokenId>{0, 1, 2}));
}

TEST(SamplerMinP, KeepsProbabilitiesAtLeastMinPTimesTheMax) {
  const std::vector<float> logits = log_probs({0.5, 0.3, 0.2});
  {
    // threshold 0.5 * 0.5 = 0.25: 0.3 kept, 0.2 dropped.
    SamplingParams p = plain(1.0f, 21);
    p.min_p = 0.5f;
    Sampler s(p);
    const long n = 20000;
    const auto counts = histogram(s, logits, n);
    EXPECT_EQ(keys(counts), (std::set<TokenId>{0, 1}));
    expect_frequencies(counts, {0.625, 0.375, 0.0}, n);
  }
  {
    // threshold 0.7 * 0.5 = 0.35: only id 0.
    SamplingParams p = plain(1.0f, 22);
    p.min_p = 0.7f;
    Sampler s(p);
    EXPECT_EQ(keys(histogram(s, logits, 5000)), (std::set<TokenId>{0}));
  }
  {
    // threshold 0.4 * 0.5 = 0.2: exactly on the boundary, kept.
    SamplingParams p = plain(1.0f, 23);
    p.min_p = 0.4f;
    Sampler s(p);
    EXPECT_EQ(keys(histogram(s, logits, 20000)), (std::set<TokenId>{0, 1, 2}));
  }
  {
    // min_p above 1 still keeps the top candidate.
    SamplingParams p = plain(1.0f, 24);
    p.min_p = 2.0f;
    Sampler s(p);
    EXPECT_EQ(keys(histogram(s, logits, 2000)), (std::set<TokenId>{0}));
  }
}

TEST(SamplerMinP, CombinesWithTopPAsTheSmallerSet) {
  // probs [0.5, 0.3, 0.15, 0.05]: top_p 0.9 keeps {0,1,2}; min_p 0.5 (>= 0.25) keeps {0,1}.
  const std::vector<float> logits = log_probs({0.5, 0.3, 0.15, 0.05});
  SamplingParams p = plain(1.0f, 31);
  p.top_p = 0.9f;
  p.min_p = 0.5f;
  Sampler s(p);
  EXPECT_EQ(keys(histogram(s, logits, 10000)), (std::set<TokenId>{0, 1}));
  p.min_p = 0.2f;  // >= 0.1: {0,1,2}; top_p 0.9 also {0,1,2}
  Sampler t(p);
  EXPECT_EQ(keys(histogram(t, logits, 20000)), (std::set<TokenId>{0, 1, 2}));
}

// ---------------------------------------------------------------------------
// repetition penalty

TEST(SamplerRepeatPenalty, HandComputedValues) {
  SamplingParams p = plain(0.0f, 0);
  p.repeat_penalty = 2.0f;
  p.repeat_last_n = 4;
  Sampler s(p);
  std::vector<float> logits = {2.0f, -2.0f, 1.0f, 0.5f, -1.0f, 3.0f, 0.0f, 4.0f};
  // Last 4: {1, 1, 3, 6}; ids 0 and 5 are older and untouched; 1 counts once.
  const std::vector<TokenId> history = {5, 0, 1, 1, 3, 6};
  EXPECT_EQ(s.sample(logits, history), 7);
  const std::vector<float> want = {2.0f, -4.0f, 1.0f, 0.25f, -1.0f, 3.0f, 0.0f, 4.0f};
  EXPECT_EQ(logits, want);
}

TEST(SamplerRepeatPenalty, WindowLongerThanHistoryAndOutOfRangeIds) {
  SamplingParams p = plain(0.0f, 0);
  p.repeat_penalty = 1.5f;
  p.repeat_last_n = 64;
  Sampler s(p);
  std::vector<float> logits = {3.0f, -3.0f, 1.5f};
  const std::vector<TokenId> history = {0, 1, 0, -1, 99, 0};  // -1 and 99: ignored
  s.sample(logits, history);
  const std::vector<float> want = {2.0f, -4.5f, 1.5f};
  EXPECT_EQ(logits, want);
}

TEST(SamplerRepeatPenalty, OffWhenPenaltyIsOneOrWindowIsZero) {
  const std::vector<float> original = {2.0f, -2.0f, 1.0f};
  const std::vector<TokenId> history = {0, 1, 2};
  {
    SamplingParams p = plain(0.0f, 0);
    p.repeat_penalty = 1.0f;
    Sampler s(p);
    std::vector<float> logits = original;
    s.sample(logits, history);
    EXPECT_EQ(logits, original);
  }
  {
    SamplingParams p = plain(0.0f, 0);
    p.repeat_penalty = 3.0f;
    p.repeat_last_n = 0;
    Sampler s(p);
    std::vector<float> logits = original;
    s.sample(logits, history);
    EXPECT_EQ(logits, original);
  }
}

TEST(SamplerRepeatPenalty, ChangesTheGreedyChoiceAndTheDistribution) {
  SamplingParams p = plain(0.0f, 0);
  p.repeat_penalty = 2.0f;
  {
    Sampler s(p);
    std::vector<float> logits = {3.0f, 2.0f};  // 3 / 2 = 1.5 < 2
    const std::vector<TokenId> history = {0};
    EXPECT_EQ(s.sample(logits, history), 1);
  }
  {
    // Sampling: logits log[0.5, 0.3, 0.2] with id 0 penalized (negative logit: times 2)
    // -> weights [0.25, 0.3, 0.2] / 0.75.
    p.temperature = 1.0f;
    p.seed = 3;
    Sampler s(p);
    const std::vector<float> base = log_probs({0.5, 0.3, 0.2});
    const std::vector<TokenId> history = {0, 0};
    std::map<TokenId, long> counts;
    const long n = 200000;
    for (long i = 0; i < n; ++i) {
      std::vector<float> work = base;
      ++counts[s.sample(work, history)];
    }
    expect_frequencies(counts, {0.25 / 0.75, 0.3 / 0.75, 0.2 / 0.75}, n);
  }
}

// ---------------------------------------------------------------------------
// large vocabulary, edge cases, allocations

TEST(SamplerLargeVocab, MatchesTheReferenceForEveryTruncationMode) {
  const size_t n_vocab = 128 * 1024;
  std::vector<float> flat = random_logits(n_vocab, 404, -4.0f, 4.0f);
  std::vector<float> peaked = random_logits(n_vocab, 405, -12.0f, 0.0f);
  for (size_t i = 0; i < 50; ++i)
    peaked[(i * 2621) % n_vocab] = 6.0f + 0.1f * static_cast<float>(i % 7);

  struct Mode {
    int32_t top_k;
    float top_p;
    float min_p;
    float temperature;
  };
  const Mode modes[] = {
      {40, 1.0f, 0.0f, 0.8f},     {0, 0.95f, 0.0f, 0.8f},    {0, 1.0f, 0.05f, 1.0f},
      {0, 1.0f, 0.0f, 1.0f},      {1000, 0.9f, 0.01f, 1.2f}, {40, 0.95f, 0.05f, 0.8f},
      {100000, 0.5f, 0.0f, 0.7f},
  };
  for (const std::vector<float>* logits : {&flat, &peaked}) {
    for (const Mode& m : modes) {
      SamplingParams p = plain(m.temperature, 31337);
      p.top_k = m.top_k;
      p.top_p = m.top_p;
      p.min_p = m.min_p;
      Sampler s(p);
      RefRng ref(p.seed);
      for (int i = 0; i < 8; ++i) {
        std::vector<float> work = *logits;
        const TokenId got = s.sample(work, {});
        ASSERT_EQ(got, reference_sample(*logits, {}, p, ref.uniform()))
            << "top_k " << m.top_k << " top_p " << m.top_p << " min_p " << m.min_p << " draw " << i;
      }
    }
  }
}

TEST(SamplerEdgeCases, EmptyNanAndInfiniteLogits) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (float temperature : {0.0f, 1.0f}) {
    Sampler s(plain(temperature, 9));
    std::vector<float> empty;
    EXPECT_EQ(s.sample(empty, {}), -1);
  }
  {
    Sampler s(plain(1.0f, 9));
    const auto counts = histogram(s, {nan, 0.0f, -inf, 0.0f, nan}, 2000);
    EXPECT_EQ(keys(counts), (std::set<TokenId>{1, 3}));
  }
  {
    Sampler s(plain(1.0f, 9));
    const auto counts = histogram(s, {1.0f, inf, 2.0f, inf}, 2000);
    EXPECT_EQ(keys(counts), (std::set<TokenId>{1, 3}));
  }
  {
    Sampler s(plain(1.0f, 9));
    EXPECT_EQ(keys(histogram(s, {-inf, -inf, -inf}, 10)), (std::set<TokenId>{0}));
  }
  {
    Sampler s(plain(0.0f, 9));
    EXPECT_EQ(keys(histogram(s, {nan, -inf, 5.0f, nan}, 10)), (std::set<TokenId>{2}));
  }
}

TEST(SamplerAllocations, NoAllocationAfterTheFirstCall) {
  const size_t n_vocab = 128 * 1024;
  const std::vector<float> logits = random_logits(n_vocab, 808, -3.0f, 3.0f);
  std::vector<TokenId> history;
  for (int i = 0; i < 200; ++i) history.push_back((i * 7919) % static_cast<int>(n_vocab));

  SamplingParams greedy = plain(0.0f, 1);
  greedy.repeat_penalty = 1.2f;
  SamplingParams defaults;  // top_k 40, top_p, min_p, penalty
  SamplingParams nucleus = plain(0.9f, 2);
  nucleus.top_p = 0.9f;
  nucleus.repeat_penalty = 1.1f;
  nucleus.repeat_last_n = 128;
  SamplingParams untruncated = plain(1.0f, 3);

  for (const SamplingParams& p : {greedy, defaults, nucleus, untruncated}) {
    Sampler s(p);
    std::vector<float> work = logits;
    s.sample(work, history);  // first call may allocate
    long allocations = 0;
    for (int i = 0; i < 5; ++i) {
      std::copy(logits.begin(), logits.end(), work.begin());
      const long before = g_allocations.load();
      s.sample(work, history);
      allocations += g_allocations.load() - before;
    }
    EXPECT_EQ(allocations, 0) << "temperature " << p.temperature << " top_k " << p.top_k;
  }
}

TEST(SamplerAllocations, CounterSeesAllocations) {
  // Guards the test above: the replaced operator new really counts.
  const long before = g_allocations.load();
  auto* v = new std::vector<int>(1000);
  g_sink = v->data();
  const long after = g_allocations.load();
  delete v;
  EXPECT_GE(after - before, 2);
}

}  // namespace

namespace kvchat {
namespace {

// OpenAI's penalties over what the sampler returned, by hand on four greedy picks of the
// logits {5, 4, 3.5}:
//   frequency 0.75: 0 (5); 0 (4.25 > 4); 1 (0 is at 3.5 < 4); then 0: 3.5, 1: 3.25, 2: 3.5,
//                   a tie that the lowest id wins: 0, 0, 1, 0;
//   presence 1.2 (once per returned id): 0; 1 (3.8 < 4); 0 (3.8 > 3.5 > 2.8); 0: 0, 1, 0, 0;
//   none: always 0.
TEST(SamplerPenalties, FrequencyAndPresenceCountTheReturnedTokens) {
  auto picks = [](float frequency, float presence) {
    SamplingParams p;
    p.temperature = 0;
    p.frequency_penalty = frequency;
    p.presence_penalty = presence;
    Sampler s(p);
    std::vector<TokenId> out;
    for (int i = 0; i < 4; ++i) {
      std::vector<float> logits = {5.0f, 4.0f, 3.5f};
      out.push_back(s.sample(logits, {}));
    }
    return out;
  };
  EXPECT_EQ(picks(0.75f, 0), (std::vector<TokenId>{0, 0, 1, 0}));
  EXPECT_EQ(picks(0, 1.2f), (std::vector<TokenId>{0, 1, 0, 0}));
  EXPECT_EQ(picks(0, 0), (std::vector<TokenId>{0, 0, 0, 0}));
}

// A filter allowing a fixed set of ids (every third id, or a handful), counting its masks.
class SetFilter final : public TokenFilter {
 public:
  explicit SetFilter(std::vector<char> allowed) : allowed_(std::move(allowed)) {}
  bool allows(TokenId id) override { return allowed_[static_cast<size_t>(id)] != 0; }
  void mask(std::span<float> logits) override {
    ++masks;
    for (size_t i = 0; i < logits.size(); ++i) {
      if (!allowed_[i]) logits[i] = -std::numeric_limits<float>::infinity();
    }
  }
  int masks = 0;

 private:
  std::vector<char> allowed_;
};

// Sampling with a filter draws exactly what sampling the masked logits draws, for every
// kind of sampling, with the same seed; it masks the whole vocabulary only when the best
// candidates hold too few allowed ones.
TEST(SamplerFilter, EqualsSamplingTheMaskedLogits) {
  const size_t n = 5000;
  std::mt19937 rng(9);
  std::normal_distribution<float> logit(0.0f, 4.0f);
  for (int allowed_kind = 0; allowed_kind < 2; ++allowed_kind) {
    std::vector<char> allowed(n, 0);
    for (size_t i = 0; i < n; ++i) allowed[i] = allowed_kind == 0 ? i % 3 == 0 : i % 997 == 5;
    for (int params_kind = 0; params_kind < 5; ++params_kind) {
      SamplingParams p;
      p.seed = 77 + static_cast<uint64_t>(params_kind);
      if (params_kind == 0) p.temperature = 0;                     // greedy
      if (params_kind == 2) p.top_k = 0, p.top_p = 0.9f;           // no top-k
      if (params_kind == 3) p.top_k = 1000, p.min_p = 0.0f;        // a wide top-k
      if (params_kind == 4) p.repeat_penalty = 1.3f, p.top_k = 5;  // penalties first
      Sampler with(p), masked(p);
      SetFilter filter(allowed), reference(allowed);
      std::vector<TokenId> history;
      for (int step = 0; step < 60; ++step) {
        std::vector<float> a(n);
        for (float& x : a) x = logit(rng);
        std::vector<float> b = a;
        reference.mask(b);
        const TokenId got = with.sample(a, history, &filter);
        const TokenId want = masked.sample(b, history);
        ASSERT_EQ(got, want) << "allowed " << allowed_kind << " params " << params_kind << " step "
                             << step;
        ASSERT_TRUE(allowed[static_cast<size_t>(got)]);
        history.push_back(got);
      }
      // A third of the ids allowed: the best candidates always hold enough with top-k.
      if (allowed_kind == 0 && params_kind != 2) {
        EXPECT_EQ(filter.masks, 0) << params_kind;
      }
      if (params_kind == 2) {
        EXPECT_EQ(filter.masks, 60);
      }
    }
  }
}

}  // namespace
}  // namespace kvchat
