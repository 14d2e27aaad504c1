#include "session/backend_self_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "kv/kv_cache.h"
#include "kvchat/model.h"
#include "numeric/weight_type_traits.h"

namespace kvchat {

namespace {

// The prompt's text: plain English that every tokenizer encodes into more than
// kSelfCheckPrefillTokens + kSelfCheckDecodeSteps ids.
constexpr const char* kSelfCheckSentence =
    "The old man walked slowly down the long road to the village, where the children were "
    "playing in the warm evening light and their mothers called them home for supper.";

// "1 position", "24 positions".
std::string counted(int64_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g%%", fraction * 100);
  return buf;
}

// A cache of n_ctx positions of f32 K/V (the comparison is about the forward pass, not KV
// rounding) for `model`, its blocks in `memory` (null: host memory), with the model's
// sliding-window layers as a session has them.
// memory_layers: the layers whose KV lives in `memory` (the rest on the host; < 0: all), as
// the backend's sessions place them.
Result<KvCache> check_cache(const Model& model, int32_t n_ctx, std::shared_ptr<KvMemory> memory,
                            int32_t memory_layers = -1) {
  KvCacheConfig kc = KvCacheConfig::for_model(model.info(), n_ctx);
  kc.type = KvType::F32;
  kc.memory = std::move(memory);
  kc.memory_layers = memory_layers;
  return KvCache::create(kc);
}

// Every position's logits of `ids` on `backend`: (ids.size(), n_vocab), the first
// n_prefill rows from one forward call with all logits, the rest one token at a time.
Result<std::vector<float>> evaluate(Backend& backend, const Model& model, KvCache& kv,
                                    std::span<const TokenId> ids, size_t n_prefill) {
  const size_t n_vocab = static_cast<size_t>(model.info().n_vocab);
  std::vector<float> all(ids.size() * n_vocab);  // (ids.size(), n_vocab)
  const int32_t n0 = static_cast<int32_t>(n_prefill);
  if (auto s = kv.reserve(n0); !s) return Error{s.message()};
  if (auto s = backend.forward(ids.first(n_prefill), 0, kv, all.data(), true); !s)
    return Error{s.message()};
  kv.set_size(n0);
  for (size_t i = n_prefill; i < ids.size(); ++i) {
    const int32_t pos = static_cast<int32_t>(i);
    if (auto s = kv.reserve(pos + 1); !s) return Error{s.message()};
    if (auto s = backend.forward(ids.subspan(i, 1), pos, kv, all.data() + i * n_vocab, false); !s)
      return Error{"decode step at position " + std::to_string(pos) + ": " + s.message()};
    kv.set_size(pos + 1);
  }
  if (auto s = model.check_weights(); !s) return Error{s.message()};
  return all;
}

BackendSelfCheck check_now(BackendKind kind, Backend& candidate, const Model& model, int32_t n_ctx,
                           int32_t n_threads) {
  BackendSelfCheck r;
  r.backend = std::string(backend_kind_name(kind));
  r.tolerance = self_check_tolerance(model);
  r.model_path = model.info().path;
  const std::string file = std::filesystem::path(r.model_path).filename().string();
  const std::string who = "the " + r.backend + " backend's self-check on " + file;
  const int32_t n_tokens = std::min(kSelfCheckPrefillTokens + kSelfCheckDecodeSteps, n_ctx);
  if (n_tokens < 2) {
    r.detail = who + " was skipped: a context of " + counted(n_ctx, "position") +
               " has no room for a prefill and a decode step";
    return r;
  }
  const std::vector<TokenId> ids = self_check_prompt(model, n_tokens);
  const int32_t n_decode = std::min(kSelfCheckDecodeSteps, n_tokens - 1);
  const size_t n_prefill = ids.size() - static_cast<size_t>(n_decode);

  BackendOptions bo;
  bo.n_threads = n_threads;
  bo.n_ctx = n_tokens;
  // The file's weights as they are: ~30 tokens do not pay for a repacked copy of a model
  // that is meant to run on the GPU.
  bo.repack_from_layer = model.info().n_layers;
  auto cpu = make_backend(BackendKind::Cpu, model, bo);
  if (!cpu) {
    r.detail = who + " was skipped: the CPU backend cannot be made: " + cpu.message();
    return r;
  }
  auto host_kv = check_cache(model, n_tokens, nullptr);
  if (!host_kv) {
    r.detail = who + " was skipped: no KV cache for the CPU backend: " + host_kv.message();
    return r;
  }
  auto reference = evaluate(**cpu, model, *host_kv, ids, n_prefill);
  if (!reference) {
    r.detail =
        who + " was skipped: the CPU backend could not evaluate the prompt: " + reference.message();
    return r;
  }
  cpu.value().reset();  // its buffers back before the candidate runs
  auto candidate_kv =
      check_cache(model, n_tokens, candidate.kv_memory(), candidate.kv_memory_layers());
  Result<std::vector<float>> logits =
      candidate_kv ? evaluate(candidate, model, *candidate_kv, ids, n_prefill)
                   : Result<std::vector<float>>(candidate_kv.error());
  if (!logits) {
    r.outcome = BackendSelfCheck::Outcome::Failed;
    r.detail = "the " + r.backend + " backend failed its self-check: it could not evaluate " +
               file + ": " + logits.message();
    return r;
  }
  BackendSelfCheck compared =
      compare_self_check_logits(*logits, *reference, model.info().n_vocab, r.tolerance);
  compared.backend = r.backend;
  compared.model_path = r.model_path;
  const std::string what = " its self-check on " + file + " (" +
                           counted(static_cast<int64_t>(n_prefill), "prefill position") + " and " +
                           counted(n_decode, "decode step") + " against the CPU backend): ";
  compared.detail = "the " + r.backend + " backend " + (compared.passed() ? "passed" : "failed") +
                    what + compared.detail;
  return compared;
}

}  // namespace

double self_check_tolerance(const Model& model) {
  for (const auto& [name, bytes] : model.info().weight_bytes_by_type) {
    for (const WeightTypeTraits& t : weight_types()) {
      if (t.name == name && bytes > 0 && t.activation != ActivationFormat::F32) {
        return kSelfCheckQuantizedTolerance;
      }
    }
  }
  return kSelfCheckTolerance;
}

BackendSelfCheck compare_self_check_logits(std::span<const float> candidate,
                                           std::span<const float> reference, int32_t n_vocab,
                                           double tolerance) {
  BackendSelfCheck r;
  r.tolerance = tolerance;
  r.outcome = BackendSelfCheck::Outcome::Failed;
  if (n_vocab <= 0 || candidate.size() != reference.size() ||
      reference.size() % static_cast<size_t>(n_vocab) != 0) {
    r.detail = "got " + std::to_string(candidate.size()) + " logits for " +
               std::to_string(reference.size());
    return r;
  }
  const size_t n_rows = reference.size() / static_cast<size_t>(n_vocab);
  r.positions = static_cast<int32_t>(n_rows);
  int32_t first_mismatch = -1;
  for (size_t p = 0; p < n_rows; ++p) {
    const float* c = candidate.data() + p * n_vocab;
    const float* ref = reference.data() + p * n_vocab;
    double max_ref = 0, max_diff = 0;
    int32_t c_top = 0, r_top = 0;
    for (int32_t i = 0; i < n_vocab; ++i) {
      if (!std::isfinite(c[i])) {
        r.worst_position = static_cast<int32_t>(p);
        r.max_rel_diff = INFINITY;
        r.detail = "logit " + std::to_string(i) + " at position " + std::to_string(p) + " is " +
                   (std::isnan(c[i]) ? "NaN" : "infinite");
        return r;
      }
      max_ref = std::max(max_ref, std::abs(static_cast<double>(ref[i])));
      max_diff = std::max(max_diff, std::abs(static_cast<double>(c[i]) - ref[i]));
      if (c[i] > c[c_top]) c_top = i;
      if (ref[i] > ref[r_top]) r_top = i;
    }
    const double rel = max_ref > 0 ? max_diff / max_ref : max_diff;
    if (rel > r.max_rel_diff || r.worst_position < 0) {
      r.max_rel_diff = rel;
      r.worst_position = static_cast<int32_t>(p);
    }
    const double scale = max_ref > 0 ? max_ref : 1.0;
    if (c_top != r_top && static_cast<double>(ref[r_top]) - ref[c_top] > tolerance * scale) {
      if (first_mismatch < 0) first_mismatch = static_cast<int32_t>(p);
      ++r.argmax_mismatches;
    }
  }
  const bool ok = r.max_rel_diff <= tolerance && r.argmax_mismatches == 0;
  r.outcome = ok ? BackendSelfCheck::Outcome::Passed : BackendSelfCheck::Outcome::Failed;
  r.detail =
      "logits differ by up to " + percent(r.max_rel_diff) + " of the largest logit (position " +
      std::to_string(r.worst_position) + "; tolerance " + percent(tolerance) +
      "); the top token differs at " + std::to_string(r.argmax_mismatches) + " of " +
      std::to_string(r.positions) + " positions" +
      (first_mismatch >= 0 ? " (first at position " + std::to_string(first_mismatch) + ")" : "");
  return r;
}

std::vector<TokenId> self_check_prompt(const Model& model, int32_t n_tokens) {
  const int32_t n_vocab = model.info().n_vocab;
  const Tokenizer& tok = model.tokenizer();
  std::vector<TokenId> ids = tok.encode(kSelfCheckSentence, tok.bos() >= 0);
  const bool in_vocab =
      std::all_of(ids.begin(), ids.end(), [&](TokenId t) { return t >= 0 && t < n_vocab; });
  if (!in_vocab || ids.size() < static_cast<size_t>(n_tokens)) {
    ids.resize(static_cast<size_t>(n_tokens));
    for (int32_t i = 0; i < n_tokens; ++i) ids[i] = (i + 1) % n_vocab;
  }
  ids.resize(static_cast<size_t>(n_tokens));
  return ids;
}

namespace {
// What a verdict holds for: the backend kind, the model's identity and how many of its
// layers the candidate keeps on the device (kv_memory_layers(); -1: all of them).
using VerdictKey = std::tuple<BackendKind, uint64_t, int32_t>;
std::mutex& verdicts_mutex() {
  static std::mutex m;
  return m;
}
std::map<VerdictKey, BackendSelfCheck>& verdicts() {
  static std::map<VerdictKey, BackendSelfCheck> v;
  return v;
}
int& checks_run() {
  static int n = 0;
  return n;
}
}  // namespace

BackendSelfCheck run_backend_self_check(BackendKind kind, Backend& candidate, const Model& model,
                                        int32_t n_ctx, int32_t n_threads) {
  const std::lock_guard<std::mutex> lock(verdicts_mutex());
  const VerdictKey key{kind, model.info().identity, candidate.kv_memory_layers()};
  if (auto it = verdicts().find(key); it != verdicts().end()) return it->second;
  BackendSelfCheck r = check_now(kind, candidate, model, n_ctx, n_threads);
  ++checks_run();
  verdicts().emplace(key, r);
  return r;
}

int backend_self_checks_run() {
  const std::lock_guard<std::mutex> lock(verdicts_mutex());
  return checks_run();
}

void forget_backend_self_checks() {
  const std::lock_guard<std::mutex> lock(verdicts_mutex());
  verdicts().clear();
}

}  // namespace kvchat
