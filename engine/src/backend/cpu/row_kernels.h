// The single-threaded kernel of every matrix product: a range of weight rows times a
// batch of activation rows. The activations are prepared once per matmul (quantized to
// the 8-bit block format each weight type is dotted with); the parallel driver
// (matmul.h) splits the weight rows over threads and calls matmul_rows for each range.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backend/cpu/quant_dot.h"
#include "gguf/tensor_type.h"
#include "model/model_weights.h"

namespace kvchat::cpu {

// Row ranges given to matmul_rows by the parallel driver should start at multiples of
// this (the tile height of the prefill kernels); any range is correct for a plain view, a
// repacked view (WeightView::repacked) needs multiples of its 8-row groups.
constexpr int64_t kMatmulRowAlign = 16;

// Activations X (n_tokens, cols) f32, plus X quantized once to the 8-bit block format that
// each weight type pairs with (activation_format_of), and rounded to BF16 for BF16 weights
// where the AVX512-BF16 kernels run (bf16_dot.h). prepare() keeps a pointer to X: X must stay
// alive and unchanged while matmul_rows uses this object.
class PreparedActivations {
 public:
  // Single-threaded. cols must be a multiple of the block size of every weight type given.
  void prepare(const float* X, int64_t n_tokens, int64_t cols,
               std::span<const gguf::TensorType> weight_types);
  void prepare(const float* X, int64_t n_tokens, int64_t cols, gguf::TensorType weight_type) {
    prepare(X, n_tokens, cols, std::span<const gguf::TensorType>(&weight_type, 1));
  }

  int64_t n_tokens() const { return n_tokens_; }
  int64_t cols() const { return cols_; }
  // Token t: (cols) f32; (cols / 32) blocks; (cols / 256) blocks (when prepared).
  const float* f32(int64_t t) const { return x_ + t * cols_; }
  const BlockQ8_32* q8_32(int64_t t) const { return q8_32_.data() + t * (cols_ / kQuantBlock); }
  const BlockQ8_K* q8_k(int64_t t) const { return q8_k_.data() + t * (cols_ / kSuperBlock); }
  // Token t rounded to BF16: (cols) values, when has_bf16().
  const uint16_t* bf16(int64_t t) const { return bf16_.data() + t * cols_; }
  bool has(ActivationFormat f) const;
  bool has_bf16() const { return has_bf16_; }
  uint64_t scratch_bytes() const;

 private:
  const float* x_ = nullptr;
  int64_t n_tokens_ = 0, cols_ = 0;
  bool has_q8_32_ = false, has_q8_k_ = false, has_bf16_ = false;
  std::vector<BlockQ8_32> q8_32_;  // (n_tokens, cols / 32)
  std::vector<BlockQ8_K> q8_k_;    // (n_tokens, cols / 256)
  std::vector<uint16_t> bf16_;     // (n_tokens, cols)
};

// Per-thread buffers of matmul_rows (grown on first use, reused after).
struct RowScratch {
  std::vector<float> rows_f32;  // (tile rows, cols): F16/BF16 weight rows converted to f32
  uint64_t bytes() const { return rows_f32.capacity() * sizeof(float); }
};

// Y[b * ldy + r] = dot(w.row(r), X[b]) for r in [r0, r1), b in [0, x.n_tokens()).
// Single thread; x must have been prepared for w.type with cols == w.cols.
void matmul_rows(const WeightView& w, const PreparedActivations& x, int64_t r0, int64_t r1,
                 float* Y, int64_t ldy, RowScratch& scratch);

}  // namespace kvchat::cpu
