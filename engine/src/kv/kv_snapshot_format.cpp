#include "kv/kv_snapshot_format.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

namespace kvchat {

namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;
constexpr uint64_t kCrc64Poly = 0xC96C5795D7870F42ull;  // ECMA-182, reflected

constexpr bool kLittleEndianHost = std::endian::native == std::endian::little;
constexpr const char* kBigEndianMessage =
    "KV snapshots store the cache's rows as little-endian bytes; this host is big-endian";

// Slicing-by-8 tables: table[k][b] is the CRC of byte b followed by k zero bytes.
using CrcTables = std::array<std::array<uint64_t, 256>, 8>;
const CrcTables& crc_tables() {
  static const CrcTables tables = [] {
    CrcTables t{};
    for (uint32_t b = 0; b < 256; ++b) {
      uint64_t c = b;
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1) ? kCrc64Poly : 0);
      t[0][b] = c;
    }
    for (int k = 1; k < 8; ++k) {
      for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
    }
    return t;
  }();
  return tables;
}

uint64_t load_le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int k = n - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

void store_le(uint8_t* p, uint64_t v, int n) {
  for (int k = 0; k < n; ++k) p[k] = static_cast<uint8_t>(v >> (8 * k));
}

std::string hex(uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (int k = 15; k >= 0; --k) s += digits[(v >> (4 * k)) & 0xf];
  return s;
}

// Buffers output into chunks, computing the checksum as they go out.
class ChunkWriter {
 public:
  explicit ChunkWriter(const SnapshotSink& sink) : sink_(sink) { buf_.reserve(kChunkBytes); }

  Status put(const uint8_t* p, size_t n) {
    while (n > 0) {
      const size_t take = std::min(n, kChunkBytes - buf_.size());
      buf_.insert(buf_.end(), p, p + take);
      p += take;
      n -= take;
      if (buf_.size() == kChunkBytes) {
        if (auto s = flush(); !s) return s;
      }
    }
    return {};
  }
  Status put_u32s(std::span<const uint32_t> values) {
    uint8_t b[4];
    for (uint32_t v : values) {
      store_le(b, v, 4);
      if (auto s = put(b, 4); !s) return s;
    }
    return {};
  }
  Status flush() {
    if (buf_.empty()) return {};
    crc_.update(buf_);
    Status s = sink_(buf_);
    buf_.clear();
    return s;
  }
  // Flushes, then writes the checksum of everything written.
  Status finish() {
    if (auto s = flush(); !s) return s;
    uint8_t b[8];
    store_le(b, crc_.value(), 8);
    return sink_(std::span<const uint8_t>(b, 8));
  }

 private:
  const SnapshotSink& sink_;
  std::vector<uint8_t> buf_;
  Crc64 crc_;
};

// acc += a * b in u64, reporting overflow.
bool add_product(uint64_t& acc, uint64_t a, uint64_t b) {
  uint64_t p = 0;
  return !__builtin_mul_overflow(a, b, &p) && !__builtin_add_overflow(acc, p, &acc);
}

// The payload bytes a record's fields imply, or nullopt when they overflow.
std::optional<uint64_t> payload_bytes(const JournalHeader& h, uint64_t n_new, uint64_t n_turns,
                                      uint64_t n_vocab) {
  uint64_t bytes = 0;
  if (!add_product(bytes, 4, n_new) || !add_product(bytes, 4, n_turns) ||
      !add_product(bytes, 4, n_vocab) ||
      !add_product(bytes, uint64_t{h.n_layers} * n_new, h.row_bytes(0) + h.row_bytes(1))) {
    return std::nullopt;
  }
  return bytes;
}

struct RecordFields {
  uint32_t magic = 0, kind = 0, first_pos = 0, n_new = 0, n_keep = 0, n_turns = 0, n_vocab = 0;
  uint32_t window_head = 0, window_lo = 0, reserved = 0;
  uint64_t payload = 0;
};

