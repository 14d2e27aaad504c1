// Model identity: what a KV snapshot is tied to. Two files may restore each other's KV
// state only when both their GGUF headers (metadata + tensor infos) and a sample of
// their weight bytes agree: two fine-tunes of one base model share every header byte
// but not their weights.
//
// The weight sample: for every tensor, kWindowsPerTensor windows of kWindowBytes evenly
// spaced across its data (the first at its start, the last at its end; the whole tensor
// when it is smaller than a window), with the tensor's size and offset. About 16 KiB
// per tensor: a few MB for a 7B model, read once at load (no full pass over the file).
#pragma once

#include <cstdint>
#include <span>

namespace kvchat {
namespace gguf {
class GgufFile;
}

inline constexpr uint64_t kIdentityWindowBytes = 4096;
inline constexpr uint64_t kIdentityWindowsPerTensor = 4;

// FNV-1a 64 of the header bytes (what identified a model before weights were sampled).
uint64_t gguf_header_hash(const gguf::GgufFile& f);
// A 64-bit hash of the sampled weight windows (see above).
uint64_t sampled_weights_hash(const gguf::GgufFile& f);
// Both, combined: ModelInfo::identity.
uint64_t model_identity(uint64_t header_hash, uint64_t weights_hash);

}  // namespace kvchat
