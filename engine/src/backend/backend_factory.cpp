#include <array>

#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/reference_backend.h"
#include "backend/cuda_capabilities.h"
#include "backend/cuda_plugin.h"
#include "kv/kv_type.h"
#include "kvchat/model.h"

namespace kvchat {

namespace {
std::array<BackendFactory, 3>& registry() {
  static std::array<BackendFactory, 3> factories{};
  return factories;
}
}  // namespace

std::string_view backend_kind_name(BackendKind kind) {
  switch (kind) {
    case BackendKind::Cpu: return "cpu";
    case BackendKind::CpuReference: return "cpu-reference";
    case BackendKind::Cuda: return "cuda";
  }
  return "unknown";
}

Result<BackendKind> parse_backend_kind(std::string_view name) {
  if (name == "auto") return BackendKind::Cuda;  // the session falls back to cpu
  for (BackendKind k : {BackendKind::Cpu, BackendKind::CpuReference, BackendKind::Cuda}) {
    if (name == backend_kind_name(k)) return k;
  }
  return Error{"unknown backend '" + std::string(name) +
               "' (expected auto, cpu, cpu-reference or cuda)"};
}

Status Backend::forward_steps(std::span<const SequenceStep> steps, int32_t n_vocab, float* logits) {
  for (size_t i = 0; i < steps.size(); ++i) {
    const SequenceStep& s = steps[i];
    if (auto st = forward(std::span<const TokenId>(&s.token, 1), s.pos, *s.kv,
                          logits + static_cast<int64_t>(i) * n_vocab, false);
        !st)
      return st;
  }
  return {};
}

Status Backend::embed(std::span<const TokenId>, float*) {
  return Error{"the " + std::string(name()) + " backend does not run part of a model"};
}
Status Backend::forward_layers(float*, int32_t, int32_t, int32_t, int32_t, KvCache&) {
  return embed({}, nullptr);
}
Status Backend::output_logits(const float*, int32_t, float*, bool) { return embed({}, nullptr); }

void register_backend(BackendKind kind, BackendFactory factory) {
  registry()[static_cast<size_t>(kind)] = factory;
}

Result<std::unique_ptr<Backend>> make_backend(BackendKind kind, const Model& model,
                                              const BackendOptions& options) {
  switch (kind) {
    case BackendKind::Cpu: return cpu::make_cpu_backend(model, options);
    case BackendKind::CpuReference: return cpu::make_reference_backend(model, options);
    case BackendKind::Cuda:
      if (auto s = cuda_can_run(model.hparams()); !s) return Error{"CUDA backend: " + s.message()};
      if (auto t = parse_kv_types(options.kv_type);
          t && (kv_rotated(t->first) || kv_rotated(t->second))) {
        return Error{"CUDA backend: the rotated KV type " + options.kv_type +
                     " runs on the CPU backend only (the CUDA kernels do not rotate K, V and Q)"};
      }
      if (auto t = parse_kv_types(options.kv_type); t && t->first != t->second) {
        return Error{"CUDA backend: K and V typed apart (" + options.kv_type +
                     ") run on the CPU backend only (the CUDA kernels read one KV type)"};
      }
      if (auto s = cuda_can_read_weights(model.weights()); !s)
        return Error{"CUDA backend: " + s.message()};
      if (!registry()[static_cast<size_t>(kind)]) {
        if (auto s = load_cuda_plugin(); !s) return Error{"CUDA backend: " + s.message()};
      }
      if (auto f = registry()[static_cast<size_t>(kind)]) return f(model, options);
      return Error{"CUDA backend: the plugin registered no backend"};
  }
  return Error{"unknown backend"};
}

}  // namespace kvchat
