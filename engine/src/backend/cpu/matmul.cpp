#include "backend/cpu/matmul.h"

#include <algorithm>

#include "backend/cpu/dot.h"
#include "numeric/convert.h"

namespace kvchat::cpu {

namespace {
constexpr int64_t kRowTile = 16;  // rows dequantized together, then dotted with every token

// Y[b][r] = dot(rows[r], X[b]) for r < n_rows, b < n_tokens; 4 rows x 2 tokens at a time.
void tile_times_tokens(const float* rows, int64_t n_rows, const float* X, int64_t n_tokens,
                       int64_t cols, float* Y, int64_t ldy) {
  int64_t b = 0;
  for (; b + 2 <= n_tokens; b += 2) {
    int64_t r = 0;
    for (; r + 4 <= n_rows; r += 4) {
      float out[8];
      dot_f32_4x2(rows + r * cols, cols, X + b * cols, cols, cols, out);
      for (int k = 0; k < 4; ++k) {
        Y[b * ldy + r + k] = out[k];
        Y[(b + 1) * ldy + r + k] = out[4 + k];
      }
    }
    for (; r < n_rows; ++r) {
      Y[b * ldy + r] = dot_f32(rows + r * cols, X + b * cols, cols);
      Y[(b + 1) * ldy + r] = dot_f32(rows + r * cols, X + (b + 1) * cols, cols);
    }
  }
  for (; b < n_tokens; ++b) {
    for (int64_t r = 0; r < n_rows; ++r) Y[b * ldy + r] = dot_f32(rows + r * cols, X + b * cols, cols);
  }
}

}  // namespace

void MatMul::run(const WeightView& w, const float* X, int64_t n_tokens, float* Y, int64_t ldy) {
  if (n_tokens == 1) {
    // Decode: memory-bound; one fused dot per row straight from the stored type.
    pool_.parallel_for(w.rows, [&](int64_t r0, int64_t r1, int) {
      for (int64_t r = r0; r < r1; ++r) Y[r] = dot_row(w.type, w.row(r), X, w.cols);
    });
    return;
  }
  // Prefill: dequantize a tile of rows once, reuse it for every token of the batch.
  if (row_tiles_.size() < static_cast<size_t>(pool_.size())) row_tiles_.resize(pool_.size());
  const int64_t n_tiles = (w.rows + kRowTile - 1) / kRowTile;
  pool_.parallel_for(n_tiles, [&](int64_t t0, int64_t t1, int thread) {
    std::vector<float>& tile = row_tiles_[thread];
    tile.resize(kRowTile * w.cols);
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t r0 = t * kRowTile, r1 = std::min(w.rows, r0 + kRowTile);
      const float* rows = tile.data();
      if (w.type == gguf::TensorType::F32) {
        rows = reinterpret_cast<const float*>(w.row(r0));
      } else {
        for (int64_t r = r0; r < r1; ++r) {
          dequantize_row_fast(w.type, w.row(r), tile.data() + (r - r0) * w.cols, w.cols);
        }
      }
      tile_times_tokens(rows, r1 - r0, X, n_tokens, w.cols, Y + r0, ldy);
    }
  });
}

uint64_t MatMul::scratch_bytes() const {
  uint64_t total = 0;
  for (const auto& t : row_tiles_) total += t.capacity() * sizeof(float);
  return total;
}

}  // namespace kvchat::cpu
