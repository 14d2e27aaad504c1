#include "session/backend_self_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "kvchat/model.h"
#include "kvchat/session.h"

namespace kvchat {

namespace {

constexpr const char* kDemoModelFile = "kjv-demo-f16.gguf";
// The fixed prompt: scripture the demo model was trained on, cut to kMaxPromptTokens
// (the plain CPU reference takes ~10 ms a token on the demo model).
constexpr const char* kSelfCheckPrompt =
    "Genesis 1\n1 In the beginning God created the heaven and the earth.\n"
    "2 And the earth was without form, and void; and darkness was upon the face of the deep.";
constexpr int32_t kMaxPromptTokens = 32;

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g%%", fraction * 100);
  return buf;
}

// Every position's logits of `ids` on `backend`: (ids.size(), n_vocab), the first
// ids.size() - kSelfCheckDecodeSteps rows from one prefill call, the rest one token at a
// time. The session is an ordinary one, its self-check off (this is the check).
Result<std::vector<float>> evaluate(const std::shared_ptr<const Model>& model,
                                    std::string_view backend, std::span<const TokenId> ids,
                                    int32_t n_threads) {
  SessionOptions o;
  o.backend = std::string(backend);
  o.backend_self_check = false;
  o.n_threads = n_threads;
  o.n_ctx = static_cast<int32_t>(ids.size());
  o.kv_type = "f32";  // the comparison is about the forward pass, not KV rounding
  auto session = Session::create(model, o);
  if (!session) return session.error();
  const int32_t n_vocab = model->info().n_vocab;
  const size_t n_prefill = ids.size() - static_cast<size_t>(kSelfCheckDecodeSteps);
  std::vector<float> all;
  if (auto s = (*session)->eval(ids.first(n_prefill), &all); !s) return Error{s.message()};
  for (size_t i = n_prefill; i < ids.size(); ++i) {
    if (auto s = (*session)->eval(ids.subspan(i, 1)); !s) return Error{s.message()};
    const std::span<const float> row = (*session)->last_logits();
    if (row.size() != static_cast<size_t>(n_vocab)) return Error{"a decode step gave no logits"};
    all.insert(all.end(), row.begin(), row.end());
  }
  if (all.size() != ids.size() * static_cast<size_t>(n_vocab))
    return Error{"the prefill gave too few logits"};
  return all;
}

BackendSelfCheck check_now(BackendKind kind, const std::string& asked_path, int32_t n_threads) {
  BackendSelfCheck r;
  r.backend = std::string(backend_kind_name(kind));
  r.tolerance = kSelfCheckTolerance;
  std::string tried;
  r.model_path = asked_path.empty() ? find_demo_model(&tried) : asked_path;
  const std::string who = "the " + r.backend + " backend's self-check";
  if (r.model_path.empty()) {
    r.detail =
        who + " was skipped: the demo model " + kDemoModelFile + " was not found (" + tried + ")";
    return r;
  }
  auto model = Model::load(r.model_path);
  if (!model) {
    r.detail = who + " was skipped: the demo model cannot be read: " + model.message();
    return r;
  }
  std::vector<TokenId> ids = (*model)->tokenizer().encode(kSelfCheckPrompt, true);
  if (ids.size() > static_cast<size_t>(kMaxPromptTokens)) ids.resize(kMaxPromptTokens);
  if (ids.size() <= static_cast<size_t>(kSelfCheckDecodeSteps)) {
    r.detail = who + " was skipped: the prompt is only " + std::to_string(ids.size()) +
               " tokens on " + r.model_path;
    return r;
  }
  auto reference = evaluate(*model, backend_kind_name(BackendKind::CpuReference), ids, n_threads);
  if (!reference) {
    r.detail = who + " was skipped: the CPU reference could not evaluate the demo model: " +
               reference.message();
    return r;
  }
  auto candidate = evaluate(*model, r.backend, ids, n_threads);
  if (!candidate) {
    r.outcome = BackendSelfCheck::Outcome::Failed;
    r.detail = "the " + r.backend +
               " backend failed its self-check: it could not evaluate the demo model (" +
               r.model_path + "): " + candidate.message();
    return r;
  }
  BackendSelfCheck compared =
      compare_self_check_logits(*candidate, *reference, (*model)->info().n_vocab);
  compared.backend = r.backend;
  compared.model_path = r.model_path;
  const std::string what = " its self-check on the demo model (" +
                           std::filesystem::path(r.model_path).filename().string() + ", " +
                           std::to_string(compared.positions) +
                           " positions against the CPU reference): ";
  compared.detail = "the " + r.backend + " backend " + (compared.passed() ? "passed" : "failed") +
                    what + compared.detail;
  return compared;
}

}  // namespace

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

std::string find_demo_model(std::string* tried) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    if (tried) *tried = "the executable's directory is unknown";
    return {};
  }
  const std::filesystem::path dir = exe.parent_path();
  std::string looked;
  for (const auto& candidate : {dir / ".." / "share" / "kvchat" / "models" / kDemoModelFile,
                                dir / ".." / ".." / "resources" / "models" / kDemoModelFile}) {
    if (std::filesystem::is_regular_file(candidate, ec)) {
      return std::filesystem::weakly_canonical(candidate, ec).string();
    }
    looked += (looked.empty() ? "looked at " : ", ") + candidate.lexically_normal().string();
  }
  if (tried) *tried = looked;
  return {};
}

namespace {
std::mutex& verdicts_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::pair<BackendKind, std::string>, BackendSelfCheck>& verdicts() {
  static std::map<std::pair<BackendKind, std::string>, BackendSelfCheck> v;
  return v;
}
}  // namespace

BackendSelfCheck run_backend_self_check(BackendKind kind, const std::string& demo_model_path,
                                        int32_t n_threads) {
  const std::lock_guard<std::mutex> lock(verdicts_mutex());
  const auto key = std::make_pair(kind, demo_model_path);
  if (auto it = verdicts().find(key); it != verdicts().end()) return it->second;
  BackendSelfCheck r = check_now(kind, demo_model_path, n_threads);
  verdicts().emplace(key, r);
  return r;
}

void forget_backend_self_checks() {
  const std::lock_guard<std::mutex> lock(verdicts_mutex());
  verdicts().clear();
}

}  // namespace kvchat
