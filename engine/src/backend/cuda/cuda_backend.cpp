// The CUDA backend's setup: the device, the weights, the scratch, the RoPE tables, the KV
// block tables, the memory report and the factory (the forward pass: cuda_forward.cpp).
#include "backend/cuda/cuda_backend.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backend/cpu/cpu_backend.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/device_roofline.h"
#include "backend/cuda_plugin.h"
#include "backend/offload_plan.h"
#include "kv/kv_cache.h"
#include "kv/kv_type.h"
#include "kvchat/memory_report.h"
#include "kvchat/model.h"
#include "model/model_weights.h"

namespace kvchat::cuda {

namespace {
int round_up(int n, int step) { return (n + step - 1) / step * step; }

bool same_cache(const DeviceKv& a, const DeviceKv& b) {
  return a.blocks == b.blocks && a.type == b.type && a.n_layers == b.n_layers &&
         a.block_tokens == b.block_tokens && a.n_kv_heads == b.n_kv_heads &&
         a.head_dim == b.head_dim && a.row_bytes == b.row_bytes;
}
}  // namespace

bool CudaBackend::KvGroups::operator==(const KvGroups& o) const {
  return same_cache(group[0], o.group[0]) && same_cache(group[1], o.group[1]);
}

CudaBackend::CudaBackend(const Model& model, const BackendOptions& options)
    : hp_(model.hparams()),
      n_ctx_(options.n_ctx > 0 ? options.n_ctx : model.hparams().n_ctx_train) {}

CudaBackend::~CudaBackend() {
  if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
  if (stream_) cudaStreamDestroy(stream_);
}

Status CudaBackend::init(const Model& model, int32_t gpu_layers, std::unique_ptr<Backend> host) {
  gpu_layers_ = gpu_layers;
  host_ = std::move(host);
  cudaDeviceProp prop{};
  KV_CUDA_TRY(cudaGetDevice(&device_));
  KV_CUDA_TRY(cudaGetDeviceProperties(&prop, device_));
  device_name_ = prop.name;
  KV_CUDA_TRY(cudaStreamCreate(&stream_));
  auto weights = shared_device_weights(model.weights(), gpu_layers_);
  if (!weights) return Error{weights.message()};
  weights_ = std::move(weights.value());
  layer_group_.assign(hp_.n_layers, 0);
  layer_index_.assign(hp_.n_layers, 0);
  if (auto s = allocate_scratch(); !s) return s;
  return upload_rope_tables();
}

uint64_t CudaBackend::scratch_bytes() const {
  uint64_t bytes = 2ull * kMaxBatch * sizeof(int32_t) +
                   static_cast<uint64_t>(kLogitRows) * hp_.n_vocab * sizeof(float);
  if (host_) bytes += host_x_.bytes() + host_->scratch_bytes();
  return bytes;
}

uint64_t CudaBackend::device_scratch_bytes() const {
  uint64_t bytes = scratch_.bytes() + gemm_.scratch_bytes() + table_[0].bytes() + table_[1].bytes();
  for (const DeviceBuffer& t : rope_cs_) bytes += t.bytes();
  return bytes;
}

void CudaBackend::report_device_memory(MemoryReport& r) const {
  r.device_name = device_name_;
  r.device_weights_bytes = weights_->memory.bytes();  // shared with the model's other sessions
  r.device_kv_bytes = kv_memory_->bytes_held();
  r.device_scratch_bytes = device_scratch_bytes();
  r.gpu_layers = gpu_layers_;
  // The device's totals, asked for at most every 250 ms (a report follows every token),
  // like the host's in recent_process_memory().
  const auto now = std::chrono::steady_clock::now();
  if (now - mem_info_at_ > std::chrono::milliseconds(250)) {
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
      device_free_ = free_bytes;
      device_total_ = total_bytes;
      mem_info_at_ = now;
    } else {
      cudaGetLastError();
    }
  }
  if (device_total_ == 0) return;  // never answered: the host's figures stay
  r.device_total_bytes = r.system_total_bytes = device_total_;
  r.device_free_bytes = r.system_available_bytes = device_free_;
}

