#include "backend/cpu/cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "backend/cpu/attention.h"
#include "backend/cpu/cpu_ops.h"
#include "backend/cpu/default_threads.h"
#include "backend/cpu/matmul.h"
#include "backend/cpu/repacked_weights.h"
#include "kv/kv_cache.h"
#include "kv/kv_codec.h"
#include "kvchat/model.h"
#include "model/model_weights.h"
#include "numeric/convert.h"
#include "util/thread_pool.h"

namespace kvchat::cpu {

namespace {

constexpr int32_t kMaxBatch = 256;  // tokens per forward chunk; bounds the activation buffers
// Up to this many tokens (decode, short chunks) every thread normalises and prepares its
// own copy of a product's input, so that no barrier separates the norm from the product;
// above it the threads share one copy, made between two barriers (bounded memory).
constexpr int64_t kPrivateInputTokens = 8;
// The parallel phases of a layer that hand out chunks from a counter (see forward_thread).
enum Phase : int32_t { kQkv, kAttention, kWo, kGateUp, kDown, kPhasesPerLayer };
enum class QkvPart { kQ, kK, kV };  // which of the three products a chunk of phase kQkv is

// One forward chunk, as every thread of the pool sees it: layers [first, last) over x, then
// the logits when asked for. Token b sits at steps[b].pos of the sequence steps[b].kv holds:
// one sequence's consecutive positions (forward, a split's layers) or the next tokens of
// several sequences (forward_steps) alike.
struct Batch {
  float* x;                             // (B, n_embd) the residual stream, updated in place
  int64_t n_tokens;                     // B
  std::span<const SequenceStep> steps;  // (B) each token's position and cache; empty when no
                                        // layer is run (steps[b].token is not read)
  int32_t first, last;                  // the layers run
  float* logits;  // (B, n_vocab) if all_logits, else (n_vocab); null: no logits
  bool all_logits;
  int32_t end_pos = 0;  // 1 + the latest position of steps (run_chunk sets it)
};

// The forward pass as one ThreadPool::run per chunk of tokens (run_chunk): forward() is
// embed, then per chunk of kMaxBatch tokens every layer and the logits in one job; the
// pieces of a split (embed, forward_layers, output_logits) run the same chunks through the
// same job, so that their composition equals forward() bit for bit. Per layer five parallel
// phases, each ended by one barrier. In each, the threads claim chunks of the work from the
// phase's counter (matmul.h: for_each_claimed) and finish every chunk they claim:
//   1. q, k, v = x_norm . {wq, wk, wv}^T by chunks of whole heads of one of the three; a
//      chunk's heads get their bias, per-head norm, RoPE (cached cos/sin), K and V go into
//      the cache;
//   2. attention, chunks of (token, KV head) items;
//   3. x += [post_attn_norm](wo . att_out), chunks of output rows, each added to x by the
//      thread that computed it;
//   4. h = act(gate . x_norm) * (up . x_norm), the same row chunk of gate and up, so that a
//      thread applies the activation to the rows it computed;
//   5. x += [post_ffw_norm](w_down . h), as 3.
// The logits are chunks of vocab rows. The RMSNorm before 1, 4 and the logits is computed by
// every thread for itself (decode) or split statically by tokens (long chunks; two more
// barriers; a few us of work against the products' ms). Post-norms (gemma) add one barrier
// each and are split by tokens too.
class CpuBackend final : public Backend {
 public:
  CpuBackend(const Model& model, const BackendOptions& options)
      : hp_(model.hparams()),
        repacked_(RepackedWeights::for_model(model, options.repack_from_layer)),
        w_(repacked_->weights()),
        pool_(options.n_threads),
        one_thread_decode_(decode_on_one_thread(options.n_threads, model.info().weight_bytes())),
        matmul_(pool_.size()),
        counters_(static_cast<size_t>(hp_.n_layers) * kPhasesPerLayer + 1) {
    const int64_t B = kMaxBatch;
    x_.resize(B * hp_.n_embd);
    xb_.resize(B * hp_.n_embd);
    xb2_.resize(B * hp_.n_embd);
    q_.resize(B * hp_.q_dim());
    k_.resize(B * hp_.kv_dim());
    v_.resize(B * hp_.kv_dim());
    att_out_.resize(B * hp_.q_dim());
    hb_.resize(B * hp_.n_ff);
    hb2_.resize(B * hp_.n_ff);
    steps_.resize(B);
    tokens_.resize(B);
    const int32_t n_ctx = options.n_ctx > 0 ? options.n_ctx : hp_.n_ctx_train;
    threads_.resize(pool_.size());
    for (ThreadBuffers& t : threads_) {
      t.xn.resize(kPrivateInputTokens * hp_.n_embd);
      t.attention = AttentionScratch(n_ctx, hp_.n_heads / hp_.n_kv_heads, hp_.head_dim);
    }
    // One cos/sin cache per distinct RoPE table (global, local, long).
    rope_cs_.reserve(hp_.n_layers);
    for (int32_t l = 0; l < hp_.n_layers; ++l) {
      const RopeTable* table = &hp_.rope(l, n_ctx);
      size_t i = 0;
      while (i < rope_cs_.size() && &rope_cs_[i].table() != table) ++i;
      if (i == rope_cs_.size()) rope_cs_.emplace_back(*table);
      layer_rope_.push_back(static_cast<int32_t>(i));
    }
  }

