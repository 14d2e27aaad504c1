// Session snapshots: the tokens, turn marks, kept prefix, next-token logits and KV cache
// of a conversation saved to a file (format: kv/kv_snapshot_format.h) and restored
// later without re-evaluating the prompt.
//
// Choices:
// - Saving is atomic: the file is written as path + ".tmp", fsynced, renamed over path,
//   and the directory is fsynced. On any failure (full disk, unwritable directory) the
//   temporary file is removed and a previous snapshot at path is left as it was.
// - Loading reads and checks the whole file (header, sizes, checksum, token ids) while
//   staging the rows in a fresh cache of the session's configuration; only then is the
//   session's state replaced. On any error the session is unchanged and the message
//   says why, so the caller can fall back to re-evaluating the conversation.
// - KV type: a snapshot saved in another KV type than the session's is re-encoded into
//   the session's type on load, like set_kv_type() does, and a KvTypeChanged event says
//   so. The restored next-token logits are the saved ones; the tokens that follow see
//   the re-encoded K/V, so only a load into the same type continues bit for bit as the
//   saved session would have.
// - A session without next-token logits (right after truncate()) is saved with
//   n_vocab = 0. After loading such a snapshot last_logits() is empty and the caller
//   must re-evaluate the last token before sampling (eval_sequence() does it).
// - Sliding-window layers: the rows their cache freed are saved as zeros and the header
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
#include <filesystem>
#include <optional>
#include <vector>

#include "kv/kv_cache.h"
#include "kv/kv_snapshot_format.h"
#include "kvchat/session.h"
#include "numeric/convert.h"

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

// Best effort: makes the rename durable. Some file systems refuse to fsync a directory.
void sync_parent_directory(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  FileDescriptor fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() >= 0) (void)::fsync(fd.get());
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
  const KvCacheConfig& c = kv_->config();
  SnapshotContents contents;
  SnapshotHeader& h = contents.header;
  h.model_identity = model_->info().identity;
  h.kv_type = kv_->type();
  h.n_layers = static_cast<uint32_t>(c.n_layers);
  h.n_kv_heads = static_cast<uint32_t>(c.n_kv_heads);
  h.head_dim = static_cast<uint32_t>(c.head_dim);
  h.n_tokens = static_cast<uint32_t>(n_past());
  h.n_keep = static_cast<uint32_t>(std::max(n_keep_, 0));
  h.n_turns = static_cast<uint32_t>(turn_starts_.size());
  h.n_vocab = static_cast<uint32_t>(last_logits_.size());
  h.window_head = static_cast<uint32_t>(kv_->window_head());
  h.window_lo = static_cast<uint32_t>(kv_->window_lo());
  contents.tokens = tokens_;
  contents.turn_starts = turn_starts_;
  contents.logits = last_logits_;
  // Rows are written layer by layer: stage one layer's K and V on the host at a time
  // (the cache may live in device memory).
  const KvCache& kv = *kv_;
  const uint64_t rb = kv.row_bytes();
  std::vector<uint8_t> keys(static_cast<size_t>(n_past()) * rb), values(keys.size());
  int32_t staged = -1;
  Status staging;
  contents.row = [&](int32_t layer, int32_t pos, bool value) -> const uint8_t* {
    if (layer != staged) {
      staged = layer;
      // Freed windowed rows come out as zeros.
      if (staging) staging = kv.export_layer(layer, 0, keys.data());
      if (staging) staging = kv.export_layer(layer, 1, values.data());
    }
    return (value ? values.data() : keys.data()) + pos * rb;
  };

  const std::string tmp = path + ".tmp";
  FileDescriptor fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) return Error{prefix + "cannot create " + tmp + ": " + errno_text()};
  auto fail = [&](const std::string& why) {
    fd.close();
    ::unlink(tmp.c_str());
    return Error{prefix + why};
  };
  auto sink = [&](std::span<const uint8_t> bytes) -> Status {
    const uint8_t* p = bytes.data();
    size_t n = bytes.size();
    while (n > 0) {
      const ssize_t w = ::write(fd.get(), p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        return Error{"cannot write " + tmp + ": " + errno_text()};
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
    return {};
  };
  if (auto s = write_snapshot(contents, sink); !s) return fail(s.message());
  if (!staging) return fail("cannot read the KV cache: " + staging.message());
  if (::fsync(fd.get()) != 0) return fail("cannot sync " + tmp + ": " + errno_text());
  if (!fd.close()) return fail("cannot close " + tmp + ": " + errno_text());
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    return fail("cannot rename " + tmp + " to " + path + ": " + errno_text());
  }
  sync_parent_directory(path);
  return {};
}

