// KV snapshot journal format: a session's tokens, turn marks, next-token logits and
// the contents of its KV cache, kept as an append-only journal so that saving after a
// reply writes only the K/V of the tokens added since the last save. Pure functions
// over bytes; the session does the file I/O (session/session_snapshot.cpp).
//
// Format version 3 (version 2, "KVCHATSN", was one checksummed blob rewritten whole at
// every save; it is refused with a message, and the caller re-evaluates). Little-endian,
// no padding; sizes in bytes.
//
// File header (64 bytes):
//   offset  size  field
//        0  8     magic "KVCHATSJ"
//        8  4 u32 format version (3)
//       12  4 u32 header bytes (64)
//       16  8 u64 model identity (ModelInfo::identity: GGUF header + sampled weights)
//       24  4 u32 KV type (K's, and V's unless offset 44 says): 0 f32, 1 f16, 2 q8_0,
//                     3 q4_0, 4 q8_0r, 5 q4_0r (rotated: kv/kv_rotation.h's fixed signs)
//       28  4 u32 n_layers
//       32  4 u32 n_kv_heads
//       36  4 u32 head_dim
//       40  4 u32 KV block tokens of the cache that wrote it (information only)
//       44  4 u32 V's KV type + 1 when K and V are typed apart; 0: V's is K's
//       48  8     zeros (reserved)
//       56  8 u64 CRC-64/XZ of bytes [0, 56)
//
// Then records, back to back. Each record commits one whole state of the session:
// "keep the first `first_pos` tokens of the previous state, append `n_new` tokens with
// their K/V, and the kept prefix, turn marks, logits and window are now these".
//   offset  size  field (record header, 48 bytes)
//        0  4 u32 record magic "KVJR"
//        4  4 u32 kind (1: state)
//        8  4 u32 first_pos   (<= the previous state's token count; less: a truncation)
//       12  4 u32 n_new       (the state holds first_pos + n_new tokens afterwards)
//       16  4 u32 n_keep      (the kept prefix: never dropped or shifted)
//       20  4 u32 n_turns
//       24  4 u32 n_vocab     (0: no next-token logits are stored)
//       28  4 u32 window_head \ sliding-window layers hold valid rows [0, head) and
//       32  4 u32 window_lo   / [lo, n) only (all when head == lo)
//       36  4     zeros (reserved)
//       40  8 u64 payload bytes (must equal what the fields above imply)
//   payload:
//           4 x n_new     i32  the new tokens (positions first_pos ...)
//           4 x n_turns   i32  every turn start of the state (increasing, each <= n)
//           4 x n_vocab   f32  next-token logits after the state's last token
//           rows               for layer in [0, n_layers): the K rows of the n_new new
//                              positions, then their V rows (row_bytes(K or V) each,
//                              encoded in the file's K or V type exactly as the cache
//                              holds them; a windowed layer's freed rows are zeros)
//           (row_bytes = kv_bytes(K's or V's type, n_kv_heads * head_dim))
//   trailer: 8 u64 CRC-64/XZ of the record header and payload
//
// Reading (scan_journal) checks the file header (a bad one refuses the file) and then
// the records in order; it stops at the first record that is torn (the file ends inside
// it), fails its checksum or holds impossible fields: the state of the records before it
// is what the file holds, and `stopped` says why the rest was ignored. A writer that
// finds such a tail cuts it off before appending.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kv/kv_type.h"
#include "kvchat/result.h"

namespace kvchat {

inline constexpr char kSnapshotMagic[8] = {'K', 'V', 'C', 'H', 'A', 'T', 'S', 'J'};
inline constexpr char kSnapshotV2Magic[8] = {'K', 'V', 'C', 'H', 'A', 'T', 'S', 'N'};
inline constexpr uint32_t kSnapshotVersion = 3;
inline constexpr uint64_t kJournalHeaderBytes = 64;
inline constexpr uint64_t kRecordHeaderBytes = 48;
inline constexpr uint64_t kRecordTrailerBytes = 8;
inline constexpr uint32_t kRecordMagic = 0x524a564b;  // "KVJR" little-endian
inline constexpr uint32_t kRecordKindState = 1;

// The stored KV type codes (fixed by the format, independent of the enum's order).
uint32_t snapshot_kv_type_code(KvType t);
std::optional<KvType> snapshot_kv_type(uint32_t code);

// CRC-64/XZ (ECMA-182 polynomial, reflected, init and final xor all ones), streamed.
class Crc64 {
 public:
  void update(std::span<const uint8_t> bytes);
  uint64_t value() const { return ~state_; }

