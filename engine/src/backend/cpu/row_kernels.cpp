#include "backend/cpu/row_kernels.h"

#include <algorithm>

#include "backend/cpu/bf16_dot.h"
#include "backend/cpu/dot.h"
#include "backend/cpu/repack.h"
#include "numeric/convert.h"

namespace kvchat::cpu {

using gguf::TensorType;

void PreparedActivations::prepare(const float* X, int64_t n_tokens, int64_t cols,
                                  std::span<const TensorType> weight_types) {
  x_ = X;
  n_tokens_ = n_tokens;
  cols_ = cols;
  has_q8_32_ = has_q8_k_ = has_bf16_ = false;
  for (TensorType t : weight_types) {
    const ActivationFormat f = activation_format_of(t);
    has_q8_32_ |= f == ActivationFormat::Q8_32;
    has_q8_k_ |= f == ActivationFormat::Q8_K;
    has_bf16_ |= t == TensorType::BF16 && use_avx512bf16_kernels();
  }
  if (has_bf16_) {
    if (bf16_.size() < static_cast<size_t>(n_tokens * cols)) bf16_.resize(n_tokens * cols);
    round_activations_bf16(X, bf16_.data(), n_tokens * cols);
  }
  if (has_q8_32_) {
    const int64_t nb = cols / kQuantBlock;
    if (q8_32_.size() < static_cast<size_t>(n_tokens * nb)) q8_32_.resize(n_tokens * nb);
    for (int64_t t = 0; t < n_tokens; ++t)
      quantize_activations_q8_32(X + t * cols, q8_32_.data() + t * nb, cols);
  }
  if (has_q8_k_) {
    const int64_t nb = cols / kSuperBlock;
    if (q8_k_.size() < static_cast<size_t>(n_tokens * nb)) q8_k_.resize(n_tokens * nb);
    for (int64_t t = 0; t < n_tokens; ++t)
      quantize_activations_q8_k(X + t * cols, q8_k_.data() + t * nb, cols);
  }
}

bool PreparedActivations::has(ActivationFormat f) const {
  switch (f) {
    case ActivationFormat::F32: return x_ != nullptr;
    case ActivationFormat::Q8_32: return has_q8_32_;
    case ActivationFormat::Q8_K: return has_q8_k_;
  }
  return false;
}

uint64_t PreparedActivations::scratch_bytes() const {
  return q8_32_.capacity() * sizeof(BlockQ8_32) + q8_k_.capacity() * sizeof(BlockQ8_K) +
         bf16_.capacity() * sizeof(uint16_t);
}

namespace {

constexpr int kQuantRows = 16, kQuantTokens = 16;  // rows x tokens per quant_dot_tile call

constexpr int64_t kFloatRowTile = 16;  // F16/BF16 rows converted to f32 together (scalar)

// Float weights in FMA tiles of rows x tokens (float_rows_dot). The AVX2 and AVX-512 tiles
// read the stored rows and convert each F16/BF16 vector as they go, for prefill too: the
// conversion is cheap beside the tile's multiply-adds, and a row tile converted to f32 in
// scratch first cost a write and a read of twice the weight bytes (prefill of a TinyLlama-
// shape F16, 2 threads, AMD EPYC: 85 -> 97-109 tokens/s with AVX-512, 79 -> 85 with AVX2).
// The scalar kernels convert 16 rows once and reuse them for every token. Either way each
// (row, token) is summed in the same order, from the same exact f32 values. BF16 rows go to
// vdpbf16ps instead where the activations were rounded to BF16 (bf16_dot.h).
void float_rows(const WeightView& w, const PreparedActivations& x, int64_t r0, int64_t r1, float* Y,
                int64_t ldy, RowScratch& scratch) {
  if (w.type == TensorType::BF16 && x.has_bf16()) {
    bf16_rows_dot(w.row(r0), w.row_bytes, r1 - r0, x.bf16(0), w.cols, x.n_tokens(), w.cols, Y + r0,
                  ldy);
    return;
  }
  if (x.n_tokens() == 1 || w.type == TensorType::F32 || use_avx2_kernels()) {
    float_rows_dot(w.type, w.row(r0), w.row_bytes, r1 - r0, x.f32(0), w.cols, x.n_tokens(), w.cols,
                   Y + r0, ldy);
    return;
  }
  if (scratch.rows_f32.size() < static_cast<size_t>(kFloatRowTile * w.cols)) {
    scratch.rows_f32.resize(kFloatRowTile * w.cols);
  }
  float* tile = scratch.rows_f32.data();  // (rows, w.cols) f32
  for (int64_t t0 = r0; t0 < r1; t0 += kFloatRowTile) {
    const int64_t n = std::min<int64_t>(kFloatRowTile, r1 - t0);
    for (int64_t r = 0; r < n; ++r)
      dequantize_row_fast(w.type, w.row(t0 + r), tile + r * w.cols, w.cols);
    float_rows_dot(TensorType::F32, reinterpret_cast<const uint8_t*>(tile), w.cols * sizeof(float),
                   n, x.f32(0), w.cols, x.n_tokens(), w.cols, Y + t0, ldy);
  }
}

void quant_rows(const WeightView& w, const PreparedActivations& x, int64_t r0, int64_t r1, float* Y,
                int64_t ldy) {
  const bool k_type = activation_format_of(w.type) == ActivationFormat::Q8_K;
  const void* act0 =
      k_type ? static_cast<const void*>(x.q8_k(0)) : static_cast<const void*>(x.q8_32(0));
  const uint64_t act_stride = k_type ? (w.cols / kSuperBlock) * sizeof(BlockQ8_K)
                                     : (w.cols / kQuantBlock) * sizeof(BlockQ8_32);
  const int64_t n_tokens = x.n_tokens();
  if (w.repacked) {
    return repacked_rows(w.type, w.data, w.row_bytes, r0, r1, act0, act_stride, n_tokens, w.cols, Y,
                         ldy);
  }
  const QuantTileFn tile = quant_dot_tile_kernel(w.type);  // once per row range, not per tile
  float out[kQuantRows * kQuantTokens];
  for (int64_t ra = r0; ra < r1; ra += kQuantRows) {
    const int nr = static_cast<int>(std::min<int64_t>(kQuantRows, r1 - ra));
    for (int64_t b = 0; b < n_tokens; b += kQuantTokens) {
      const int nt = static_cast<int>(std::min<int64_t>(kQuantTokens, n_tokens - b));
      tile(w.type, w.row(ra), w.row_bytes, nr, static_cast<const uint8_t*>(act0) + b * act_stride,
           act_stride, nt, w.cols, out);
      for (int t = 0; t < nt; ++t) {
        for (int r = 0; r < nr; ++r) Y[(b + t) * ldy + ra + r] = out[t * nr + r];
      }
    }
  }
}

}  // namespace

void matmul_rows(const WeightView& w, const PreparedActivations& x, int64_t r0, int64_t r1,
                 float* Y, int64_t ldy, RowScratch& scratch) {
  if (r0 >= r1 || x.n_tokens() == 0) return;
  if (activation_format_of(w.type) == ActivationFormat::F32)
    return float_rows(w, x, r0, r1, Y, ldy, scratch);
  quant_rows(w, x, r0, r1, Y, ldy);
}

}  // namespace kvchat::cpu