Status Session::load_snapshot(const std::string& path) {
  auto refuse = [&](const std::string& why) { return Error{path + ": cannot restore the snapshot: " + why}; };
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return refuse("cannot open it: " + errno_text());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return refuse("cannot stat it: " + errno_text());
  if (S_ISDIR(st.st_mode)) return refuse("it is a directory, not a snapshot file");
  if (!S_ISREG(st.st_mode)) return refuse("it is not a regular file");

  const KvCacheConfig& config = kv_->config();
  SnapshotTarget target;
  target.model_identity = model_->info().identity;
  target.n_layers = config.n_layers;
  target.n_kv_heads = config.n_kv_heads;
  target.head_dim = config.head_dim;
  target.n_vocab = model_->info().n_vocab;
  target.n_ctx = n_ctx_;

  auto source = [&](std::span<uint8_t> dst) -> Status {
    uint8_t* p = dst.data();
    size_t n = dst.size();
    while (n > 0) {
      const ssize_t r = ::read(fd.get(), p, n);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) return Error{"cannot read it: " + errno_text()};
      if (r == 0) return Error{"the snapshot is truncated: the file ended early (was it changed while being read?)"};
      p += r;
      n -= static_cast<size_t>(r);
    }
    return {};
  };

  // Stage everything in a fresh cache; the session is not touched until all is checked.
  std::optional<KvCache> fresh;
  // One layer's rows as stored in the file, and (for another KV type) re-encoded.
  std::vector<uint8_t> keys, values, converted;
  uint64_t file_row_bytes = 0;
  int32_t n_rows = 0;
  Status staging;
  KvType from = config.type;
  auto on_header = [&](const SnapshotHeader& h) -> Status {
    auto kv = KvCache::create(config);
    if (!kv) return kv.error();
    if (auto s = kv->reserve(static_cast<int32_t>(h.n_tokens)); !s) {
      notify({SessionEvent::Kind::KvOutOfMemory, "restoring a snapshot of " + std::to_string(h.n_tokens) +
                                                   " tokens: " + s.message(),
            n_past(), n_past(), 0});
      return s;
    }
    fresh.emplace(std::move(kv.value()));
    from = h.kv_type;
    n_rows = static_cast<int32_t>(h.n_tokens);
    file_row_bytes = h.row_bytes();
    keys.assign(static_cast<size_t>(n_rows) * file_row_bytes, 0);
    values.assign(keys.size(), 0);
    if (from != fresh->type()) converted.assign(static_cast<size_t>(n_rows) * fresh->row_bytes(), 0);
    return {};
  };
  // Rows arrive layer by layer: stage one layer on the host and copy it into the cache
  // (re-encoded when the snapshot's KV type differs) when its last row is in.
  auto store_layer = [&](int32_t layer, int32_t which, const std::vector<uint8_t>& rows) -> Status {
    if (from == fresh->type()) return fresh->import_rows(layer, which, 0, n_rows, rows.data());
    convert_rows(kv_storage_type(from), rows.data(), kv_storage_type(fresh->type()), converted.data(), n_rows,
                 config.kv_dim());
    return fresh->import_rows(layer, which, 0, n_rows, converted.data());
  };
  auto on_row = [&](int32_t layer, int32_t pos, const uint8_t* key, const uint8_t* value) {
    std::memcpy(&keys[pos * file_row_bytes], key, file_row_bytes);
    std::memcpy(&values[pos * file_row_bytes], value, file_row_bytes);
    if (pos == n_rows - 1 && staging) {
      staging = store_layer(layer, 0, keys);
      if (staging) staging = store_layer(layer, 1, values);
    }
  };
  auto data = read_snapshot(static_cast<uint64_t>(st.st_size), target, source, on_header, on_row);
  if (!data) return refuse(data.message());
  if (!staging) return refuse("cannot write the KV cache: " + staging.message());

  // Everything checked: swap the restored state in.
  const int32_t n = static_cast<int32_t>(data->header.n_tokens);
  fresh->pin_prefix(static_cast<int32_t>(data->header.n_keep));
  fresh->set_size(n, static_cast<int32_t>(data->header.window_head), static_cast<int32_t>(data->header.window_lo));
  *kv_ = std::move(*fresh);
  tokens_ = std::move(data->tokens);
  turn_starts_ = std::move(data->turn_starts);
  last_logits_ = std::move(data->logits);
  n_keep_ = static_cast<int32_t>(data->header.n_keep);
  warned_ = n_past() >= options_.context_warn_fraction * n_ctx_;
  if (from != kv_->type()) {
    notify({SessionEvent::Kind::KvTypeChanged,
          "restored a snapshot saved with " + std::string(kv_type_name(from)) + " K/V: re-encoded the K/V of " +
              std::to_string(n) + " tokens to " + std::string(kv_type_name(kv_->type())) + " (" +
              std::to_string(kv_->used_bytes()) + " bytes now)",
          n, n, 0});
  }
  return {};
}

}  // namespace kvchat