RecordFields decode_record_header(const uint8_t* p) {
  RecordFields f;
  f.magic = static_cast<uint32_t>(load_le(p, 4));
  f.kind = static_cast<uint32_t>(load_le(p + 4, 4));
  f.first_pos = static_cast<uint32_t>(load_le(p + 8, 4));
  f.n_new = static_cast<uint32_t>(load_le(p + 12, 4));
  f.n_keep = static_cast<uint32_t>(load_le(p + 16, 4));
  f.n_turns = static_cast<uint32_t>(load_le(p + 20, 4));
  f.n_vocab = static_cast<uint32_t>(load_le(p + 24, 4));
  f.window_head = static_cast<uint32_t>(load_le(p + 28, 4));
  f.window_lo = static_cast<uint32_t>(load_le(p + 32, 4));
  f.reserved = static_cast<uint32_t>(load_le(p + 36, 4));
  f.payload = load_le(p + 40, 8);
  return f;
}

// Why a record's fields cannot follow a state of n_prev tokens; empty when they can.
std::string check_record_fields(const RecordFields& f, const JournalHeader& h, uint64_t n_prev,
                                const SnapshotTarget& target) {
  if (f.magic != kRecordMagic) return "no record magic";
  if (f.kind != kRecordKindState) return "unknown record kind " + std::to_string(f.kind);
  if (f.reserved != 0) return "reserved bytes are not zero";
  if (f.first_pos > n_prev) {
    return "it continues from token " + std::to_string(f.first_pos) + " of a state of " +
           std::to_string(n_prev);
  }
  const uint64_t n = uint64_t{f.first_pos} + f.n_new;
  if (n > 0x7fffffffull) return "it holds too many tokens";
  if (f.n_keep > n) return "its kept prefix is longer than its tokens";
  if (f.n_turns > n + 1) return "it marks more turns than it has tokens";
  if (f.n_vocab != 0 && f.n_vocab != static_cast<uint32_t>(target.n_vocab)) {
    return "it stores " + std::to_string(f.n_vocab) + " logits; the model's vocabulary has " +
           std::to_string(target.n_vocab) + " tokens";
  }
  if (f.n_vocab != 0 && n == 0) return "it stores next-token logits but no tokens";
  if (f.window_head > f.window_lo || f.window_lo > n) return "its windowed rows are malformed";
  const auto expect = payload_bytes(h, f.n_new, f.n_turns, f.n_vocab);
  if (!expect || *expect != f.payload) return "its payload size does not match its fields";
  return {};
}

// One record's arrays, reused from record to record with the read buffer.
struct RecordArrays {
  std::vector<uint8_t> buf;
  std::vector<int32_t> new_tokens, turns;
  std::vector<float> logits;
};

// Reads n little-endian 32-bit words at pos into out (as T) through crc; pos moves past them.
template <class T>
Status read_words(const SnapshotReader& read, uint64_t& pos, uint32_t n, Crc64& crc,
                  std::vector<uint8_t>& buf, std::vector<T>& out) {
  buf.resize(4ull * n);
  if (auto s = read(pos, buf); !s) return s;
  crc.update(buf);
  pos += buf.size();
  out.resize(n);
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t v = static_cast<uint32_t>(load_le(&buf[4ull * k], 4));
    out[k] = std::bit_cast<T>(v);
  }
  return {};
}

// Reads the payload of a record of fields f from pos (just past its header): the small
// arrays into a, then the rows in chunks, all through crc. pos ends at the trailer;
// rows_offset: where the rows start.
Status read_record_payload(const SnapshotReader& read, const RecordFields& f, uint64_t& pos,
                           Crc64& crc, RecordArrays& a, uint64_t& rows_offset) {
  const uint64_t end_rows = pos + f.payload;
  if (auto s = read_words(read, pos, f.n_new, crc, a.buf, a.new_tokens); !s) return s;
  if (auto s = read_words(read, pos, f.n_turns, crc, a.buf, a.turns); !s) return s;
  if (auto s = read_words(read, pos, f.n_vocab, crc, a.buf, a.logits); !s) return s;
  rows_offset = pos;
  while (pos < end_rows) {
    a.buf.resize(std::min<uint64_t>(kChunkBytes, end_rows - pos));
    if (auto s = read(pos, a.buf); !s) return s;
    crc.update(a.buf);
    pos += a.buf.size();
  }
  return {};
}

