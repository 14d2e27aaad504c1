// attention_decode and attention_prefill (backend/cuda/attention.h) against a host
// reference in double over the same dequantized K/V values, for every KV type. The paged
// cache is uploaded with its blocks at shuffled places of one pool whose unused bytes are
// 0xFF (NaN in f32/f16), outputs and scratch are poisoned with 0xFF, so a read of the wrong
// block, of a position past the context or of an unwritten partial shows up as an error.
// Without a CUDA device every test skips.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "backend/cuda/attention.h"
#include "gguf/tensor_type.h"
#include "numeric/convert.h"

namespace kvchat::cuda {
namespace {

using gguf::TensorType;

// The host twin (tests/cuda_host, KVCHAT_CUDA_HOST_EMULATION) takes smaller sizes of the
// same cases: its grid emulator runs every thread on the CPU.
#ifdef KVCHAT_CUDA_HOST_EMULATION
#define KVCHAT_ON_DEVICE_OR_HOST(device, host) (host)
#else
#define KVCHAT_ON_DEVICE_OR_HOST(device, host) (device)
#endif

#define CUDA_ASSERT(call)                                                                \
  do {                                                                                   \
    const cudaError_t cuda_err_ = (call);                                                \
    ASSERT_EQ(cuda_err_, cudaSuccess) << #call << ": " << cudaGetErrorString(cuda_err_); \
  } while (0)

#define SKIP_WITHOUT_DEVICE()                                                      \
  do {                                                                             \
    int device_count_ = 0;                                                         \
    if (cudaGetDeviceCount(&device_count_) != cudaSuccess || device_count_ == 0) { \
      cudaGetLastError();                                                          \
      GTEST_SKIP() << "no CUDA device";                                            \
    }                                                                              \
  } while (0)

constexpr TensorType kTypes[] = {TensorType::F32, TensorType::F16, TensorType::Q8_0,
                                 TensorType::Q4_0};

double tolerance(TensorType t) { return t == TensorType::F32 ? 1e-5 : 1e-4; }

std::string type_name(TensorType t) { return std::string(gguf::tensor_type_name(t)); }

// ---- small RAII helpers ---------------------------------------------------------------

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  cudaError_t alloc(size_t count) {
    release();
    count_ = count;
    return cudaMalloc(reinterpret_cast<void**>(&ptr_), std::max<size_t>(count, 1) * sizeof(T));
  }
  cudaError_t upload(const std::vector<T>& v) {
    if (v.size() > count_) return cudaErrorInvalidValue;
    return cudaMemcpy(ptr_, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
  }
  cudaError_t download(std::vector<T>* v) const {
    v->resize(count_);
    return cudaMemcpy(v->data(), ptr_, count_ * sizeof(T), cudaMemcpyDeviceToHost);
  }
  cudaError_t poison() { return cudaMemset(ptr_, 0xFF, std::max<size_t>(count_, 1) * sizeof(T)); }
  T* get() const { return ptr_; }
  size_t count() const { return count_; }

 private:
  void release() {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

struct Stream {
  cudaStream_t s = nullptr;
  ~Stream() {
    if (s != nullptr) cudaStreamDestroy(s);
  }
};

struct Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
  }
};

// ---- host data ------------------------------------------------------------------------

// K and V rows of every (layer, position), encoded in `type` and dequantized back.
struct KvData {
  TensorType type = TensorType::F32;
  int n_layers = 0, n_kv_heads = 0, head_dim = 0, n_tokens = 0;
  uint64_t row_bytes = 0;
  std::vector<uint8_t> enc;  // (n_layers, 2, n_tokens, row_bytes)
  std::vector<float> deq;    // (n_layers, 2, n_tokens, kv_dim)