  std::string_view name() const override { return "cpu"; }
  int32_t threads() const override { return pool_.size(); }
  int32_t decode_threads() const override { return one_thread_decode_ ? 1 : pool_.size(); }

  uint64_t scratch_bytes() const override {
    uint64_t n = x_.size() + xb_.size() + xb2_.size() + q_.size() + k_.size() + v_.size() +
                 att_out_.size() + hb_.size() + hb2_.size();
    uint64_t bytes = n * sizeof(float) + matmul_.scratch_bytes() + shared_in_.scratch_bytes();
    for (const ThreadBuffers& t : threads_) {
      bytes += t.xn.size() * sizeof(float) + t.in.scratch_bytes() + t.attention.bytes();
    }
    for (const RopeCosSin& r : rope_cs_) bytes += r.bytes();
    return bytes;
  }

  Status forward(std::span<const TokenId> tokens, int32_t pos0, KvCache& kv, float* logits,
                 bool all_logits) override {
    for (size_t start = 0; start < tokens.size(); start += kMaxBatch) {
      const size_t n = std::min<size_t>(kMaxBatch, tokens.size() - start);
      const bool last_chunk = start + n == tokens.size();
      float* out = all_logits ? logits + start * hp_.n_vocab : (last_chunk ? logits : nullptr);
      embed_rows(tokens.subspan(start, n), x_.data());
      run_chunk({x_.data(), static_cast<int64_t>(n),
                 consecutive_steps(pos0 + static_cast<int32_t>(start), n, kv), 0, hp_.n_layers, out,
                 all_logits});
    }
    return {};
  }

  Status forward_steps(std::span<const SequenceStep> steps, int32_t n_vocab,
                       float* logits) override {
    if (n_vocab != hp_.n_vocab) {
      return Error{"logits of " + std::to_string(n_vocab) + " values asked of a model of " +
                   std::to_string(hp_.n_vocab)};
    }
    for (const SequenceStep& s : steps) {
      if (s.token < 0 || s.token >= hp_.n_vocab)
        return Error{"token " + std::to_string(s.token) + " is not in the vocabulary"};
      if (!s.kv || s.pos < 0 || s.pos >= s.kv->capacity())
        return Error{"a step's position " + std::to_string(s.pos) + " is not reserved"};
    }
    for (size_t start = 0; start < steps.size(); start += kMaxBatch) {
      const size_t n = std::min<size_t>(kMaxBatch, steps.size() - start);
      const std::span<const SequenceStep> chunk = steps.subspan(start, n);
      for (size_t b = 0; b < n; ++b) tokens_[b] = chunk[b].token;
      embed_rows(std::span<const TokenId>(tokens_.data(), n), x_.data());
      run_chunk({x_.data(), static_cast<int64_t>(n), chunk, 0, hp_.n_layers,
                 logits + static_cast<int64_t>(start) * hp_.n_vocab, true});
    }
    return {};
  }

