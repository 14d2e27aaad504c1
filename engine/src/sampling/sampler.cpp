// Token sampling (see kvchat/sampler.h).
//
// Semantics of Sampler::sample(logits, history), in this order:
//
//  0. logit_bias: each (id, bias) with id in [0, n_vocab) adds bias to that logit (in
//     place); bias <= -100 sets it to -inf (the token is never picked, unless every
//     logit is -inf: see the edge cases). Then the frequency/presence penalties.
//  1. Repetition penalty. When repeat_penalty != 1 (and > 0) and repeat_last_n > 0,
//     every DISTINCT token id among the last repeat_last_n entries of `history` is
//     penalized once (even if it occurs several times), in place in `logits`, by the
//     llama.cpp rule: logit > 0 ? logit / penalty : logit * penalty. History ids
//     outside [0, n_vocab) are ignored. A NaN or non-positive penalty is treated as off.
//  2. temperature <= 0 (or NaN): greedy. Returns argmax(logits) of the penalized
//     logits (lowest id on ties, NaN entries ignored) and does not touch the RNG.
//  3. Otherwise exactly one uniform number u = next_uniform() is drawn per call, and
//     the candidates are all ids, ordered by (logit descending, id ascending). For
//     ordering, NaN logits count as -inf and +inf as the largest finite float.
//  4. top-k (top_k > 0 and < n_vocab): keep the first k candidates of that order, so
//     ties at the boundary go to the lower id.
//  5. Softmax over the kept candidates of logit / temperature, computed in double and
//     shifted by the maximum: w_i = exp((l_i - l_max) / T), p_i = w_i / sum(w).
//  6. top-p (top_p < 1): keep the smallest prefix of the ordered candidates whose
//     cumulative probability is >= top_p (at least one). The comparison allows a slack
//     of 1e-6 (cum >= top_p - 1e-6) so that a boundary meant exactly (e.g. top_p 0.8
//     with probabilities 0.5 + 0.3) is not lost to the float rounding of top_p and of
//     the logits.
//  7. min-p (min_p > 0): keep candidates with p >= min_p * p_max (the first one is
//     always kept); same reason, relative slack 1e-6: w_i >= min_p * (1 - 1e-6).
//     Since min-p keeps a prefix of the same order, 6 and 7 together keep the shorter
//     of the two prefixes.
//  8. Renormalize over the kept prefix and draw: walk it in order, accumulating w_i,
//     and return the first id whose cumulative weight exceeds u * sum(kept w). If
//     rounding lets the walk run off the end, the last kept candidate with w > 0 is
//     returned.
//
// With a TokenFilter the result is that of the logits with every disallowed token at -inf
// (applied after 1). Greedy and top-k (k <= 1024) first take the best max(4k, 256)
// candidates in the total order and keep the first k the filter allows: the top k of the
// masked logits, so everything after is unchanged; only when fewer are allowed (or the
// candidates run into -inf) is the whole vocabulary masked. Without top-k it is masked.
//
// Edge cases: empty logits return -1 (no RNG draw). If every logit is -inf or NaN the
// non-greedy path returns argmax(logits) (after consuming its uniform draw).
//
// Determinism: the RNG is rng.h (splitmix64-seeded xoshiro256**); the candidate order
// is a strict total order, so sorting gives the same sequence with any standard
// library; sums are taken either in id order or in that sorted order, never in the
// implementation-defined order that the heap or nth_element leaves behind.
//
// Cost: O(n_vocab) per call plus sorting of only what is needed. top-k selects with a
// bounded heap (O(n) compares, O(k log k) moves); the sorted prefix is then extended
// lazily (threshold partition + sort of the new chunk) only as far as top-p / min-p /
// the draw walk go, usually a few dozen candidates even for a 128k vocabulary. Without
// top-k, top-p and the untruncated draw need sum(w) over the whole vocabulary (one exp
// per id); min-p alone does not. candidates_ is the only scratch buffer (also used to
// deduplicate the penalty window), so after the first call with a given n_vocab
// nothing is allocated.
#include "kvchat/sampler.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <limits>

#include "sampling/rng.h"

