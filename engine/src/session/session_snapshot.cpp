// Session snapshots: the tokens, turn marks, kept prefix, next-token logits and KV cache
// of a conversation kept in a journal file (format: kv/kv_snapshot_format.h) and
// restored later without re-evaluating the prompt.
//
// Choices:
// - Appending: the session remembers the journal it saved or loaded last (path, inode,
//   where its valid records end, how many tokens its last state holds) and the cache
//   says which leading rows are unchanged since (KvCache::stable_rows()). A save to the
//   same file appends one record: "keep the first min(stable, saved) tokens, add the
//   rest", then fdatasync. A reply therefore writes its own tokens' K/V (plus the turn
//   marks and the next-token logits), not the whole conversation.
// - Rewriting: the first save of a session to a path, a file changed behind our back
//   (other inode, shorter than we left it), another KV type, or a journal whose dead
//   records (truncated rows, superseded logits) would outweigh its live state
//   (compaction) is written whole: temporary file, fsync, rename over path, directory
//   fsync. On any failure the temporary file is removed and the old file is untouched.
// - A failed append (full disk, I/O error) is cut off again with ftruncate; if even
//   that fails the torn record stays, and loading ignores it: every record committed
//   before it still loads, and the next save cuts it off.
// - Loading scans the whole journal first (every record's checksum), stopping at the
//   first torn or corrupt record, then reads the rows that the final state holds into a
//   fresh cache of the session's configuration; only then is the session's state
//   replaced. On any error the session is unchanged and the message says why, so the
//   caller can fall back to re-evaluating the conversation.
// - KV type: a snapshot saved in another KV type than the session's is re-encoded into
//   the session's type on load, like set_kv_type() does, and a KvTypeChanged event says
//   so (the next save rewrites the file in the session's type).
// - A session without next-token logits (right after truncate()) is saved with
//   n_vocab = 0. After loading such a snapshot last_logits() is empty and the caller
//   must re-evaluate the last token before sampling (eval_sequence() does it).
// - Sliding-window layers: the rows their cache freed are saved as zeros and each record
//   says which rows are valid ([0, head) and [lo, n_tokens)); the restored cache frees
//   the same blocks again (it holds them all while it reads).
// - A session whose cache does not hold every token (no_kv_cache after a failed eval)
//   is refused: there is nothing consistent to save.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "kv/kv_cache.h"
#include "kv/kv_codec.h"
#include "kv/kv_snapshot_format.h"
#include "kvchat/session.h"
#include "numeric/convert.h"
#include "util/file_io.h"

namespace kvchat {

namespace {

std::string errno_text() { return std::strerror(errno); }

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() { close(); }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }
  bool close() {
    const bool ok = fd_ < 0 || ::close(fd_) == 0;
    fd_ = -1;
    return ok;
  }

 private:
  int fd_;
};

// What a sink wrote: its bytes, and the last 8 of them (a record ends with its checksum:
// the journal's tail, known without reading the file back).
struct Written {
  uint64_t bytes = 0;
  uint8_t last[8] = {};
  void add(std::span<const uint8_t> b) {
    bytes += b.size();
    const size_t n = std::min<size_t>(b.size(), 8);
    std::memmove(last, last + n, 8 - n);
    std::memcpy(last + 8 - n, b.data() + b.size() - n, n);
  }
  uint64_t tail() const {
    uint64_t v = 0;
    std::memcpy(&v, last, 8);
    return v;
  }
};

// A sink that writes everything to fd at its current offset (through the file layer,
// util/file_io.h, whose test seam injects ENOSPC / EIO), counting the bytes.
SnapshotSink fd_sink(int fd, const std::string& name, Written& written) {
  return [fd, &name, &written](std::span<const uint8_t> bytes) -> Status {
    if (auto s = file_io::write_all(fd, bytes, name); !s) return s;
    written.add(bytes);
    return {};
  };
}