  Status embed(std::span<const TokenId> tokens, float* x) override {
    for (TokenId t : tokens) {
      if (t < 0 || t >= hp_.n_vocab)
        return Error{"token " + std::to_string(t) + " is not in the vocabulary"};
    }
    embed_rows(tokens, x);
    return {};
  }

  Status forward_layers(float* x, int32_t n, int32_t pos0, int32_t first, int32_t last,
                        KvCache& kv) override {
    if (first < 0 || first > last || last > hp_.n_layers || n < 0 || pos0 < 0) {
      return Error{"the CPU backend cannot run layers [" + std::to_string(first) + ", " +
                   std::to_string(last) + ") of " + std::to_string(hp_.n_layers)};
    }
    if (pos0 + n > kv.capacity()) {
      return Error{"the KV cache holds " + std::to_string(kv.capacity()) + " positions, not " +
                   std::to_string(pos0 + n)};
    }
    for (int32_t l = first; l < last; ++l) {
      if (!kv.layer_on_host(l)) {
        return Error{"the K/V of layer " + std::to_string(l) + " is not in host memory"};
      }
    }
    if (first == last) return {};
    const int64_t dim = hp_.n_embd;
    for (int32_t start = 0; start < n; start += kMaxBatch) {
      const int32_t b = std::min(kMaxBatch, n - start);
      run_chunk({x + start * dim, b, consecutive_steps(pos0 + start, b, kv), first, last, nullptr,
                 false});
    }
    return {};
  }

  Status output_logits(const float* x, int32_t n, float* logits, bool all_logits) override {
    if (n < 1) return Error{"no rows to compute logits of"};
    const int64_t dim = hp_.n_embd;
    // No layer runs: the logits phase only reads the chunk's x.
    float* rows = const_cast<float*>(x);
    if (!all_logits) {  // the last row's, in the chunk forward() computes it in
      const int32_t start = (n - 1) / kMaxBatch * kMaxBatch;
      run_chunk({rows + start * dim, n - start, {}, 0, 0, logits, false});
      return {};
    }
    for (int32_t start = 0; start < n; start += kMaxBatch) {
      const int32_t b = std::min(kMaxBatch, n - start);
      run_chunk({rows + start * dim, b, {}, 0, 0, logits + start * int64_t{hp_.n_vocab}, true});
    }
    return {};
  }

 private:
  struct alignas(64) ThreadBuffers {  // one cache line apart: written by their thread only
    std::vector<float> xn;            // (kPrivateInputTokens, dim): this thread's normalised x
    PreparedActivations in;      // this thread's prepared input (chunks of <= kPrivateInputTokens)
    AttentionScratch attention;  // this thread's attention buffers
  };

  const float* f32(const WeightView& w) { return reinterpret_cast<const float*>(w.data); }

  // steps_[0, n): positions [pos0, pos0 + n) of the sequence in kv (tokens not set).
  std::span<const SequenceStep> consecutive_steps(int32_t pos0, int64_t n, KvCache& kv) {
    for (int64_t b = 0; b < n; ++b) steps_[b] = {0, pos0 + static_cast<int32_t>(b), &kv};
    return std::span<const SequenceStep>(steps_.data(), static_cast<size_t>(n));
  }

  // x (n, dim) = token_embd[tokens] * embed_scale
  void embed_rows(std::span<const TokenId> tokens, float* x) {
    const int64_t n = static_cast<int64_t>(tokens.size());
    const int32_t dim = hp_.n_embd;
    for (int64_t b = 0; b < n; ++b) repacked_->embedding(tokens[b], &x[b * dim]);
    if (hp_.embed_scale != 1.0f) {
      for (int64_t i = 0; i < n * dim; ++i) x[i] *= hp_.embed_scale;
    }
  }

