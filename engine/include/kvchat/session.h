// Session: one conversation's state on one backend — the token sequence, its KV
// cache, the logits after the last token — and the policies that manage the cache:
// prefix reuse, what happens when the context is full, the KV element type, snapshots.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/memory_report.h"
#include "kvchat/model.h"
#include "kvchat/result.h"
#include "kvchat/tokenizer.h"

namespace kvchat {

class Backend;
class KvCache;
class KvPrefixStore;
struct KvCacheConfig;

// A session's state kept aside by Session::park (its cache's blocks shared, not copied),
// what a RAM tier holds (kvchat/kv_ram_tier.h). Opaque; owned through ParkedKvPtr.
struct ParkedKv;
struct ParkedKvDeleter {
  void operator()(ParkedKv* parked) const;
};
using ParkedKvPtr = std::unique_ptr<ParkedKv, ParkedKvDeleter>;

// What to do when the next tokens do not fit in the context.
enum class ContextPolicy {
  Stop,        // refuse, with a message saying so
  DropOldest,  // drop whole oldest turns (never the kept prefix), re-evaluate what follows
  Shift,       // discard the oldest half after the kept prefix, re-rotate the cached keys
  // Attention sinks (StreamingLLM): keep the first tokens (the kept prefix, at least
  // SessionOptions::sink_tokens) and the most recent ones, drop the fewest whole KV
  // blocks of tokens between them that make room, re-rotate the kept keys like Shift
  SinkWindow,
};
// "stop", "drop-oldest", "shift", "sink-window"
std::string_view context_policy_name(ContextPolicy p);
Result<ContextPolicy> parse_context_policy(std::string_view name);

struct SessionEvent {
  enum class Kind {
    ContextWarning,  // the context passed the warning threshold
    ContextFull,     // policy stop: the tokens were refused
    ContextShifted,  // policy shift or sink-window: tokens discarded, keys re-rotated
    TurnsDropped,    // policy drop-oldest: whole turns dropped, the rest re-evaluated
    KvTypeChanged,   // the cache was re-encoded in another element type
    KvOutOfMemory,   // growing the cache failed; the conversation is unchanged
  };
  Kind kind;
  std::string message;  // says what happened, with the numbers
  int32_t tokens_before = 0;
  int32_t tokens_after = 0;
  int32_t tokens_reevaluated = 0;
};
std::string_view session_event_name(SessionEvent::Kind kind);  // "context-warning", ...
using SessionEventHandler = std::function<void(const SessionEvent&)>;

// What the last save_snapshot() did (Session::last_snapshot_save()).
struct SnapshotSaveStats {
  uint64_t bytes_written = 0;  // this save's bytes: the record appended, or the whole file
  uint64_t file_bytes = 0;     // the snapshot file's size afterwards
  int32_t tokens_written = 0;  // tokens whose K/V this save wrote
  bool rewritten = false;      // the whole file was written (first save, compaction, ...)
  std::string why_rewritten;   // empty when a record was appended
};

// What the last successful load_snapshot() restored (Session::last_snapshot_load()).
struct SnapshotLoadStats {
  int32_t tokens_restored = 0;
  uint64_t file_bytes = 0;
  int32_t records = 0;       // the journal records replayed
  std::string ignored_tail;  // why a torn or corrupt tail was ignored; empty when none was
};

struct SessionOptions {
  std::string backend = "cpu";  // "cpu", "cpu-reference", "cuda", or "auto" (cuda, else cpu)
  int32_t n_threads = 0;  // <= 0: one per physical core (decode of models under 32 MiB on one)
  int32_t n_ctx = 0;      // <= 0: the model's training context
  // "f32", "f16", "q8_0", "q4_0", "q8_0r", "q4_0r" for K and V, or "K/V" to type them
  // apart ("q8_0/q4_0": q8_0 keys, q4_0 values)
  std::string kv_type = "f16";
  // CUDA: layers [0, gpu_layers) on the device, the rest on the CPU; < 0: auto, as many
  // as fit the device's free memory at n_ctx and kv_type (the offload planner).
  int32_t gpu_layers = -1;
  int32_t kv_block_tokens = 16;  // tokens per KV block
  int32_t kv_chunk_blocks = 4;   // blocks allocated together when the cache grows
  uint64_t kv_budget_bytes = 0;  // the most the KV pool may hold; 0 = no limit
  // Sliding-window layers: rows kept beyond the window (so that a regenerate or an edit
  // of the last tokens reuses the cache); older rows of those layers are freed. < 0:
  // never free them.
  int32_t kv_window_slack = 256;
  bool kv_poison_freed = false;  // tests: freed KV blocks are overwritten (NaN)
  bool no_kv_cache = false;      // recompute the whole sequence for every new token
  // Shared prefix blocks: the KV blocks of a token prefix this session evaluates are
  // shared with the other sessions of the same model, KV configuration and backend
  // (reference-counted, copied on write): a prompt that begins like one another session
  // holds adopts those blocks instead of evaluating them (src/kv/kv_prefix_store.h).
  bool kv_share_prefix = false;
  ContextPolicy context_policy = ContextPolicy::Stop;
  // sink-window: the first tokens always kept (the attention sinks); a longer kept prefix
  // (set_keep: the system prompt, which begins at token 0) is kept whole.
  int32_t sink_tokens = 4;
  float context_warn_fraction = 0.9f;  // ContextWarning when this share of n_ctx is used
  // The CUDA backend ("auto" or "cuda") is trusted with a model only after a self-check:
  // a few positions of that model (a prefill and decode steps) evaluated by it and by the
  // CPU backend, the logits compared (once per process and model). A failure puts the
  // session on the CPU, the reason in backend_note(). A check that cannot run is
  // skipped: "auto" stays on the CPU, "cuda" runs unverified.
  bool backend_self_check = true;  // false: trust cuda unchecked (tests of the CUDA backend itself)
};

class Session {
 public:
  static Result<std::unique_ptr<Session>> create(std::shared_ptr<const Model> model,
                                                 const SessionOptions& options);
  ~Session();