  int kv_dim() const { return n_kv_heads * head_dim; }
  size_t row_index(int layer, int which, int pos) const {
    return (static_cast<size_t>(layer) * 2 + which) * n_tokens + pos;
  }
  const uint8_t* enc_row(int layer, int which, int pos) const {
    return enc.data() + row_index(layer, which, pos) * row_bytes;
  }
  const float* deq_row(int layer, int which, int pos) const {
    return deq.data() + row_index(layer, which, pos) * kv_dim();
  }
};

KvData make_kv_data(TensorType type, int n_layers, int n_kv_heads, int head_dim, int n_tokens,
                    uint32_t seed) {
  KvData d;
  d.type = type;
  d.n_layers = n_layers;
  d.n_kv_heads = n_kv_heads;
  d.head_dim = head_dim;
  d.n_tokens = n_tokens;
  const auto traits = gguf::tensor_type_traits(static_cast<uint32_t>(type));
  d.row_bytes = static_cast<uint64_t>(d.kv_dim()) / traits->block_elements * traits->block_bytes;
  const size_t rows = static_cast<size_t>(n_layers) * 2 * n_tokens;
  d.enc.resize(rows * d.row_bytes);
  d.deq.resize(rows * d.kv_dim());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> row(d.kv_dim());
  for (size_t r = 0; r < rows; ++r) {
    for (float& x : row) x = dist(rng);
    quantize_row(type, row.data(), d.enc.data() + r * d.row_bytes, d.kv_dim());
    dequantize_row(type, d.enc.data() + r * d.row_bytes, d.deq.data() + r * d.kv_dim(), d.kv_dim());
  }
  return d;
}

std::vector<float> random_q(size_t count, float amplitude, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-amplitude, amplitude);
  std::vector<float> q(count);
  for (float& x : q) x = dist(rng);
  return q;
}

// The paged cache in device memory: block b of block_tokens positions lies at a shuffled
// slot of one pool (two spare slots, every unwritten byte 0xFF); `table` maps b -> slot.
struct DeviceCache {
  DeviceBuffer<uint8_t> pool;
  DeviceBuffer<uint8_t*> table;
  DeviceKv kv;
};

// freed_before > 0: blocks wholly before that position point at a spare slot left 0xFF
// (NaN in every KV type), as blocks a sliding window freed: a kernel that reads one shows
// NaN in its output.
void upload_cache(const KvData& d, int block_tokens, uint32_t seed, DeviceCache* c,
                  int freed_before = 0) {
  const int n_blocks = (d.n_tokens + block_tokens - 1) / block_tokens;
  const uint64_t block_bytes = static_cast<uint64_t>(d.n_layers) * 2 * block_tokens * d.row_bytes;
  const uint64_t slot_bytes = (block_bytes + 255) / 256 * 256;
  const int n_slots = n_blocks + 2;
  std::vector<int> slot(n_slots);
  std::iota(slot.begin(), slot.end(), 0);
  std::mt19937 rng(seed);
  std::shuffle(slot.begin(), slot.end(), rng);

  CUDA_ASSERT(c->pool.alloc(slot_bytes * n_slots));
  CUDA_ASSERT(c->pool.poison());
  std::vector<uint8_t*> table(n_blocks);
  std::vector<uint8_t> image(block_bytes);
  for (int b = 0; b < n_blocks; ++b) {
    std::fill(image.begin(), image.end(), 0xFF);
    for (int layer = 0; layer < d.n_layers; ++layer) {
      for (int which = 0; which < 2; ++which) {
        for (int i = 0; i < block_tokens; ++i) {
          const int pos = b * block_tokens + i;
          if (pos >= d.n_tokens) break;
          const uint64_t off =
              ((static_cast<uint64_t>(layer) * 2 + which) * block_tokens + i) * d.row_bytes;
          std::memcpy(image.data() + off, d.enc_row(layer, which, pos), d.row_bytes);
        }
      }
    }
    if ((b + 1) * block_tokens <= freed_before) {
      table[b] = c->pool.get() + slot[n_blocks] * slot_bytes;  // a spare: never written
      continue;
    }
    table[b] = c->pool.get() + slot[b] * slot_bytes;
    CUDA_ASSERT(cudaMemcpy(table[b], image.data(), block_bytes, cudaMemcpyHostToDevice));
  }
  CUDA_ASSERT(c->table.alloc(n_blocks));
  CUDA_ASSERT(c->table.upload(table));
  c->kv.blocks = c->table.get();
  c->kv.type = d.type;
  c->kv.n_layers = d.n_layers;
  c->kv.block_tokens = block_tokens;
  c->kv.n_kv_heads = d.n_kv_heads;
  c->kv.head_dim = d.head_dim;
  c->kv.row_bytes = d.row_bytes;
}

// out (n, n_heads, hd): token b over positions [lo, positions[b]] of `layer`, in double (lo =
// positions[b] - window + 1 with a window, else 0), scores soft-capped when softcap > 0.
std::vector<double> reference(const KvData& d, int layer, const std::vector<float>& q, int n_heads,
                              const std::vector<int32_t>& positions, float scale, int window = 0,
                              float softcap = 0) {
  const int hd = d.head_dim, group = n_heads / d.n_kv_heads;
  std::vector<double> out(positions.size() * n_heads * hd, 0.0);
  std::vector<double> s;
  for (size_t b = 0; b < positions.size(); ++b) {
    const int pos = positions[b];
    const int lo = window > 0 ? std::max(0, pos - window + 1) : 0;
    s.assign(pos + 1, 0.0);
    for (int h = 0; h < n_heads; ++h) {
      const int kvh = h / group;
      const float* qh = &q[(b * n_heads + h) * hd];
      double mx = -INFINITY;
      for (int t = lo; t <= pos; ++t) {
        const float* k = d.deq_row(layer, 0, t) + kvh * hd;
        double dot = 0.0;
        for (int i = 0; i < hd; ++i) dot += static_cast<double>(qh[i]) * k[i];
        s[t] = dot * scale;
        if (softcap > 0) s[t] = softcap * std::tanh(s[t] / softcap);
        mx = std::max(mx, s[t]);
      }
      double sum = 0.0;
      for (int t = lo; t <= pos; ++t) {
        s[t] = std::exp(s[t] - mx);
        sum += s[t];
      }
      double* o = &out[(b * n_heads + h) * hd];
      for (int t = lo; t <= pos; ++t) {
        const float* v = d.deq_row(layer, 1, t) + kvh * hd;
        const double p = s[t] / sum;
        for (int i = 0; i < hd; ++i) o[i] += p * v[i];
      }
    }
  }
  return out;
}

// ||got - want|| / ||want||; infinity if anything in got is not finite.
double rel_l2(const std::vector<float>& got, const std::vector<double>& want) {
  if (got.size() != want.size()) return INFINITY;
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    num += (got[i] - want[i]) * (got[i] - want[i]);
    den += want[i] * want[i];
  }
  return std::sqrt(num / den);
}