Status CudaBackend::allocate_scratch() {
  const int64_t B = kMaxBatch, dim = hp_.n_embd, qkv = hp_.q_dim() + 2 * hp_.kv_dim();
  // The attention partials for the largest decode batch at the full context.
  DeviceKv shape_kv;
  shape_kv.n_layers = hp_.n_layers;
  shape_kv.n_kv_heads = hp_.n_kv_heads;
  shape_kv.head_dim = hp_.head_dim;
  // The KV capacity is whole blocks (up to 4096 tokens each) past n_ctx at most, and the
  // partition count depends on the batch: take the largest over every decode batch.
  uint64_t partial_bytes = 0;
  for (int n = 1; n <= kGemvMaxTokens; ++n) {
    const AttentionShape shape{n, hp_.n_heads, round_up(n_ctx_ + 4096, kGraphKvStep), 0};
    partial_bytes =
        std::max<uint64_t>(partial_bytes, attention_decode_scratch_bytes(shape_kv, shape));
  }
  if (partial_bytes == 0) {
    return Error{"attention kernels do not support head_dim " + std::to_string(hp_.head_dim) +
                 " with " + std::to_string(hp_.n_heads) + " heads and " +
                 std::to_string(hp_.n_kv_heads) +
                 " KV heads (head_dim must be a multiple of 32, at most 256)"};
  }
  const uint64_t floats = B * dim * 2 + B * qkv + B * hp_.q_dim() + B * 2 * hp_.n_ff +
                          B * hp_.n_ff + B + static_cast<int64_t>(kLogitRows) * hp_.n_vocab;
  const uint64_t bytes =
      floats * sizeof(float) + 2 * B * sizeof(int32_t) + partial_bytes + 16 * 256;
  auto scratch = DeviceBuffer::allocate(bytes);
  if (!scratch) return Error{"allocating the CUDA scratch: " + scratch.message()};
  scratch_ = std::move(scratch.value());
  uint8_t* p = scratch_.get();
  auto take = [&p](uint64_t n_bytes) {
    uint8_t* at = p;
    p += (n_bytes + 255) / 256 * 256;
    return at;
  };
  a_.x = reinterpret_cast<float*>(take(B * dim * 4));
  a_.xb = reinterpret_cast<float*>(take(B * dim * 4));
  a_.qkv = reinterpret_cast<float*>(take(B * qkv * 4));
  a_.att = reinterpret_cast<float*>(take(B * hp_.q_dim() * 4));
  a_.gate_up = reinterpret_cast<float*>(take(B * 2 * hp_.n_ff * 4));
  a_.hidden = reinterpret_cast<float*>(take(B * hp_.n_ff * 4));
  a_.scale = reinterpret_cast<float*>(take(B * 4));
  a_.logits = reinterpret_cast<float*>(take(static_cast<uint64_t>(kLogitRows) * hp_.n_vocab * 4));
  a_.tokens = reinterpret_cast<int32_t*>(take(B * 4));
  a_.positions = reinterpret_cast<int32_t*>(take(B * 4));
  a_.partials = take(partial_bytes);

  const int64_t max_x = B * std::max<int64_t>(std::max<int64_t>(dim, hp_.n_ff), hp_.q_dim());
  if (auto s = gemm_.init(stream_, max_x, weights_->largest_matrix_values); !s) return s;
  if (auto s = host_io_.allocate(2 * B * sizeof(int32_t)); !s) return s;
  if (split()) {
    if (auto s = host_x_.allocate(static_cast<uint64_t>(B) * dim * sizeof(float)); !s) return s;
  }
  return host_logits_.allocate(static_cast<uint64_t>(kLogitRows) * hp_.n_vocab * sizeof(float));
}

