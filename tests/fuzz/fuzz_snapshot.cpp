// libFuzzer entry point: the KV snapshot journal scanner. Any byte string must give a
// state or an error message — never a crash — and a state whose live rows cover exactly
// its tokens, each span inside the input. The first byte picks the mode: odd = the
// harness rewrites the header's and each whole record's checksum first (so that the
// fuzzer reaches the field checks behind them), even = the bytes as they are. The
// target takes its identity and cache shape from the header, so that they match.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "kv/kv_snapshot_format.h"

namespace {

uint64_t le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int k = n - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}
void put_le(uint8_t* p, uint64_t v, int n) {
  for (int k = 0; k < n; ++k) p[k] = static_cast<uint8_t>(v >> (8 * k));
}

void fix_checksums(std::vector<uint8_t>& b) {
  using kvchat::crc64;
  if (b.size() < kvchat::kJournalHeaderBytes) return;
  put_le(&b[56], crc64(std::span<const uint8_t>(b).first(56)), 8);
  uint64_t at = kvchat::kJournalHeaderBytes;
  while (b.size() - at >= kvchat::kRecordHeaderBytes) {
    const uint64_t payload = le(&b[at + 40], 8);
    const uint64_t left = b.size() - at - kvchat::kRecordHeaderBytes;
    if (payload > left || left - payload < 8) return;
    const uint64_t end = at + kvchat::kRecordHeaderBytes + payload;
    put_le(&b[end], crc64(std::span<const uint8_t>(b).subspan(at, end - at)), 8);
    at = end + 8;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::vector<uint8_t> bytes(data + 1, data + size);
  if (data[0] & 1) fix_checksums(bytes);
  kvchat::SnapshotTarget target{0, 1, 1, 32, 64, 4096};
  if (bytes.size() >= 40) {
    target.model_identity = le(&bytes[16], 8);
    target.n_layers = static_cast<int32_t>(le(&bytes[28], 4) & 0xff);
    target.n_kv_heads = static_cast<int32_t>(le(&bytes[32], 4) & 0xff);
    target.head_dim = static_cast<int32_t>(le(&bytes[36], 4) & 0xfff);
  }
  auto st = kvchat::scan_journal(bytes.size(), target, kvchat::snapshot_memory_reader(bytes));
  if (!st) {
    if (st.message().empty()) std::abort();  // every refusal says why
    return 0;
  }
  if (st->valid_bytes > bytes.size() || (st->valid_bytes < bytes.size()) == st->stopped.empty())
    std::abort();
  uint64_t covered = 0;
  const uint64_t pair_rb = st->header.row_bytes(0) + st->header.row_bytes(1);  // K + V
  for (const auto& span : kvchat::journal_live_rows(*st)) {
    if (span.first_pos != covered || span.n > span.record_n_new) std::abort();
    covered += span.n;
    const uint64_t rows_end =
        span.rows_offset + uint64_t{st->header.n_layers} * span.record_n_new * pair_rb;
    if (rows_end > st->valid_bytes) std::abort();
  }
  if (covered != st->tokens.size()) std::abort();
  for (int32_t t : st->tokens) {
    if (t < 0 || t >= target.n_vocab) std::abort();
  }
  return 0;
}