double rel_l2(const std::vector<float>& got, const std::vector<float>& want) {
  return rel_l2(got, std::vector<double>(want.begin(), want.end()));
}

float scale_of(int head_dim) { return 1.0f / std::sqrt(static_cast<float>(head_dim)); }

// ---- runners --------------------------------------------------------------------------

void run_decode(const DeviceCache& c, int layer, const std::vector<float>& q, int n_heads,
                const std::vector<int32_t>& positions, int max_kv, std::vector<float>* out,
                int window = 0, float softcap = 0) {
  const int n = static_cast<int>(positions.size());
  const AttentionShape shape{n, n_heads, max_kv, scale_of(c.kv.head_dim), window, softcap};
  DeviceBuffer<float> dq, dout;
  DeviceBuffer<int32_t> dpos;
  DeviceBuffer<uint8_t> scratch;
  CUDA_ASSERT(dq.alloc(q.size()));
  CUDA_ASSERT(dq.upload(q));
  CUDA_ASSERT(dpos.alloc(positions.size()));
  CUDA_ASSERT(dpos.upload(positions));
  CUDA_ASSERT(dout.alloc(q.size()));
  CUDA_ASSERT(dout.poison());
  const size_t bytes = attention_decode_scratch_bytes(c.kv, shape);
  ASSERT_GT(bytes, 0u);
  CUDA_ASSERT(scratch.alloc(bytes));
  CUDA_ASSERT(scratch.poison());
  CUDA_ASSERT(attention_decode(c.kv, layer, dq.get(), dout.get(), shape, dpos.get(), scratch.get(),
                               nullptr));
  CUDA_ASSERT(cudaDeviceSynchronize());
  CUDA_ASSERT(dout.download(out));
}