namespace kvchat {
namespace {

using Candidate = std::pair<float, TokenId>;

constexpr double kTopPSlack = 1e-6;
constexpr double kMinPRelativeSlack = 1e-6;
constexpr double kMaxStep = 1024.0;  // nats; exp(-746) is already 0 in double
constexpr size_t kMinSortChunk = 64;
constexpr size_t kSortedSumMaxK = 1024;

// Strict total order: larger logit first, then lower id.
struct CandidateOrder {
  bool operator()(const Candidate& a, const Candidate& b) const {
    if (a.first != b.first) return a.first > b.first;
    return a.second < b.second;
  }
};

// Makes a logit usable in the total order and in the softmax.
float sanitize(float x) {
  if (std::isnan(x)) return -std::numeric_limits<float>::infinity();
  if (x == std::numeric_limits<float>::infinity()) return FLT_MAX;
  return x;
}

void apply_repeat_penalty(std::span<float> logits, std::span<const TokenId> history,
                          const SamplingParams& params, std::vector<Candidate>& scratch) {
  const float penalty = params.repeat_penalty;
  if (!(penalty > 0.0f) || penalty == 1.0f || params.repeat_last_n <= 0 || history.empty()) {
    return;
  }
  const size_t window = std::min(static_cast<size_t>(params.repeat_last_n), history.size());
  scratch.clear();
  for (TokenId id : history.last(window)) {
    if (id >= 0 && static_cast<size_t>(id) < logits.size()) scratch.emplace_back(0.0f, id);
  }
  std::sort(scratch.begin(), scratch.end(),
            [](const Candidate& a, const Candidate& b) { return a.second < b.second; });
  const auto last =
      std::unique(scratch.begin(), scratch.end(),
                  [](const Candidate& a, const Candidate& b) { return a.second == b.second; });
  for (auto it = scratch.begin(); it != last; ++it) {
    float& logit = logits[static_cast<size_t>(it->second)];
    logit = logit > 0.0f ? logit / penalty : logit * penalty;
  }
}

// top-k: candidates becomes the k best (sanitized logit, id) of logits, in no particular
// order. A bounded heap whose front is the worst kept candidate: most ids are rejected
// by one float comparison. Ids arrive in increasing order, so a logit equal to the worst
// kept one loses the tie.
void select_top_k(std::span<const float> logits, size_t k, std::vector<Candidate>& candidates) {
  const CandidateOrder order;
  candidates.resize(k);
  for (size_t i = 0; i < k; ++i) candidates[i] = {sanitize(logits[i]), static_cast<TokenId>(i)};
  std::make_heap(candidates.begin(), candidates.end(), order);
  float worst = candidates.front().first;  // the heap front's logit, kept in a register
  for (size_t i = k; i < logits.size(); ++i) {
    if (!(logits[i] > worst)) continue;  // NaN: rejected here
    const float logit = sanitize(logits[i]);
    if (!(logit > worst)) continue;  // +inf vs FLT_MAX
    std::pop_heap(candidates.begin(), candidates.end(), order);
    candidates.back() = {logit, static_cast<TokenId>(i)};
    std::push_heap(candidates.begin(), candidates.end(), order);
    worst = candidates.front().first;
  }
}

// With a filter: candidates becomes the first k allowed of the best max(4k, 256) candidates,
// in the total order (the top k of the masked logits); false when fewer are allowed there
// or the candidates reach -inf (then only masking the whole vocabulary decides).
bool allowed_top_k(std::span<const float> logits, size_t k, TokenFilter& filter,
                   std::vector<Candidate>& candidates) {
  const size_t m = std::min(logits.size(), std::max<size_t>(4 * k, 256));
  select_top_k(logits, m, candidates);
  std::sort(candidates.begin(), candidates.end(), CandidateOrder{});
  size_t kept = 0;
  for (size_t i = 0; i < m && kept < k; ++i) {
    if (candidates[i].first == -std::numeric_limits<float>::infinity()) break;
    if (filter.allows(candidates[i].second)) candidates[kept++] = candidates[i];
  }
  if (kept < k) return false;
  candidates.resize(k);
  return true;
}

// No top-k: candidates becomes every (sanitized logit, id) of logits, in id order.
void fill_candidates(std::span<const float> logits, std::vector<Candidate>& candidates) {
  candidates.resize(logits.size());
  for (size_t i = 0; i < logits.size(); ++i)
    candidates[i] = {sanitize(logits[i]), static_cast<TokenId>(i)};
}

// The kept prefix of the ordered candidates after top-p / min-p: its length and its
// total weight.
struct KeptPrefix {
  size_t length;
  double weight;
};

// The m candidates kept by top-k (all of them without top-k), with their softmax
// weights w = exp((logit - shift) / temperature), shift the maximum logit, and a lazily
// sorted prefix. Lives for one pick; candidates is Sampler::candidates_.
class KeptCandidates {
 public:
  KeptCandidates(std::vector<Candidate>& candidates, std::span<const float> logits, bool use_top_k,
                 float max_logit, double temperature)
      : candidates_(candidates),
        logits_(logits),
        m_(candidates.size()),
        use_top_k_(use_top_k),
        boundary_(candidates.front()),
        shift_(max_logit),
        temperature_(temperature) {}

