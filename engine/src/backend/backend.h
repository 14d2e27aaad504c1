// Backend: runs the model's forward pass on one kind of device. The session owns
// one backend and one KvCache; the backend reads and writes K/V through the cache.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "kvchat/result.h"
#include "kvchat/tokenizer.h"

namespace kvchat {

class Model;
class KvCache;
class KvMemory;
struct MemoryReport;

enum class BackendKind {
  Cpu,           // threaded, SIMD, batched prefill (the default)
  CpuReference,  // the plain one-token-at-a-time forward pass every fast path is tested against
  Cuda,          // registered by the kvchat_cuda target
};

std::string_view backend_kind_name(BackendKind kind);
Result<BackendKind> parse_backend_kind(std::string_view name);

struct BackendOptions {
  int32_t n_threads = 0;  // CPU threads; <= 0: per physical core (decode of tiny models on one:
                          // cpu/default_threads.h)
  int32_t n_ctx = 0;      // context length the session will use
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  // The host threads a forward pass runs on (the CPU backend's pool; 1 for the others), and
  // those a decode step runs on (fewer for a tiny model: cpu/default_threads.h).
  virtual int32_t threads() const { return 1; }
  virtual int32_t decode_threads() const { return threads(); }

  // Evaluates `tokens` at positions [pos0, pos0 + n): reads the K/V of [0, pos0) from `kv`
  // and writes those of the new tokens (the caller has reserved kv for pos0 + n).
  // logits: (n, n_vocab) row-major when all_logits, else (n_vocab) for the last token.
  virtual Status forward(std::span<const TokenId> tokens, int32_t pos0, KvCache& kv, float* logits,
                         bool all_logits) = 0;

  // Bytes of activations and other buffers this backend holds.
  virtual uint64_t scratch_bytes() const = 0;

  // Where the session's KV blocks must live for this backend; null = host memory.
  virtual std::shared_ptr<KvMemory> kv_memory() { return nullptr; }
  // Fills the device fields of a report (a GPU backend: bytes per category on the
  // device and the device's total and free memory). The CPU backends leave them 0.
  virtual void report_device_memory(MemoryReport&) const {}
};

using BackendFactory = Result<std::unique_ptr<Backend>> (*)(const Model&, const BackendOptions&);
// The CUDA target calls this from a static initializer; CPU backends are built in.
void register_backend(BackendKind kind, BackendFactory factory);
Result<std::unique_ptr<Backend>> make_backend(BackendKind kind, const Model& model,
                                              const BackendOptions& options);

}  // namespace kvchat