  // Appends `tokens` and evaluates them (making room by the context policy first).
  // Afterwards last_logits() are the next-token logits after the whole sequence. With
  // all_logits, *all_logits gets (tokens.size(), n_vocab) row-major. On error the
  // session is unchanged.
  Status eval(std::span<const TokenId> tokens, std::vector<float>* all_logits = nullptr);
  // Batched decode: appends tokens[i] to sessions[i] and evaluates all of them in one
  // forward pass where the backend can (the CPU backend reads every weight once for all
  // sessions; attention per session over its own cache), exactly as each session's
  // eval({tokens[i]}) would: n_past, last_logits, the KV and tokens_evaluated afterwards are
  // those. The sessions must be distinct, of the same model, not no_kv_cache, and have room
  // for one token (a full one is refused: call make_room(1) first, which applies its
  // policy). On any error (a KV reservation that fails included) no session is changed.
  // Sessions may join and leave between calls.
  static Status decode_together(std::span<Session* const> sessions,
                                std::span<const TokenId> tokens);
  // Prefix reuse: makes the session hold exactly `sequence`, evaluating only what
  // differs from what it holds (truncating to the fork point first). Returns the number
  // of tokens evaluated. With starts_turn, what is evaluated is marked as a new turn
  // (drop-oldest drops whole turns). A sequence no context policy can fit is refused
  // before the truncation, so the session is left as it was.
  Result<int32_t> eval_sequence(std::span<const TokenId> sequence, bool starts_turn = false);
  // Keeps the first n tokens (and their cached K/V); the rest is forgotten. When the
  // cache freed windowed rows that position n needs, it keeps a shorter prefix and the
  // next eval re-evaluates the tokens between first (kv_tokens() < n_past() until then).
  void truncate(int32_t n);
  // Tokens whose K/V the cache holds (n_past() unless a truncation must re-evaluate).
  int32_t kv_tokens() const;
  // Applies the context policy so that n more tokens fit. Fails under policy stop, or
  // when no policy can make room (a single turn longer than the context).
  Status make_room(int32_t n);

  // The first n tokens (a system prompt) are never dropped or shifted out.
  void set_keep(int32_t n_keep);
  // A turn starts at the current end of the sequence (drop-oldest drops whole turns).
  void mark_turn();
  // Re-encodes the cached K/V in another element type (announced as an event).
  Status set_kv_type(std::string_view kv_type);

  // Saves the tokens, cache contents and next-token logits as a journal (format:
  // src/kv/kv_snapshot_format.h). When `path` is the journal this session saved or
  // loaded last and still holds its last state, only what changed since is appended
  // (the K/V of the new tokens, after a truncation record when the conversation was cut)
  // and fdatasync'ed; otherwise, or when dead records outweigh the live state, the file
  // is rewritten whole, atomically (temporary file, fsync, rename). A failed append is
  // cut off again; what was committed before stays loadable.
  Status save_snapshot(const std::string& path) const;
  // Restores a snapshot of this model: the state of its last whole, checksummed record
  // (a torn or corrupt tail is ignored and last_snapshot_load() says so). On any
  // mismatch or damage before that the session is unchanged and the error says why (the
  // caller re-evaluates instead). Marks the file used now (its mtime: LRU eviction).
  Status load_snapshot(const std::string& path);
  const SnapshotSaveStats& last_snapshot_save() const { return last_save_; }
  const SnapshotLoadStats& last_snapshot_load() const { return last_load_; }

  // The RAM tier (kvchat/kv_ram_tier.h). park: this session's state (tokens, turns, kept
  // prefix, logits, the snapshot journal it follows) with a cache that holds the same KV
  // blocks, each retained once more: nothing is copied, and a later write into a block
  // both hold copies it first, so the session goes on unchanged. Null when there is
  // nothing to keep (no tokens, or no_kv_cache).
  ParkedKvPtr park() const;
  // Takes `parked` as this session's state (what it held is released; 0 tokens are
  // evaluated). An error, the session unchanged, when it was parked from a session of
  // another model, KV configuration or KV memory, or of another prefix-sharing store.
  Status resume(ParkedKvPtr parked);