  // top-p / min-p: the kept prefix of the ordered candidates (all m when both are off).
  KeptPrefix truncate(const SamplingParams& params) {
    const bool use_top_p = params.top_p < 1.0f;  // false for NaN: off
    const bool use_min_p = params.min_p > 0.0f;  // false for NaN: off
    if (!use_top_p && !use_min_p) return {m_, total_weight()};
    const double min_p_threshold = static_cast<double>(params.min_p) * (1.0 - kMinPRelativeSlack);
    const double z = use_top_p ? total_weight() : 0.0;
    const double top_p_target = static_cast<double>(params.top_p) - kTopPSlack;
    double cumulative = 0.0;
    size_t kept = 0;
    for (size_t i = 0; i < m_; ++i) {
      ensure_sorted(i + 1);
      const double w = weight(candidates_[i].first);
      if (use_min_p && i > 0 && w < min_p_threshold) break;
      cumulative += w;
      kept = i + 1;
      if (use_top_p && cumulative / z >= top_p_target) break;
    }
    return {kept, cumulative};
  }

  // Draw: first candidate of the prefix whose cumulative weight exceeds u * total.
  TokenId draw(double u, const KeptPrefix& prefix) {
    const double target = u * prefix.weight;
    double cumulative = 0.0;
    size_t last_positive = 0;
    for (size_t i = 0; i < prefix.length; ++i) {
      ensure_sorted(i + 1);
      const double w = weight(candidates_[i].first);
      cumulative += w;
      if (target < cumulative) return candidates_[i].second;
      if (w > 0.0) last_positive = i;
    }
    return candidates_[last_positive].second;
  }

 private:
  // Softmax weight of a sanitized logit: 0 for -inf.
  double weight(float logit) const {
    if (logit == -std::numeric_limits<float>::infinity()) return 0.0;
    return std::exp((static_cast<double>(logit) - shift_) / temperature_);
  }

  // Extends the sorted prefix of candidates_[0, m) to at least upto. A new chunk is
  // opened with a cheap partition that moves every remaining candidate within `step`
  // nats (of the temperature-scaled logit) of the maximum to the front; step doubles
  // per chunk and past kMaxStep (weights there are exactly 0 in double) the chunk is all
  // the rest. Chunk members precede all non-members in the total order, so taking the
  // best of the chunk (nth_element when the chunk is larger than needed) and sorting
  // them extends the prefix exactly as a full sort would.
  void ensure_sorted(size_t upto) {
    const auto base = candidates_.begin();
    while (sorted_ < upto) {
      if (sorted_ == chunk_end_) {
        auto mid = base + static_cast<ptrdiff_t>(m_);
        if (step_ <= kMaxStep) {
          const double threshold = shift_ - temperature_ * step_;
          mid = std::partition(base + static_cast<ptrdiff_t>(sorted_), mid,
                               [threshold](const Candidate& c) {
                                 return static_cast<double>(c.first) >= threshold;
                               });
          step_ *= 2.0;
        }
        chunk_end_ = static_cast<size_t>(mid - base);
        continue;  // an empty chunk just widens the step
      }
      const size_t want = std::min(chunk_end_, std::max({upto, 2 * sorted_, kMinSortChunk}));
      if (want < chunk_end_) {
        std::nth_element(base + static_cast<ptrdiff_t>(sorted_),
                         base + static_cast<ptrdiff_t>(want),
                         base + static_cast<ptrdiff_t>(chunk_end_), order_);
      }
      std::sort(base + static_cast<ptrdiff_t>(sorted_), base + static_cast<ptrdiff_t>(want),
                order_);
      sorted_ = want;
    }
  }

  // Total weight of the kept candidates, summed in a deterministic order: the sorted
  // order when top-k keeps few candidates, id order otherwise.
  double total_weight() {
    double z = 0.0;
    if (use_top_k_ && m_ <= kSortedSumMaxK) {
      ensure_sorted(m_);
      for (const Candidate& c : candidates_) z += weight(c.first);
      return z;
    }
    for (size_t i = 0; i < logits_.size(); ++i) {
      const Candidate c{sanitize(logits_[i]), static_cast<TokenId>(i)};
      if (use_top_k_ && order_(boundary_, c)) continue;  // outside the top k
      z += weight(c.first);
    }
    return z;
  }

