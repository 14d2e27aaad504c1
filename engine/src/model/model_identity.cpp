#include "model/model_identity.h"

#include <algorithm>
#include <cstring>

#include "gguf/gguf_file.h"

namespace kvchat {

namespace {

constexpr uint64_t kMulA = 0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio
constexpr uint64_t kMulB = 0xC2B2AE3D27D4EB4Full;

uint64_t rotl(uint64_t v, int r) { return (v << r) | (v >> (64 - r)); }

// A streaming 64-bit hash over 8-byte words (not cryptographic: it tells files apart).
class WordHash {
 public:
  void add(uint64_t w) { h_ = rotl(h_ ^ (w * kMulB), 31) * kMulA + 0x165667B19E3779F9ull; }
  void add(std::span<const uint8_t> bytes) {
    const uint8_t* p = bytes.data();
    size_t n = bytes.size();
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      add(w);
    }
    uint64_t tail = 0;
    for (size_t k = 0; k < n; ++k) tail |= uint64_t{p[k]} << (8 * k);
    add(tail ^ (uint64_t{n} << 56));
  }
  uint64_t value() const {
    uint64_t v = h_;  // final avalanche (murmur3's fmix64)
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdull;
    v ^= v >> 33;
    v *= 0xc4ceb9fe1a85ec53ull;
    return v ^ (v >> 33);
  }

 private:
  uint64_t h_ = 0x27D4EB2F165667C5ull;
};

}  // namespace

uint64_t gguf_header_hash(const gguf::GgufFile& f) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 offset basis
  for (uint8_t b : f.header_bytes()) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

uint64_t sampled_weights_hash(const gguf::GgufFile& f) {
  WordHash h;
  for (const gguf::TensorInfo& t : f.tensors()) {
    h.add(t.n_bytes);
    h.add(t.offset);
    const uint8_t* data = f.tensor_data(t);
    if (!data || t.n_bytes == 0) continue;
    const uint64_t window = std::min(kIdentityWindowBytes, t.n_bytes);
    const uint64_t n_windows = t.n_bytes <= kIdentityWindowBytes ? 1 : kIdentityWindowsPerTensor;
    for (uint64_t k = 0; k < n_windows; ++k) {
      const uint64_t at = n_windows == 1 ? 0 : (t.n_bytes - window) * k / (n_windows - 1);
      h.add(std::span<const uint8_t>(data + at, window));
    }
  }
  return h.value();
}

uint64_t model_identity(uint64_t header_hash, uint64_t weights_hash) {
  WordHash h;
  h.add(header_hash);
  h.add(weights_hash);
  return h.value();
}

}  // namespace kvchat
