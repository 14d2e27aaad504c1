#include "backend/cpu/repacked_weights.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "backend/cpu/dot.h"
#include "backend/cpu/repack.h"
#include "gguf/gguf_file.h"
#include "kvchat/model.h"
#include "numeric/convert.h"

namespace kvchat::cpu {

void RepackedWeights::Buffer::operator()(uint8_t* p) const { std::free(p); }

namespace {

bool can_repack(const WeightView& w, int64_t head_dim) {
  return w && !w.repacked && repackable(w.type) && w.rows % kRepackRows == 0 &&
         head_dim % kRepackRows == 0;
}

}  // namespace

std::shared_ptr<const RepackedWeights> RepackedWeights::for_model(const Model& model,
                                                                  int32_t from_layer) {
  const int32_t n_layers = static_cast<int32_t>(model.weights().layers.size());
  from_layer = std::clamp(from_layer, 0, n_layers);
  const std::string key = from_layer == 0 ? "cpu.repacked_weights"
                                          : "cpu.repacked_weights." + std::to_string(from_layer);
  auto state =
      model.backend_state(key, [&model, from_layer, n_layers]() -> std::shared_ptr<const void> {
        auto r = std::make_shared<RepackedWeights>();
        r->weights_ = model.weights();
        if (!use_avx2_kernels()) return r;
        const int64_t hd = model.hparams().head_dim;
        std::vector<WeightView*> todo;
        for (int32_t l = from_layer; l < n_layers; ++l) {
          ModelLayerWeights& L = r->weights_.layers[l];
          for (WeightView* w : {&L.wq, &L.wk, &L.wv}) {
            if (can_repack(*w, hd)) todo.push_back(w);
          }
          for (WeightView* w : {&L.wo, &L.w_gate, &L.w_up, &L.w_down}) {
            if (can_repack(*w, kRepackRows)) todo.push_back(w);
          }
        }
        if (from_layer < n_layers && can_repack(r->weights_.output, kRepackRows))
          todo.push_back(&r->weights_.output);
        for (WeightView* w : todo) {
          const uint64_t bytes = static_cast<uint64_t>(w->rows) * w->row_bytes;
          auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
          if (!p) continue;  // out of memory: this matrix stays a view of the file
          // Rows split over threads: repacking is a memory copy, several cores move it faster.
          const int64_t groups = w->rows / kRepackRows;
          const int n_threads = static_cast<int>(std::clamp<int64_t>(groups / 64, 1, 4));
          std::vector<std::thread> threads;
          for (int i = 0; i < n_threads; ++i) {
            threads.emplace_back([&, i] {
              const int64_t g0 = groups * i / n_threads, g1 = groups * (i + 1) / n_threads;
              repack_rows(w->type, w->data + g0 * kRepackRows * w->row_bytes, w->row_bytes,
                          (g1 - g0) * kRepackRows, p + g0 * kRepackRows * w->row_bytes);
            });
          }
          for (std::thread& t : threads) t.join();
          model.gguf().release_pages(
              w->data, bytes);  // tied embeddings: looked up in the copy (embedding())
          w->data = p;
          w->repacked = true;
          r->buffers_.emplace_back(p);
          r->repacked_bytes_ += bytes;
          ++r->repacked_matrices_;
        }
        return r;
      });
  return std::static_pointer_cast<const RepackedWeights>(state);
}

void RepackedWeights::embedding(int32_t token, float* out) const {
  const WeightView& e = weights_.token_embd;
  const WeightView& o = weights_.output;
  if (weights_.tied_embeddings && o.repacked) {
    // (row_bytes) the token's row in the file's layout; kept: this runs once per token.
    thread_local std::vector<uint8_t> row;
    row.resize(o.row_bytes);
    unpack_row(o.type, o.data, o.row_bytes, token, row.data());
    dequantize_row(o.type, row.data(), out, o.cols);
    return;
  }
  dequantize_row(e.type, e.row(token), out, e.cols);
}

}  // namespace kvchat::cpu
