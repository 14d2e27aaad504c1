// measure_kv_quality: each KV type against f16 K/V on a short built-in text (see
// kvchat/kv_quality.h for the method).
#include "kvchat/kv_quality.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

#include "kv/kv_type.h"
#include "kvchat/kv_types.h"
#include "numeric/log_softmax.h"

namespace kvchat {

namespace {

size_t argmax(std::span<const float> row) {
  return static_cast<size_t>(std::max_element(row.begin(), row.end()) - row.begin());
}

// All logits of `ids` with `kv_type` K/V: (ids.size(), n_vocab) row-major.
Result<std::vector<float>> logits_with(const std::shared_ptr<const Model>& model,
                                       SessionOptions options, const std::string& kv_type,
                                       const std::vector<TokenId>& ids) {
  options.kv_type = kv_type;
  auto session = Session::create(model, options);
  if (!session) return session.error();
  std::vector<float> logits;
  if (auto st = (*session)->eval(ids, &logits); !st) return Error{st.message()};
  return logits;
}

}  // namespace

std::string_view kv_quality_text() {
  // Our own prose, written for this measurement (no third-party text).
  return "The lighthouse keeper climbed the stairs every evening at dusk. He counted the "
         "steps, one hundred and twelve of them, and at the top he wound the clock that "
         "turned the lamp. Ships passed far out on the water, and he wrote their names in "
         "a book when he could read them through the glass. In winter the wind came from "
         "the north and the windows shook in their frames; in summer the light stayed long "
         "over the sea and he read by it until late. His daughter lived in the town across "
         "the bay. On Sundays she rowed over with bread, apples and the week's newspapers, "
         "and they ate together at the small table by the stove while she told him what "
         "had happened in the market, at the school and on the boats. When she left he "
         "watched the little boat until it reached the harbour, then went back up the "
         "stairs to light the lamp again.";
}

Result<KvQualityReport> measure_kv_quality(std::shared_ptr<const Model> model,
                                           SessionOptions options, int32_t max_tokens,
                                           const std::function<bool()>& cancelled) {
  if (!model) return Error{"no model to measure"};
  std::vector<TokenId> ids = model->tokenizer().encode(kv_quality_text(), /*add_bos=*/true);
  const int32_t n_ctx_train = model->info().n_ctx_train;
  int32_t n = std::min<int32_t>(static_cast<int32_t>(ids.size()), max_tokens);
  if (n_ctx_train > 0) n = std::min(n, n_ctx_train);
  if (n < 2) return Error{"the KV quality text is too short for this model's context"};
  ids.resize(static_cast<size_t>(n));
  options.n_ctx = n;
  options.no_kv_cache = false;
  options.kv_budget_bytes = 0;
  options.context_policy = ContextPolicy::Stop;

  auto base = logits_with(model, options, "f16", ids);
  if (!base) return base.error();
  const size_t n_vocab = static_cast<size_t>(model->info().n_vocab);
  KvQualityReport report;
  report.model_identity = model->info().identity;
  report.tokens = n - 1;
  std::vector<double> lp, lq;
  std::vector<std::string> names;  // every single type, then the K/V pairs shown
  for (const KvTypeCost& cost : kv_type_costs()) names.push_back(cost.name);
  for (const std::string& pair : kv_type_pairs_shown()) names.push_back(pair);
  for (const std::string& name : names) {
    if (name == "f16") continue;
    // Rows must be whole blocks of each type, and rotated types need a power of two.
    const auto [k, v] = *parse_kv_types(name);
    std::string why = kv_type_unusable(k, model->info().head_dim);
    if (why.empty()) why = kv_type_unusable(v, model->info().head_dim);
    if (!why.empty()) {
      report.unusable.push_back({name, why});
      continue;
    }
    if (cancelled && cancelled()) return Error{"cancelled"};
    auto logits = logits_with(model, options, name, ids);
    if (!logits) return logits.error();
    KvTypeQuality q;
    q.kv_type = name;
    double kl_sum = 0;
    int32_t agree = 0;
    for (int32_t i = 0; i + 1 < n; ++i) {
      const std::span<const float> row(logits->data() + i * n_vocab, n_vocab);
      const std::span<const float> brow(base->data() + i * n_vocab, n_vocab);
      log_softmax(brow, lp);
      log_softmax(row, lq);
      const double kl = kl_divergence(lp, lq);
      kl_sum += kl;
      q.max_kl = std::max(q.max_kl, kl);
      agree += argmax(row) == argmax(brow);
    }
    q.mean_kl = kl_sum / report.tokens;
    q.top1_agreement = static_cast<double>(agree) / report.tokens;
    report.types.push_back(std::move(q));
  }
  return report;
}

}  // namespace kvchat