void run_prefill(const DeviceCache& c, int layer, const std::vector<float>& q, int n_heads,
                 const std::vector<int32_t>& positions, std::vector<float>* out, int window = 0,
                 float softcap = 0) {
  const int n = static_cast<int>(positions.size());
  const AttentionShape shape{n,      n_heads, positions.back() + 1, scale_of(c.kv.head_dim),
                             window, softcap};
  DeviceBuffer<float> dq, dout;
  DeviceBuffer<int32_t> dpos;
  CUDA_ASSERT(dq.alloc(q.size()));
  CUDA_ASSERT(dq.upload(q));
  CUDA_ASSERT(dpos.alloc(positions.size()));
  CUDA_ASSERT(dpos.upload(positions));
  CUDA_ASSERT(dout.alloc(q.size()));
  CUDA_ASSERT(dout.poison());
  CUDA_ASSERT(attention_prefill(c.kv, layer, dq.get(), dout.get(), shape, dpos.get(), nullptr));
  CUDA_ASSERT(cudaDeviceSynchronize());
  CUDA_ASSERT(dout.download(out));
}

std::vector<int32_t> consecutive(int pos0, int n) {
  std::vector<int32_t> p(n);
  std::iota(p.begin(), p.end(), pos0);
  return p;
}

constexpr int kLayers = 2;
constexpr int kLayer = 1;  // the second layer, so the layer offset is exercised
constexpr int kKvHeads = 2;

// Decode of the token sets below (n = 1..4; lengths 1, 17, 300, 4100; 15 and 16 straddle
// the first block boundary) for one KV type / head_dim / group, max_kv = 4100.
void check_decode(const KvData& d, const DeviceCache& c, int group, uint32_t seed) {
  const std::vector<std::vector<int32_t>> sets = {
      {0}, {16, 4099}, {15, 299, 1}, {299, 0, 4099, 16}};
  const int n_heads = d.n_kv_heads * group;
  for (const auto& positions : sets) {
    SCOPED_TRACE("n = " + std::to_string(positions.size()) + ", first position " +
                 std::to_string(positions[0]));
    const auto q = random_q(positions.size() * n_heads * d.head_dim, 3.0f, seed++);
    std::vector<float> got;
    ASSERT_NO_FATAL_FAILURE(run_decode(c, kLayer, q, n_heads, positions, d.n_tokens, &got));
    const auto want = reference(d, kLayer, q, n_heads, positions, scale_of(d.head_dim));
    EXPECT_LE(rel_l2(got, want), tolerance(d.type));
  }
}

void check_prefill(const KvData& d, const DeviceCache& c, int group, int pos0, int n,
                   uint32_t seed) {
  SCOPED_TRACE("prefill n = " + std::to_string(n) + ", pos0 = " + std::to_string(pos0));
  const int n_heads = d.n_kv_heads * group;
  const auto positions = consecutive(pos0, n);
  const auto q = random_q(static_cast<size_t>(n) * n_heads * d.head_dim, 3.0f, seed);
  std::vector<float> got;
  ASSERT_NO_FATAL_FAILURE(run_prefill(c, kLayer, q, n_heads, positions, &got));
  const auto want = reference(d, kLayer, q, n_heads, positions, scale_of(d.head_dim));
  EXPECT_LE(rel_l2(got, want), tolerance(d.type));
}

// ---- tests ----------------------------------------------------------------------------

