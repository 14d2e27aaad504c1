// The self-check a backend passes before a session trusts it with a model: a few
// positions of *that* model evaluated by the candidate (the backend made for the session,
// on a temporary KvCache in its kv_memory()) and by the fast CPU backend
// (BackendKind::Cpu, on a host KvCache), the logits compared position by position: a
// prefill of kSelfCheckPrefillTokens positions (every position's logits) and then
// kSelfCheckDecodeSteps one-token decode steps. Under backend "auto" (and an explicit
// "cuda") a failed check puts the session on the CPU with the numbers in its
// backend_note().
//
// The verdict is computed once per process for each (backend kind, model identity
// (ModelInfo::identity), the candidate's device layers (kv_memory_layers())) and
// remembered, so a second session on the same model (or on another copy of the same
// file) runs nothing.
//
// Cost, once per model: the CPU side runs only the ~30 prompt tokens (one 24-token
// prefill and 6 decode steps: about 30 x 2 x n_params flops and 6 passes over the
// weights, ~1 s for a 7B model on a desktop CPU; milliseconds for the demo model), the
// candidate the same on the device. The CPU side reads the file's weights as they are
// (BackendOptions::repack_from_layer = n_layers: no repacked copy is made for a model
// meant for the GPU; the passes read the mapped file, which the upload has just paged
// in). The two caches hold f32 K/V of those ~30 positions only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backend/backend.h"

namespace kvchat {

class Model;

struct BackendSelfCheck {
  enum class Outcome {
    Passed,   // every compared position within the tolerance
    Failed,   // a mismatch, non-finite logits, or the candidate could not evaluate the prompt
    Skipped,  // the check could not run (no CPU backend, a context too short): nothing verified
  };
  Outcome outcome = Outcome::Skipped;
  std::string backend;            // "cuda"
  std::string model_path;         // the model it ran on (ModelInfo::path)
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
// 5e-3 of the float64 reference (tests/gpu); the CPU backend is within ~1e-5 of it, so a
// correct backend is within ~5e-3 of the CPU's logits. Twice that is allowed; a wrong
// kernel (a missing layer, a wrong RoPE, a bad reduction) is off by 10% and more.
inline constexpr double kSelfCheckTolerance = 1e-2;
// For a model whose matrices the CPU dots with 8-bit activations (Q4_0, Q8_0, the K-types:
// ActivationFormat other than F32, as llama.cpp does) the CPU itself is that far from the
// float result: 1.6-2.2% of max|logit| on random-weight models of 3 to 32 layers (the first
// H200 run, 2026-12-04, where every such bench fell back to the CPU at 1%). The device,
// which dots in f32/f16, is held to 5%; the top token must still agree.
inline constexpr double kSelfCheckQuantizedTolerance = 5e-2;
// The tolerance for `model`: kSelfCheckQuantizedTolerance when any of its weight types is
// dotted with quantized activations on the CPU, else kSelfCheckTolerance.
double self_check_tolerance(const Model& model);
// The prompt: kSelfCheckPrefillTokens positions in one call with every position's logits
// (the prefill path), then kSelfCheckDecodeSteps tokens one at a time (the decode path);
// fewer when the session's context is shorter (the decode steps keep at most n_ctx - 1).
inline constexpr int32_t kSelfCheckPrefillTokens = 24;
inline constexpr int32_t kSelfCheckDecodeSteps = 6;

// Compares candidate logits with the reference's, both (n_rows, n_vocab) row-major; fills
// positions, max_rel_diff, worst_position, argmax_mismatches, tolerance, outcome and
// detail (backend and model_path are left to the caller). A top token that differs only
// where the reference's two candidates are within the tolerance of each other is a
// near-tie, not a mismatch. Any non-finite candidate logit fails.
BackendSelfCheck compare_self_check_logits(std::span<const float> candidate,
                                           std::span<const float> reference, int32_t n_vocab,
                                           double tolerance = kSelfCheckTolerance);

// The check's prompt for `model`: BOS (when the vocabulary has one), then the ids of a
// fixed English sentence in the model's tokenizer, cut to n_tokens; ids 1..n_tokens (mod
// n_vocab) when the sentence gives too few. Deterministic: the same ids for the same model.
std::vector<TokenId> self_check_prompt(const Model& model, int32_t n_tokens);

// Checks `candidate`, a backend of `kind` made for `model` with a context of n_ctx
// positions, against BackendKind::Cpu (n_threads threads), or returns the remembered
// verdict for this (kind, model identity, candidate.kv_memory_layers()). The candidate
// runs the prompt on a KvCache of its own that is dropped afterwards. Thread-safe:
// concurrent callers wait for the one check.
BackendSelfCheck run_backend_self_check(BackendKind kind, Backend& candidate, const Model& model,
                                        int32_t n_ctx, int32_t n_threads);

// How many checks have run (not answered from memory) in this process.
int backend_self_checks_run();
// Forgets every remembered verdict (tests that register another fake backend).
void forget_backend_self_checks();

}  // namespace kvchat