// The journal header of a cache: its model, KV type and shape.
JournalHeader journal_header(const KvCache& kv, uint64_t model_identity) {
  const KvCacheConfig& c = kv.config();
  JournalHeader h;
  h.model_identity = model_identity;
  h.kv_type = kv.key_type();
  h.kv_type_v = kv.value_type();
  h.n_layers = static_cast<uint32_t>(c.n_layers);
  h.n_kv_heads = static_cast<uint32_t>(c.n_kv_heads);
  h.head_dim = static_cast<uint32_t>(c.head_dim);
  h.block_tokens = static_cast<uint32_t>(c.block_tokens);
  return h;
}

// The record of the state after the first `first` tokens of the journal's last state:
// the tokens from `first` on and their K/V rows in kv, the turn marks and the logits.
JournalRecordContents journal_record(const KvCache& kv, std::span<const int32_t> tokens,
                                     std::span<const int32_t> turn_starts,
                                     std::span<const float> logits, int32_t n_keep, int32_t first) {
  JournalRecordContents r;
  r.first_pos = static_cast<uint32_t>(first);
  r.n_keep = static_cast<uint32_t>(std::max(n_keep, 0));
  r.window_head = static_cast<uint32_t>(kv.window_head());
  r.window_lo = static_cast<uint32_t>(kv.window_lo());
  r.new_tokens = tokens.subspan(static_cast<size_t>(first));
  r.turn_starts = turn_starts;
  r.logits = logits;
  const int32_t n = static_cast<int32_t>(tokens.size()) - first;
  r.rows = [&kv, first, n](int32_t layer, int32_t which, uint8_t* dst) {
    return kv.export_valid_rows(layer, which, first, n, dst);
  };
  return r;
}

// The 8 bytes of the file at path before valid_bytes (the last valid record's checksum);
// nullopt when they cannot be read.
std::optional<uint64_t> journal_tail(const std::string& path, uint64_t valid_bytes) {
  if (valid_bytes < 8) return std::nullopt;
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  uint64_t tail = 0;
  if (fd.get() < 0 || ::pread(fd.get(), &tail, 8, static_cast<off_t>(valid_bytes - 8)) != 8)
    return std::nullopt;
  return tail;
}

// Whether the file at path is no longer the journal `j` left: gone, replaced, shorter, or
// its last record is not the one j wrote or read (another session appended in between).
bool journal_file_changed(const std::string& path, uint64_t device, uint64_t inode,
                          uint64_t valid_bytes, uint64_t tail) {
  struct stat st {};
  return ::stat(path.c_str(), &st) != 0 || static_cast<uint64_t>(st.st_dev) != device ||
         static_cast<uint64_t>(st.st_ino) != inode ||
         static_cast<uint64_t>(st.st_size) < valid_bytes || journal_tail(path, valid_bytes) != tail;
}

// Appends record r to the journal at path whose valid records end at byte `at` (a torn
// tail is cut off first), then syncs it; `written`: the record's bytes. On failure the
// file is cut back to `at` (best effort) and the error starts with prefix.
Status append_journal_record(const std::string& path, uint64_t at, const JournalHeader& h,
                             const JournalRecordContents& r, const std::string& prefix,
                             Written& written) {
  std::string open_error;
  FileDescriptor fd(file_io::open_file(path, O_WRONLY, 0, &open_error));
  if (fd.get() < 0) return Error{prefix + open_error};
  // A torn record left by a failed or interrupted save goes first.
  if (::ftruncate(fd.get(), static_cast<off_t>(at)) != 0) {
    return Error{prefix + "cannot cut it to its last valid record: " + errno_text()};
  }
  if (::lseek(fd.get(), static_cast<off_t>(at), SEEK_SET) < 0) {
    return Error{prefix + "cannot seek in it: " + errno_text()};
  }
  Status s = write_journal_record(h, r, fd_sink(fd.get(), path, written));
  if (s) s = file_io::sync(fd.get(), path);
  if (!s) {
    // Best effort: loading ignores a torn tail anyway.
    if (::ftruncate(fd.get(), static_cast<off_t>(at)) != 0) errno = 0;
    return Error{prefix + s.message()};
  }
  if (!fd.close()) return Error{prefix + "cannot close it: " + errno_text()};
  return {};
}