TEST(CudaAttention, DecodeMatchesReference) {
  SKIP_WITHOUT_DEVICE();
  for (const TensorType type : kTypes) {
    for (const int hd : {64, 128}) {
      SCOPED_TRACE(type_name(type) + " head_dim " + std::to_string(hd));
      const KvData d = make_kv_data(type, kLayers, kKvHeads, hd, 4100, 1);
      DeviceCache c;
      ASSERT_NO_FATAL_FAILURE(upload_cache(d, 16, 2, &c));
      for (const int group : {1, 4, 8}) {
        SCOPED_TRACE("group " + std::to_string(group));
        ASSERT_NO_FATAL_FAILURE(check_decode(d, c, group, 100));
      }
    }
  }
}

// Other head dims and group sizes that are not powers of two (6: one block of 8 with 2 idle
// heads; 12: two blocks per KV head).
TEST(CudaAttention, DecodeOtherShapes) {
  SKIP_WITHOUT_DEVICE();
  for (const TensorType type : kTypes) {
    for (const int hd : {32, 96, 256}) {
      SCOPED_TRACE(type_name(type) + " head_dim " + std::to_string(hd));
      const KvData d = make_kv_data(type, kLayers, kKvHeads, hd, 700, 3);
      DeviceCache c;
      ASSERT_NO_FATAL_FAILURE(upload_cache(d, 16, 4, &c));
      for (const int group : {2, 6, 12}) {
        SCOPED_TRACE("group " + std::to_string(group));
        const int n_heads = kKvHeads * group;
        const std::vector<int32_t> positions = {699, 0, 63, 64};
        const auto q = random_q(positions.size() * n_heads * hd, 3.0f, 5);
        std::vector<float> got;
        ASSERT_NO_FATAL_FAILURE(run_decode(c, kLayer, q, n_heads, positions, 700, &got));
        const auto want = reference(d, kLayer, q, n_heads, positions, scale_of(hd));
        EXPECT_LE(rel_l2(got, want), tolerance(type));
      }
    }
  }
}

// Blocks of an odd size (7 positions) and max_kv larger than any position.
TEST(CudaAttention, DecodeOddBlockSize) {
  SKIP_WITHOUT_DEVICE();
  for (const TensorType type : kTypes) {
    SCOPED_TRACE(type_name(type));
    const KvData d = make_kv_data(type, kLayers, kKvHeads, 128, 1000, 6);
    DeviceCache c;
    ASSERT_NO_FATAL_FAILURE(upload_cache(d, 7, 7, &c));
    const int n_heads = kKvHeads * 4;
    const std::vector<int32_t> positions = {6, 7, 999, 500};
    const auto q = random_q(positions.size() * n_heads * 128, 3.0f, 8);
    std::vector<float> got;
    ASSERT_NO_FATAL_FAILURE(run_decode(c, kLayer, q, n_heads, positions, 3000, &got));
    const auto want = reference(d, kLayer, q, n_heads, positions, scale_of(128));
    EXPECT_LE(rel_l2(got, want), tolerance(type));
  }
}

TEST(CudaAttention, PrefillMatchesReference) {
  SKIP_WITHOUT_DEVICE();
  for (const TensorType type : kTypes) {
    for (const int hd : {64, 128}) {
      SCOPED_TRACE(type_name(type) + " head_dim " + std::to_string(hd));
      const KvData d = make_kv_data(type, kLayers, kKvHeads, hd, 1300, 9);
      DeviceCache c;
      ASSERT_NO_FATAL_FAILURE(upload_cache(d, 16, 10, &c));
      // Host emulation: a context of 250 (8 key tiles) instead of 1000, 100 queries (2 tiles
      // and a part) instead of 300.
      const int far = KVCHAT_ON_DEVICE_OR_HOST(1000, 250);
      const int many = KVCHAT_ON_DEVICE_OR_HOST(300, 100);
      for (const int group : {1, 4, 8}) {
        SCOPED_TRACE("group " + std::to_string(group));
        ASSERT_NO_FATAL_FAILURE(check_prefill(d, c, group, 0, 64, 11));
        ASSERT_NO_FATAL_FAILURE(check_prefill(d, c, group, far, 7, 12));
      }
      // The remaining sizes once per type and head_dim (the reference is the slow part).
      ASSERT_NO_FATAL_FAILURE(check_prefill(d, c, 4, 0, 1, 13));
      ASSERT_NO_FATAL_FAILURE(check_prefill(d, c, 4, far, 1, 14));
      ASSERT_NO_FATAL_FAILURE(check_prefill(d, c, 4, 0, many, 15));
      ASSERT_NO_FATAL_FAILURE(check_prefill(d, c, 4, far, many, 16));
    }
  }
}