  void set_event_handler(SessionEventHandler handler) { on_event_ = std::move(handler); }

  std::span<const float> last_logits() const { return last_logits_; }
  const std::vector<TokenId>& tokens() const { return tokens_; }
  int32_t n_past() const { return static_cast<int32_t>(tokens_.size()); }
  int32_t n_ctx() const { return n_ctx_; }
  int32_t n_keep() const { return n_keep_; }
  const std::vector<int32_t>& turn_starts() const { return turn_starts_; }
  // Tokens run through the forward pass since the session was created.
  uint64_t tokens_evaluated() const { return tokens_evaluated_; }
  // Tokens whose K/V were adopted from another session's blocks (kv_share_prefix).
  uint64_t prefix_hit_tokens() const { return prefix_hit_tokens_; }
  // kv_share_prefix: the sessions that share prefix blocks are those of one scope (0 by
  // default; the server gives each client identity its own). Another scope than the
  // current one first drops what the session holds (truncate(0)): none of its K/V is
  // kept, adopted or published across scopes.
  void set_kv_share_scope(uint64_t scope);
  uint64_t kv_share_scope() const;
  const Model& model() const { return *model_; }
  const SessionOptions& options() const { return options_; }
  std::string_view backend_name() const;
  // The host threads a forward pass runs on (SessionOptions::n_threads, or the default), and
  // those a decode step runs on (one for a model under 32 MiB when n_threads was not given).
  int32_t n_threads() const;
  int32_t decode_threads() const;
  // Why the backend is not the one asked for ("auto" without a CUDA device, a failed
  // self-check) or runs unverified (self-check skipped); else empty. Every note about the
  // self-check contains the word "self-check" (the app shows those in its banner).
  const std::string& backend_note() const { return backend_note_; }

  MemoryReport memory_report() const;

 private:
  Session() = default;
  friend struct ParkedKv;
  Status forward(std::span<const TokenId> tokens, std::vector<float>* all_logits);
  Status shift_context(int32_t n);
  Status slide_sink_window(int32_t n);
  // shift and sink-window: discards tokens [keep, keep + discard), moves the K/V after
  // them down and re-rotates their keys by the distance moved. Returns the tokens left
  // to re-evaluate (windowed-layer rows they need were freed), else 0.
  Result<int32_t> discard_middle(int32_t keep, int32_t discard);
  // The first tokens of n_keep no policy drops: n_keep (a system prompt), and under
  // sink-window at least sink_tokens.
  int32_t kept_prefix(int32_t n_keep) const;
  Status drop_oldest_turns(int32_t n);
  // An error when `sequence`, kept up to `keep` tokens of what the session holds, cannot
  // fit whatever the policy drops: under stop longer than the context, else more new
  // tokens than fit beside the kept prefix.
  Status check_fits(std::span<const TokenId> sequence, int32_t keep) const;
  void notify(SessionEvent event);
  void check_warning();
  // The store a cache of `config` takes its blocks from: the shared one with
  // kv_share_prefix, else null (a store of its own).
  std::shared_ptr<KvPrefixStore> kv_store_for(const KvCacheConfig& config) const;

  std::shared_ptr<const Model> model_;
  SessionOptions options_;
  std::unique_ptr<Backend> backend_;
  std::string backend_note_;
  std::unique_ptr<KvCache> kv_;  // after backend_: its blocks may be the backend's memory
  std::vector<TokenId> tokens_;
  std::vector<float> last_logits_;
  std::vector<float> logits_buffer_;  // the next step's logits, swapped in on success
  std::vector<int32_t> turn_starts_;
  SessionEventHandler on_event_;
  int32_t n_ctx_ = 0;
  int32_t n_keep_ = 0;
  uint64_t tokens_evaluated_ = 0;
  uint64_t prefix_hit_tokens_ = 0;  // tokens whose K/V were adopted from another session
  int32_t published_blocks_ = 0;    // whole blocks last offered to the shared store
  bool warned_ = false;
  // The journal file the last save or load used, while it still holds its last state.
  struct SnapshotJournal {
    std::string path;
    uint64_t device = 0, inode = 0;
    uint64_t valid_bytes = 0;  // the header and valid records: the next record goes there
    uint64_t live_bytes = 0;   // what a rewritten file of the same state would take
    int32_t n_tokens = 0;      // tokens of its last state
    uint32_t kv_type_code = 0;
    // The file's 8 bytes before valid_bytes (its last record's checksum): another session
    // of the same conversation (a branch parked in the RAM tier and resumed) may have
    // appended its own records since, which the size and inode alone do not reveal.
    uint64_t tail = 0;
  };
  mutable std::optional<SnapshotJournal> journal_;
  mutable SnapshotSaveStats last_save_;
  SnapshotLoadStats last_load_;
};

}  // namespace kvchat
