// Token sampling: greedy, temperature, top-k, top-p, min-p, repetition penalty.
// Seeded and reproducible: the same seed, logits and history give the same tokens
// on every platform (the RNG and the uniform draw are defined here, not by the STL).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "kvchat/tokenizer.h"

namespace kvchat {

struct SamplingParams {
  float temperature = 0.8f;     // <= 0: greedy (argmax, lowest id on ties)
  int32_t top_k = 40;           // <= 0: off
  float top_p = 0.95f;          // >= 1: off
  float min_p = 0.05f;          // <= 0: off; keeps p >= min_p * p_max
  float repeat_penalty = 1.0f;  // 1: off (default); llama.cpp rule: logit>0 ? logit/pen : logit*pen
  int32_t repeat_last_n = 64;   // how many recent tokens the penalty looks at
  // OpenAI's penalties over the tokens this sampler has returned (c times each):
  // logit -= c * frequency_penalty + (c > 0) * presence_penalty. 0: off.
  float frequency_penalty = 0, presence_penalty = 0;
  // OpenAI's logit_bias: (token id, bias) added to that token's logit before anything
  // else; a bias of -100 or less bans the token (its logit becomes -inf). Ids outside
  // the vocabulary are ignored.
  std::vector<std::pair<TokenId, float>> logit_bias{};
  uint64_t seed = 0;
};

// Which tokens may come next (a grammar: kvchat/grammar.h). allows() checks one token;
// mask() sets the logit of every token that may not come next to -inf.
class TokenFilter {
 public:
  virtual ~TokenFilter() = default;
  virtual bool allows(TokenId id) = 0;
  virtual void mask(std::span<float> logits) = 0;
};

class Sampler {
 public:
  explicit Sampler(const SamplingParams& params);

  // Chooses the next token. `logits` (n_vocab) is modified in place (penalty,
  // temperature); `history` is every token so far (prompt and generated). With a filter:
  // exactly the token sampling the masked logits would choose (same seed, same draw), found
  // by checking the best candidates one by one (greedy, top-k up to 1024) and masking the
  // whole vocabulary only when too few of them are allowed.
  TokenId sample(std::span<float> logits, std::span<const TokenId> history,
                 TokenFilter* filter = nullptr);

  const SamplingParams& params() const { return params_; }

 private:
  double next_uniform();  // [0, 1), 53 random bits
  // sample() after the frequency/presence penalties.
  TokenId pick(std::span<float> logits, std::span<const TokenId> history, TokenFilter* filter);

  SamplingParams params_;
  uint64_t rng_state_[4];  // xoshiro256** state, seeded by splitmix64(seed)
  std::vector<std::pair<float, TokenId>> candidates_;  // scratch, reused
  // With frequency/presence penalties: how often each id was returned.   (n_vocab)
  std::vector<int32_t> returned_;
};

// Index of the largest value; the lowest index on ties.
TokenId argmax(std::span<const float> logits);

}  // namespace kvchat