  // One chunk (B <= kMaxBatch tokens): layers [first, last) over batch.x, then the logits
  // when batch.logits is set, as one pool job (or on the caller, for short chunks).
  void run_chunk(Batch batch) {
    const int64_t B = batch.n_tokens;
    for (const SequenceStep& s : batch.steps) batch.end_pos = std::max(batch.end_pos, s.pos + 1);
    if (batch.first < batch.last) {
      for (RopeCosSin& r : rope_cs_) r.cover(batch.end_pos);
    }
    // Every counter of this job is zeroed before it starts; none is reused inside the job.
    // Safe without more synchronisation: the previous job's last claims came before its
    // threads arrived at its end, which run() waited for, and the job start's release
    // publishes the zeros to the workers. (Reusing a few counters inside a job would need one
    // thread to zero each between the two barriers around its phase: an ordering that an
    // edit of the phases could break unseen; these are 5 stores per layer per forward chunk.)
    for (ChunkCounter& c : counters_) c.next.store(0, std::memory_order_relaxed);
    if (one_thread_decode_ && B <= kPrivateInputTokens) {
      forward_thread(batch, 0, 1);  // on the caller: no wake-up, no barrier
    } else {
      pool_.run([&](int thread, int n_threads) { forward_thread(batch, thread, n_threads); });
    }
  }

  // The end of a phase: every thread of the pool job waits for the others (nothing to wait
  // for when the chunk runs on the caller alone).
  void sync(int nth) {
    if (nth > 1) pool_.barrier();
  }

  // The whole chunk, as thread `th` of `nth` runs it.
  void forward_thread(const Batch& bt, int th, int nth) {
    const int64_t B = bt.n_tokens;
    for (int32_t l = bt.first; l < bt.last; ++l) {
      const ModelLayerWeights& L = w_.layers[l];
      ChunkCounter* counter = &counters_[static_cast<size_t>(l) * kPhasesPerLayer];
      const gguf::TensorType qkv_types[3] = {L.wq.type, L.wk.type, L.wv.type};
      qkv_share(l, normed_input(bt.x, B, L.attn_norm, qkv_types, th, nth), bt, counter[kQkv], th,
                nth);
      sync(nth);
      attention_share(l, bt, counter[kAttention], th, nth);
      sync(nth);
      residual_share(L.wo, input(att_out_.data(), B, hp_.q_dim(), L.wo.type, th, nth),
                     L.post_attn_norm, bt.x, B, counter[kWo], th, nth);
      sync(nth);
      const gguf::TensorType ffn_types[2] = {L.w_gate.type, L.w_up.type};
      gate_up_share(L, normed_input(bt.x, B, L.ffn_norm, ffn_types, th, nth), counter[kGateUp], th,
                    nth);
      sync(nth);
      residual_share(L.w_down, input(hb_.data(), B, hp_.n_ff, L.w_down.type, th, nth),
                     L.post_ffw_norm, bt.x, B, counter[kDown], th, nth);
      sync(nth);
    }
    if (bt.logits) logits_share(bt, counters_.back(), th, nth);
  }

  // The input of a product: rmsnorm(x[b]) * gain for the n tokens of x (n, dim), prepared
  // for the weight types that read it. Private to the thread for short chunks; otherwise
  // shared (norm split by tokens; barriers inside, so every thread must call it).
  const PreparedActivations& normed_input(const float* x, int64_t n, const WeightView& gain,
                                          std::span<const gguf::TensorType> types, int th,
                                          int nth) {
    const int32_t dim = hp_.n_embd;
    if (n <= kPrivateInputTokens) {
      ThreadBuffers& t = threads_[th];
      for (int64_t b = 0; b < n; ++b)
        rmsnorm(&t.xn[b * dim], x + b * dim, f32(gain), dim, hp_.rms_eps);
      t.in.prepare(t.xn.data(), n, dim, types);
      return t.in;
    }
    const auto [b0, b1] = split_range(n, 1, th, nth);
    for (int64_t b = b0; b < b1; ++b)
      rmsnorm(&xb_[b * dim], x + b * dim, f32(gain), dim, hp_.rms_eps);
    sync(nth);
    if (th == 0) shared_in_.prepare(xb_.data(), n, dim, types);
    sync(nth);
    return shared_in_;
  }