// Why a checksummed record's token ids (against the vocabulary of n_vocab) or turn
// starts (ascending, within its tokens) are invalid; empty when they are valid.
std::string check_record_arrays(const RecordFields& f, const RecordArrays& a, int32_t n_vocab) {
  const uint32_t n_after = f.first_pos + f.n_new;
  std::string bad;
  for (uint32_t k = 0; k < f.n_new && bad.empty(); ++k) {
    if (a.new_tokens[k] < 0 || a.new_tokens[k] >= n_vocab) {
      bad = "its token id " + std::to_string(a.new_tokens[k]) + " at position " +
            std::to_string(f.first_pos + k) + " is outside the vocabulary [0, " +
            std::to_string(n_vocab) + ")";
    }
  }
  for (uint32_t k = 0; k < f.n_turns && bad.empty(); ++k) {
    if (a.turns[k] < 0 || static_cast<uint32_t>(a.turns[k]) > n_after ||
        (k > 0 && a.turns[k] <= a.turns[k - 1])) {
      bad = "its turn start " + std::to_string(a.turns[k]) + " is out of order or outside [0, " +
            std::to_string(n_after) + "]";
    }
  }
  return bad;
}

// Makes the state of a whole, consistent record (at byte `at`, rows from rows_offset) the
// journal's state.
void apply_record(JournalState& st, const RecordFields& f, const RecordArrays& a, uint64_t at,
                  uint64_t rows_offset) {
  st.tokens.resize(f.first_pos);
  st.tokens.insert(st.tokens.end(), a.new_tokens.begin(), a.new_tokens.end());
  st.turn_starts = a.turns;
  st.logits = a.logits;
  st.n_keep = f.n_keep;
  st.window_head = f.window_head;
  st.window_lo = f.window_lo;
  st.records.push_back({at, rows_offset, f.first_pos, f.n_new});
}

// The final state must fit a context of n_ctx tokens.
Status check_state_fits(const JournalState& st, int32_t n_ctx) {
  if (st.tokens.size() > static_cast<size_t>(std::max(n_ctx, 0))) {
    return Error{"the snapshot holds " + std::to_string(st.tokens.size()) +
                 " tokens, more than this session's context of " + std::to_string(n_ctx) +
                 " tokens"};
  }
  if (st.n_keep > static_cast<uint32_t>(std::max(n_ctx, 0))) {
    return Error{"the snapshot keeps a prefix of " + std::to_string(st.n_keep) +
                 " tokens, more than this session's context of " + std::to_string(n_ctx) +
                 " tokens"};
  }
  return {};
}

}  // namespace

uint32_t snapshot_kv_type_code(KvType t) {
  switch (t) {
    case KvType::F32: return 0;
    case KvType::F16: return 1;
    case KvType::Q8_0: return 2;
    case KvType::Q4_0: return 3;
    case KvType::Q8_0R: return 4;  // rows rotated with kv/kv_rotation.h's fixed signs
    case KvType::Q4_0R: return 5;
  }
  return ~0u;
}

std::optional<KvType> snapshot_kv_type(uint32_t code) {
  for (KvType t : kAllKvTypes) {
    if (snapshot_kv_type_code(t) == code) return t;
  }
  return std::nullopt;
}

void Crc64::update(std::span<const uint8_t> bytes) {
  const CrcTables& t = crc_tables();
  const uint8_t* p = bytes.data();
  size_t n = bytes.size();
  uint64_t c = state_;
  for (; n >= 8; p += 8, n -= 8) {
    c ^= load_le(p, 8);
    c = t[7][c & 0xff] ^ t[6][(c >> 8) & 0xff] ^ t[5][(c >> 16) & 0xff] ^ t[4][(c >> 24) & 0xff] ^
        t[3][(c >> 32) & 0xff] ^ t[2][(c >> 40) & 0xff] ^ t[1][(c >> 48) & 0xff] ^ t[0][c >> 56];
  }
  for (; n > 0; ++p, --n) c = t[0][(c ^ *p) & 0xff] ^ (c >> 8);
  state_ = c;
}

uint64_t crc64(std::span<const uint8_t> bytes) {
  Crc64 c;
  c.update(bytes);
  return c.value();
}