TEST(CudaAttention, PrefillOtherHeadDims) {
  SKIP_WITHOUT_DEVICE();
  for (const TensorType type : kTypes) {
    for (const int hd : {32, 96, 256}) {
      SCOPED_TRACE(type_name(type) + " head_dim " + std::to_string(hd));
      const KvData d = make_kv_data(type, kLayers, kKvHeads, hd, 200, 17);
      DeviceCache c;
      ASSERT_NO_FATAL_FAILURE(upload_cache(d, 16, 18, &c));
      ASSERT_NO_FATAL_FAILURE(check_prefill(d, c, 3, 0, 100, 19));
      ASSERT_NO_FATAL_FAILURE(check_prefill(d, c, 2, 150, 50, 20));
    }
  }
}

// The same data paged (16-position blocks, shuffled) and in one block of every position
// gives the same output: the block table is followed, not assumed contiguous.
// Sliding windows (gemma2/3) and score soft-caps, decode and prefill, every KV type: each
// query attends to its last `window` positions only; the blocks wholly before the first
// query's window are "freed" (a NaN slot): reading one would show. Windows shorter than a
// block, than a partition, and longer than the context.
TEST(CudaAttention, WindowsAndSoftcapsMatchReference) {
  SKIP_WITHOUT_DEVICE();
  for (TensorType type : {TensorType::F32, TensorType::F16, TensorType::Q8_0, TensorType::Q4_0}) {
    for (int hd : {64, 256}) {
      // Host emulation: a context of 700 (windows of 700 and 4096 then cover all of it).
      const int ctx = KVCHAT_ON_DEVICE_OR_HOST(2100, 700);
      const KvData d = make_kv_data(type, kLayers, kKvHeads, hd, ctx, 91 + hd);
      for (int window : {1, 5, 64, 700, 4096}) {
        for (float softcap : {0.0f, 2.0f}) {
          SCOPED_TRACE(std::string(gguf::tensor_type_name(type)) + " hd " + std::to_string(hd) +
                       " window " + std::to_string(window) + " softcap " + std::to_string(softcap));
          const int n_heads = kKvHeads * 4;
          // Decode: one token per position set, blocks before the earliest window freed.
          // (Within the ctx cached positions: a window longer than the context.)
          const std::vector<int32_t> positions = {ctx - 1, ctx * 5 / 7,
                                                  std::min(ctx * 2 / 3 + window / 2, ctx - 2)};
          const int earliest = *std::min_element(positions.begin(), positions.end());
          DeviceCache c;
          ASSERT_NO_FATAL_FAILURE(upload_cache(d, 16, 7, &c, std::max(0, earliest - window + 1)));
          const auto q = random_q(positions.size() * n_heads * hd, 3.0f, 5);
          std::vector<float> got;
          ASSERT_NO_FATAL_FAILURE(
              run_decode(c, kLayer, q, n_heads, positions, d.n_tokens, &got, window, softcap));
          const auto want =
              reference(d, kLayer, q, n_heads, positions, scale_of(hd), window, softcap);
          EXPECT_LE(rel_l2(got, want), tolerance(type)) << "decode";
          // Prefill of 300 consecutive positions from 1700 (host emulation: 70 from 530).
          const int span_n = KVCHAT_ON_DEVICE_OR_HOST(300, 70), span_0 = ctx - 100 - span_n;
          const auto span = consecutive(span_0, span_n);
          DeviceCache cp;
          ASSERT_NO_FATAL_FAILURE(upload_cache(d, 16, 8, &cp, std::max(0, span_0 - window + 1)));
          const auto qp = random_q(span.size() * n_heads * hd, 3.0f, 6);
          ASSERT_NO_FATAL_FAILURE(
              run_prefill(cp, kLayer, qp, n_heads, span, &got, window, softcap));
          const auto want_p =
              reference(d, kLayer, qp, n_heads, span, scale_of(hd), window, softcap);
          EXPECT_LE(rel_l2(got, want_p), tolerance(type)) << "prefill";
        }
      }
    }
  }
}

