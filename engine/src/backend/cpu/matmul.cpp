#include "backend/cpu/matmul.h"

#include <algorithm>

#include "backend/cpu/dot.h"
#include "numeric/convert.h"

namespace kvchat::cpu {

namespace {
constexpr int64_t kRowTile = 16;  // rows converted to f32 together, then dotted with every token

// Y[b][r] = dot(rows[r], X[b]) for r < n_rows, b < n_tokens; 4 rows x 2 tokens at a time.
void tile_times_tokens(const float* rows, int64_t n_rows, const MatInput& x, float* Y, int64_t ldy) {
  const int64_t n_tokens = x.n_tokens(), cols = x.cols();
  int64_t b = 0;
  for (; b + 2 <= n_tokens; b += 2) {
    int64_t r = 0;
    for (; r + 4 <= n_rows; r += 4) {
      float out[8];
      dot_f32_4x2(rows + r * cols, cols, x.f32(b), cols, cols, out);
      for (int k = 0; k < 4; ++k) {
        Y[b * ldy + r + k] = out[k];
        Y[(b + 1) * ldy + r + k] = out[4 + k];
      }
    }
    for (; r < n_rows; ++r) {
      Y[b * ldy + r] = dot_f32(rows + r * cols, x.f32(b), cols);
      Y[(b + 1) * ldy + r] = dot_f32(rows + r * cols, x.f32(b + 1), cols);
    }
  }
  for (; b < n_tokens; ++b) {
    for (int64_t r = 0; r < n_rows; ++r) Y[b * ldy + r] = dot_f32(rows + r * cols, x.f32(b), cols);
  }
}

}  // namespace

void MatMul::rows(const WeightView& w, const MatInput& x, int64_t r0, int64_t r1, float* Y, int64_t ldy,
                  int thread) {
  if (x.n_tokens() == 1) {
    // Decode: memory-bound; one fused dot per row straight from the stored type.
    for (int64_t r = r0; r < r1; ++r) Y[r] = dot_row(w.type, w.row(r), x.f32(0), w.cols);
    return;
  }
  // Prefill: convert a tile of rows once, reuse it for every token of the batch.
  std::vector<float>& tile = scratch_[thread].rows_f32;
  if (w.type != gguf::TensorType::F32) tile.resize(kRowTile * w.cols);
  for (int64_t t0 = r0; t0 < r1; t0 += kRowTile) {
    const int64_t t1 = std::min(r1, t0 + kRowTile);
    const float* rows = tile.data();
    if (w.type == gguf::TensorType::F32) {
      rows = reinterpret_cast<const float*>(w.row(t0));
    } else {
      for (int64_t r = t0; r < t1; ++r) dequantize_row_fast(w.type, w.row(r), tile.data() + (r - t0) * w.cols, w.cols);
    }
    tile_times_tokens(rows, t1 - t0, x, Y + t0, ldy);
  }
}

uint64_t MatMul::scratch_bytes() const {
  uint64_t total = 0;
  for (const MatScratch& s : scratch_) total += s.bytes();
  return total;
}

}  // namespace kvchat::cpu