uint64_t JournalHeader::row_bytes(int32_t which) const {
  return kv_bytes(type_of(which), static_cast<uint64_t>(n_kv_heads) * head_dim);
}

uint32_t JournalHeader::types_code() const {
  const uint32_t v_field = type_of(1) == kv_type ? 0 : snapshot_kv_type_code(type_of(1)) + 1;
  return snapshot_kv_type_code(kv_type) | v_field << 8;
}

std::vector<uint8_t> encode_journal_header(const JournalHeader& h) {
  std::vector<uint8_t> out(kJournalHeaderBytes, 0);
  std::memcpy(out.data(), kSnapshotMagic, 8);
  store_le(&out[8], h.version, 4);
  store_le(&out[12], kJournalHeaderBytes, 4);
  store_le(&out[16], h.model_identity, 8);
  const uint32_t fields[] = {snapshot_kv_type_code(h.kv_type),
                             h.n_layers,
                             h.n_kv_heads,
                             h.head_dim,
                             h.block_tokens,
                             h.types_code() >> 8};
  for (size_t k = 0; k < std::size(fields); ++k) store_le(&out[24 + 4 * k], fields[k], 4);
  store_le(&out[56], crc64(std::span<const uint8_t>(out).first(56)), 8);
  return out;
}

Result<JournalHeader> parse_journal_header(std::span<const uint8_t> head,
                                           const SnapshotTarget& target) {
  if (head.size() >= 8 && std::memcmp(head.data(), kSnapshotV2Magic, 8) == 0) {
    return Error{
        "the snapshot was written by an older kvchat (format version 2, rewritten whole at every "
        "save; "
        "this build reads the version 3 journal): the conversation is re-evaluated once and the "
        "next "
        "save replaces it"};
  }
  const size_t n_magic = std::min<size_t>(head.size(), 8);
  if (n_magic > 0 && std::memcmp(head.data(), kSnapshotMagic, n_magic) != 0) {
    return Error{"not a kvchat KV snapshot (bad magic: the file does not start with \"KVCHATSJ\")"};
  }
  if (head.size() < kJournalHeaderBytes) {
    return Error{"the snapshot is truncated: " + std::to_string(head.size()) +
                 " bytes, shorter than its " + std::to_string(kJournalHeaderBytes) +
                 "-byte header"};
  }
  JournalHeader h;
  h.version = static_cast<uint32_t>(load_le(&head[8], 4));
  if (h.version > kSnapshotVersion) {
    return Error{"the snapshot was written by a newer kvchat (format version " +
                 std::to_string(h.version) + "; this build reads version " +
                 std::to_string(kSnapshotVersion) + ")"};
  }
  if (h.version != kSnapshotVersion) {
    return Error{"unknown snapshot format version " + std::to_string(h.version) +
                 " (this build reads " + std::to_string(kSnapshotVersion) + ")"};
  }
  const uint64_t stored = load_le(&head[56], 8), computed = crc64(head.first(56));
  if (stored != computed) {
    return Error{"the snapshot's header is corrupted: checksum mismatch (stored " + hex(stored) +
                 ", computed " + hex(computed) + ")"};
  }
  if (load_le(&head[12], 4) != kJournalHeaderBytes)
    return Error{"the snapshot's header size is not 64 bytes"};
  h.model_identity = load_le(&head[16], 8);
  if (h.model_identity != target.model_identity) {
    return Error{"this snapshot belongs to another model (model identity " + hex(h.model_identity) +
                 "; the loaded model's is " + hex(target.model_identity) + ")"};
  }
  const uint32_t type_code = static_cast<uint32_t>(load_le(&head[24], 4));
  auto type = snapshot_kv_type(type_code);
  if (!type) return Error{"the snapshot has an unknown KV type code " + std::to_string(type_code)};
  h.kv_type = *type;
  const uint32_t v_field = static_cast<uint32_t>(load_le(&head[44], 4));
  if (v_field != 0) {
    h.kv_type_v = snapshot_kv_type(v_field - 1);
    if (!h.kv_type_v)
      return Error{"the snapshot has an unknown V type code " + std::to_string(v_field - 1)};
  }
  h.n_layers = static_cast<uint32_t>(load_le(&head[28], 4));
  h.n_kv_heads = static_cast<uint32_t>(load_le(&head[32], 4));
  h.head_dim = static_cast<uint32_t>(load_le(&head[36], 4));
  h.block_tokens = static_cast<uint32_t>(load_le(&head[40], 4));

  auto shape = [](uint64_t l, uint64_t kvh, uint64_t d) {
    return std::to_string(l) + " layers, " + std::to_string(kvh) + " KV heads, head_dim " +
           std::to_string(d);
  };
  if (target.n_layers < 1 || target.n_kv_heads < 1 || target.head_dim < 1 || target.n_ctx < 1 ||
      target.n_vocab < 1) {
    return Error{"the session to restore into has no valid cache shape"};
  }
  if (h.n_layers != static_cast<uint32_t>(target.n_layers) ||
      h.n_kv_heads != static_cast<uint32_t>(target.n_kv_heads) ||
      h.head_dim != static_cast<uint32_t>(target.head_dim)) {
    return Error{"the snapshot's cache shape (" + shape(h.n_layers, h.n_kv_heads, h.head_dim) +
                 ") does not match the model's (" +
                 shape(target.n_layers, target.n_kv_heads, target.head_dim) + ")"};
  }
  for (KvType t : {h.type_of(0), h.type_of(1)}) {
    if (std::string why = kv_type_unusable(t, h.head_dim); !why.empty())
      return Error{"the snapshot's KV type cannot encode its rows: " + why};
  }
  return h;
}

