// What each KV element type costs in quality on one model: how far it moves the model's
// next-token distributions away from f16 K/V (the default), measured on a short
// built-in text. The memory panel shows these figures for the loaded model (measured
// once per model, in the background) instead of the demo model's.
//
// Method (the same as `kvchat-cli perplexity --kv-type T`, docs/KV_CACHE.md): the text
// is tokenized with BOS and cut to at most max_tokens tokens; each type's session
// evaluates it in one eval() with all logits, as does an f16 session; at every position
// but the last, KL(p_f16 || p_type) of the log-softmax rows in double and whether the
// argmaxes (lowest id on ties) agree.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/model.h"
#include "kvchat/result.h"
#include "kvchat/session.h"

namespace kvchat {

struct KvTypeQuality {
  std::string kv_type;  // "f32", "q8_0", "q4_0", ..., or "K/V" ("q8_0/q4_0")
  double mean_kl = 0;   // nats, over the scored positions
  double max_kl = 0;
  double top1_agreement = 1;  // share of positions whose most likely token is f16's
};

struct KvQualityReport {
  uint64_t model_identity = 0;  // ModelInfo::identity of the model measured
  int32_t tokens = 0;           // positions scored
  // Every KV type but f16 (the baseline) the model can use, then the K/V pairs of
  // kv_type_pairs_shown() ("q8_0/q4_0").
  std::vector<KvTypeQuality> types;
  // The KV types this model cannot use (a block type whose block does not divide its
  // head_dim), each with why; not measured.
  struct Unusable {
    std::string kv_type;
    std::string reason;
  };
  std::vector<Unusable> unusable;
};

// The built-in text: about 150 words of plain English prose (public domain).
std::string_view kv_quality_text();

// Measures on `model` with `options` (backend, threads; the KV type and context are set
// here). `cancelled` is checked between the types. Fails when the model's context
// cannot hold two tokens, or an evaluation fails.
Result<KvQualityReport> measure_kv_quality(std::shared_ptr<const Model> model,
                                           SessionOptions options, int32_t max_tokens = 128,
                                           const std::function<bool()>& cancelled = {});

}  // namespace kvchat