TEST(CudaAttention, PagedMatchesContiguous) {
  SKIP_WITHOUT_DEVICE();
  for (const TensorType type : kTypes) {
    SCOPED_TRACE(type_name(type));
    const int n_tokens = 4100, hd = 128, n_heads = kKvHeads * 4;
    const KvData d = make_kv_data(type, kLayers, kKvHeads, hd, n_tokens, 21);
    DeviceCache paged, contiguous;
    ASSERT_NO_FATAL_FAILURE(upload_cache(d, 16, 22, &paged));
    ASSERT_NO_FATAL_FAILURE(upload_cache(d, n_tokens, 23, &contiguous));

    const std::vector<int32_t> positions = {4099, 16, 0, 1234};
    const auto q = random_q(positions.size() * n_heads * hd, 3.0f, 24);
    std::vector<float> a, b;
    ASSERT_NO_FATAL_FAILURE(run_decode(paged, kLayer, q, n_heads, positions, n_tokens, &a));
    ASSERT_NO_FATAL_FAILURE(run_decode(contiguous, kLayer, q, n_heads, positions, n_tokens, &b));
    EXPECT_LE(rel_l2(a, b), 1e-6) << "decode";

    const auto pre = consecutive(1000, 64);
    const auto qp = random_q(pre.size() * n_heads * hd, 3.0f, 25);
    ASSERT_NO_FATAL_FAILURE(run_prefill(paged, kLayer, qp, n_heads, pre, &a));
    ASSERT_NO_FATAL_FAILURE(run_prefill(contiguous, kLayer, qp, n_heads, pre, &b));
    EXPECT_LE(rel_l2(a, b), 1e-6) << "prefill";
  }
}

// A decode step captured once in a CUDA graph (max_kv = 512) and replayed after new
// positions are copied in, as the backend's decode loop does.
TEST(CudaAttention, DecodeGraphReplay) {
  SKIP_WITHOUT_DEVICE();
  for (const TensorType type : {TensorType::F16, TensorType::Q8_0}) {
    SCOPED_TRACE(type_name(type));
    const int hd = 128, n_heads = kKvHeads * 4, max_kv = 512;
    const KvData d = make_kv_data(type, kLayers, kKvHeads, hd, max_kv, 26);
    DeviceCache c;
    ASSERT_NO_FATAL_FAILURE(upload_cache(d, 16, 27, &c));
    const auto q = random_q(static_cast<size_t>(n_heads) * hd, 3.0f, 28);
    const AttentionShape shape{1, n_heads, max_kv, scale_of(hd)};
    DeviceBuffer<float> dq, dout;
    DeviceBuffer<int32_t> dpos;
    DeviceBuffer<uint8_t> scratch;
    CUDA_ASSERT(dq.alloc(q.size()));
    CUDA_ASSERT(dq.upload(q));
    CUDA_ASSERT(dout.alloc(q.size()));
    CUDA_ASSERT(dpos.alloc(1));
    const size_t bytes = attention_decode_scratch_bytes(c.kv, shape);
    ASSERT_GT(bytes, 0u);
    CUDA_ASSERT(scratch.alloc(bytes));
    CUDA_ASSERT(scratch.poison());

    Stream stream;
    Graph graph;
    CUDA_ASSERT(cudaStreamCreate(&stream.s));  // blocking: ordered after the memsets
    CUDA_ASSERT(cudaStreamBeginCapture(stream.s, cudaStreamCaptureModeThreadLocal));
    const cudaError_t launch = attention_decode(c.kv, kLayer, dq.get(), dout.get(), shape,
                                                dpos.get(), scratch.get(), stream.s);
    CUDA_ASSERT(cudaStreamEndCapture(stream.s, &graph.graph));
    CUDA_ASSERT(launch);
    CUDA_ASSERT(cudaGraphInstantiate(&graph.exec, graph.graph, 0));

    for (const int32_t pos : {10, 300, 511, 0}) {
      SCOPED_TRACE("position " + std::to_string(pos));
      const std::vector<int32_t> positions = {pos};
      CUDA_ASSERT(dpos.upload(positions));
      CUDA_ASSERT(dout.poison());
      CUDA_ASSERT(cudaDeviceSynchronize());
      CUDA_ASSERT(cudaGraphLaunch(graph.exec, stream.s));
      CUDA_ASSERT(cudaStreamSynchronize(stream.s));
      std::vector<float> got;
      CUDA_ASSERT(dout.download(&got));
      const auto want = reference(d, kLayer, q, n_heads, positions, scale_of(hd));
      EXPECT_LE(rel_l2(got, want), tolerance(type));
    }
  }
}