// One cos/sin table per distinct RoPE table of the device layers (global, windowed,
// LongRoPE's long one), for this session's n_ctx: the values the CPU's RopeCosSin holds
// (theta = pos x inv_freq[i] in double, then float cos/sin x mscale), so both backends
// rotate identically.
Status CudaBackend::upload_rope_tables() {
  std::vector<const RopeTable*> tables;
  layer_rope_.assign(hp_.n_layers, 0);
  rope_neox_.assign(hp_.n_layers, 0);
  for (int32_t l = 0; l < gpu_layers_; ++l) {
    const RopeTable* t = &hp_.rope(l, n_ctx_);
    const auto it = std::find(tables.begin(), tables.end(), t);
    layer_rope_[l] = static_cast<int32_t>(it - tables.begin());
    if (it == tables.end()) tables.push_back(t);
    rope_neox_[l] = t->style == RopeStyle::Neox;
  }
  for (const RopeTable* t : tables) {
    RopeCosSin cs(*t);
    cs.cover(n_ctx_);
    const uint64_t bytes = static_cast<uint64_t>(n_ctx_) * t->n_rot * sizeof(float);
    auto buffer = DeviceBuffer::allocate(std::max<uint64_t>(bytes, 16));
    if (!buffer) return Error{"allocating a RoPE table: " + buffer.message()};
    if (bytes > 0) {
      KV_CUDA_TRY(cudaMemcpy(buffer.value().get(), cs.at(0), bytes, cudaMemcpyHostToDevice));
    }
    rope_cs_.push_back(std::move(buffer.value()));
  }
  return {};
}

// The device arrays of block pointers follow the cache's device groups' block tables; when
// the cache was replaced (another KV type, a restored snapshot) the decode graph is
// re-captured.
Status CudaBackend::sync_block_tables(KvCache& kv) {
  const KvCacheConfig& c = kv.config();
  for (int32_t l = 0; l < hp_.n_layers; ++l) {
    layer_group_[l] = kv.layer_group(l);
    layer_index_[l] = kv.layer_index(l);
    if (l < gpu_layers_ && layer_group_[l] > 1) {
      return Error{"the KV rows of device layer " + std::to_string(l) + " are in host memory"};
    }
  }
  const int max_blocks = (c.max_tokens + c.block_tokens - 1) / c.block_tokens;
  const size_t n = static_cast<size_t>(kv.token_blocks());
  for (int32_t g = 0; g < 2; ++g) {
    DeviceKv& d = kv_.group[g];
    d = DeviceKv{};
    if (kv.group_layers(g) == 0) continue;
    if (table_[g].bytes() < max_blocks * sizeof(uint8_t*)) {
      auto t = DeviceBuffer::allocate(max_blocks * sizeof(uint8_t*));
      if (!t) return Error{t.message()};
      table_[g] = std::move(t.value());
      table_host_[g].clear();
    }
    // The session reserved the blocks for this step before calling forward. Only the
    // entries that changed (usually none, or the one new block, or one a window freed) are
    // copied; nothing is allocated on a decode step.
    std::vector<uint8_t*>& host = table_host_[g];
    size_t first_changed = n;
    host.resize(n, nullptr);
    for (size_t b = 0; b < n; ++b) {
      uint8_t* block = kv.group_block(g, static_cast<int32_t>(b));
      if (block == host[b]) continue;
      if (reinterpret_cast<uintptr_t>(block) % 16 != 0) {  // the kernels' 16-byte copies
        host.clear();
        return Error{"the CUDA backend needs KV blocks of a multiple of 16 bytes; " +
                     std::to_string(kv.block_bytes()) + " bytes per block (try --kv-block 16)"};
      }
      host[b] = block;
      first_changed = std::min(first_changed, b);
    }
    if (first_changed < n) {
      // From pageable memory: the call returns once the bytes are staged, so the host
      // table may change afterwards.
      KV_CUDA_TRY(
          cudaMemcpyAsync(table_[g].get<uint8_t*>() + first_changed, host.data() + first_changed,
                          (n - first_changed) * sizeof(uint8_t*), cudaMemcpyHostToDevice, stream_));
    }
    d.blocks = table_[g].get<uint8_t*>();
    d.type = kv_storage_type(kv.key_type());  // V's is the same: make_backend refuses others
    d.n_layers = kv.group_layers(g);
    d.block_tokens = c.block_tokens;
    d.n_kv_heads = c.n_kv_heads;
    d.head_dim = c.head_dim;
    d.row_bytes = kv.row_bytes(0);
  }
  kv_capacity_ = kv.capacity();
  return {};
}