  // The input of a product: X (n, cols) as it is, prepared for `type` (as normed_input).
  const PreparedActivations& input(const float* X, int64_t n, int64_t cols, gguf::TensorType type,
                                   int th, int nth) {
    const std::span<const gguf::TensorType> types(&type, 1);
    if (n <= kPrivateInputTokens) {
      threads_[th].in.prepare(X, n, cols, types);
      return threads_[th].in;
    }
    if (th == 0) shared_in_.prepare(X, n, cols, types);
    sync(nth);
    return shared_in_;
  }

  // Phase 1. q (B, q_dim), k and v (B, kv_dim) = in . {wq, wk, wv}^T. The n_heads q heads,
  // then the n_kv_heads k and v heads, in chunks of whole heads of one matrix (the same head
  // count for all three; a multiple of the heads that make kMatmulRowAlign rows, so that the
  // chunks start on kernel tiles). Chunk c < nq is q's, then k's, then v's.
  void qkv_share(int32_t l, const PreparedActivations& in, const Batch& bt, ChunkCounter& counter,
                 int th, int nth) {
    const int32_t hd = hp_.head_dim, nh = hp_.n_heads, nkv = hp_.n_kv_heads;
    const int64_t heads_per_tile = kMatmulRowAlign / std::gcd(int64_t{hd}, kMatmulRowAlign);
    const int64_t tile_work = heads_per_tile * hd * in.cols() * bt.n_tokens;
    const int64_t heads_per_chunk = make_chunks(nh + 2 * nkv, heads_per_tile, tile_work, nth).size;
    const Chunks q{nh, heads_per_chunk}, kv{nkv, heads_per_chunk};
    const int64_t nq = q.count(), nk = kv.count();
    for_each_claimed(counter, nq + 2 * nk, [&](int64_t c) {
      if (c < nq) return qkv_heads(l, in, bt, QkvPart::kQ, q[c], th);
      if (c < nq + nk) return qkv_heads(l, in, bt, QkvPart::kK, kv[c - nq], th);
      qkv_heads(l, in, bt, QkvPart::kV, kv[c - nq - nk], th);
    });
  }

  // The heads [h.first, h.second) of q, k or v (`part`), finished: bias, per-head norm and
  // RoPE (q, k); K and V heads into each token's cache at its position (bt.steps).
  void qkv_heads(int32_t l, const PreparedActivations& in, const Batch& bt, QkvPart part,
                 std::pair<int64_t, int64_t> h, int th) {
    const ModelLayerWeights& L = w_.layers[l];
    const int64_t hd = hp_.head_dim, h0 = h.first, nh = h.second - h.first;
    const RopeCosSin& cs = rope_cs_[layer_rope_[l]];
    const RopeTable& rt = cs.table();
    if (part == QkvPart::kQ) {
      const int32_t q_dim = hp_.q_dim();
      matmul_.rows(L.wq, in, h0 * hd, h.second * hd, q_.data(), q_dim, th);
      for (int64_t b = 0; b < bt.n_tokens; ++b) {
        float* q = &q_[b * q_dim + h0 * hd];
        if (L.bq) add_bias(q, L.bq.f32() + h0 * hd, nh * hd);
        if (L.q_norm)
          rmsnorm_heads(q, static_cast<int32_t>(nh), hp_.head_dim, f32(L.q_norm), hp_.rms_eps);
        rope_cached(q, static_cast<int32_t>(nh), hp_.head_dim, rt.style, rt.n_rot,
                    cs.at(bt.steps[b].pos));
      }
      return;
    }
    const int32_t kv_dim = hp_.kv_dim();
    if (part == QkvPart::kK) {
      matmul_.rows(L.wk, in, h0 * hd, h.second * hd, k_.data(), kv_dim, th);
      for (int64_t b = 0; b < bt.n_tokens; ++b) {
        const auto [token, pos, kv] = bt.steps[b];
        float* k = &k_[b * kv_dim + h0 * hd];
        if (L.bk) add_bias(k, L.bk.f32() + h0 * hd, nh * hd);
        if (L.k_norm)
          rmsnorm_heads(k, static_cast<int32_t>(nh), hp_.head_dim, f32(L.k_norm), hp_.rms_eps);
        rope_cached(k, static_cast<int32_t>(nh), hp_.head_dim, rt.style, rt.n_rot, cs.at(pos));
        // Heads are whole blocks of every KV type, so a run of heads encodes on its own.
        encode_kv_heads(kv->key_type(), k, static_cast<int32_t>(nh), hp_.head_dim,
                        kv->key_row(l, pos) + h0 * kv->head_bytes(0));
      }
      return;
    }
    matmul_.rows(L.wv, in, h0 * hd, h.second * hd, v_.data(), kv_dim, th);
    for (int64_t b = 0; b < bt.n_tokens; ++b) {
      const auto [token, pos, kv] = bt.steps[b];
      float* v = &v_[b * kv_dim + h0 * hd];
      if (L.bv) add_bias(v, L.bv.f32() + h0 * hd, nh * hd);
      encode_kv_heads(kv->value_type(), v, static_cast<int32_t>(nh), hp_.head_dim,
                      kv->value_row(l, pos) + h0 * kv->head_bytes(1));
    }
  }