// Writes the whole journal (header and record r) to path + ".tmp", syncs it and renames
// it over path (file_io's AtomicFile); until the rename the old journal is untouched, on
// failure no temp is left. `written`: the file's bytes. Errors start with prefix.
Status rewrite_journal(const std::string& path, const JournalHeader& h,
                       const JournalRecordContents& r, const std::string& prefix,
                       Written& written) {
  file_io::AtomicFile out(path);
  if (auto s = out.open(); !s) return Error{prefix + s.message()};
  const SnapshotSink sink = [&out, &written](std::span<const uint8_t> bytes) -> Status {
    if (auto s = out.write(bytes); !s) return s;
    written.add(bytes);
    return {};
  };
  if (auto s = sink(encode_journal_header(h)); !s) return Error{prefix + s.message()};
  if (auto s = write_journal_record(h, r, sink); !s) return Error{prefix + s.message()};
  if (auto s = out.commit(); !s) return Error{prefix + s.message()};
  return {};
}

// What a session of `config` and the model's identity and vocabulary, with a context of
// n_ctx tokens, requires of a snapshot.
SnapshotTarget snapshot_target(const KvCacheConfig& config, uint64_t model_identity,
                               int32_t n_vocab, int32_t n_ctx) {
  SnapshotTarget target;
  target.model_identity = model_identity;
  target.n_layers = config.n_layers;
  target.n_kv_heads = config.n_kv_heads;
  target.head_dim = config.head_dim;
  target.n_vocab = n_vocab;
  target.n_ctx = n_ctx;
  return target;
}

// A reader of the file open as fd (pread, so the offset of fd is left alone).
SnapshotReader fd_reader(int fd) {
  return [fd](uint64_t offset, std::span<uint8_t> dst) -> Status {
    uint8_t* p = dst.data();
    size_t n = dst.size();
    while (n > 0) {
      const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(offset));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return Error{"cannot read it: " + errno_text()};
      if (r == 0)
        return Error{
            "the snapshot is truncated: the file ended early (was it changed while being read?)"};
      p += r;
      n -= static_cast<size_t>(r);
      offset += static_cast<uint64_t>(r);
    }
    return {};
  };
}

// Reads the rows that the journal's final state holds into `fresh` (a cache of
// `config`), re-encoded into its KV type when the journal's differs, about 1 MiB at a
// time.
Status import_live_rows(const JournalState& state, const SnapshotReader& reader,
                        const KvCacheConfig& config, KvCache& fresh) {
  const JournalHeader& h = state.header;
  const uint64_t pair_rb = h.row_bytes(0) + h.row_bytes(1);
  const uint32_t batch =
      static_cast<uint32_t>(std::max<uint64_t>(1, (uint64_t{1} << 20) / pair_rb));
  std::vector<uint8_t> rows, converted;
  for (const JournalRowSpan& span : journal_live_rows(state)) {
    for (int32_t l = 0; l < config.n_layers; ++l) {
      for (int32_t which : {0, 1}) {
        // This layer's K (or V) rows of the record: n_new rows of each per layer, K first.
        const KvType from = h.type_of(which), to = config.type_of(which);
        const uint64_t file_rb = h.row_bytes(which);
        const uint64_t base = span.rows_offset + span.record_n_new * (uint64_t(l) * pair_rb +
                                                                      (which ? h.row_bytes(0) : 0));
        for (uint32_t k0 = 0; k0 < span.n; k0 += batch) {
          const uint32_t cnt = std::min(batch, span.n - k0);
          rows.resize(cnt * file_rb);
          if (auto s = reader(base + uint64_t{k0} * file_rb, rows); !s) return s;
          const uint8_t* src = rows.data();
          if (from != to) {
            converted.resize(cnt * fresh.row_bytes(which));
            convert_kv_rows(from, rows.data(), to, converted.data(), static_cast<int64_t>(cnt),
                            config.n_kv_heads, config.head_dim);
            src = converted.data();
          }
          const int32_t pos = static_cast<int32_t>(span.first_pos + k0);
          if (auto s = fresh.import_rows(l, which, pos, static_cast<int32_t>(cnt), src); !s) {
            return Error{"cannot write the KV cache: " + s.message()};
          }
        }
      }
    }
  }
  return {};
}

}  // namespace

