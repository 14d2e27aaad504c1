#include "kv/kv_cache.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "kvchat/model.h"
#include "kv/kv_codec.h"
#include "numeric/convert.h"

namespace kvchat {

KvCacheConfig KvCacheConfig::for_model(const ModelInfo& info, int32_t max_tokens) {
  KvCacheConfig c;
  c.n_layers = info.n_layers;
  c.n_kv_heads = info.n_kv_heads;
  c.head_dim = info.head_dim;
  c.max_tokens = max_tokens;
  if (info.sliding_window > 0 && !info.windowed_layers.empty()) {
    c.windowed.assign(info.n_layers, 0);
    for (int32_t l : info.windowed_layers) c.windowed[l] = 1;
    c.window = info.sliding_window;
  }
  return c;
}

namespace {

// The windowed group is used only when the config names windowed layers and a window.
bool uses_window(const KvCacheConfig& c) {
  return c.window > 0 &&
         std::any_of(c.windowed.begin(), c.windowed.end(), [](uint8_t w) { return w != 0; });
}

// The split is used only when memory_layers leaves some layers in `memory` and some not.
bool splits(const KvCacheConfig& c) { return c.memory_layers >= 0 && c.memory_layers < c.n_layers; }

// The group of layer l: windowed | on_host << 1 (kv_cache.h).
int32_t group_of(const KvCacheConfig& c, bool windows, int32_t l) {
  const bool windowed = windows && c.windowed[l] != 0;
  const bool on_host = splits(c) && l >= c.memory_layers;
  return (windowed ? 1 : 0) | (on_host ? 2 : 0);
}

int32_t count_group(const KvCacheConfig& c, int32_t g) {
  const bool windows = uses_window(c);
  int32_t n = 0;
  for (int32_t l = 0; l < c.n_layers; ++l) n += group_of(c, windows, l) == g ? 1 : 0;
  return n;
}

}  // namespace

int32_t KvCache::group_layers_of(const KvCacheConfig& c, int32_t g) { return count_group(c, g); }

uint64_t KvCache::group_block_bytes_of(const KvCacheConfig& c, int32_t g) {
  const auto kv_dim = static_cast<uint64_t>(c.kv_dim());
  return static_cast<uint64_t>(count_group(c, g)) * c.block_tokens *
         (kv_bytes(c.type, kv_dim) + kv_bytes(c.value_type(), kv_dim));
}

Result<KvCache> KvCache::create(const KvCacheConfig& c, std::shared_ptr<KvPrefixStore> store) {
  if (c.n_layers < 1 || c.n_kv_heads < 1 || c.head_dim < 1 || c.max_tokens < 1) {
    return Error{"KV cache: layers, heads, head_dim and context must be positive"};
  }
  if (c.block_tokens < 1 || c.block_tokens > 4096) {
    return Error{"KV cache: block size must be between 1 and 4096 tokens"};
  }
  for (KvType t : {c.type, c.value_type()}) {
    if (std::string why = kv_type_unusable(t, c.head_dim); !why.empty())
      return Error{"KV cache: " + why};
  }
  if (!c.windowed.empty() && static_cast<int32_t>(c.windowed.size()) != c.n_layers) {
    return Error{"KV cache: the windowed-layer list has " + std::to_string(c.windowed.size()) +
                 " entries for " + std::to_string(c.n_layers) + " layers"};
  }
  if (store && !store->fits(c)) {
    return Error{"KV cache: the shared prefix store holds blocks of another layout"};
  }
  return KvCache(c, store ? std::move(store) : std::make_shared<KvPrefixStore>(c));
}

KvCache::KvCache(const KvCacheConfig& c, std::shared_ptr<KvPrefixStore> store)
    : config_(c),
      row_bytes_{kv_bytes(c.type, static_cast<uint64_t>(c.kv_dim())),
                 kv_bytes(c.value_type(), static_cast<uint64_t>(c.kv_dim()))},
      head_bytes_{kv_bytes(c.type, static_cast<uint64_t>(c.head_dim)),
                  kv_bytes(c.value_type(), static_cast<uint64_t>(c.head_dim))},
      memory_layers_(splits(c) ? c.memory_layers : c.n_layers),
      group_(c.n_layers, 0),
      index_(c.n_layers, 0),
      store_(std::move(store)) {
  if (config_.type_v == config_.type) config_.type_v.reset();  // one type: one name
  const bool windows = uses_window(c);
  for (int32_t l = 0; l < c.n_layers; ++l) {
    group_[l] = group_of(c, windows, l);
    index_[l] = group_layers_[group_[l]]++;
  }
}

std::string KvCache::type_name() const { return kv_types_name(key_type(), value_type()); }

KvCache::~KvCache() { release_all(); }

KvCache::KvCache(KvCache&& o) noexcept
    : config_(std::move(o.config_)),
      row_bytes_{o.row_bytes_[0], o.row_bytes_[1]},
      head_bytes_{o.head_bytes_[0], o.head_bytes_[1]},
      memory_layers_(o.memory_layers_),
      group_(std::move(o.group_)),
      index_(std::move(o.index_)),
      store_(std::move(o.store_)),
      share_scope_(o.share_scope_),
      n_blocks_(o.n_blocks_),
      n_tokens_(o.n_tokens_),
      pinned_(o.pinned_),
      head_(o.head_),
      lo_(o.lo_),
      stable_(o.stable_),
      peak_allocated_(o.peak_allocated_),
      peak_used_(o.peak_used_) {
  for (int g = 0; g < kGroups; ++g) {
    group_layers_[g] = o.group_layers_[g];
    tables_[g] = std::move(o.tables_[g]);
    ptrs_[g] = std::move(o.ptrs_[g]);
    held_[g] = o.held_[g];
    o.tables_[g].clear();
    o.ptrs_[g].clear();
    o.held_[g] = 0;
  }
  o.n_blocks_ = 0;
}

KvCache& KvCache::operator=(KvCache&& o) noexcept {
  if (this == &o) return *this;
  release_all();
  this->~KvCache();
  new (this) KvCache(std::move(o));
  return *this;
}

// Every block back to the store (a shared one stays with its other holders).
void KvCache::release_all() {
  if (!store_) return;
  for (int g = 0; g < kGroups; ++g) {
    for (int32_t b = 0; b < static_cast<int32_t>(tables_[g].size()); ++b) release(g, b);
    tables_[g].clear();
    ptrs_[g].clear();
  }
  n_blocks_ = 0;
}

Result<KvPrefixStore::Block> KvCache::acquire(int g) { return store_->acquire(g); }

void KvCache::release(int g, int32_t b) {
  if (tables_[g][b] < 0) return;
  store_->release(g, tables_[g][b], config_.poison_freed);
  tables_[g][b] = -1;
  ptrs_[g][b] = nullptr;
  --held_[g];
}

Status KvCache::make_writable(int32_t pos0, int32_t pos1) {
  const int32_t bt = config_.block_tokens;
  const int32_t end = std::min(n_blocks_, (pos1 + bt - 1) / bt);
  std::vector<uint8_t> staging;  // a block on its way between two non-host blocks
  for (int32_t b = std::max(0, pos0) / bt; b < end; ++b) {
    for (int g = 0; g < kGroups; ++g) {
      if (group_layers_[g] == 0 || tables_[g][b] < 0) continue;
      if (store_->claim(g, tables_[g][b]) <= 1) continue;  // ours alone (and unindexed now)
      auto copy = acquire(g);
      if (!copy) return Error{copy.message()};
      const uint64_t bytes = pool(g).block_bytes();
      KvMemory& memory = pool(g).memory();
      if (memory.host_accessible()) {
        std::memcpy(copy->data, ptrs_[g][b], bytes);
      } else {
        staging.resize(bytes);
        Status s = memory.to_host(staging.data(), ptrs_[g][b], bytes);
        if (s) s = memory.from_host(copy->data, staging.data(), bytes);
        if (!s) {
          store_->release(g, copy->id, false);
          return s;
        }
      }
      store_->release(g, tables_[g][b], false);  // others still hold it
      tables_[g][b] = copy->id;
      ptrs_[g][b] = copy->data;
    }
  }
  return {};
}

int32_t KvCache::adopt_prefix(std::span<const int32_t> tokens, int32_t limit) {
  const int32_t bt = config_.block_tokens;
  if (n_tokens_ % bt != 0 || n_blocks_ != n_tokens_ / bt) return 0;
  const int32_t max_blocks =
      std::min(static_cast<int32_t>(tokens.size()), std::min(limit, config_.max_tokens)) / bt;
  if (max_blocks <= n_blocks_) return 0;
  std::vector<KvPrefixStore::Block> got[kGroups];
  const int32_t n = store_->adopt(tokens, n_blocks_, max_blocks, got, share_scope_);
  if (n == 0) return 0;
  for (int g = 0; g < kGroups; ++g) {
    for (const KvPrefixStore::Block& block : got[g]) {
      tables_[g].push_back(block.id);
      ptrs_[g].push_back(block.data);
      ++held_[g];
    }
  }
  n_blocks_ += n;
  set_size(n_blocks_ * bt);
  return n * bt;
}

void KvCache::publish_prefix(std::span<const int32_t> tokens) {
  const int32_t n = std::min(n_tokens_, static_cast<int32_t>(tokens.size()));
  store_->publish(tokens.first(static_cast<size_t>(n)), n / config_.block_tokens, tables_,
                  share_scope_);
}

uint64_t KvCache::shared_bytes() const {
  uint64_t bytes = 0;
  for (int g = 0; g < kGroups; ++g) {
    for (int32_t id : tables_[g]) {
      if (id >= 0 && store_->refs(g, id) > 1) bytes += pool(g).block_bytes();
    }
  }
  return bytes;
}

KvCache KvCache::fork() const {
  KvCache copy(config_, store_);
  copy.share_scope_ = share_scope_;
  copy.n_blocks_ = n_blocks_;
  copy.n_tokens_ = n_tokens_;
  copy.pinned_ = pinned_;
  copy.head_ = head_;
  copy.lo_ = lo_;
  copy.stable_ = stable_;
  copy.peak_allocated_ = peak_allocated_;
  copy.peak_used_ = peak_used_;
  for (int g = 0; g < kGroups; ++g) {
    copy.tables_[g] = tables_[g];
    copy.ptrs_[g] = ptrs_[g];
    copy.held_[g] = held_[g];
    for (int32_t id : tables_[g]) {
      if (id >= 0) store_->retain(g, id);
    }
  }
  return copy;
}

void KvCache::for_each_block(
    const std::function<void(int32_t g, int32_t id, uint64_t bytes)>& fn) const {
  for (int g = 0; g < kGroups; ++g) {
    for (int32_t id : tables_[g]) {
      if (id >= 0) fn(g, id, pool(g).block_bytes());
    }
  }
}

int32_t KvCache::block_refs(int32_t g, int32_t b) const {
  if (b < 0 || b >= static_cast<int32_t>(tables_[g].size()) || tables_[g][b] < 0) return 0;
  return store_->refs(g, tables_[g][b]);
}

bool KvCache::host_accessible() const {
  for (int g = 0; g < kGroups; ++g) {
    if (group_layers_[g] > 0 && !group_in_host_memory(g)) return false;
  }
  return true;
}

uint64_t KvCache::allocated_bytes() const {
  uint64_t bytes = 0;
  for (int g = 0; g < kGroups; ++g) bytes += group_allocated_bytes(g);
  return bytes;
}

uint64_t KvCache::pool_bytes() const {
  uint64_t bytes = 0;
  for (int g = 0; g < kGroups; ++g) bytes += pool(g).pool_bytes();
  return bytes;
}

uint64_t KvCache::allocated_bytes_on(bool host) const {
  uint64_t bytes = 0;
  for (int g = 0; g < kGroups; ++g)
    bytes += group_in_host_memory(g) == host ? group_allocated_bytes(g) : 0;
  return bytes;
}

uint64_t KvCache::pool_bytes_on(bool host) const {
  uint64_t bytes = 0;
  for (int g = 0; g < kGroups; ++g)
    bytes += group_in_host_memory(g) == host ? pool(g).pool_bytes() : 0;
  return bytes;
}

uint64_t KvCache::block_bytes() const {
  const int w = group_layers_[0] + group_layers_[2] > 0 ? 0 : 1;  // full layers, else windowed
  return pool(w).block_bytes() + pool(w + 2).block_bytes();
}

int32_t KvCache::blocks_in_use() const {
  int32_t n = 0;
  for (int g = 0; g < kGroups; ++g) n += held_[g];
  return n;
}

int32_t KvCache::free_blocks() const {
  int32_t n = 0;
  for (int g = 0; g < kGroups; ++g) n += pool(g).free_blocks();
  return n;
}

void KvCache::note_peaks() {
  peak_allocated_ = std::max(peak_allocated_, allocated_bytes());
  peak_used_ = std::max(peak_used_, used_bytes());
}

uint64_t KvCache::used_bytes() const {
  const uint64_t full_layers = static_cast<uint64_t>(config_.n_layers - windowed_layers());
  return (row_bytes_[0] + row_bytes_[1]) *
         (full_layers * n_tokens_ +
          static_cast<uint64_t>(windowed_layers()) * valid_windowed_rows());
}

uint64_t KvCache::window_freed_bytes() const {
  uint64_t bytes = 0;
  for (int g : {1, 3}) bytes += pool(g).block_bytes() * static_cast<uint64_t>(n_blocks_ - held_[g]);
  return bytes;
}

Status KvCache::reserve(int32_t n_tokens) {
  if (n_tokens > config_.max_tokens) {
    return Error{"the context is full: " + std::to_string(n_tokens) + " tokens do not fit in " +
                 std::to_string(config_.max_tokens)};
  }
  const int32_t need = (n_tokens + config_.block_tokens - 1) / config_.block_tokens;
  const int32_t had = n_blocks_;
  // The blocks about to be written become this cache's own first (copy on write).
  if (auto s = make_writable(n_tokens_, n_tokens); !s) return s;
  int32_t pool_blocks[kGroups];  // what each pool held before: grown chunks go back on failure
  for (int g = 0; g < kGroups; ++g) pool_blocks[g] = pool(g).total_blocks();
  while (n_blocks_ < need) {
    for (int g = 0; g < kGroups; ++g) {
      if (group_layers_[g] == 0) continue;
      auto id = acquire(g);
      if (!id) {
        // Roll back: the cache is exactly as it was.
        for (int h = 0; h < kGroups; ++h) {
          while (static_cast<int32_t>(tables_[h].size()) > had) {
            release(h, static_cast<int32_t>(tables_[h].size()) - 1);
            tables_[h].pop_back();
            ptrs_[h].pop_back();
          }
          store_->shrink_to(h, pool_blocks[h]);
        }
        n_blocks_ = had;
        return Error{id.message()};
      }
      tables_[g].push_back(id->id);
      ptrs_[g].push_back(id->data);
      ++held_[g];
    }
    ++n_blocks_;
  }
  note_peaks();
  return {};
}

void KvCache::set_size(int32_t n_tokens) {
  n_tokens_ = std::clamp(n_tokens, 0, capacity());
  note_peaks();  // the rows of the step just written were all held
  free_out_of_window();
}

// Frees the windowed blocks wholly inside the gap [head_, lo_), sparing pinned rows.
void KvCache::free_gap() {
  const int32_t bt = config_.block_tokens;
  for (int32_t b = (head_ + bt - 1) / bt; (b + 1) * bt <= lo_ && b < n_blocks_; ++b) {
    for (int g : {1, 3}) {
      if (group_layers_[g] > 0) release(g, b);
    }
  }
}

void KvCache::free_out_of_window() {
  if (windowed_layers() == 0 || config_.window_slack < 0) return;
  // The next position, n_tokens_, reads [n_tokens_ - window + 1, n_tokens_]; slack more is kept.
  const int64_t first_kept =
      static_cast<int64_t>(n_tokens_) - (config_.window - 1) - config_.window_slack;
  if (head_ == lo_) head_ = lo_ = std::min(pinned_, n_tokens_);  // contiguous: the pinned rows lead
  if (first_kept <= lo_) return;
  lo_ = static_cast<int32_t>(first_kept);
  free_gap();
}

bool KvCache::row_present(int32_t layer, int32_t pos) const {
  if (pos < 0 || pos >= n_tokens_) return false;
  return !group_windowed(group_[layer]) || head_ == lo_ || pos < head_ || pos >= lo_;
}

int32_t KvCache::reusable_prefix(int32_t n) const {
  n = std::clamp(n, 0, n_tokens_);
  if (windowed_layers() == 0 || head_ == lo_) return n;
  const int32_t first_read = std::max(0, n - config_.window + 1);
  if (first_read >= lo_ || n <= head_) return n;
  return head_;  // the longest prefix whose windows are whole: within the pinned rows
}

void KvCache::truncate(int32_t n_tokens) {
  const int32_t m = reusable_prefix(n_tokens);
  n_tokens_ = m;
  stable_ = std::min(stable_, m);
  if (head_ != lo_ && m <= head_) head_ = lo_ = m;  // [0, m) is all valid now
  const int32_t keep = (m + config_.block_tokens - 1) / config_.block_tokens;
  for (int g = 0; g < kGroups; ++g) {
    while (static_cast<int32_t>(tables_[g].size()) > keep) {
      release(g, static_cast<int32_t>(tables_[g].size()) - 1);
      tables_[g].pop_back();
      ptrs_[g].pop_back();
    }
  }
  n_blocks_ = std::min(n_blocks_, keep);
}

void KvCache::pin_prefix(int32_t n) {
  pinned_ = std::max(0, n);
  if (head_ != lo_)
    head_ = std::min(head_, pinned_);  // what is left of [0, n); freed rows stay freed
}

void KvCache::set_size(int32_t n_tokens, int32_t head, int32_t lo) {
  n_tokens_ = std::clamp(n_tokens, 0, capacity());
  note_peaks();
  if (windowed_layers() == 0) return;
  head_ = std::clamp(head, 0, n_tokens_);
  lo_ = std::clamp(lo, head_, n_tokens_);
  if (head_ == lo_) head_ = lo_ = 0;
  free_gap();
  free_out_of_window();
}

Status KvCache::export_layer(int32_t layer, int32_t which, uint8_t* dst) const {
  if (!group_windowed(group_[layer]) || head_ == lo_)
    return export_rows(layer, which, 0, n_tokens_, dst);
  std::fill(dst + head_ * row_bytes_[which], dst + lo_ * row_bytes_[which], uint8_t{0});
  if (auto s = export_rows(layer, which, 0, head_, dst); !s) return s;
  return export_rows(layer, which, lo_, n_tokens_ - lo_, dst + lo_ * row_bytes_[which]);
}

Status KvCache::export_valid_rows(int32_t layer, int32_t which, int32_t pos0, int32_t n,
                                  uint8_t* dst) const {
  if (!group_windowed(group_[layer]) || head_ == lo_)
    return export_rows(layer, which, pos0, n, dst);
  // Valid: [0, head_) and [lo_, n_tokens_); zeros between.
  const int32_t end = pos0 + n;
  std::fill(dst, dst + static_cast<size_t>(n) * row_bytes_[which], uint8_t{0});
  const int32_t a0 = pos0, a1 = std::min(end, head_);
  if (a1 > a0) {
    if (auto s = export_rows(layer, which, a0, a1 - a0, dst); !s) return s;
  }
  const int32_t b0 = std::max(pos0, lo_), b1 = end;
  if (b1 > b0)
    return export_rows(layer, which, b0, b1 - b0,
                       dst + static_cast<size_t>(b0 - pos0) * row_bytes_[which]);
  return {};
}

Status KvCache::discard(int32_t keep, int32_t discard,
                        const std::function<void(int32_t layer, uint8_t* rows, int32_t n)>& rekey) {
  const int32_t before = n_tokens_;
  keep = std::clamp(keep, 0, before);
  discard = std::clamp(discard, 0, before - keep);
  const int32_t first = keep + discard, after = before - discard;
  if (discard > 0) stable_ = std::min(stable_, keep);  // the rows after keep are rewritten
  const int32_t bt = config_.block_tokens;
  // Windowed layers: the valid rows of [first, before) move to [src_lo - discard, after).
  const bool gap = windowed_layers() > 0 && head_ != lo_;
  const int32_t src_lo = gap ? std::max(first, lo_) : first;
  const int32_t dst_lo = src_lo - discard;
  // The destination blocks the windowed groups freed are taken again first.
  // The rows rewritten, [keep, before), become this cache's own first (copy on write).
  if (discard > 0) {
    if (auto s = make_writable(keep, before); !s) return s;
  }
  std::vector<std::pair<int, int32_t>> taken;  // (group, token block)
  const int32_t pool_blocks[2] = {pool(1).total_blocks(), pool(3).total_blocks()};
  for (int g : {1, 3}) {
    if (group_layers_[g] == 0) continue;
    for (int32_t b = dst_lo / bt; b * bt < after; ++b) {
      if (tables_[g][b] >= 0) continue;
      auto id = acquire(g);
      if (!id) {
        for (const auto& [tg, tb] : taken) release(tg, tb);
        store_->shrink_to(1, pool_blocks[0]);
        store_->shrink_to(3, pool_blocks[1]);
        return Error{id.message()};
      }
      tables_[g][b] = id->id;
      ptrs_[g][b] = id->data;
      ++held_[g];
      taken.emplace_back(g, b);
    }
  }
  std::vector<uint8_t> rows(static_cast<size_t>(std::max(0, before - first)) *
                            std::max(row_bytes_[0], row_bytes_[1]));
  for (int32_t l = 0; l < config_.n_layers; ++l) {
    const int32_t from = group_windowed(group_[l]) ? src_lo : first;
    const int32_t n = before - from;
    if (n <= 0) continue;
    for (int32_t which : {0, 1}) {
      if (auto s = export_rows(l, which, from, n, rows.data()); !s) return s;
      if (which == 0 && rekey) rekey(l, rows.data(), n);
      if (auto s = import_rows(l, which, from - discard, n, rows.data()); !s) return s;
    }
  }
  const int32_t new_head = gap ? std::min(head_, keep) : keep;
  // Truncate to `after` with every row of [0, after) counted valid first, then set the
  // windowed ranges: [0, new_head) kept, [dst_lo, after) moved.
  head_ = lo_ = 0;
  truncate(after);
  set_size(after, new_head, std::max(new_head, dst_lo));
  return {};
}

Status KvCache::export_rows(int32_t layer, int32_t which, int32_t pos0, int32_t n,
                            uint8_t* dst) const {
  const int32_t bt = config_.block_tokens;
  for (int32_t pos = pos0; pos < pos0 + n;) {
    const int32_t run = std::min(pos0 + n - pos, bt - pos % bt);  // rows left in this block
    if (auto s = pool(group_[layer])
                     .memory()
                     .to_host(dst, row(layer, which, pos), run * row_bytes_[which]);
        !s)
      return s;
    dst += run * row_bytes_[which];
    pos += run;
  }
  return {};
}

Status KvCache::import_rows(int32_t layer, int32_t which, int32_t pos0, int32_t n,
                            const uint8_t* src) {
  if (auto s = make_writable(pos0, pos0 + n); !s) return s;
  const int32_t bt = config_.block_tokens;
  for (int32_t pos = pos0; pos < pos0 + n;) {
    const int32_t run = std::min(pos0 + n - pos, bt - pos % bt);
    if (auto s = pool(group_[layer])
                     .memory()
                     .from_host(row(layer, which, pos), src, run * row_bytes_[which]);
        !s) {
      return s;
    }
    src += run * row_bytes_[which];
    pos += run;
  }
  return {};
}

void KvCache::write_key(int32_t layer, int32_t pos, const float* src) {
  encode_kv_heads(config_.type, src, config_.n_kv_heads, config_.head_dim, key_row(layer, pos));
}
void KvCache::write_value(int32_t layer, int32_t pos, const float* src) {
  encode_kv_heads(config_.value_type(), src, config_.n_kv_heads, config_.head_dim,
                  value_row(layer, pos));
}

}  // namespace kvchat