  // Phase 2. att_out (B, n_heads*hd): causal attention (backend/cpu/attention.h), one
  // work item per (token, KV head) for the query heads of its group; chunks of items.
  void attention_share(int32_t l, const Batch& bt, ChunkCounter& counter, int th, int nth) {
    AttentionArgs a;
    a.layer = l;
    a.q = q_.data();
    a.q_stride = hp_.q_dim();
    a.out = att_out_.data();
    a.out_stride = hp_.q_dim();
    a.n_tokens = bt.n_tokens;
    a.steps = bt.steps.data();
    a.n_heads = hp_.n_heads;
    a.n_kv_heads = hp_.n_kv_heads;
    a.head_dim = hp_.head_dim;
    a.window = hp_.window(l);
    a.scale = hp_.query_scale;
    a.softcap = hp_.attn_softcap;
    // An item's work, at most: scores and weighted values over every cached position.
    const int64_t item_work =
        int64_t{2} * bt.end_pos * (hp_.n_heads / hp_.n_kv_heads) * hp_.head_dim;
    const Chunks items = make_chunks(attention_items(a), 1, item_work, nth);
    for_each_claimed(counter, items.count(), [&](int64_t c) {
      const auto [i0, i1] = items[c];
      attend_items(a, i0, i1, threads_[th].attention);
    });
  }

  // Phases 3 and 5. x (B, dim) += [post_norm](in . W^T): chunks of output rows, each added to
  // x by the thread that computed it; with a post-norm (needs whole rows) after a barrier,
  // split by tokens.
  void residual_share(const WeightView& W, const PreparedActivations& in,
                      const WeightView& post_norm, float* x, int64_t B, ChunkCounter& counter,
                      int th, int nth) {
    const int32_t dim = hp_.n_embd;
    const Chunks rows = make_chunks(dim, kMatmulRowAlign, kMatmulRowAlign * in.cols() * B, nth);
    for_each_claimed(counter, rows.count(), [&](int64_t c) {
      const auto [r0, r1] = rows[c];
      matmul_.rows(W, in, r0, r1, xb2_.data(), dim, th);
      if (post_norm) return;
      for (int64_t b = 0; b < B; ++b) {
        for (int64_t r = r0; r < r1; ++r) x[b * dim + r] += xb2_[b * dim + r];
      }
    });
    if (!post_norm) return;
    sync(nth);
    const auto [b0, b1] = split_range(B, 1, th, nth);
    for (int64_t b = b0; b < b1; ++b) {
      rmsnorm(&xb2_[b * dim], &xb2_[b * dim], f32(post_norm), dim, hp_.rms_eps);
      for (int32_t i = 0; i < dim; ++i) x[b * dim + i] += xb2_[b * dim + i];
    }
  }