 private:
  uint64_t state_ = ~0ull;
};
uint64_t crc64(std::span<const uint8_t> bytes);

struct JournalHeader {
  uint32_t version = kSnapshotVersion;
  uint64_t model_identity = 0;
  KvType kv_type = KvType::F16;     // K's, and V's unless kv_type_v is set
  std::optional<KvType> kv_type_v;  // V's where K and V are typed apart
  uint32_t n_layers = 0, n_kv_heads = 0, head_dim = 0;
  uint32_t block_tokens = 0;

  KvType type_of(int32_t which) const { return which == 0 ? kv_type : kv_type_v.value_or(kv_type); }
  uint64_t row_bytes(int32_t which) const;  // one K (0) or V (1) row
  // Both types in one number: K's code, V's code + 1 in bits 8.. when they differ.
  uint32_t types_code() const;
};

// What the loading session requires of a snapshot.
struct SnapshotTarget {
  uint64_t model_identity = 0;
  int32_t n_layers = 0, n_kv_heads = 0, head_dim = 0;
  int32_t n_vocab = 0;
  int32_t n_ctx = 0;  // the most tokens the session holds
};

// The 64 header bytes.
std::vector<uint8_t> encode_journal_header(const JournalHeader& h);
// Parses and checks the header (`head`: the file's first min(size, 64) bytes) against
// the target: magic, version, checksum, model identity, cache shape.
Result<JournalHeader> parse_journal_header(std::span<const uint8_t> head,
                                           const SnapshotTarget& target);

// One record to write. rows(layer, which, dst) fills dst with the n_new rows (K: which
// 0, V: which 1) of one layer, n_new x row_bytes.
struct JournalRecordContents {
  uint32_t first_pos = 0;
  uint32_t n_keep = 0;
  uint32_t window_head = 0, window_lo = 0;
  std::span<const int32_t> new_tokens;
  std::span<const int32_t> turn_starts;
  std::span<const float> logits;
  std::function<Status(int32_t layer, int32_t which, uint8_t* dst)> rows;
};
// The bytes a record takes, header and trailer included.
uint64_t journal_record_bytes(const JournalHeader& h, uint64_t n_new, uint64_t n_turns,
                              uint64_t n_vocab);

using SnapshotSink = std::function<Status(std::span<const uint8_t>)>;
// Writes one record through `sink` in chunks of at most 1 MiB.
Status write_journal_record(const JournalHeader& h, const JournalRecordContents& r,
                            const SnapshotSink& sink);

// Reads bytes [offset, offset + dst.size()) of the file, all of them, or fails.
using SnapshotReader = std::function<Status(uint64_t offset, std::span<uint8_t> dst)>;
SnapshotReader snapshot_memory_reader(std::span<const uint8_t> bytes);  // tests, fuzzing

// A valid record as found by scan_journal.
struct JournalRecordInfo {
  uint64_t offset = 0;       // of its header in the file
  uint64_t rows_offset = 0;  // of its first K row in the file
  uint32_t first_pos = 0, n_new = 0;
};

// What a journal holds: the state after its last valid record.
struct JournalState {
  JournalHeader header;
  std::vector<JournalRecordInfo> records;
  std::vector<int32_t> tokens;
  std::vector<int32_t> turn_starts;
  std::vector<float> logits;  // empty when the last record stored none
  uint32_t n_keep = 0, window_head = 0, window_lo = 0;
  uint64_t valid_bytes = 0;  // the header and the valid records: where the next append goes
  uint64_t file_bytes = 0;
  std::string stopped;  // why bytes past valid_bytes were ignored; empty when none were
};

// Scans a whole journal of `file_size` bytes: the header (refused with a message when
// bad), then every record while each is whole, checksummed and consistent with the
// state before it. Token ids are checked against target.n_vocab; the final state's
// token count against target.n_ctx (the intermediate ones may exceed it).
Result<JournalState> scan_journal(uint64_t file_size, const SnapshotTarget& target,
                                  const SnapshotReader& read);

// The rows of the final state, by where they lie in the file: record r supplies the
// positions [first_pos, first_pos + n) (n <= its n_new) that no later record rewrote.
struct JournalRowSpan {
  uint64_t rows_offset = 0;  // the record's first K row
  uint32_t record_n_new = 0;
  uint32_t first_pos = 0;  // = the record's first_pos
  uint32_t n = 0;          // live rows from first_pos
};
std::vector<JournalRowSpan> journal_live_rows(const JournalState& state);

}  // namespace kvchat
