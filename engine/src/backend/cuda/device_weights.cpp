#include "backend/cuda/device_weights.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <utility>

#include "backend/cuda/cuda_check.h"
#include "backend/cuda_capabilities.h"
#include "model/model_weights.h"

namespace kvchat::cuda {

namespace {

constexpr uint64_t kAlign = 256;
uint64_t align_up(uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }
uint64_t bytes_of(const WeightView& w) {
  return w ? w.row_bytes * static_cast<uint64_t>(w.rows) : 0;  // an absent view: none
}

// Places host tensors at aligned offsets of one device region: first plan (offsets),
// then copy. A group of views is laid out back to back, without padding between them.
class Layout {
 public:
  // Reserves room for the views, contiguous; returns the offset of the first.
  uint64_t place(std::initializer_list<const WeightView*> group) {
    const uint64_t at = size_;
    for (const WeightView* w : group) {
      copies_.push_back({w, size_});
      size_ += bytes_of(*w);
    }
    size_ = align_up(size_);
    return at;
  }
  uint64_t size() const { return size_; }
  Status copy_to(uint8_t* device) const {
    for (const auto& [w, offset] : copies_) {
      if (!*w) continue;
      KV_CUDA_TRY(cudaMemcpy(device + offset, w->data, bytes_of(*w), cudaMemcpyHostToDevice));
    }
    return {};
  }

