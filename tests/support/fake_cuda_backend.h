// A stand-in for the CUDA backend (tests only): the fast CPU backend wrapped, with a
// fault injected into what it returns, registered under BackendKind::Cuda. Used in
// process by test_backend_self_check and, as the plugin libkvchat-fake-cuda.so
// (fake_cuda_plugin.cpp, loaded through $KVCHAT_CUDA_PLUGIN), by kvchat-cli.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "kvchat/model.h"

namespace kvchat::test {

enum class FakeFault {
  None,         // the CPU backend's logits unchanged: a correct backend
  Offset,       // every row: logit 7 raised by `amount` x the row's largest |logit|
  DecodeOnly,   // as Offset, but only in one-token calls (a broken decode path)
  NaN,          // logit 7 of every row is NaN
  FailForward,  // forward() returns an error
};

struct FakeCudaConfig {
  FakeFault fault = FakeFault::None;
  double amount = 0.05;
  int factory_calls = 0;
  int forward_calls = 0;
};

inline FakeCudaConfig& fake_cuda_config() {
  static FakeCudaConfig config;
  return config;
}

// "none", "offset[:amount]", "decode-only[:amount]", "nan", "fail".
inline bool parse_fake_fault(const std::string& text, FakeCudaConfig& config) {
  const std::string name = text.substr(0, text.find(':'));
  if (text.find(':') != std::string::npos)
    config.amount = std::stod(text.substr(text.find(':') + 1));
  if (name == "none")
    config.fault = FakeFault::None;
  else if (name == "offset")
    config.fault = FakeFault::Offset;
  else if (name == "decode-only")
    config.fault = FakeFault::DecodeOnly;
  else if (name == "nan")
    config.fault = FakeFault::NaN;
  else if (name == "fail")
    config.fault = FakeFault::FailForward;
  else
    return false;
  return true;
}

class FakeCudaBackend : public Backend {
 public:
  explicit FakeCudaBackend(std::unique_ptr<Backend> cpu) : cpu_(std::move(cpu)) {}
  std::string_view name() const override { return "fake-cuda"; }
  Status forward(std::span<const TokenId> tokens, int32_t pos0, KvCache& kv, float* logits,
                 bool all_logits) override {
    FakeCudaConfig& c = fake_cuda_config();
    ++c.forward_calls;
    if (c.fault == FakeFault::FailForward)
      return Error{"fake CUDA: kernel launch failed (injected)"};
    if (auto s = cpu_->forward(tokens, pos0, kv, logits, all_logits); !s) return s;
    const bool perturb = c.fault == FakeFault::Offset || c.fault == FakeFault::NaN ||
                         (c.fault == FakeFault::DecodeOnly && tokens.size() == 1);
    if (!perturb) return {};
    // logits: (rows, n_vocab), n_vocab the model's (set by make_fake_cuda_backend).
    const size_t rows = all_logits ? tokens.size() : 1;
    for (size_t r = 0; r < rows; ++r) {
      float* row = logits + r * static_cast<size_t>(n_vocab_);
      float max_abs = 0;
      for (int32_t i = 0; i < n_vocab_; ++i) max_abs = std::max(max_abs, std::abs(row[i]));
      row[7] = c.fault == FakeFault::NaN ? NAN : row[7] + static_cast<float>(c.amount) * max_abs;
    }
    return {};
  }
  uint64_t scratch_bytes() const override { return cpu_->scratch_bytes(); }
  int32_t n_vocab_ = 0;

 private:
  std::unique_ptr<Backend> cpu_;
};

inline Result<std::unique_ptr<Backend>> make_fake_cuda_backend(const Model& model,
                                                               const BackendOptions& options) {
  ++fake_cuda_config().factory_calls;
  auto cpu = cpu::make_cpu_backend(model, options);
  if (!cpu) return cpu.error();
  auto fake = std::make_unique<FakeCudaBackend>(std::move(cpu).value());
  fake->n_vocab_ = model.info().n_vocab;
  return std::unique_ptr<Backend>(std::move(fake));
}

}  // namespace kvchat::test