Status CudaBackend::forward(std::span<const TokenId> tokens, int32_t pos0, KvCache& kv,
                            float* logits, bool all_logits) {
  if (auto s = sync_block_tables(kv); !s) return s;
  for (size_t start = 0; start < tokens.size(); start += kMaxBatch) {
    const int n = static_cast<int>(std::min<size_t>(kMaxBatch, tokens.size() - start));
    const bool last_chunk = start + n == tokens.size();
    float* out = all_logits ? logits + start * hp_.n_vocab : (last_chunk ? logits : nullptr);
    if (auto s = forward_chunk(tokens.subspan(start, n), pos0 + static_cast<int32_t>(start), kv,
                               out, all_logits);
        !s) {
      cudaStreamSynchronize(stream_);
      cudaGetLastError();
      return s;
    }
  }
  return {};
}

namespace {

// The layers on the device: the number asked for (more than there are: all), or under
// auto those of another session's live upload of the model, else the planner's, against
// the device's free memory now at the session's context and KV type
// (backend/offload_plan.h); an error when auto fits none.
Result<int32_t> device_layers_for(const Model& model, const BackendOptions& options) {
  const ModelHParams& hp = model.hparams();
  if (options.gpu_layers >= 0) return std::min(options.gpu_layers, hp.n_layers);
  if (const int32_t live = uploaded_device_layers(model.weights()); live > 0) return live;
  size_t free_bytes = 0, total_bytes = 0;
  KV_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  const KvType kv_type = parse_kv_type(options.kv_type).value_or(KvType::F16);
  const int32_t n_ctx = options.n_ctx > 0 ? options.n_ctx : hp.n_ctx_train;
  const OffloadPlan plan =
      plan_offload(hp, model.weights(), n_ctx, kv_type, free_bytes, options.gpu_layers);
  if (plan.gpu_layers == 0) return Error{"no layer fits the GPU's free memory: " + plan.summary};
  return plan.gpu_layers;
}

Result<std::unique_ptr<Backend>> make_cuda_backend(const Model& model,
                                                   const BackendOptions& options) {
  // make_backend has checked the model against the kernels (backend/cuda_capabilities.h).
  int n_devices = 0;
  if (cudaGetDeviceCount(&n_devices) != cudaSuccess || n_devices == 0) {
    cudaGetLastError();  // clear the sticky "no device" error
    return Error{"no CUDA device"};
  }
  auto layers = device_layers_for(model, options);
  if (!layers) return Error{"CUDA backend: " + layers.message()};
  const int32_t gpu_layers = *layers;
  if (gpu_layers == 0) return cpu::make_cpu_backend(model, options);  // asked for none
  std::unique_ptr<Backend> host;
  if (gpu_layers < model.hparams().n_layers) {
    BackendOptions host_options = options;
    host_options.repack_from_layer = gpu_layers;  // the host part's own layers only
    auto cpu = cpu::make_cpu_backend(model, host_options);
    if (!cpu) return Error{"CUDA backend: the CPU part of the split: " + cpu.message()};
    host = std::move(cpu.value());
  }
  auto backend = std::make_unique<CudaBackend>(model, options);
  if (auto s = backend->init(model, gpu_layers, std::move(host)); !s)
    return Error{"CUDA backend: " + s.message()};
  return std::unique_ptr<Backend>(std::move(backend));
}

// Runs when the plugin is loaded (or at start in binaries that link the backend statically).
struct Registration {
  Registration() {
    register_backend(BackendKind::Cuda, &make_cuda_backend);
    register_cuda_roofline(&measure_device_roofline);
  }
};
Registration registration;

}  // namespace

}  // namespace kvchat::cuda