Status Session::save_snapshot(const std::string& path) const {
  const std::string prefix = path + ": cannot save the snapshot: ";
  if (kv_->size() != n_past()) {
    return Error{prefix + "the KV cache holds " + std::to_string(kv_->size()) + " of the " +
                 std::to_string(n_past()) + " tokens (evaluate the conversation first)"};
  }
  const int32_t n_vocab = model_->info().n_vocab;
  if (!last_logits_.empty() && static_cast<int32_t>(last_logits_.size()) != n_vocab) {
    return Error{prefix + "the session holds " + std::to_string(last_logits_.size()) +
                 " logits for a vocabulary of " + std::to_string(n_vocab)};
  }
  const JournalHeader h = journal_header(*kv_, model_->info().identity);
  const KvCache& kv = *kv_;
  const uint64_t live_bytes =
      kJournalHeaderBytes +
      journal_record_bytes(h, n_past(), turn_starts_.size(), last_logits_.size());

  // Append when the file is still the journal we left.
  std::string why_rewrite = "first save of this session to this file";
  std::optional<int32_t> append_from;
  if (journal_ && journal_->path == path) {
    const int32_t first = std::min(kv.stable_rows(), journal_->n_tokens);
    const uint64_t record =
        journal_record_bytes(h, n_past() - first, turn_starts_.size(), last_logits_.size());
    if (journal_file_changed(path, journal_->device, journal_->inode, journal_->valid_bytes,
                             journal_->tail)) {
      why_rewrite = "the file changed since this session last saved or loaded it";
    } else if (journal_->kv_type_code != h.types_code()) {
      why_rewrite = "the KV type changed";
    } else if (journal_->valid_bytes + record > 2 * live_bytes) {
      why_rewrite = "compaction: the journal's superseded records would outweigh its live state";
    } else {
      append_from = first;
    }
  }

  last_save_ = {};
  Written written;
  if (append_from) {
    const uint64_t at = journal_->valid_bytes;
    const JournalRecordContents r =
        journal_record(kv, tokens_, turn_starts_, last_logits_, n_keep_, *append_from);
    if (auto s = append_journal_record(path, at, h, r, prefix, written); !s) return s;
    journal_->valid_bytes = at + written.bytes;
    journal_->tail = written.tail();
    journal_->n_tokens = n_past();
    journal_->live_bytes = live_bytes;
    last_save_.bytes_written = written.bytes;
    last_save_.file_bytes = journal_->valid_bytes;
    last_save_.tokens_written = n_past() - *append_from;
    kv_->mark_stable();
    return {};
  }

  const JournalRecordContents r =
      journal_record(kv, tokens_, turn_starts_, last_logits_, n_keep_, 0);
  if (auto s = rewrite_journal(path, h, r, prefix, written); !s) return s;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return Error{prefix + "cannot stat it after writing: " + errno_text()};
  journal_ = SnapshotJournal{path,
                             static_cast<uint64_t>(st.st_dev),
                             static_cast<uint64_t>(st.st_ino),
                             written.bytes,
                             live_bytes,
                             n_past(),
                             h.types_code()};
  journal_->tail = written.tail();
  last_save_.bytes_written = written.bytes;
  last_save_.file_bytes = written.bytes;
  last_save_.tokens_written = n_past();
  last_save_.rewritten = true;
  last_save_.why_rewritten = why_rewrite;
  kv_->mark_stable();
  return {};
}