 private:
  uint64_t size_ = 0;
  std::vector<std::pair<const WeightView*, uint64_t>> copies_;
};

DeviceMatrix matrix(const WeightView& w, const uint8_t* base, uint64_t offset) {
  DeviceMatrix m;
  m.type = w.type;
  m.data = base + offset;
  m.rows = w.rows;
  m.cols = w.cols;
  m.row_bytes = w.row_bytes;
  return m;
}

bool same_layout(const WeightView& a, const WeightView& b) {
  return a.type == b.type && a.cols == b.cols && a.row_bytes == b.row_bytes;
}

}  // namespace

Result<DeviceWeights> DeviceWeights::upload(const ModelWeights& w, int32_t device_layers) {
  if (auto s = cuda_can_read_weights(w); !s) return Error{"uploading the weights: " + s.message()};
  const size_t n_device =
      std::min(w.layers.size(), static_cast<size_t>(std::max(device_layers, 0)));
  const bool with_output = n_device == w.layers.size();
  struct Offsets {
    uint64_t attn_norm, qkv, bias, q_norm, k_norm, wo, post_attn_norm, ffn_norm, gate_up, w_down,
        post_ffw_norm;
  };
  Layout layout;
  const uint64_t embd_at = layout.place({&w.token_embd});
  std::vector<Offsets> at(n_device);
  for (size_t l = 0; l < n_device; ++l) {
    const ModelLayerWeights& L = w.layers[l];
    at[l].attn_norm = layout.place({&L.attn_norm});
    at[l].qkv = layout.place({&L.wq, &L.wk, &L.wv});
    at[l].bias = layout.place({&L.bq, &L.bk, &L.bv});  // absent views take no bytes
    at[l].q_norm = layout.place({&L.q_norm});
    at[l].k_norm = layout.place({&L.k_norm});
    at[l].wo = layout.place({&L.wo});
    at[l].post_attn_norm = layout.place({&L.post_attn_norm});
    at[l].ffn_norm = layout.place({&L.ffn_norm});
    at[l].gate_up = layout.place({&L.w_gate, &L.w_up});
    at[l].w_down = layout.place({&L.w_down});
    at[l].post_ffw_norm = layout.place({&L.post_ffw_norm});
  }
  uint64_t out_norm_at = 0, output_at = 0;
  if (with_output) {
    out_norm_at = layout.place({&w.output_norm});
    output_at = w.tied_embeddings ? embd_at : layout.place({&w.output});
  }

  DeviceWeights d;
  auto memory = DeviceBuffer::allocate(layout.size());
  if (!memory) return Error{"uploading the weights: " + memory.message()};
  d.memory = std::move(memory.value());
  if (auto s = layout.copy_to(d.memory.get()); !s)
    return Error{"uploading the weights: " + s.message()};

  const uint8_t* base = d.memory.get();
  auto f32 = [&](uint64_t offset) { return reinterpret_cast<const float*>(base + offset); };
  // An optional tensor: null when the file has none.
  auto optional_f32 = [&](const WeightView& v, uint64_t offset) {
    return v ? f32(offset) : nullptr;
  };
  auto note_size = [&](const DeviceMatrix& m) {  // what a prefill GEMM dequantizes: block types
    if (m.type != gguf::TensorType::F32 && m.type != gguf::TensorType::F16 &&
        m.type != gguf::TensorType::BF16) {
      d.largest_matrix_values = std::max(d.largest_matrix_values, m.rows * m.cols);
    }
  };
  d.token_embd = matrix(w.token_embd, base, embd_at);
  if (with_output) {
    d.output_norm = f32(out_norm_at);
    d.output = matrix(w.output, base, output_at);
    note_size(d.output);
  }
  for (size_t l = 0; l < n_device; ++l) {
    const ModelLayerWeights& L = w.layers[l];
    DeviceLayer& D = d.layers.emplace_back();
    D.attn_norm = f32(at[l].attn_norm);
    D.ffn_norm = f32(at[l].ffn_norm);
    D.wq = matrix(L.wq, base, at[l].qkv);
    D.wk = matrix(L.wk, base, at[l].qkv + bytes_of(L.wq));
    D.wv = matrix(L.wv, base, at[l].qkv + bytes_of(L.wq) + bytes_of(L.wk));
    D.qkv_fused = same_layout(L.wq, L.wk) && same_layout(L.wq, L.wv);
    if (D.qkv_fused) {
      D.wqkv = D.wq;
      D.wqkv.rows = L.wq.rows + L.wk.rows + L.wv.rows;
    }
    D.bq = optional_f32(L.bq, at[l].bias);
    D.bk = optional_f32(L.bk, at[l].bias + bytes_of(L.bq));
    D.bv = optional_f32(L.bv, at[l].bias + bytes_of(L.bq) + bytes_of(L.bk));
    D.q_norm = optional_f32(L.q_norm, at[l].q_norm);
    D.k_norm = optional_f32(L.k_norm, at[l].k_norm);
    D.wo = matrix(L.wo, base, at[l].wo);
    D.post_attn_norm = optional_f32(L.post_attn_norm, at[l].post_attn_norm);
    D.post_ffw_norm = optional_f32(L.post_ffw_norm, at[l].post_ffw_norm);
    D.w_gate = matrix(L.w_gate, base, at[l].gate_up);
    D.w_up = matrix(L.w_up, base, at[l].gate_up + bytes_of(L.w_gate));
    D.gate_up_fused = same_layout(L.w_gate, L.w_up);
    if (D.gate_up_fused) {
      D.w_gate_up = D.w_gate;
      D.w_gate_up.rows = L.w_gate.rows + L.w_up.rows;
    }
    D.w_down = matrix(L.w_down, base, at[l].w_down);
    for (const DeviceMatrix* m :
         {&D.wq, &D.wk, &D.wv, &D.wo, &D.w_gate, &D.w_up, &D.w_gate_up, &D.w_down}) {
      note_size(*m);
    }
  }
  return d;
}

namespace {
std::mutex& uploads_mutex() {
  static std::mutex mutex;
  return mutex;
}
// (model weights, device layers) -> the live upload.
std::map<std::pair<const ModelWeights*, int32_t>, std::weak_ptr<const DeviceWeights>>& uploads() {
  static std::map<std::pair<const ModelWeights*, int32_t>, std::weak_ptr<const DeviceWeights>> m;
  return m;
}
}  // namespace

int32_t uploaded_device_layers(const ModelWeights& w) {
  std::lock_guard<std::mutex> lock(uploads_mutex());
  int32_t most = -1;
  for (const auto& [key, weak] : uploads()) {
    if (key.first == &w && !weak.expired()) most = std::max(most, key.second);
  }
  return most;
}

Result<std::shared_ptr<const DeviceWeights>> shared_device_weights(const ModelWeights& w,
                                                                   int32_t device_layers) {
  std::lock_guard<std::mutex> lock(uploads_mutex());
  auto& uploaded = uploads();
  const auto key = std::make_pair(&w, device_layers);
  if (auto live = uploaded[key].lock()) return live;
  auto fresh = DeviceWeights::upload(w, device_layers);
  if (!fresh) return fresh.error();
  auto shared = std::make_shared<const DeviceWeights>(std::move(fresh.value()));
  uploaded[key] = shared;
  return shared;
}

}  // namespace kvchat::cuda