uint64_t journal_record_bytes(const JournalHeader& h, uint64_t n_new, uint64_t n_turns,
                              uint64_t n_vocab) {
  return kRecordHeaderBytes + payload_bytes(h, n_new, n_turns, n_vocab).value_or(0) +
         kRecordTrailerBytes;
}

Status write_journal_record(const JournalHeader& h, const JournalRecordContents& r,
                            const SnapshotSink& sink) {
  if constexpr (!kLittleEndianHost) return Error{kBigEndianMessage};
  const uint64_t n_new = r.new_tokens.size();
  if (!r.new_tokens.empty() && !r.rows) return Error{"snapshot: no K/V rows to write"};
  const auto payload = payload_bytes(h, n_new, r.turn_starts.size(), r.logits.size());
  if (!payload) return Error{"snapshot: the record's sizes overflow"};
  uint8_t head[kRecordHeaderBytes] = {};
  const uint32_t fields[] = {kRecordMagic,
                             kRecordKindState,
                             r.first_pos,
                             static_cast<uint32_t>(n_new),
                             r.n_keep,
                             static_cast<uint32_t>(r.turn_starts.size()),
                             static_cast<uint32_t>(r.logits.size()),
                             r.window_head,
                             r.window_lo,
                             0};
  for (size_t k = 0; k < std::size(fields); ++k) store_le(&head[4 * k], fields[k], 4);
  store_le(&head[40], *payload, 8);

  ChunkWriter w(sink);
  if (auto s = w.put(head, sizeof head); !s) return s;
  std::vector<uint32_t> words(r.new_tokens.begin(), r.new_tokens.end());
  if (auto s = w.put_u32s(words); !s) return s;
  words.assign(r.turn_starts.begin(), r.turn_starts.end());
  if (auto s = w.put_u32s(words); !s) return s;
  words.resize(r.logits.size());
  for (size_t k = 0; k < r.logits.size(); ++k) words[k] = std::bit_cast<uint32_t>(r.logits[k]);
  if (auto s = w.put_u32s(words); !s) return s;
  if (n_new > 0) {
    std::vector<uint8_t> rows(n_new * std::max(h.row_bytes(0), h.row_bytes(1)));
    for (uint32_t l = 0; l < h.n_layers; ++l) {
      for (int32_t which : {0, 1}) {
        if (auto s = r.rows(static_cast<int32_t>(l), which, rows.data()); !s) return s;
        if (auto s = w.put(rows.data(), n_new * h.row_bytes(which)); !s) return s;
      }
    }
  }
  return w.finish();
}