  std::vector<Candidate>& candidates_;
  const std::span<const float> logits_;
  const size_t m_;
  const bool use_top_k_;
  const Candidate boundary_;  // with top-k: the worst kept candidate (the heap front)
  const double shift_;
  const double temperature_;
  const CandidateOrder order_{};
  size_t sorted_ = 0;  // candidates_[0, sorted_) is in the total order
  size_t chunk_end_ = 0;
  double step_ = 1.0;
};

}  // namespace

Sampler::Sampler(const SamplingParams& params) : params_(params) {
  sampling::xoshiro256ss_seed(rng_state_, params.seed);
}

double Sampler::next_uniform() {
  return sampling::uniform53(sampling::xoshiro256ss_next(rng_state_));
}

TokenId Sampler::sample(std::span<float> logits, std::span<const TokenId> history,
                        TokenFilter* filter) {
  for (const auto& [id, bias] : params_.logit_bias) {
    if (id < 0 || static_cast<size_t>(id) >= logits.size()) continue;
    logits[static_cast<size_t>(id)] = bias <= -100.0f ? -std::numeric_limits<float>::infinity()
                                                      : logits[static_cast<size_t>(id)] + bias;
  }
  const bool counted = params_.frequency_penalty != 0 || params_.presence_penalty != 0;
  if (!counted) return pick(logits, history, filter);
  if (returned_.size() < logits.size()) returned_.resize(logits.size(), 0);
  for (size_t id = 0; id < logits.size(); ++id) {
    if (const int32_t c = returned_[id]; c > 0) {
      logits[id] -= static_cast<float>(c) * params_.frequency_penalty + params_.presence_penalty;
    }
  }
  const TokenId next = pick(logits, history, filter);
  if (next >= 0 && static_cast<size_t>(next) < returned_.size()) ++returned_[next];
  return next;
}

TokenId Sampler::pick(std::span<float> logits, std::span<const TokenId> history,
                      TokenFilter* filter) {
  // TokenId is 32-bit: ids beyond its range cannot be returned.
  if (logits.size() > static_cast<size_t>(std::numeric_limits<TokenId>::max())) {
    logits = logits.first(static_cast<size_t>(std::numeric_limits<TokenId>::max()));
  }
  const size_t n_vocab = logits.size();
  if (n_vocab == 0) return -1;

  // One reservation covers both uses of the scratch buffer (greedy needs only the
  // penalty window).
  const bool greedy = !(params_.temperature > 0.0f);
  const size_t window = params_.repeat_last_n > 0
                            ? std::min(static_cast<size_t>(params_.repeat_last_n), history.size())
                            : 0;
  candidates_.reserve(greedy ? window : std::max(n_vocab, window));

  apply_repeat_penalty(logits, history, params_, candidates_);

  if (greedy) {
    if (filter && allowed_top_k(logits, 1, *filter, candidates_)) return candidates_[0].second;
    if (filter) filter->mask(logits);
    return argmax(logits);
  }

  const double u = next_uniform();

  const bool use_top_k = params_.top_k > 0 && static_cast<size_t>(params_.top_k) < n_vocab;
  const auto k = static_cast<size_t>(params_.top_k);
  const bool checked =
      filter && use_top_k && k <= kSortedSumMaxK && allowed_top_k(logits, k, *filter, candidates_);
  if (!checked) {  // (else candidates_ holds the top k of the masked logits already)
    if (filter) filter->mask(logits);
    if (use_top_k) {
      select_top_k(logits, k, candidates_);
    } else {
      fill_candidates(logits, candidates_);
    }
  }

  float max_logit = -std::numeric_limits<float>::infinity();
  for (const Candidate& c : candidates_) max_logit = std::max(max_logit, c.first);
  if (max_logit == -std::numeric_limits<float>::infinity()) return argmax(logits);

  KeptCandidates kept(candidates_, logits, use_top_k, max_logit, params_.temperature);
  const KeptPrefix prefix = kept.truncate(params_);
  return kept.draw(u, prefix);
}

TokenId argmax(std::span<const float> logits) {
  if (logits.empty()) return -1;
  // NaN never compares greater, so it is skipped without a test of its own.
  float best_value = -std::numeric_limits<float>::infinity();
  size_t best = logits.size();
  for (size_t i = 0; i < logits.size(); ++i) {
    if (logits[i] > best_value) {
      best_value = logits[i];
      best = i;
    }
  }
  if (best == logits.size()) {  // nothing above -inf: the first -inf, else 0 (all NaN)
    best = 0;
    for (size_t i = 0; i < logits.size(); ++i) {
      if (!std::isnan(logits[i])) {
        best = i;
        break;
      }
    }
  }
  return static_cast<TokenId>(best);
}

}  // namespace kvchat