TEST(CudaAttention, RejectsUnsupportedShapes) {
  SKIP_WITHOUT_DEVICE();
  const KvData d = make_kv_data(TensorType::F16, kLayers, kKvHeads, 64, 32, 29);
  DeviceCache c;
  ASSERT_NO_FATAL_FAILURE(upload_cache(d, 16, 30, &c));
  DeviceBuffer<float> buf;
  DeviceBuffer<int32_t> pos;
  CUDA_ASSERT(buf.alloc(1 << 16));
  CUDA_ASSERT(pos.alloc(4));
  CUDA_ASSERT(pos.upload({0, 1, 2, 3}));
  const AttentionShape ok{2, 4, 32, scale_of(64)};
  EXPECT_GT(attention_decode_scratch_bytes(c.kv, ok), 0u);

  // n = 0: nothing to do, nothing launched.
  const AttentionShape empty{0, 4, 32, scale_of(64)};
  EXPECT_EQ(attention_decode_scratch_bytes(c.kv, empty), 0u);
  EXPECT_EQ(
      attention_decode(c.kv, kLayer, buf.get(), buf.get(), empty, pos.get(), buf.get(), nullptr),
      cudaSuccess);
  EXPECT_EQ(attention_prefill(c.kv, kLayer, buf.get(), buf.get(), empty, pos.get(), nullptr),
            cudaSuccess);

  auto expect_invalid = [&](const DeviceKv& kv, const AttentionShape& shape, int layer) {
    EXPECT_EQ(
        attention_decode(kv, layer, buf.get(), buf.get(), shape, pos.get(), buf.get(), nullptr),
        cudaErrorInvalidValue);
    EXPECT_EQ(attention_prefill(kv, layer, buf.get(), buf.get(), shape, pos.get(), nullptr),
              cudaErrorInvalidValue);
  };
  DeviceKv bad = c.kv;
  bad.head_dim = 48;  // not a multiple of 32
  expect_invalid(bad, ok, kLayer);
  EXPECT_EQ(attention_decode_scratch_bytes(bad, ok), 0u);
  bad = c.kv;
  bad.head_dim = 288;  // above 256
  expect_invalid(bad, ok, kLayer);
  bad = c.kv;
  bad.type = TensorType::BF16;  // not a KV type
  expect_invalid(bad, ok, kLayer);
  expect_invalid(c.kv, AttentionShape{2, 3, 32, 1.0f}, kLayer);  // 3 heads over 2 KV heads
  expect_invalid(c.kv, ok, kLayers);                             // no such layer
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace kvchat::cuda