SnapshotReader snapshot_memory_reader(std::span<const uint8_t> bytes) {
  return [bytes](uint64_t offset, std::span<uint8_t> dst) -> Status {
    if (offset > bytes.size() || bytes.size() - offset < dst.size()) {
      return Error{"unexpected end of the snapshot data"};
    }
    if (!dst.empty()) std::memcpy(dst.data(), bytes.data() + offset, dst.size());
    return {};
  };
}

Result<JournalState> scan_journal(uint64_t file_size, const SnapshotTarget& target,
                                  const SnapshotReader& read) {
  if constexpr (!kLittleEndianHost) return Error{kBigEndianMessage};
  std::vector<uint8_t> head(std::min<uint64_t>(file_size, kJournalHeaderBytes));
  if (auto s = read(0, head); !s) return Error{s.message()};
  auto header = parse_journal_header(head, target);
  if (!header) return header.error();
  JournalState st;
  st.header = *header;
  st.file_bytes = file_size;
  st.valid_bytes = kJournalHeaderBytes;
  const JournalHeader& h = st.header;

  RecordArrays arrays;
  uint64_t at = kJournalHeaderBytes;
  auto stop = [&](const std::string& why) {
    st.stopped = "the record at byte " + std::to_string(at) + " " + why + "; the " +
                 std::to_string(file_size - at) + " bytes from there are ignored";
  };
  while (at < file_size) {
    if (file_size - at < kRecordHeaderBytes) {
      stop("is torn (the file ends inside its header)");
      break;
    }
    uint8_t rh[kRecordHeaderBytes];
    if (auto s = read(at, std::span<uint8_t>(rh, sizeof rh)); !s) return Error{s.message()};
    const RecordFields f = decode_record_header(rh);
    if (std::string why = check_record_fields(f, h, st.tokens.size(), target); !why.empty()) {
      stop("is corrupt (" + why + ")");
      break;
    }
    const uint64_t rest = file_size - at - kRecordHeaderBytes;  // payload and trailer must fit
    if (rest < kRecordTrailerBytes || f.payload > rest - kRecordTrailerBytes) {
      stop("is torn (the file ends inside it)");
      break;
    }
    Crc64 crc;
    crc.update(std::span<const uint8_t>(rh, sizeof rh));
    uint64_t pos = at + kRecordHeaderBytes;
    uint64_t rows_offset = 0;
    if (auto s = read_record_payload(read, f, pos, crc, arrays, rows_offset); !s)
      return Error{s.message()};
    uint8_t trailer[8];
    if (auto s = read(pos, std::span<uint8_t>(trailer, 8)); !s) return Error{s.message()};
    if (load_le(trailer, 8) != crc.value()) {
      stop("fails its checksum (stored " + hex(load_le(trailer, 8)) + ", computed " +
           hex(crc.value()) + ")");
      break;
    }
    if (std::string bad = check_record_arrays(f, arrays, target.n_vocab); !bad.empty()) {
      stop("is corrupt (" + bad + ")");
      break;
    }
    // The record is whole and consistent: its state is the journal's state now.
    apply_record(st, f, arrays, at, rows_offset);
    at = pos + kRecordTrailerBytes;
    st.valid_bytes = at;
  }
  if (auto s = check_state_fits(st, target.n_ctx); !s) return Error{s.message()};
  return st;
}

std::vector<JournalRowSpan> journal_live_rows(const JournalState& state) {
  std::vector<JournalRowSpan> spans(state.records.size());
  uint64_t limit = state.tokens.size();  // positions at or past it are rewritten later (or cut)
  for (size_t k = state.records.size(); k-- > 0;) {
    const JournalRecordInfo& r = state.records[k];
    const uint64_t end = std::min<uint64_t>(uint64_t{r.first_pos} + r.n_new, limit);
    spans[k] = {r.rows_offset, r.n_new, r.first_pos,
                static_cast<uint32_t>(end > r.first_pos ? end - r.first_pos : 0)};
    limit = std::min<uint64_t>(limit, r.first_pos);
  }
  std::erase_if(spans, [](const JournalRowSpan& s) { return s.n == 0; });
  return spans;
}

}  // namespace kvchat
