// Dot products of one stored weight row with an f32 vector: the inner loop of every
// matrix-vector product. An AVX2/FMA/F16C version is chosen at run time when the CPU
// has it; the scalar version is the definition it is tested against.
#pragma once

#include <cstdint>

#include "gguf/tensor_type.h"

namespace kvchat::cpu {

// sum_i row[i] * x[i], row stored as `type`, n values (a multiple of the block size).
float dot_row(gguf::TensorType type, const void* row, const float* x, int64_t n);
float dot_f32(const float* a, const float* b, int64_t n);

// Register-tiled f32 kernel for prefill: out[t * 4 + r] = dot(w + r * ldw, x + t * ldx, n)
// for 4 weight rows r and 2 tokens t (each row and token read once for 8 dots).
void dot_f32_4x2(const float* w, int64_t ldw, const float* x, int64_t ldx, int64_t n, float* out);
// Prefill GEMM of float weights: a tile of up to 16 weight rows packed k-major as f32
// (P[k * 16 + r], rows >= n_rows zero; F16/BF16 converted once), times every token.
constexpr int kPackRows = 16;
// rows: n_rows rows of `type` (F32, F16 or BF16), row_bytes apart, n values each. P: (n, 16).
void pack_rows_f32(gguf::TensorType type, const uint8_t* rows, uint64_t row_bytes, int n_rows, int64_t n, float* P);
// Y[t * ldy + r] = sum_k P[k * 16 + r] * X[t * ldx + k] for r < n_rows, t < n_tokens.
void gemm_packed(const float* P, int n_rows, int64_t n, const float* X, int64_t ldx, int64_t n_tokens, float* Y,
                 int64_t ldy);
void gemm_packed_scalar(const float* P, int n_rows, int64_t n, const float* X, int64_t ldx, int64_t n_tokens,
                        float* Y, int64_t ldy);
void gemm_packed_avx2(const float* P, int n_rows, int64_t n, const float* X, int64_t ldx, int64_t n_tokens, float* Y,
                      int64_t ldy);
// dst = row as f32; F16 and BF16 use F16C/AVX2 when available.
void dequantize_row_fast(gguf::TensorType type, const void* row, float* dst, int64_t n);

// Scalar versions (the definition) and the AVX2 versions (nullptr-free only when
// cpu_has_avx2() is true).
float dot_row_scalar(gguf::TensorType type, const void* row, const float* x, int64_t n);
float dot_row_avx2(gguf::TensorType type, const void* row, const float* x, int64_t n);
float dot_f32_avx2(const float* a, const float* b, int64_t n);
void dot_f32_4x2_scalar(const float* w, int64_t ldw, const float* x, int64_t ldx, int64_t n, float* out);
void dot_f32_4x2_avx2(const float* w, int64_t ldw, const float* x, int64_t ldx, int64_t n, float* out);
// Returns false for types it does not convert (the caller falls back to scalar).
bool dequantize_row_avx2(gguf::TensorType type, const void* row, float* dst, int64_t n);
bool cpu_has_avx2();

// A measured loop of independent multiply-adds for bench's FMA peak: `iterations` rounds of
// 12 independent 8-wide f32 FMAs (AVX2/FMA when use_avx2_kernels(), else plain floats);
// returns the floating-point operations done (2 per multiply-add lane).
double fma_peak_loop(int64_t iterations);
double fma_peak_loop_avx2(int64_t iterations);
// True when the AVX2 kernels run: cpu_has_avx2() and not forced off. Tests force the scalar
// kernels (the definitions) with force_scalar_kernels(true) to check both paths.
bool use_avx2_kernels();
void force_scalar_kernels(bool on);
// AVX-VNNI (VEX dpbusd) on top of AVX2: the quantized dots use it when the CPU has it,
// the build has the kernels and it is not forced off (tests check all three paths).
bool cpu_has_avxvnni();
bool use_avxvnni_kernels();
void force_no_avxvnni_kernels(bool on);

}  // namespace kvchat::cpu