Status Session::load_snapshot(const std::string& path) {
  auto refuse = [&](const std::string& why) {
    return Error{path + ": cannot restore the snapshot: " + why};
  };
  auto opened = file_io::open_regular_file(path);  // never blocks on a FIFO
  if (!opened) return refuse(opened.message());
  FileDescriptor fd(opened->fd);
  const struct stat& st = opened->st;

  const KvCacheConfig& config = kv_->config();
  const SnapshotTarget target =
      snapshot_target(config, model_->info().identity, model_->info().n_vocab, n_ctx_);
  const SnapshotReader reader = fd_reader(fd.get());
  auto scanned = scan_journal(static_cast<uint64_t>(st.st_size), target, reader);
  if (!scanned) return refuse(scanned.message());
  JournalState& state = *scanned;
  if (state.records.empty()) {
    return refuse("it holds no complete record" +
                  (state.stopped.empty() ? std::string() : " (" + state.stopped + ")"));
  }
  const JournalHeader& h = state.header;
  const int32_t n = static_cast<int32_t>(state.tokens.size());

  // Stage the final state's rows in a fresh cache; the session is untouched until then.
  auto fresh = KvCache::create(config, kv_store_for(config));
  if (!fresh) return refuse(fresh.message());
  if (auto s = fresh->reserve(n); !s) {
    notify({SessionEvent::Kind::KvOutOfMemory,
            "restoring a snapshot of " + std::to_string(n) + " tokens: " + s.message(), n_past(),
            n_past(), 0});
    return refuse(s.message());
  }
  if (auto s = import_live_rows(state, reader, config, *fresh); !s) return refuse(s.message());
  const std::string from = kv_types_name(h.type_of(0), h.type_of(1));

  // Everything checked: swap the restored state in.
  fresh->pin_prefix(kept_prefix(static_cast<int32_t>(state.n_keep)));
  fresh->set_share_scope(kv_->share_scope());
  fresh->set_size(n, static_cast<int32_t>(state.window_head),
                  static_cast<int32_t>(state.window_lo));
  *kv_ = std::move(fresh.value());
  published_blocks_ = 0;  // offered to the store at the next step
  kv_->mark_stable();
  tokens_ = std::move(state.tokens);
  turn_starts_ = std::move(state.turn_starts);
  last_logits_ = std::move(state.logits);
  n_keep_ = static_cast<int32_t>(state.n_keep);
  warned_ = n_past() >= options_.context_warn_fraction * n_ctx_;
  last_load_ = {n, static_cast<uint64_t>(st.st_size), static_cast<int32_t>(state.records.size()),
                state.stopped};
  journal_ = SnapshotJournal{
      path,
      static_cast<uint64_t>(st.st_dev),
      static_cast<uint64_t>(st.st_ino),
      state.valid_bytes,
      kJournalHeaderBytes + journal_record_bytes(h, n, turn_starts_.size(), last_logits_.size()),
      n,
      h.types_code()};
  journal_->tail = journal_tail(path, journal_->valid_bytes).value_or(0);
  (void)::futimens(fd.get(), nullptr);  // used now: least recently used snapshots are evicted first
  if (from != kv_->type_name()) {
    notify({SessionEvent::Kind::KvTypeChanged,
            "restored a snapshot saved with " + from + " K/V: re-encoded the K/V of " +
                std::to_string(n) + " tokens to " + kv_->type_name() + " (" +
                std::to_string(kv_->used_bytes()) + " bytes now)",
            n, n, 0});
  }
  return {};
}

}  // namespace kvchat
