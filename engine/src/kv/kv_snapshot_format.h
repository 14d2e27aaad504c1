// KV snapshot file format: a session's tokens, turn marks, next-token logits and the
// contents of its KV cache, so that a conversation can be restored later without
// re-evaluating its prompt. Pure functions over bytes; the session does the file I/O
// (session/session_snapshot.cpp).
//
// Version 2 layout (version 1 had no window fields; it is refused, and the caller
// re-evaluates). Little-endian, no padding; sizes in bytes.
//
//   offset  size                 field
//        0  8                    magic "KVCHATSN"
//        8  4   u32              format version (1)
//       12  8   u64              model identity (ModelInfo::identity: FNV-1a 64 of the
//                                GGUF header, metadata + tensor infos)
//       20  4   u32              KV type: 0 f32, 1 f16, 2 q8_0, 3 q4_0
//       24  4   u32              n_layers
//       28  4   u32              n_kv_heads
//       32  4   u32              head_dim
//       36  4   u32              n_tokens
//       40  4   u32              n_keep      (the kept prefix: never dropped or shifted)
//       44  4   u32              n_turns
//       48  4   u32              n_vocab     (0: no next-token logits are stored)
//       52  4   u32              window_head \ sliding-window layers hold valid rows for
//       56  4   u32              window_lo   / [0, head) and [lo, n_tokens) only (all
//                                            when head == lo; 0 and 0 without windows)
//       60  4 x n_tokens  i32    tokens
//           4 x n_turns   i32    turn starts (strictly increasing, each in [0, n_tokens])
//           4 x n_vocab   f32    next-token logits after the last token
//           rows                 for layer in [0, n_layers), for pos in [0, n_tokens):
//                                the K row, then the V row, row_bytes each, encoded in
//                                the KV type exactly as the cache holds them (a
//                                windowed layer's freed rows, [head, lo), are zeros)
//                                (row_bytes = kv_bytes(type, n_kv_heads * head_dim))
//           8   u64              CRC-64/XZ of every byte before it
//
// The file size is therefore exactly
//   60 + 4 (n_tokens + n_turns + n_vocab) + 2 n_layers n_tokens row_bytes + 8.
//
// Reading refuses, with a message saying why: a bad magic, an unknown format version,
// another model's identity, another cache shape, a context too small for the tokens,
// a size that does not add up (truncated or trailing bytes), a checksum mismatch, token
// ids outside the vocabulary and malformed turn starts.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "kv/kv_type.h"
#include "kvchat/result.h"

namespace kvchat {

inline constexpr char kSnapshotMagic[8] = {'K', 'V', 'C', 'H', 'A', 'T', 'S', 'N'};
inline constexpr uint32_t kSnapshotVersion = 2;
inline constexpr uint64_t kSnapshotHeaderBytes = 60;
inline constexpr uint64_t kSnapshotChecksumBytes = 8;

// The stored KV type codes (fixed by the format, independent of the enum's order).
uint32_t snapshot_kv_type_code(KvType t);
std::optional<KvType> snapshot_kv_type(uint32_t code);

struct SnapshotHeader {
  uint32_t version = kSnapshotVersion;
  uint64_t model_identity = 0;
  KvType kv_type = KvType::F16;
  uint32_t n_layers = 0, n_kv_heads = 0, head_dim = 0;
  uint32_t n_tokens = 0, n_keep = 0, n_turns = 0, n_vocab = 0;
  uint32_t window_head = 0, window_lo = 0;  // valid windowed rows: [0, head), [lo, n_tokens)

  uint64_t row_bytes() const;
  // The whole file, checksum included (assumes sizes that do not overflow: see the parser).
  uint64_t file_bytes() const;
};

// What the loading session requires of a snapshot.
struct SnapshotTarget {
  uint64_t model_identity = 0;
  int32_t n_layers = 0, n_kv_heads = 0, head_dim = 0;
  int32_t n_vocab = 0;
  int32_t n_ctx = 0;  // the most tokens the session holds
};

// CRC-64/XZ (ECMA-182 polynomial, reflected, init and final xor all ones), streamed.
class Crc64 {
 public:
  void update(std::span<const uint8_t> bytes);
  uint64_t value() const { return ~state_; }

 private:
  uint64_t state_ = ~0ull;
};
uint64_t crc64(std::span<const uint8_t> bytes);

// The 60 header bytes.
std::vector<uint8_t> encode_snapshot_header(const SnapshotHeader& h);
// Parses and checks the header against the target and the file size. `head` holds the
// file's first min(file_size, 60) bytes.
Result<SnapshotHeader> parse_snapshot_header(std::span<const uint8_t> head, uint64_t file_size,
                                             const SnapshotTarget& target);

// Writing: bytes go out through `sink` in chunks of at most 1 MiB, the K/V rows are
// streamed (never gathered in one buffer).
using SnapshotSink = std::function<Status(std::span<const uint8_t>)>;
// The K row (value = false) or V row (value = true) of one layer and position.
using SnapshotRowSource = std::function<const uint8_t*(int32_t layer, int32_t pos, bool value)>;

struct SnapshotContents {
  SnapshotHeader header;  // the counts must match the spans
  std::span<const int32_t> tokens;
  std::span<const int32_t> turn_starts;
  std::span<const float> logits;
  SnapshotRowSource row;
};
Status write_snapshot(const SnapshotContents& contents, const SnapshotSink& sink);

// Reading: `source` fills the whole span it is given from the file, in order, or fails.
using SnapshotSource = std::function<Status(std::span<uint8_t>)>;
// Receives the K and V rows of one layer and position (row_bytes each) as they are read.
using SnapshotRowSink = std::function<void(int32_t layer, int32_t pos, const uint8_t* key,
                                           const uint8_t* value)>;

struct SnapshotData {
  SnapshotHeader header;
  std::vector<int32_t> tokens;
  std::vector<int32_t> turn_starts;
  std::vector<float> logits;  // empty when n_vocab is 0
};

// Reads a whole snapshot of `file_size` bytes: the header (checked by
// parse_snapshot_header, then passed to on_header, which may refuse it, e.g. when the
// cache cannot grow), the arrays, the rows (to on_row), the checksum, and last the
// token ids and turn starts. Rows reach on_row before the checksum is verified: the
// caller must stage them and keep nothing when this fails.
Result<SnapshotData> read_snapshot(uint64_t file_size, const SnapshotTarget& target,
                                   const SnapshotSource& source,
                                   const std::function<Status(const SnapshotHeader&)>& on_header,
                                   const SnapshotRowSink& on_row);

// A source over bytes in memory (tests, fuzzing).
SnapshotSource snapshot_memory_source(std::span<const uint8_t> bytes);

}  // namespace kvchat
