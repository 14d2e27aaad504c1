// inspect_gguf_prefix: GgufFile::parse_header for the header, check_model_file for the
// loader's verdict, plan_memory for the figures, offload_shape for the planner's.
#include "kvchat/gguf_inspect.h"

#include <algorithm>
#include <map>

#include "backend/offload_plan.h"
#include "gguf/gguf_file.h"
#include "kv/kv_type.h"
#include "kv/memory_plan.h"
#include "model/model_check.h"
#include "util/process_memory.h"

namespace kvchat {

namespace {

// A caller that fetches exactly bytes_needed still converges in a few rounds: at least
// double the prefix (from 64 KiB), never past the file.
constexpr uint64_t kMinRequest = 64 << 10;

GgufInspection inspection_of(const gguf::GgufFile& f) {
  GgufInspection in;
  in.file_size = f.file_size();
  in.header_bytes = std::min(f.data_offset(), f.file_size());  // no tensors: may be past the end
  in.gguf_version = f.version();
  if (const gguf::Value* v = f.find("general.name"); v && v->as_string()) in.name = *v->as_string();
  if (const gguf::Value* v = f.find("general.architecture"); v && v->as_string()) {
    in.architecture = *v->as_string();
  }

  ModelCheck check = check_model_file(f);
  in.runnable = check.problems.empty();
  if (!in.runnable) {
    in.why_not = check.problems.size() == 1 ? check.problems.front()
                                            : model_problems_message("", check.problems).substr(2);
  }
  if (check.shape_known) {
    const ModelHParams& hp = *check.hparams;
    in.shape_known = true;
    in.n_layers = hp.n_layers;
    in.n_embd = hp.n_embd;
    in.n_heads = hp.n_heads;
    in.n_kv_heads = hp.n_kv_heads;
    in.head_dim = hp.head_dim;
    in.n_ff = hp.n_ff;
    in.n_vocab = hp.n_vocab;
    in.n_ctx_train = hp.n_ctx_train;
    in.sliding_window = hp.sliding_window;
    in.n_windowed_layers = hp.n_windowed_layers();
    in.offload_shape = std::make_shared<const OffloadShape>(offload_shape(hp, *check.weights));
  }

  std::map<std::string, GgufTensorTypeCount> types;
  for (const gguf::TensorInfo& t : f.tensors()) {
    GgufTensorTypeCount& c = types[std::string(gguf::tensor_type_name(t.type))];
    c.count += 1;
    c.bytes += t.n_bytes;
    in.n_params += t.n_elements;
    in.weight_bytes += t.n_bytes;
  }
  for (const auto& t : f.unsupported_tensors()) {
    GgufTensorTypeCount& c = types[std::string(gguf::ggml_type_name(t.ggml_type_id))];
    c.count += 1;
    c.supported = false;
  }
  in.n_tensors = f.tensors().size() + f.unsupported_tensors().size();
  for (auto& [name, c] : types) {
    c.type = name;
    in.tensor_types.push_back(c);
  }
  std::stable_sort(
      in.tensor_types.begin(), in.tensor_types.end(),
      [](const GgufTensorTypeCount& a, const GgufTensorTypeCount& b) { return a.bytes > b.bytes; });
  return in;
}

}  // namespace

Result<GgufFit> GgufInspection::fit(int64_t n_ctx, std::string_view kv_type,
                                    uint64_t free_bytes) const {
  if (bytes_needed > 0) return Error{"the GGUF header is incomplete: read more of the file first"};
  if (!shape_known) {
    return Error{"the memory cannot be predicted: the model's shape is not known" +
                 (architecture.empty() ? std::string() : " (architecture '" + architecture + "')")};
  }
  auto kv = parse_kv_type(kv_type);
  if (!kv) return Error{"unknown KV type '" + std::string(kv_type) + "' (" + kv_type_list() + ")"};
  MemoryPlanInput input;
  input.n_layers = n_layers;
  input.n_kv_heads = n_kv_heads;
  input.head_dim = head_dim;
  input.n_ctx_train = n_ctx_train;
  input.sliding_window = sliding_window;
  input.n_windowed_layers = n_windowed_layers;
  input.weights_bytes = weight_bytes;
  input.ctx = n_ctx > 0 ? n_ctx : n_ctx_train;
  input.kv_type = *kv;
  if (free_bytes >= weight_bytes) input.budget_bytes = free_bytes;
  auto plan = plan_memory(input);
  if (!plan) return plan.error();
  const KvTypePlan& c = plan->chosen();
  GgufFit fit;
  fit.n_ctx = input.ctx;
  fit.kv_type = std::string(kv_type_name(*kv));
  fit.weights_bytes = weight_bytes;
  fit.kv_bytes = c.used_bytes;
  fit.kv_allocated_bytes = c.allocated_bytes;
  fit.total_bytes = c.total_bytes;
  fit.free_bytes = free_bytes;
  fit.fits = c.total_bytes <= free_bytes;
  if (c.fit) {
    fit.max_ctx = c.fit->max_ctx;
    fit.max_ctx_capped = c.fit->max_ctx_capped;
    fit.concurrent_conversations = c.fit->concurrent_conversations;
  }
  return fit;
}

Result<GgufInspection> inspect_gguf_prefix(std::span<const uint8_t> prefix, uint64_t file_size) {
  auto parsed = gguf::GgufFile::parse_header(prefix, file_size, "GGUF header",
                                             /*keep_unsupported_types=*/true);
  if (!parsed) return parsed.error();
  if (parsed->bytes_needed > 0) {
    GgufInspection in;
    in.file_size = file_size;
    const uint64_t doubled =
        std::max<uint64_t>(2 * static_cast<uint64_t>(prefix.size()), kMinRequest);
    in.bytes_needed = std::max(parsed->bytes_needed, std::min(file_size, doubled));
    return in;
  }
  return inspection_of(*parsed->file);
}

Result<GgufInspection> inspect_gguf_file(const std::string& path) {
  auto file = gguf::GgufFile::open(path, /*keep_unsupported_types=*/true);
  if (!file) return file.error();
  return inspection_of(**file);
}

uint64_t available_memory_bytes() { return read_process_memory().available_bytes; }

}  // namespace kvchat
