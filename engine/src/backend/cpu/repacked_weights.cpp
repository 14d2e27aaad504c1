#include "backend/cpu/repacked_weights.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>

#include "backend/cpu/dot.h"
#include "backend/cpu/repack.h"
#include "gguf/gguf_file.h"
#include "kvchat/model.h"
#include "numeric/convert.h"
#include "util/huge_pages.h"

namespace kvchat::cpu {

void RepackedWeights::Buffer::operator()(uint8_t* p) const { std::free(p); }

namespace {

bool can_repack(const WeightView& w, int64_t head_dim) {
  return w && !w.repacked && repackable(w.type) && w.rows % kRepackRows == 0 &&
         head_dim % kRepackRows == 0;
}

// A float matrix that the SIMD float kernels stream: copied as it is (no x8 layout), unless
// the file was read in (gguf::MappedFile::read_in: already on huge pages, and independent
// of the file on disk, which a copy giving the pages back to the file would undo).
bool can_move(const WeightView& w, bool read_in) {
  using gguf::TensorType;
  return w && !w.repacked && !read_in &&
         (w.type == TensorType::F16 || w.type == TensorType::BF16 || w.type == TensorType::F32);
}

uint64_t matrix_bytes(const WeightView& w) {
  return (static_cast<uint64_t>(w.rows) * w.row_bytes + 63) / 64 * 64;
}

// w's rows into dst: repacked into the x8 layout, or copied as they are (a float matrix:
// read from the file, which skips a page fault per 4 KiB of the mapping: TinyLlama-shape
// F16, 2.2 GB, session start best of 4 1.31 s copied from the mapping, 0.46 s read), split
// over up to 4 threads (several cores move memory faster).
void fill_copy(const gguf::GgufFile& file, const WeightView& w, bool repack, uint8_t* dst) {
  const int64_t groups = w.rows / kRepackRows, rest = w.rows % kRepackRows;
  const int n_threads = static_cast<int>(std::clamp<int64_t>(groups / 64, 1, 4));
  std::vector<std::thread> threads;
  for (int i = 0; i < n_threads; ++i) {
    threads.emplace_back([&, i] {
      const int64_t g0 = groups * i / n_threads, g1 = groups * (i + 1) / n_threads;
      const uint64_t at = g0 * kRepackRows * w.row_bytes;
      const int64_t rows = (g1 - g0) * kRepackRows + (i == n_threads - 1 ? rest : 0);
      if (repack)
        repack_rows(w.type, w.data + at, w.row_bytes, rows, dst + at);
      else
        file.copy_out(w.data + at, rows * w.row_bytes, dst + at);
    });
  }
  for (std::thread& t : threads) t.join();
}

// The matrices of layers [from_layer, n_layers) (and the output) that the CPU backend
// keeps copies of, and whether each is repacked (else copied as it is).
std::vector<std::pair<WeightView*, bool>> matrices_to_copy(ModelWeights& weights, int64_t head_dim,
                                                           int32_t from_layer, bool read_in) {
  std::vector<std::pair<WeightView*, bool>> todo;
  const auto add = [&todo, read_in](WeightView* w, int64_t rows_unit) {
    if (can_repack(*w, rows_unit))
      todo.emplace_back(w, true);
    else if (can_move(*w, read_in))
      todo.emplace_back(w, false);
  };
  const int32_t n_layers = static_cast<int32_t>(weights.layers.size());
  for (int32_t l = from_layer; l < n_layers; ++l) {
    ModelLayerWeights& L = weights.layers[l];
    for (WeightView* w : {&L.wq, &L.wk, &L.wv}) add(w, head_dim);
    for (WeightView* w : {&L.wo, &L.w_gate, &L.w_up, &L.w_down}) add(w, kRepackRows);
  }
  if (from_layer < n_layers) add(&weights.output, kRepackRows);
  return todo;
}

}  // namespace

std::shared_ptr<const RepackedWeights> RepackedWeights::for_model(const Model& model,
                                                                  int32_t from_layer) {
  const int32_t n_layers = static_cast<int32_t>(model.weights().layers.size());
  from_layer = std::clamp(from_layer, 0, n_layers);
  const std::string key = from_layer == 0 ? "cpu.repacked_weights"
                                          : "cpu.repacked_weights." + std::to_string(from_layer);
  auto state = model.backend_state(key, [&model, from_layer]() -> std::shared_ptr<const void> {
    auto r = std::make_shared<RepackedWeights>();
    r->weights_ = model.weights();
    if (!use_avx2_kernels()) return r;
    const auto todo = matrices_to_copy(r->weights_, model.hparams().head_dim, from_layer,
                                       model.gguf().read_in_complete());
    uint64_t total = 0;
    for (const auto& [w, repack] : todo) total += matrix_bytes(*w);
    // One block for all matrices, so rounding up to huge pages wastes at most 2 MiB.
    uint8_t* block = total ? alloc_huge_pages(total) : nullptr;
    if (!block) return r;  // out of memory: every matrix stays a view of the file
    r->buffer_.reset(block);
    uint8_t* at = block;
    for (const auto& [w, repack] : todo) {
      fill_copy(model.gguf(), *w, repack, at);
      const uint64_t bytes = static_cast<uint64_t>(w->rows) * w->row_bytes;
      model.gguf().release_pages(w->data, bytes);  // tied embeddings: read in the copy
      w->data = at;
      w->repacked = repack;
      at += matrix_bytes(*w);
      r->copied_bytes_ += bytes;
      if (repack) {
        r->repacked_bytes_ += bytes;
        ++r->repacked_matrices_;
      }
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
  const WeightView& from = weights_.tied_embeddings ? o : e;  // o: maybe the moved copy
  dequantize_row(from.type, from.row(token), out, from.cols);
}

}  // namespace kvchat::cpu
