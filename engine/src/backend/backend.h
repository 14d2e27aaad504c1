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
  // CUDA: the layers [0, gpu_layers) run on the device, the rest (and the logits, when
  // any layer stays on the host) on the CPU backend. < 0: auto, as many as the memory
  // planner fits into the device's free memory (backend/offload_plan.h).
  int32_t gpu_layers = -1;
  std::string kv_type = "f16";  // the session's KV type (the planner sizes the KV with it)
  // CPU: the matrices of layers [repack_from_layer, n_layers) (and the output, unless that
  // is n_layers) are repacked for the SIMD kernels (cpu/repacked_weights.h); the others are
  // read from the file as they are. A split's host part repacks only its own layers (the
  // device layers' file pages stay given back), the self-check's CPU side none.
  int32_t repack_from_layer = 0;
};

// One token of one sequence in a forward over several (Backend::forward_steps): the token
// at position `pos` of the sequence whose K/V `kv` holds (rows [0, pos) valid, reserved by
// the caller for pos + 1).
struct SequenceStep {
  TokenId token = 0;
  int32_t pos = 0;
  KvCache* kv = nullptr;
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

  // Batched decode: evaluates every step's token at its position in its own cache, as one
  // forward pass where the backend can (the CPU reads every weight once for all steps);
  // each step's logits equal those of forward({token}, pos, *kv) alone. Steps of one cache
  // must come in increasing positions. logits: (steps, n_vocab) row-major. The default
  // runs forward() per step.
  virtual Status forward_steps(std::span<const SequenceStep> steps, int32_t n_vocab, float* logits);

  // Bytes of activations and other buffers this backend holds.
  virtual uint64_t scratch_bytes() const = 0;

  // Where the session's KV blocks must live for this backend; null = host memory.
  virtual std::shared_ptr<KvMemory> kv_memory() { return nullptr; }
  // Partial offload: only layers [0, kv_memory_layers()) keep their KV in kv_memory(), the
  // others in host memory (KvCacheConfig::memory_layers). < 0: every layer.
  virtual int32_t kv_memory_layers() const { return -1; }

  // Partial offload, the host side of a split (the CPU backend implements these; the others
  // answer an error). x: the residual stream (n, n_embd) in host memory, row-major.
  //   embed: x = token_embd[tokens] (x embed_scale);
  //   forward_layers: layers [first, last) over x in place at positions [pos0, pos0 + n),
  //     reading and writing those layers' K/V in kv (reserved by the caller);
  //   output_logits: logits of x as forward() writes them ((n, n_vocab) when all_logits,
  //     else the last row's (n_vocab)).
  // embed, forward_layers(0, n_layers) and output_logits give forward()'s logits exactly.
  virtual Status embed(std::span<const TokenId> tokens, float* x);
  virtual Status forward_layers(float* x, int32_t n, int32_t pos0, int32_t first, int32_t last,
                                KvCache& kv);
  virtual Status output_logits(const float* x, int32_t n, float* logits, bool all_logits);
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
