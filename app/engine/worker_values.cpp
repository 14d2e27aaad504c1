// The worker values' maps for QML (worker_values.h). GUI thread in practice; no state.
#include "engine/worker_values.h"

#include <QCoreApplication>
#include <QStringList>
#include <mutex>

#include "util/display_text.h"
#include "store/conversation_store.h"
#include "kvchat/kv_types.h"
#include "model/instruction_tuned.h"
#include "tools/tool_steps.h"
#include "util/engine_text.h"

namespace kvchat::app {

namespace {

QVariant u64(uint64_t v) { return QVariant::fromValue(static_cast<qulonglong>(v)); }

template <class T>
QVariantMap map_of(const std::map<std::string, T>& m) {
  QVariantMap out;
  for (const auto& [k, v] : m) out.insert(qstr(k), QVariant::fromValue(v));
  return out;
}

QVariantMap u64_map_of(const std::map<std::string, uint64_t>& m) {
  QVariantMap out;
  for (const auto& [k, v] : m) out.insert(qstr(k), u64(v));
  return out;
}

// Bytes per K or V value of a cache type, as a fraction (block scales included).
std::pair<uint64_t, uint64_t> bytes_per_element(const std::string& kv_type) {
  for (const KvTypeCost& c : kv_type_costs()) {
    if (c.name == kv_type) return {c.bytes_num, c.bytes_den};
  }
  return {0, 1};
}

}  // namespace

ChatTurns chat_turns(const QVector<StoredMessage>& messages, int rows) {
  ChatTurns turns;
  const qsizetype n = rows < 0 ? messages.size() : std::min<qsizetype>(rows, messages.size());
  for (qsizetype i = 0; i < n; ++i) {
    const StoredMessage& m = messages[i];
    if (m.tool_steps.isEmpty()) {
      turns.push_back({m.role, m.content});
      continue;
    }
    append_tool_turns(m.tool_steps, turns);
    // A reply stopped after its results has no answer: its turn ends with them.
    if (!m.content.isEmpty()) turns.push_back({m.role, m.content});
  }
  return turns;
}

QVariantMap ChatFormatInfo::to_map() const {
  return {{QStringLiteral("chat_format_description"), description},
          {QStringLiteral("chat_format_source"), source},
          {QStringLiteral("chat_format_kind"), kind},
          {QStringLiteral("chat_template_override"), override_text},
          {QStringLiteral("chat_declares_thinking"), declares_thinking},
          {QStringLiteral("chat_enable_thinking"), enable_thinking}};
}

QString LoadedModel::identity() const {
  return QStringLiteral("%1").arg(static_cast<qulonglong>(info.identity), 16, 16, QLatin1Char('0'));
}

QVariantMap LoadedModel::to_map() const {
  QVariantMap m;
  m.insert(QStringLiteral("path"), qstr(info.path));
  m.insert(QStringLiteral("name"), cut_for_display(info.name));
  // What the window calls it: the file's name, general.name beside it when that says more.
  m.insert(QStringLiteral("display_name"),
           model_display_name(qstr(info.path), info.name, info.architecture));
  m.insert(QStringLiteral("architecture"), cut_for_display(info.architecture));
  m.insert(QStringLiteral("gguf_version"), info.gguf_version);
  m.insert(QStringLiteral("n_params"), u64(info.n_params));
  m.insert(QStringLiteral("file_bytes"), u64(info.file_bytes));
  m.insert(QStringLiteral("n_layers"), info.n_layers);
  m.insert(QStringLiteral("n_embd"), info.n_embd);
  m.insert(QStringLiteral("n_heads"), info.n_heads);
  m.insert(QStringLiteral("n_kv_heads"), info.n_kv_heads);
  m.insert(QStringLiteral("head_dim"), info.head_dim);
  m.insert(QStringLiteral("n_ff"), info.n_ff);
  m.insert(QStringLiteral("n_vocab"), info.n_vocab);
  m.insert(QStringLiteral("n_ctx_train"), info.n_ctx_train);
  m.insert(QStringLiteral("rms_eps"), info.rms_eps);
  m.insert(QStringLiteral("rope_freq_base"), info.rope_freq_base);
  m.insert(QStringLiteral("tied_embeddings"), info.tied_embeddings);
  // What the architecture does differently (the info dialog's "details" line).
  m.insert(QStringLiteral("rope_style"), qstr(info.rope_style));
  m.insert(QStringLiteral("rope_scaling"), qstr(info.rope_scaling));
  m.insert(QStringLiteral("ffn_activation"), qstr(info.ffn_activation));
  m.insert(QStringLiteral("attn_softcap"), info.attn_softcap);
  m.insert(QStringLiteral("final_softcap"), info.final_softcap);
  m.insert(QStringLiteral("sliding_window"), info.sliding_window);
  m.insert(QStringLiteral("n_windowed_layers"), static_cast<int>(info.windowed_layers.size()));
  m.insert(QStringLiteral("weight_bytes"), u64(info.weight_bytes()));
  m.insert(QStringLiteral("weight_bytes_by_type"), u64_map_of(info.weight_bytes_by_type));
  m.insert(QStringLiteral("tensor_count_by_type"), map_of(info.tensor_count_by_type));
  // The same for people (Model info): "F16: 43 tensors  ·  F32: 13 tensors".
  QStringList tensor_types;
  for (const auto& [type, count] : info.tensor_count_by_type) {
    tensor_types.append(
        QCoreApplication::translate("EngineMaps", "%1: %2 tensors").arg(qstr(type)).arg(count));
  }
  m.insert(QStringLiteral("tensor_types_text"), tensor_types.join(QStringLiteral("  ·  ")));
  m.insert(QStringLiteral("kv_elements_per_token"), u64(info.kv_elements_per_token()));
  // What one token of context costs in each KV type, for the what-if views.
  QVariantMap kv_types;
  for (const KvTypeCost& c : kv_type_costs()) {
    kv_types.insert(qstr(c.name),
                    QVariantMap{{QStringLiteral("bytes_num"), c.bytes_num},
                                {QStringLiteral("bytes_den"), c.bytes_den},
                                {QStringLiteral("bytes_per_token"),
                                 u64(info.kv_elements_per_token() * c.bytes_num / c.bytes_den)}});
  }
  m.insert(QStringLiteral("kv_types"), kv_types);
  m.insert(QStringLiteral("tokenizer_model"), cut_for_display(info.tokenizer_model));
  m.insert(QStringLiteral("chat_template"), qstr(info.chat_template));
  // A hex string: a 64-bit value does not survive a JavaScript number.
  m.insert(QStringLiteral("identity"), identity());
  m.insert(QStringLiteral("is_demo"), info.name == "kjv-demo");
  m.insert(QStringLiteral("backend"), backend);
  m.insert(QStringLiteral("n_ctx"), n_ctx);
  m.insert(QStringLiteral("kv_type"), kv_type);
  m.insert(QStringLiteral("context_policy"), context_policy);
  m.insert(format.to_map());
  m.insert(QStringLiteral("instruction_tuned"), remote || instruction_tuned(m));
  m.insert(QStringLiteral("remote"), remote);
  if (remote) {
    m.insert(QStringLiteral("display_name"), QCoreApplication::translate("EngineMaps", "%1 at %2")
                                                 .arg(cut_for_display(info.name), remote_name));
    m.insert(QStringLiteral("remote_name"), remote_name);
    m.insert(QStringLiteral("remote_origin"), remote_origin);
  }
  return m;
}

MemoryFigures memory_figures(const Session& session) {
  MemoryFigures f;
  f.report = session.memory_report();
  f.n_past = session.n_past();
  f.n_ctx = session.n_ctx();
  const ModelInfo& info = session.model().info();
  f.n_layers = info.n_layers;
  f.n_kv_heads = info.n_kv_heads;
  f.head_dim = info.head_dim;
  return f;
}

QVariantMap MemoryFigures::to_map() const {
  if (empty()) return {};
  const MemoryReport& r = report;
  QVariantMap m;
  m.insert(QStringLiteral("backend"), qstr(r.backend));
  m.insert(QStringLiteral("weights_bytes_by_type"), u64_map_of(r.weights_bytes_by_type));
  m.insert(QStringLiteral("weights_bytes"), u64(r.weights_bytes));
  m.insert(QStringLiteral("kv_type"), qstr(r.kv_type));
  m.insert(QStringLiteral("n_layers"), r.n_layers);
  m.insert(QStringLiteral("kv_tokens"), r.kv_tokens);
  m.insert(QStringLiteral("kv_capacity_tokens"), r.kv_capacity_tokens);
  m.insert(QStringLiteral("kv_max_tokens"), r.kv_max_tokens);
  m.insert(QStringLiteral("kv_block_tokens"), r.kv_block_tokens);
  m.insert(QStringLiteral("kv_blocks"), r.kv_blocks);
  m.insert(QStringLiteral("kv_free_blocks"), r.kv_free_blocks);
  m.insert(QStringLiteral("kv_bytes_per_token"), u64(r.kv_bytes_per_token));
  m.insert(QStringLiteral("kv_used_bytes"), u64(r.kv_used_bytes));
  m.insert(QStringLiteral("kv_allocated_bytes"), u64(r.kv_allocated_bytes));
  m.insert(QStringLiteral("kv_pool_bytes"), u64(r.kv_pool_bytes));
  m.insert(QStringLiteral("kv_budget_bytes"), u64(r.kv_budget_bytes));
  m.insert(QStringLiteral("kv_peak_used_bytes"), u64(r.kv_peak_used_bytes));
  m.insert(QStringLiteral("kv_peak_allocated_bytes"), u64(r.kv_peak_allocated_bytes));
  // Sliding-window layers: what the window freed, and the KV without freeing.
  m.insert(QStringLiteral("kv_window"), r.kv_window);
  m.insert(QStringLiteral("kv_windowed_layers"), r.kv_windowed_layers);
  m.insert(QStringLiteral("kv_windowed_allocated_bytes"), u64(r.kv_windowed_allocated_bytes));
  m.insert(QStringLiteral("kv_window_freed_bytes"), u64(r.kv_window_freed_bytes));
  m.insert(QStringLiteral("kv_bytes_without_window"), u64(r.kv_bytes_without_window()));
  // Shared prefix blocks: this conversation's blocks another one holds too, the tokens it
  // adopted, every block the model's conversations share (each counted once).
  m.insert(QStringLiteral("kv_shared_bytes"), u64(r.kv_shared_bytes));
  m.insert(QStringLiteral("kv_prefix_hit_tokens"), u64(r.kv_prefix_hit_tokens));
  m.insert(QStringLiteral("kv_store_shared_bytes"), u64(r.kv_store_shared_bytes));
  m.insert(QStringLiteral("scratch_bytes"), u64(r.scratch_bytes));
  m.insert(QStringLiteral("process_resident_bytes"), u64(r.process_resident_bytes));
  m.insert(QStringLiteral("system_total_bytes"), u64(r.system_total_bytes));
  m.insert(QStringLiteral("system_available_bytes"), u64(r.system_available_bytes));
  m.insert(QStringLiteral("device_name"), qstr(r.device_name));
  m.insert(QStringLiteral("device_weights_bytes"), u64(r.device_weights_bytes));
  m.insert(QStringLiteral("device_kv_bytes"), u64(r.device_kv_bytes));
  m.insert(QStringLiteral("device_scratch_bytes"), u64(r.device_scratch_bytes));
  m.insert(QStringLiteral("device_total_bytes"), u64(r.device_total_bytes));
  m.insert(QStringLiteral("device_free_bytes"), u64(r.device_free_bytes));
  // Partial offload: layers [0, gpu_layers) on the GPU, the host's share of the rest.
  m.insert(QStringLiteral("gpu_layers"), r.gpu_layers);
  m.insert(QStringLiteral("host_weights_bytes"), u64(r.host_weights_bytes));
  m.insert(QStringLiteral("host_kv_bytes"), u64(r.host_kv_bytes));
  m.insert(QStringLiteral("kv_fragmentation_bytes"), u64(r.kv_fragmentation_bytes()));
  m.insert(QStringLiteral("kv_used_bytes_per_layer"), u64(r.kv_used_bytes_per_layer()));
  m.insert(QStringLiteral("kv_allocated_bytes_per_layer"), u64(r.kv_allocated_bytes_per_layer()));
  m.insert(QStringLiteral("total_bytes"), u64(r.total_bytes()));
  m.insert(QStringLiteral("n_past"), n_past);
  m.insert(QStringLiteral("n_ctx"), n_ctx);

  // KV bytes = 2 (K and V) x layers x tokens x kv_heads x head_dim x bytes/element.
  const auto [num, den] = bytes_per_element(r.kv_type);
  QVariantMap f;
  f.insert(QStringLiteral("kv"), 2);
  f.insert(QStringLiteral("layers"), n_layers);
  f.insert(QStringLiteral("tokens"), r.kv_tokens);
  f.insert(QStringLiteral("kv_heads"), n_kv_heads);
  f.insert(QStringLiteral("head_dim"), head_dim);
  f.insert(QStringLiteral("bytes_per_element_num"), u64(num));
  f.insert(QStringLiteral("bytes_per_element_den"), u64(den));
  f.insert(QStringLiteral("bytes"),
           u64(r.kv_bytes_without_window()));  // = kv_used_bytes without windows
  const QString per_element =
      den == 1 ? QString::number(num) : QStringLiteral("%1/%2").arg(num).arg(den);
  f.insert(
      QStringLiteral("text"),
      QStringLiteral("2 × %1 layers × %2 tokens × %3 KV heads × %4 head dim × %5 bytes = %6 bytes")
          .arg(n_layers)
          .arg(r.kv_tokens)
          .arg(n_kv_heads)
          .arg(head_dim)
          .arg(per_element)
          .arg(static_cast<qulonglong>(r.kv_bytes_without_window())));
  m.insert(QStringLiteral("formula"), f);
  m.insert(QStringLiteral("ram_tier"),
           QVariantMap{{QStringLiteral("budget_bytes"), u64(ram_tier.budget_bytes)},
                       {QStringLiteral("used_bytes"), u64(ram_tier.used_bytes)},
                       {QStringLiteral("shared_live_bytes"), u64(ram_tier.shared_live_bytes)},
                       {QStringLiteral("conversations"), ram_tier.conversations},
                       {QStringLiteral("branches"), ram_tier.branches},
                       {QStringLiteral("summaries"), ram_tier.summaries},
                       {QStringLiteral("server_sessions"), ram_tier.server_sessions},
                       {QStringLiteral("evictions"), u64(ram_tier.evictions)}});
  QVariantList ids;
  for (qint64 id : ram_conversations) ids << id;
  m.insert(QStringLiteral("ram_conversations"), ids);
  return m;
}

QVariantMap ReplyStats::to_map() const {
  QVariantMap m{{QStringLiteral("prompt_tokens"), prompt_tokens},
                {QStringLiteral("evaluated_tokens"), evaluated_tokens},
                {QStringLiteral("reused_tokens"), reused_tokens},
                {QStringLiteral("generated_tokens"), generated_tokens},
                {QStringLiteral("ttft_ms"), ttft_ms},
                {QStringLiteral("tokens_per_second"), tokens_per_second},
                {QStringLiteral("prefill_tokens_per_second"), prefill_tokens_per_second},
                {QStringLiteral("decode_seconds"), decode_seconds},
                {QStringLiteral("stop_reason"), stop_reason},
                {QStringLiteral("seed"), seed},
                {QStringLiteral("text"), text},
                {QStringLiteral("n_past"), n_past},
                {QStringLiteral("chat_format"), chat_format},
                {QStringLiteral("released_tokens"), released_tokens},
                {QStringLiteral("released_kv_bytes"), released_kv_bytes}};
  if (thinking_opened_by_prompt) m.insert(QStringLiteral("thinking_opened_by_prompt"), true);
  if (thinking) {
    m.insert(QStringLiteral("thinking_tokens"), thinking_tokens);
    m.insert(QStringLiteral("thinking_seconds"), thinking_seconds);
    m.insert(QStringLiteral("thinking_kv_bytes"), thinking_kv_bytes);
    m.insert(QStringLiteral("thinking_closed"), thinking_closed);
  }
  return m;
}

QVariantMap SnapshotDiskUsage::to_map() const {
  QVariantMap m{{QStringLiteral("total_bytes"), total_bytes},
                {QStringLiteral("file_bytes"), file_bytes}};
  if (evicted >= 0) m.insert(QStringLiteral("evicted"), evicted);
  if (saved) {
    m.insert(QStringLiteral("last_written_bytes"), last_written_bytes);
    m.insert(QStringLiteral("last_tokens_written"), last_tokens_written);
    m.insert(QStringLiteral("last_rewritten"), last_rewritten);
    m.insert(QStringLiteral("last_why_rewritten"), last_why_rewritten);
  }
  return m;
}

QVariantMap ConversationSummaryStats::to_map() const {
  return {{QStringLiteral("tokens_evaluated"), tokens_evaluated},
          {QStringLiteral("tokens_generated"), tokens_generated},
          {QStringLiteral("document_tokens"), document_tokens},
          {QStringLiteral("chunks"), chunks}};
}

void register_worker_values() {
  static std::once_flag once;
  std::call_once(once, [] {
    qRegisterMetaType<ChatTurns>();
    qRegisterMetaType<ModelFacts>();
    qRegisterMetaType<ModelLoadRequest>();
    qRegisterMetaType<ReplySampling>();
    qRegisterMetaType<ChatFormatInfo>();
    qRegisterMetaType<LoadedModel>();
    qRegisterMetaType<MemoryFigures>();
    qRegisterMetaType<ReplyStats>();
    qRegisterMetaType<SnapshotDiskUsage>();
    qRegisterMetaType<ConversationSummaryStats>();
  });
}

}  // namespace kvchat::app
