// What a GGUF file is and what it will cost in memory, from the first bytes of the file
// alone (a remote file read with HTTP Range requests, before it is downloaded): the
// architecture, the hyper-parameters, the tensor types, whether kvchat can run it (the
// model loader's own checks) and, through the engine's memory planner, how much memory
// the weights and the KV cache take at a context length and what fits in free memory.
// The figures equal `kvchat-cli memory --model FILE` on the whole file.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/result.h"

namespace kvchat {

struct OffloadShape;  // backend/offload_plan.h (engine-internal)

struct GgufTensorTypeCount {
  std::string type;    // "F16", "Q4_K", or the GGML name of an unsupported type ("IQ2_XXS")
  uint32_t count = 0;  // tensors of this type
  uint64_t bytes = 0;  // their data; 0 for an unsupported type (its layout is not known)
  bool supported = true;
};

// Memory at one context length and KV type, and what fits in `free_bytes`.
struct GgufFit {
  int64_t n_ctx = 0;    // tokens of one conversation
  std::string kv_type;  // "f32", "f16", "q8_0", "q4_0"
  uint64_t weights_bytes = 0;
  uint64_t kv_bytes = 0;            // K and V at exactly n_ctx tokens
  uint64_t kv_allocated_bytes = 0;  // at n_ctx rounded up to whole KV blocks
  uint64_t total_bytes = 0;         // weights + allocated KV (scratch buffers not included)
  uint64_t free_bytes = 0;          // the memory it was measured against
  bool fits = false;                // total_bytes <= free_bytes
  // With the weights in free memory (all 0 when the weights alone do not fit):
  uint64_t max_ctx = 0;                   // the longest context whose KV fits (whole blocks)
  uint64_t max_ctx_capped = 0;            // the same, at most the trained context
  uint64_t concurrent_conversations = 0;  // conversations of n_ctx tokens side by side
};

struct GgufInspection {
  // > 0: the header ends beyond the prefix given; fetch at least this many bytes from
  // the start of the file and call again (nothing else below is filled). 0: complete.
  uint64_t bytes_needed = 0;

  uint64_t file_size = 0;
  uint64_t header_bytes = 0;  // where the tensor data starts
  uint32_t gguf_version = 0;
  std::string name;          // general.name, or ""
  std::string architecture;  // general.architecture, or "" when absent

  // Hyper-parameters, when the architecture is supported and its metadata valid
  // (shape_known); else 0.
  bool shape_known = false;
  int32_t n_layers = 0, n_embd = 0, n_heads = 0, n_kv_heads = 0, head_dim = 0, n_ff = 0;
  int32_t n_vocab = 0, n_ctx_train = 0;
  int32_t sliding_window = 0, n_windowed_layers = 0;  // sliding-window layers (gemma2/3)

  // What the partial-offload planner needs (plan_offload in backend/offload_plan.h): the
  // per-layer weight bytes of the tensors found; null when the shape is not known.
  std::shared_ptr<const OffloadShape> offload_shape;

  uint64_t n_tensors = 0;                         // every tensor, of supported types or not
  uint64_t n_params = 0;                          // values in tensors of supported types
  uint64_t weight_bytes = 0;                      // tensor data of supported types
  std::vector<GgufTensorTypeCount> tensor_types;  // by descending bytes, then name

  // Whether Model::load would accept the file, with the same checks (architecture,
  // hyper-parameters, tensor types and shapes, tokenizer); why_not lists every problem.
  bool runnable = false;
  std::string why_not;

  // Weights + KV at n_ctx tokens (<= 0: the trained context) of kv_type ("f32", "f16",
  // "q8_0", "q4_0"), against free_bytes. Fails when the shape is not known, the KV type
  // is unknown or cannot store this shape, or the inspection is incomplete.
  Result<GgufFit> fit(int64_t n_ctx, std::string_view kv_type, uint64_t free_bytes) const;
};

// Inspects the first prefix.size() bytes of a GGUF file of file_size bytes. A malformed
// or hostile header (bad magic, absurd counts or lengths, truncated) is an error naming
// what is wrong, the same error the whole file gives; a prefix that ends inside the
// header gives bytes_needed > 0. The memory held is bounded by the prefix's size.
Result<GgufInspection> inspect_gguf_prefix(std::span<const uint8_t> prefix, uint64_t file_size);

// The whole local file (its header read from disk).
Result<GgufInspection> inspect_gguf_file(const std::string& path);

// Memory this machine can give a model now (MemAvailable), 0 when unknown.
uint64_t available_memory_bytes();

}  // namespace kvchat
