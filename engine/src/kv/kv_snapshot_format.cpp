#include "kv/kv_snapshot_format.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <memory>
#include <string>

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

// Multiplies and adds in u64, reporting overflow.
bool add_product(uint64_t& acc, uint64_t a, uint64_t b) {
  uint64_t p = 0;
  return !__builtin_mul_overflow(a, b, &p) && !__builtin_add_overflow(acc, p, &acc);
}

}  // namespace

uint32_t snapshot_kv_type_code(KvType t) {
  switch (t) {
    case KvType::F32: return 0;
    case KvType::F16: return 1;
    case KvType::Q8_0: return 2;
    case KvType::Q4_0: return 3;
  }
  return ~0u;
}

std::optional<KvType> snapshot_kv_type(uint32_t code) {
  for (KvType t : kAllKvTypes) {
    if (snapshot_kv_type_code(t) == code) return t;
  }
  return std::nullopt;
}

uint64_t SnapshotHeader::row_bytes() const {
  return kv_bytes(kv_type, static_cast<uint64_t>(n_kv_heads) * head_dim);
}

uint64_t SnapshotHeader::file_bytes() const {
  return kSnapshotHeaderBytes + 4ull * (uint64_t{n_tokens} + n_turns + n_vocab) +
         2ull * n_layers * n_tokens * row_bytes() + kSnapshotChecksumBytes;
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

std::vector<uint8_t> encode_snapshot_header(const SnapshotHeader& h) {
  std::vector<uint8_t> out(kSnapshotHeaderBytes);
  std::memcpy(out.data(), kSnapshotMagic, 8);
  store_le(&out[8], h.version, 4);
  store_le(&out[12], h.model_identity, 8);
  const uint32_t fields[] = {snapshot_kv_type_code(h.kv_type), h.n_layers, h.n_kv_heads, h.head_dim,
                             h.n_tokens, h.n_keep, h.n_turns, h.n_vocab, h.window_head, h.window_lo};
  for (size_t k = 0; k < std::size(fields); ++k) store_le(&out[20 + 4 * k], fields[k], 4);
  return out;
}

Result<SnapshotHeader> parse_snapshot_header(std::span<const uint8_t> head, uint64_t file_size,
                                             const SnapshotTarget& target) {
  const size_t n_magic = std::min<size_t>(head.size(), 8);
  if (n_magic > 0 && std::memcmp(head.data(), kSnapshotMagic, n_magic) != 0) {
    return Error{"not a kvchat KV snapshot (bad magic: the file does not start with \"KVCHATSN\")"};
  }
  if (file_size < kSnapshotHeaderBytes || head.size() < kSnapshotHeaderBytes) {
    return Error{"the snapshot is truncated: " + std::to_string(file_size) +
                 " bytes, shorter than its " + std::to_string(kSnapshotHeaderBytes) + "-byte header"};
  }
  SnapshotHeader h;
  h.version = static_cast<uint32_t>(load_le(&head[8], 4));
  if (h.version > kSnapshotVersion) {
    return Error{"the snapshot was written by a newer kvchat (format version " + std::to_string(h.version) +
                 "; this build reads version " + std::to_string(kSnapshotVersion) + ")"};
  }
  if (h.version == 1) {
    return Error{"the snapshot was written by an older kvchat (format version 1; this build reads version " +
                 std::to_string(kSnapshotVersion) + ")"};
  }
  if (h.version != kSnapshotVersion) {
    return Error{"unknown snapshot format version " + std::to_string(h.version) + " (this build reads " +
                 std::to_string(kSnapshotVersion) + ")"};
  }
  h.model_identity = load_le(&head[12], 8);
  if (h.model_identity != target.model_identity) {
    return Error{"this snapshot belongs to another model (model identity " + hex(h.model_identity) +
                 "; the loaded model's is " + hex(target.model_identity) + ")"};
  }
  const uint32_t type_code = static_cast<uint32_t>(load_le(&head[20], 4));
  auto type = snapshot_kv_type(type_code);
  if (!type) return Error{"the snapshot has an unknown KV type code " + std::to_string(type_code)};
  h.kv_type = *type;
  h.n_layers = static_cast<uint32_t>(load_le(&head[24], 4));
  h.n_kv_heads = static_cast<uint32_t>(load_le(&head[28], 4));
  h.head_dim = static_cast<uint32_t>(load_le(&head[32], 4));
  h.n_tokens = static_cast<uint32_t>(load_le(&head[36], 4));
  h.n_keep = static_cast<uint32_t>(load_le(&head[40], 4));
  h.n_turns = static_cast<uint32_t>(load_le(&head[44], 4));
  h.n_vocab = static_cast<uint32_t>(load_le(&head[48], 4));
  h.window_head = static_cast<uint32_t>(load_le(&head[52], 4));
  h.window_lo = static_cast<uint32_t>(load_le(&head[56], 4));

  auto shape = [](uint64_t l, uint64_t kvh, uint64_t d) {
    return std::to_string(l) + " layers, " + std::to_string(kvh) + " KV heads, head_dim " + std::to_string(d);
  };
  if (target.n_layers < 1 || target.n_kv_heads < 1 || target.head_dim < 1 || target.n_ctx < 1 ||
      target.n_vocab < 1) {
    return Error{"the session to restore into has no valid cache shape"};
  }
  if (h.n_layers != static_cast<uint32_t>(target.n_layers) ||
      h.n_kv_heads != static_cast<uint32_t>(target.n_kv_heads) ||
      h.head_dim != static_cast<uint32_t>(target.head_dim)) {
    return Error{"the snapshot's cache shape (" + shape(h.n_layers, h.n_kv_heads, h.head_dim) +
                 ") does not match the model's (" + shape(target.n_layers, target.n_kv_heads, target.head_dim) + ")"};
  }
  if (h.head_dim % kv_block_values(h.kv_type) != 0) {
    return Error{"the snapshot's KV type " + std::string(kv_type_name(h.kv_type)) +
                 " cannot encode rows of head_dim " + std::to_string(h.head_dim)};
  }
  if (h.n_vocab != 0 && h.n_vocab != static_cast<uint32_t>(target.n_vocab)) {
    return Error{"the snapshot stores " + std::to_string(h.n_vocab) + " logits; the model's vocabulary has " +
                 std::to_string(target.n_vocab) + " tokens"};
  }
  if (h.n_tokens == 0 && h.n_vocab != 0) {
    return Error{"the snapshot stores next-token logits but no tokens"};
  }
  if (h.n_tokens > static_cast<uint32_t>(target.n_ctx)) {
    return Error{"the snapshot holds " + std::to_string(h.n_tokens) + " tokens, more than this session's context of " +
                 std::to_string(target.n_ctx) + " tokens"};
  }
  if (h.n_keep > static_cast<uint32_t>(target.n_ctx)) {
    return Error{"the snapshot keeps a prefix of " + std::to_string(h.n_keep) +
                 " tokens, more than this session's context of " + std::to_string(target.n_ctx) + " tokens"};
  }
  if (h.n_turns > h.n_tokens + 1) {
    return Error{"the snapshot marks " + std::to_string(h.n_turns) + " turns in " + std::to_string(h.n_tokens) +
                 " tokens"};
  }
  if (h.window_head > h.window_lo || h.window_lo > h.n_tokens) {
    return Error{"the snapshot's windowed rows [0, " + std::to_string(h.window_head) + ") and [" +
                 std::to_string(h.window_lo) + ", " + std::to_string(h.n_tokens) + ") are malformed"};
  }
  uint64_t expect = kSnapshotHeaderBytes + kSnapshotChecksumBytes;
  if (!add_product(expect, 4, uint64_t{h.n_tokens} + h.n_turns + h.n_vocab) ||
      !add_product(expect, 2ull * h.n_layers * h.n_tokens, h.row_bytes())) {
    return Error{"the snapshot's sizes do not add up (they overflow)"};
  }
  if (file_size < expect) {
    return Error{"the snapshot is truncated: " + std::to_string(file_size) + " bytes, its header says " +
                 std::to_string(expect)};
  }
  if (file_size > expect) {
    return Error{"the snapshot has " + std::to_string(file_size - expect) +
                 " bytes of trailing data after the " + std::to_string(expect) + " its header accounts for"};
  }
  return h;
}

Status write_snapshot(const SnapshotContents& c, const SnapshotSink& sink) {
  if constexpr (!kLittleEndianHost) return Error{kBigEndianMessage};
  const SnapshotHeader& h = c.header;
  if (c.tokens.size() != h.n_tokens || c.turn_starts.size() != h.n_turns || c.logits.size() != h.n_vocab) {
    return Error{"snapshot: the header's counts do not match the data"};
  }
  if (h.n_tokens > 0 && !c.row) return Error{"snapshot: no K/V rows to write"};
  ChunkWriter w(sink);
  const std::vector<uint8_t> header = encode_snapshot_header(h);
  if (auto s = w.put(header.data(), header.size()); !s) return s;
  std::vector<uint32_t> words(c.tokens.begin(), c.tokens.end());
  if (auto s = w.put_u32s(words); !s) return s;
  words.assign(c.turn_starts.begin(), c.turn_starts.end());
  if (auto s = w.put_u32s(words); !s) return s;
  words.resize(c.logits.size());
  for (size_t k = 0; k < c.logits.size(); ++k) words[k] = std::bit_cast<uint32_t>(c.logits[k]);
  if (auto s = w.put_u32s(words); !s) return s;
  const size_t row_bytes = h.row_bytes();
  for (uint32_t l = 0; l < h.n_layers; ++l) {
    for (uint32_t p = 0; p < h.n_tokens; ++p) {
      for (bool value : {false, true}) {
        const uint8_t* row = c.row(static_cast<int32_t>(l), static_cast<int32_t>(p), value);
        if (auto s = w.put(row, row_bytes); !s) return s;
      }
    }
  }
  return w.finish();
}

Result<SnapshotData> read_snapshot(uint64_t file_size, const SnapshotTarget& target,
                                   const SnapshotSource& source,
                                   const std::function<Status(const SnapshotHeader&)>& on_header,
                                   const SnapshotRowSink& on_row) {
  if constexpr (!kLittleEndianHost) return Error{kBigEndianMessage};
  Crc64 crc;
  auto read = [&](std::span<uint8_t> dst) -> Status {
    if (dst.empty()) return {};
    if (auto s = source(dst); !s) return s;
    crc.update(dst);
    return {};
  };
  std::vector<uint8_t> head(std::min<uint64_t>(file_size, kSnapshotHeaderBytes));
  if (auto s = read(head); !s) return Error{s.message()};
  auto header = parse_snapshot_header(head, file_size, target);
  if (!header) return header.error();
  SnapshotData d;
  d.header = *header;
  const SnapshotHeader& h = d.header;
  if (on_header) {
    if (auto s = on_header(h); !s) return Error{s.message()};
  }

  std::vector<uint8_t> buf;
  auto read_words = [&](uint32_t n, auto&& store) -> Status {
    buf.resize(4ull * n);
    if (auto s = read(buf); !s) return s;
    for (uint32_t k = 0; k < n; ++k) store(k, static_cast<uint32_t>(load_le(&buf[4ull * k], 4)));
    return {};
  };
  d.tokens.resize(h.n_tokens);
  d.turn_starts.resize(h.n_turns);
  d.logits.resize(h.n_vocab);
  Status st = read_words(h.n_tokens, [&](uint32_t k, uint32_t v) { d.tokens[k] = static_cast<int32_t>(v); });
  if (st) st = read_words(h.n_turns, [&](uint32_t k, uint32_t v) { d.turn_starts[k] = static_cast<int32_t>(v); });
  if (st) st = read_words(h.n_vocab, [&](uint32_t k, uint32_t v) { d.logits[k] = std::bit_cast<float>(v); });
  if (!st) return Error{st.message()};

  // Rows, a batch of positions (about 1 MiB) at a time.
  const uint64_t row_bytes = h.row_bytes();
  const uint32_t batch = static_cast<uint32_t>(std::max<uint64_t>(1, kChunkBytes / (2 * row_bytes)));
  for (uint32_t l = 0; l < h.n_layers; ++l) {
    for (uint32_t p0 = 0; p0 < h.n_tokens; p0 += batch) {
      const uint32_t n = std::min(batch, h.n_tokens - p0);
      buf.resize(2 * row_bytes * n);
      if (auto s = read(buf); !s) return Error{s.message()};
      for (uint32_t k = 0; k < n; ++k) {
        const uint8_t* key = buf.data() + 2 * row_bytes * k;
        if (on_row) on_row(static_cast<int32_t>(l), static_cast<int32_t>(p0 + k), key, key + row_bytes);
      }
    }
  }

  const uint64_t computed = crc.value();
  uint8_t stored_bytes[8];
  if (auto s = source(std::span<uint8_t>(stored_bytes, 8)); !s) return Error{s.message()};
  const uint64_t stored = load_le(stored_bytes, 8);
  if (stored != computed) {
    return Error{"the snapshot is corrupted: checksum mismatch (stored " + hex(stored) + ", computed " +
                 hex(computed) + ")"};
  }

  for (uint32_t k = 0; k < h.n_tokens; ++k) {
    if (d.tokens[k] < 0 || d.tokens[k] >= target.n_vocab) {
      return Error{"the snapshot's token id " + std::to_string(d.tokens[k]) + " at position " + std::to_string(k) +
                   " is outside the vocabulary [0, " + std::to_string(target.n_vocab) + ")"};
    }
  }
  for (uint32_t k = 0; k < h.n_turns; ++k) {
    const int32_t t = d.turn_starts[k];
    if (t < 0 || t > static_cast<int32_t>(h.n_tokens) || (k > 0 && t <= d.turn_starts[k - 1])) {
      return Error{"the snapshot's turn start " + std::to_string(t) + " is out of order or outside [0, " +
                   std::to_string(h.n_tokens) + "]"};
    }
  }
  return d;
}

SnapshotSource snapshot_memory_source(std::span<const uint8_t> bytes) {
  auto at = std::make_shared<size_t>(0);
  return [bytes, at](std::span<uint8_t> dst) -> Status {
    if (bytes.size() - *at < dst.size()) return Error{"unexpected end of the snapshot data"};
    std::memcpy(dst.data(), bytes.data() + *at, dst.size());
    *at += dst.size();
    return {};
  };
}

}  // namespace kvchat
