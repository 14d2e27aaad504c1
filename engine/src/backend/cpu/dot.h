// Float-weight dot products (F32/F16/BF16 rows with f32 tokens), F16/BF16 row conversion,
// the FMA-peak loop, and the run-time choice of kernels: AVX2/FMA/F16C (and AVX-VNNI for
// the integer dots in quant_dot.h) when the CPU has them; the scalar versions are the
// definitions they are tested against.
#pragma once

#include <cstdint>

#include "gguf/tensor_type.h"

namespace kvchat::cpu {

// Float weight rows (F32, F16 or BF16; n_rows rows row_bytes apart, n values each) times
// f32 tokens X (n_tokens, ldx): Y[t * ldy + r] = dot(row r, X[t]). Register tiles of 4
// rows x up to 3 tokens; every (row, token) is summed in the same order whatever the
// tile, so a token's result does not depend on the batch it is in (decode = prefill, bit
// for bit). The scalar version is the definition (one running sum per pair).
void float_rows_dot(gguf::TensorType type, const uint8_t* rows, uint64_t row_bytes, int64_t n_rows,
                    const float* X, int64_t ldx, int64_t n_tokens, int64_t n, float* Y,
                    int64_t ldy);
void float_rows_dot_scalar(gguf::TensorType type, const uint8_t* rows, uint64_t row_bytes,
                           int64_t n_rows, const float* X, int64_t ldx, int64_t n_tokens, int64_t n,
                           float* Y, int64_t ldy);
void float_rows_dot_avx2(gguf::TensorType type, const uint8_t* rows, uint64_t row_bytes,
                         int64_t n_rows, const float* X, int64_t ldx, int64_t n_tokens, int64_t n,
                         float* Y, int64_t ldy);
// 16-lane sums (dot_avx512.cpp), when use_avx512_kernels(): 4 rows x up to 6 tokens.
void float_rows_dot_avx512(gguf::TensorType type, const uint8_t* rows, uint64_t row_bytes,
                           int64_t n_rows, const float* X, int64_t ldx, int64_t n_tokens, int64_t n,
                           float* Y, int64_t ldy);
// dst = row as f32; F16 and BF16 use F16C/AVX2 when available.
void dequantize_row_fast(gguf::TensorType type, const void* row, float* dst, int64_t n);

// dst = src encoded as `type`, the same bits as quantize_row (F16 and BF16 round to nearest
// even; NaN stays NaN as the scalar code writes it) by F16C/AVX2 when available. The KV
// codec (kv/kv_codec.h) encodes the f16/bf16 KV rows with it, and decodes them with
// dequantize_row_fast.
void quantize_row_fast(gguf::TensorType type, const float* src, void* dst, int64_t n);

// The AVX2 conversions (call only when cpu_has_avx2()). Return false for types they do not
// convert (the caller falls back to scalar).
bool dequantize_row_avx2(gguf::TensorType type, const void* row, float* dst, int64_t n);
bool quantize_row_avx2(gguf::TensorType type, const float* src, void* dst, int64_t n);
bool cpu_has_avx2();

// A measured loop of independent multiply-adds for bench's FMA peak: `iterations` rounds of
// 12 independent f32 FMAs, 16-wide when use_avx512_kernels(), 8-wide AVX2/FMA when
// use_avx2_kernels(), else plain floats;
// returns the floating-point operations done (2 per multiply-add lane).
double fma_peak_loop(int64_t iterations);
double fma_peak_loop_avx2(int64_t iterations);
double fma_peak_loop_avx512(int64_t iterations);  // 16-wide, when use_avx512_kernels()
// Reads `bytes` at p as decode reads weights (streaming_read.inl: 8 streams, software
// prefetch) in the widest vectors the kernels use; returns a sum of the bytes' 64-bit words
// so the reads are not optimised away. kvchat-cli bench's read-bandwidth probe.
uint64_t streaming_read(const uint8_t* p, uint64_t bytes);
uint64_t streaming_read_avx2(const uint8_t* p, uint64_t bytes);
uint64_t streaming_read_avx512(const uint8_t* p, uint64_t bytes);
// True when the AVX2 kernels run: cpu_has_avx2() and not forced off (also not by the
// environment: KVCHAT_CPU_KERNELS=scalar|avx2|avxvnni|avx512|avx512bf16 caps every use_* below,
// so a benchmark can stand in for a CPU without the wider instructions). Tests force the scalar
// kernels (the definitions) with force_scalar_kernels(true) to check both paths.
bool use_avx2_kernels();
void force_scalar_kernels(bool on);
// AVX-VNNI (VEX dpbusd) on top of AVX2: the quantized dots use it when the CPU has it,
// the build has the kernels and it is not forced off (tests check all three paths).
bool cpu_has_avxvnni();
bool use_avxvnni_kernels();
void force_no_avxvnni_kernels(bool on);
// AVX-512 F/BW/VL with VNNI (EVEX dpbusd, 32 vector registers): the repacked integer
// kernels (repack.h) use it when the CPU, the OS (ZMM state in XCR0) and the build have it
// and it is not forced off.
bool cpu_has_avx512vnni();
bool use_avx512_kernels();
void force_no_avx512_kernels(bool on);
// AVX512-BF16 (vdpbf16ps) on top of the AVX-512 kernels: BF16 matrices are dotted with
// activations rounded to BF16 (bf16_dot.h) when the CPU and the build have it and it is not
// forced off (KVCHAT_CPU_KERNELS=avx512 stands in for an AVX-512 CPU without it).
bool cpu_has_avx512bf16();
bool use_avx512bf16_kernels();
void force_no_avx512bf16_kernels(bool on);
// Whether vdpbf16ps does more multiply-adds per second than f32 FMAs: on AMD it does (Zen 5:
// BF16 prefill 1.56x faster with it than with FMAs on widened values); Intel's issues once
// per 2 cycles where two FMAs issue per cycle (a Sapphire Rapids-class Xeon: 1.34 G/s against
// 5.5 G/s per core, half the multiply-adds per second; docs/PERFORMANCE.md). Where it does
// not, prefill sums the BF16 definition with FMAs (bf16_dot.h); decode keeps it everywhere.
bool avx512bf16_faster_than_fma();

// Whether the AVX-512 4-token integer kernels (several sessions' decode) take each token's
// activation bytes by broadcast loads and permute the codes once for 4 tokens
// (repacked_quad_bcast_512.inl) rather than shuffling the codes once per vpdpbusd
// (repacked_kernels_512.inl): on Intel, where the shuffles and vpdpbusd share two ports (a
// Sapphire Rapids-class Xeon: Q4_K 1.6x the multiply-adds per second in L2; 4 sessions of
// Q4_K_M +12-20%, of Q4_0 +11-17%); AMD keeps the shuffles its kernels were measured with (a Zen 4
// halved vpdpbusd's rate with a broadcast load per multiply). force_quad_kernels: the tests run
// both.
bool quad_kernels_broadcast();
enum class QuadKernels { kByVendor, kShuffle, kBroadcast };
void force_quad_kernels(QuadKernels k);

}  // namespace kvchat::cpu
