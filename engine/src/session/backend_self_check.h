// The self-check a backend passes before a session trusts it: a fixed prompt evaluated
// on the embedded demo model by the candidate backend and by the plain CPU reference,
// the logits compared position by position. Under backend "auto" (and an explicit
// "cuda") a failed check puts the session on the CPU with the numbers in its
// backend_note(). The verdict is computed once per process for each (backend kind, demo
// model) and remembered: the check costs one demo-model load and 32 tokens on each of the
// two backends (~0.3 s, most of it the plain reference).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "backend/backend.h"

namespace kvchat {

struct BackendSelfCheck {
  enum class Outcome {
    Passed,   // every compared position within the tolerance
    Failed,   // a mismatch, non-finite logits, or the candidate could not evaluate the prompt
    Skipped,  // no demo model to run it on (not found, unreadable): nothing was verified
  };
  Outcome outcome = Outcome::Skipped;
  std::string backend;            // "cuda"
  std::string model_path;         // the demo model it ran on (empty when none was found)
  int32_t positions = 0;          // prompt positions compared (prefill rows, then decode steps)
  double max_rel_diff = 0;        // max over positions of max|cand - ref| / max|ref| (that row's)
  int32_t worst_position = -1;    // where max_rel_diff was seen
  int32_t argmax_mismatches = 0;  // positions whose top token differs (beyond a near-tie)
  double tolerance = 0;           // the max_rel_diff allowed
  std::string
      detail;  // one sentence with the numbers: why it failed or was skipped, or what passed

  bool passed() const { return outcome == Outcome::Passed; }
};

// max|cand - ref| / max|ref| allowed at every position. The CUDA tests hold f16 weights to
// 5e-3 of the float64 reference (tests/gpu); the CPU reference is within ~1e-5 of it, so a
// correct backend is within ~5e-3 of the CPU reference. Twice that is allowed; a wrong
// kernel (a missing layer, a wrong RoPE, a bad reduction) is off by 10% and more.
inline constexpr double kSelfCheckTolerance = 1e-2;
// The last tokens of the prompt are evaluated one at a time (the decode path), the
// others in one call with every position's logits (the prefill path).
inline constexpr int32_t kSelfCheckDecodeSteps = 6;

// Compares candidate logits with the reference's, both (n_rows, n_vocab) row-major; fills
// positions, max_rel_diff, worst_position, argmax_mismatches, tolerance, outcome and
// detail (backend and model_path are left to the caller). A top token that differs only
// where the reference's two candidates are within the tolerance of each other is a
// near-tie, not a mismatch. Any non-finite candidate logit fails.
BackendSelfCheck compare_self_check_logits(std::span<const float> candidate,
                                           std::span<const float> reference, int32_t n_vocab,
                                           double tolerance = kSelfCheckTolerance);

// The demo model the app ships beside its binary: <exe dir>/../share/kvchat/models/ or, in
// a build tree, <exe dir>/../../resources/models/ (kjv-demo-f16.gguf). Empty when neither
// exists; *tried (if given) lists the paths looked at.
std::string find_demo_model(std::string* tried = nullptr);

// Runs the check of `kind` against BackendKind::CpuReference on the model at
// demo_model_path (empty: find_demo_model()), or returns the remembered verdict for this
// (kind, path). Thread-safe: concurrent callers wait for the one check.
BackendSelfCheck run_backend_self_check(BackendKind kind, const std::string& demo_model_path,
                                        int32_t n_threads);

// Forgets every remembered verdict (tests that register another fake backend).
void forget_backend_self_checks();

}  // namespace kvchat