  // Phase 4. hb (B, n_ff) = act(in . w_gate^T) * (in . w_up^T): chunks of rows, the same
  // rows of gate and up, so that a thread gates the rows it computed.
  void gate_up_share(const ModelLayerWeights& L, const PreparedActivations& in,
                     ChunkCounter& counter, int th, int nth) {
    const int64_t n_ff = hp_.n_ff, B = in.n_tokens();
    const Chunks rows =
        make_chunks(n_ff, kMatmulRowAlign, 2 * kMatmulRowAlign * in.cols() * B, nth);
    for_each_claimed(counter, rows.count(), [&](int64_t c) {
      const auto [r0, r1] = rows[c];
      matmul_.rows(L.w_gate, in, r0, r1, hb_.data(), n_ff, th);
      matmul_.rows(L.w_up, in, r0, r1, hb2_.data(), n_ff, th);
      for (int64_t b = 0; b < B; ++b) {
        gated_activation(hp_.arch->activation, &hb_[b * n_ff + r0], &hb2_[b * n_ff + r0], r1 - r0);
      }
    });
  }

  // logits = [softcap](output . rmsnorm(x)): every token's, or only the last one's; chunks of
  // vocab rows.
  void logits_share(const Batch& bt, ChunkCounter& counter, int th, int nth) {
    const int32_t dim = hp_.n_embd;
    const int64_t first = bt.all_logits ? 0 : bt.n_tokens - 1, n = bt.n_tokens - first;
    const PreparedActivations& in =
        normed_input(bt.x + first * dim, n, w_.output_norm,
                     std::span<const gguf::TensorType>(&w_.output.type, 1), th, nth);
    const Chunks rows =
        make_chunks(hp_.n_vocab, kMatmulRowAlign, kMatmulRowAlign * int64_t{dim} * n, nth);
    for_each_claimed(counter, rows.count(), [&](int64_t c) {
      const auto [r0, r1] = rows[c];
      matmul_.rows(w_.output, in, r0, r1, bt.logits, hp_.n_vocab, th);
      if (hp_.final_softcap > 0) {
        for (int64_t b = 0; b < n; ++b)
          softcap(bt.logits + b * hp_.n_vocab + r0, r1 - r0, hp_.final_softcap);
      }
    });
  }

  const ModelHParams& hp_;
  std::shared_ptr<const RepackedWeights>
      repacked_;           // the model's, shared with its other CPU sessions
  const ModelWeights& w_;  // repacked_->weights()
  ThreadPool pool_;
  bool
      one_thread_decode_;  // short chunks on the caller alone (a tiny model, threads not asked for)
  MatMul matmul_;
  std::vector<RopeCosSin> rope_cs_;  // one per distinct RoPE table of this session's n_ctx
  std::vector<int32_t> layer_rope_;  // (n_layers) index into rope_cs_
  // Activations for one batch of up to kMaxBatch tokens, row-major (token, feature); x_
  // (kMaxBatch, n_embd) is forward()'s residual stream (a split's is the caller's).
  std::vector<float> x_, xb_, xb2_, q_, k_, v_, att_out_, hb_, hb2_;
  std::vector<SequenceStep> steps_;     // (kMaxBatch) a chunk's steps of one sequence (forward)
  std::vector<TokenId> tokens_;         // (kMaxBatch) a chunk's tokens (forward_steps)
  PreparedActivations shared_in_;       // a product's input shared by all threads (long chunks)
  std::vector<ThreadBuffers> threads_;  // (n_threads)
  // (n_layers * kPhasesPerLayer + 1): the chunk counter of every phase of a layer (index
  // l * kPhasesPerLayer + phase), then the logits'. Each on its own cache line (ChunkCounter).
  std::vector<ChunkCounter> counters_;
};

}  // namespace

Result<std::unique_ptr<Backend>> make_cpu_backend(const Model& model,
                                                  const BackendOptions& options) {
  return std::unique_ptr<Backend>(new CpuBackend(model, options));
}

}  // namespace kvchat::cpu
