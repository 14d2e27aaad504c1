// EngineWorker: the engine on its own thread. Every slot runs on the worker thread;
// every result leaves as a signal (queued to GUI-thread receivers). No exception
// escapes a slot: engine calls report through Result/Status, and anything thrown
// (allocation failure) becomes a failure signal.
//
#include "engine/engine_worker.h"

#include "documents/summary_job.h"
#include "engine/sampling_settings.h"

#include <QFileInfo>

#include <algorithm>
#include <chrono>
#include <exception>
#include <numeric>
#include <string>
#include <vector>

#include "kvchat/chat_template.h"
#include "kvchat/generate.h"
#include "kvchat/kv_types.h"
#include "kvchat/memory_report.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "kvchat/snapshot_store.h"

namespace kvchat::app {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

QString qstr(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QVariant u64(uint64_t v) {
  return QVariant::fromValue(static_cast<qulonglong>(v));
}

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

QVariantMap memory_map(const Session& session) {
  const MemoryReport r = session.memory_report();
  const ModelInfo& info = session.model().info();
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
  m.insert(QStringLiteral("kv_fragmentation_bytes"), u64(r.kv_fragmentation_bytes()));
  m.insert(QStringLiteral("kv_used_bytes_per_layer"), u64(r.kv_used_bytes_per_layer()));
  m.insert(QStringLiteral("kv_allocated_bytes_per_layer"), u64(r.kv_allocated_bytes_per_layer()));
  m.insert(QStringLiteral("total_bytes"), u64(r.total_bytes()));
  m.insert(QStringLiteral("n_past"), session.n_past());
  m.insert(QStringLiteral("n_ctx"), session.n_ctx());

  // KV bytes = 2 (K and V) x layers x tokens x kv_heads x head_dim x bytes/element.
  const auto [num, den] = bytes_per_element(r.kv_type);
  QVariantMap f;
  f.insert(QStringLiteral("kv"), 2);
  f.insert(QStringLiteral("layers"), info.n_layers);
  f.insert(QStringLiteral("tokens"), r.kv_tokens);
  f.insert(QStringLiteral("kv_heads"), info.n_kv_heads);
  f.insert(QStringLiteral("head_dim"), info.head_dim);
  f.insert(QStringLiteral("bytes_per_element_num"), u64(num));
  f.insert(QStringLiteral("bytes_per_element_den"), u64(den));
  f.insert(QStringLiteral("bytes"), u64(r.kv_bytes_without_window()));  // = kv_used_bytes without windows
  const QString per_element =
      den == 1 ? QString::number(num) : QStringLiteral("%1/%2").arg(num).arg(den);
  f.insert(
      QStringLiteral("text"),
      QStringLiteral("2 × %1 layers × %2 tokens × %3 KV heads × %4 head dim × %5 bytes = %6 bytes")
          .arg(info.n_layers)
          .arg(r.kv_tokens)
          .arg(info.n_kv_heads)
          .arg(info.head_dim)
          .arg(per_element)
          .arg(static_cast<qulonglong>(r.kv_bytes_without_window())));
  m.insert(QStringLiteral("formula"), f);
  return m;
}

QVariantMap model_map(const ModelInfo& info, const Session& session) {
  QVariantMap m;
  m.insert(QStringLiteral("path"), qstr(info.path));
  m.insert(QStringLiteral("name"), qstr(info.name));
  m.insert(QStringLiteral("architecture"), qstr(info.architecture));
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
  m.insert(QStringLiteral("tokenizer_model"), qstr(info.tokenizer_model));
  m.insert(QStringLiteral("chat_template"), qstr(info.chat_template));
  // A hex string: a 64-bit value does not survive a JavaScript number.
  m.insert(
      QStringLiteral("identity"),
      QStringLiteral("%1").arg(static_cast<qulonglong>(info.identity), 16, 16, QLatin1Char('0')));
  m.insert(QStringLiteral("is_demo"), info.name == "kjv-demo");
  m.insert(QStringLiteral("backend"), qstr(session.backend_name()));
  m.insert(QStringLiteral("n_ctx"), session.n_ctx());
  m.insert(QStringLiteral("kv_type"), qstr(session.options().kv_type));
  m.insert(QStringLiteral("context_policy"),
           qstr(context_policy_name(session.options().context_policy)));
  return m;
}

Result<SessionOptions> session_options(const QVariantMap& settings) {
  SessionOptions o;
  o.backend =
      settings.value(QStringLiteral("backend"), QStringLiteral("auto")).toString().toStdString();
  o.n_threads = settings.value(QStringLiteral("threads"), 0).toInt();
  o.n_ctx = settings.value(QStringLiteral("ctx"), 0).toInt();
  const QString kv_type = settings.value(QStringLiteral("kv_type")).toString();
  if (!kv_type.isEmpty()) o.kv_type = kv_type.toStdString();
  if (settings.contains(QStringLiteral("kv_budget_bytes"))) {
    o.kv_budget_bytes = settings.value(QStringLiteral("kv_budget_bytes")).toULongLong();
  }
  if (settings.contains(QStringLiteral("kv_block_tokens"))) {
    o.kv_block_tokens = settings.value(QStringLiteral("kv_block_tokens")).toInt();
  }
  if (settings.contains(QStringLiteral("no_kv_cache"))) {
    o.no_kv_cache = settings.value(QStringLiteral("no_kv_cache")).toBool();
  }
  if (settings.contains(QStringLiteral("context_warn_fraction"))) {
    o.context_warn_fraction = settings.value(QStringLiteral("context_warn_fraction")).toFloat();
  }
  const QString policy = settings.value(QStringLiteral("context_policy")).toString();
  if (!policy.isEmpty()) {
    auto p = parse_context_policy(policy.toStdString());
    if (!p) return p.error();
    o.context_policy = *p;
  }
  return o;
}

GenerateOptions generate_options(const QVariantMap& s, const ChatFormat& format) {
  GenerateOptions o;
  o.sampling = sampling_params(s);
  o.max_tokens = s.value(QStringLiteral("max_tokens"), 256).toInt();
  o.stop_strings = format.stop_strings();
  return o;
}

QString format_source_name(ChatFormatSource source) {
  switch (source) {
    case ChatFormatSource::File:
      return QStringLiteral("file");
    case ChatFormatSource::Override:
      return QStringLiteral("override");
    case ChatFormatSource::BuiltIn:
      break;
  }
  return QStringLiteral("builtin");
}

// What the window shows of a chat format (merged into the model info).
QVariantMap format_map(const ChatFormat& f, const QString& override_text) {
  return {{QStringLiteral("chat_format_description"), qstr(f.description())},
          {QStringLiteral("chat_format_source"), format_source_name(f.source())},
          {QStringLiteral("chat_format_kind"), qstr(chat_template_name(f.kind()))},
          {QStringLiteral("chat_template_override"), override_text}};
}

}  // namespace

EngineWorker::EngineWorker(QObject* parent) : QObject(parent) {}

EngineWorker::~EngineWorker() = default;

void EngineWorker::loadModel(const QString& path, const QVariantMap& settings) {
  try {
    auto options = session_options(settings);
    if (!options) {
      emit modelLoadFailed(qstr(options.message()));
      return;
    }
    auto model = Model::load(path.toStdString());
    if (!model) {
      emit modelLoadFailed(qstr(model.message()));
      return;
    }
    std::shared_ptr<const Model> loaded = std::move(model).value();
    const QString override_text =
        settings.value(QStringLiteral("chat_template_override")).toString();
    auto format = ChatFormat::for_model(*loaded, override_text.toStdString());
    if (!format) {
      // A broken override must not lock the user out of the model: the file's own
      // format is used and the reason shown.
      emit chatFormatFailed(qstr(format.message()));
      format = ChatFormat::for_model(*loaded);
      if (!format) {
        emit modelLoadFailed(qstr(format.message()));
        return;
      }
    }
    // Read the weights in now, with progress and a way out, rather than on the first
    // token (the mapping itself is instant; the pages come from disk as they are used).
    auto prefetched = loaded->prefetch([this](double fraction) {
      emit loadProgress(fraction);
      return !cancel_load_.load();
    });
    cancel_load_.store(false);
    if (!prefetched) {
      emit modelLoadFailed(qstr(prefetched.message()));
      return;
    }

    auto session = Session::create(loaded, *options);
    if (session && !(*session)->backend_note().empty()) {
      emit sessionEvent(QStringLiteral("backend"), qstr((*session)->backend_note()));
    }
    if (!session) {
      emit modelLoadFailed(qstr(session.message()));
      return;
    }
    std::unique_ptr<Session> s = std::move(session).value();
    s->set_event_handler([this](const SessionEvent& e) {
      emit sessionEvent(qstr(session_event_name(e.kind)), qstr(e.message));
    });

    // Only now is the previous model replaced: a failure above leaves it usable.
    session_ = std::move(s);
    {
      const std::lock_guard<std::mutex> lock(model_mutex_);
      model_ = std::move(loaded);
      format_ = std::move(format).value();
    }
    forget_texts();
    settings_ = settings;
    QVariantMap info = model_map(model_->info(), *session_);
    info.insert(format_map(*format_, override_text));
    emit modelLoaded(info);
    emit memoryReport(memory_map(*session_));
  } catch (const std::exception& e) {
    emit modelLoadFailed(QStringLiteral("Loading the model failed: %1").arg(qstr(e.what())));
  } catch (...) {
    emit modelLoadFailed(QStringLiteral("Loading the model failed"));
  }
}

void EngineWorker::generate(const QVariantList& messages, const QString& system_prompt,
                            const QVariantMap& sampling) {
  stop_.store(false);
  if (!session_ || !model_) {
    emit replyFailed(QStringLiteral("No model is loaded."));
    return;
  }
  try {
    const Clock::time_point t0 = Clock::now();
    emit replyStarted();
    const Tokenizer& tok = model_->tokenizer();
    const ChatFormat& format = *format_;

    std::vector<ChatMessage> chat;
    chat.reserve(static_cast<size_t>(messages.size()));
    for (const QVariant& v : messages) {
      const QVariantMap m = v.toMap();
      chat.push_back(ChatMessage{m.value(QStringLiteral("role")).toString().toStdString(),
                                 m.value(QStringLiteral("content")).toString().toStdString()});
    }
    const std::string system = system_prompt.toStdString();
    auto rendered = format.render(system, chat);
    if (!rendered) {
      emit replyFailed(qstr(rendered.message()));
      return;
    }
    const std::string text = std::move(rendered).value();
    // Continuing or regenerating in the same conversation: keep the exact tokens already
    // evaluated (a reply as sampled, which re-tokenizing its text need not reproduce)
    // and tokenize only what was appended; otherwise tokenize the whole conversation.
    std::vector<TokenId> ids;
    const Checkpoint* base = nullptr;
    for (const Checkpoint& c : checkpoints_) {
      if (text.size() >= c.text.size() && text.compare(0, c.text.size(), c.text) == 0 &&
          (!base || c.text.size() > base->text.size())) {
        base = &c;
      }
    }
    if (base) {
      ids = base->ids;
      const std::vector<TokenId> more =
          tok.encode_continuation(std::string_view(text).substr(base->text.size()));
      ids.insert(ids.end(), more.begin(), more.end());
    } else {
      ids = format.tokenize(text);
    }
    add_checkpoint(text, ids);
    if (ids.empty()) {
      emit replyFailed(QStringLiteral("Nothing to continue from: the conversation is empty."));
      return;
    }

    // Prefix reuse: the session keeps what it holds up to the first differing token and
    // evaluates the rest, marked as a new turn (drop-oldest drops whole turns).
    const Clock::time_point eval_start = Clock::now();
    auto evaluated_or = session_->eval_sequence(ids, /*starts_turn=*/true);
    const double eval_seconds = ms_between(eval_start, Clock::now()) / 1000.0;
    if (!evaluated_or) {
      emit memoryReport(memory_map(*session_));
      emit replyFailed(qstr(evaluated_or.message()));
      return;
    }
    const int32_t evaluated = *evaluated_or;
    // The system prompt's tokens (what every rendering shares with the system-only
    // one) are never dropped or shifted out by the context policies.
    // (A template that cannot render a system turn alone keeps nothing.)
    const Result<std::string> system_text =
        system.empty() ? Result<std::string>(std::string()) : format.render(system, {});
    if (!system.empty() && system_text) {
      const std::vector<TokenId> sys_ids = format.tokenize(*system_text);
      const auto shared =
          std::mismatch(sys_ids.begin(), sys_ids.end(), ids.begin(), ids.end()).first -
          sys_ids.begin();
      session_->set_keep(std::min(static_cast<int32_t>(shared), session_->n_past()));
    } else {
      session_->set_keep(0);
    }
    emit memoryReport(memory_map(*session_));

    const GenerateOptions options = generate_options(sampling, format);
    double ttft_ms = -1;
    auto on_text = [&](std::string_view piece) {
      if (ttft_ms < 0) ttft_ms = ms_between(t0, Clock::now());
      emit replyChunk(qstr(piece));
      emit memoryReport(memory_map(*session_));
      return !stop_.load();
    };

    GenerateResult result;
    if (stop_.load()) {
      result.stop_reason = StopReason::Cancelled;
    } else {
      auto r = kvchat::generate(*session_, {}, options, on_text);
      if (!r) {
        emit memoryReport(memory_map(*session_));
        emit replyFailed(qstr(r.message()));
        return;
      }
      result = std::move(r).value();
    }
    std::string held_text = text;
    for (size_t i = ids.size(); i < session_->tokens().size(); ++i) {
      held_text += tok.token_bytes(session_->tokens()[i]);
    }
    add_checkpoint(std::move(held_text), session_->tokens());
    emit memoryReport(memory_map(*session_));

    QVariantMap stats;
    stats.insert(QStringLiteral("prompt_tokens"), static_cast<int>(ids.size()));
    stats.insert(QStringLiteral("evaluated_tokens"), evaluated);
    stats.insert(QStringLiteral("reused_tokens"), static_cast<int>(ids.size()) - evaluated);
    stats.insert(QStringLiteral("generated_tokens"), result.stats.generated_tokens);
    stats.insert(QStringLiteral("ttft_ms"), ttft_ms < 0 ? ms_between(t0, Clock::now()) : ttft_ms);
    stats.insert(QStringLiteral("tokens_per_second"), result.stats.decode_tokens_per_second());
    // The prompt's prefill speed (what a document's cost estimate is based on).
    stats.insert(QStringLiteral("prefill_tokens_per_second"),
                 evaluated > 0 && eval_seconds > 0 ? evaluated / eval_seconds : 0.0);
    stats.insert(QStringLiteral("decode_seconds"), result.stats.decode_seconds);
    stats.insert(QStringLiteral("stop_reason"), qstr(stop_reason_name(result.stop_reason)));
    stats.insert(QStringLiteral("text"), qstr(result.text));
    stats.insert(QStringLiteral("n_past"), session_->n_past());
    stats.insert(QStringLiteral("chat_format"), qstr(format.description()));
    emit replyFinished(stats);
  } catch (const std::exception& e) {
    emit replyFailed(QStringLiteral("Generation failed: %1").arg(qstr(e.what())));
  } catch (...) {
    emit replyFailed(QStringLiteral("Generation failed"));
  }
}

void EngineWorker::saveSnapshot(const QString& path, qint64 budget_bytes) {
  if (!session_ || session_->n_past() == 0) return;
  if (auto st = session_->save_snapshot(path.toStdString()); !st) {
    emit sessionEvent(QStringLiteral("snapshot"), QStringLiteral("Saving the KV snapshot failed: %1").arg(qstr(st.message())));
    return;
  }
  emit snapshotSaved(path, QFileInfo(path).size());
  report_snapshot_disk(path, budget_bytes, true);
}

void EngineWorker::report_snapshot_disk(const QString& path, qint64 budget_bytes, bool saved) {
  const std::string dir = QFileInfo(path).absolutePath().toStdString();
  QVariantMap usage;
  if (budget_bytes > 0) {
    const std::string keep[] = {path.toStdString()};
    auto evicted = kvchat::evict_snapshots(dir, static_cast<uint64_t>(budget_bytes), keep);
    if (!evicted) {
      emit sessionEvent(QStringLiteral("snapshot"),
                        QStringLiteral("Keeping the KV snapshots within their budget failed: %1").arg(qstr(evicted.message())));
    } else {
      usage.insert(QStringLiteral("evicted"), static_cast<qint64>(evicted->evicted.size()));
    }
  }
  auto disk = kvchat::snapshot_disk_usage(dir);
  usage.insert(QStringLiteral("total_bytes"), disk ? static_cast<qint64>(disk->total_bytes) : qint64{0});
  usage.insert(QStringLiteral("file_bytes"), QFileInfo(path).size());
  if (saved) {
    const kvchat::SnapshotSaveStats& last = session_->last_snapshot_save();
    usage.insert(QStringLiteral("last_written_bytes"), static_cast<qint64>(last.bytes_written));
    usage.insert(QStringLiteral("last_tokens_written"), last.tokens_written);
    usage.insert(QStringLiteral("last_rewritten"), last.rewritten);
    usage.insert(QStringLiteral("last_why_rewritten"), qstr(last.why_rewritten));
  }
  emit snapshotDiskUsage(usage);
}

void EngineWorker::restoreSnapshot(const QString& path) {
  if (!session_) return;
  forget_texts();
  QString why;
  if (!QFileInfo::exists(path)) {
    why = QStringLiteral("no snapshot saved");
  } else if (auto st = session_->load_snapshot(path.toStdString()); !st) {
    why = qstr(st.message());
  }
  const bool restored = why.isEmpty();
  if (!restored) session_->truncate(0);
  if (restored && !session_->last_snapshot_load().ignored_tail.empty()) {
    why = QStringLiteral("%1 tokens; a damaged end of the journal was ignored: %2")
              .arg(session_->last_snapshot_load().tokens_restored)
              .arg(qstr(session_->last_snapshot_load().ignored_tail));
  }
  emit memoryReport(memory_map(*session_));  // first, so the restored numbers are shown
  emit snapshotRestored(restored, restored ? QFileInfo(path).size() : 0, why);
  report_snapshot_disk(path, 0, false);
}

void EngineWorker::forget_texts() { checkpoints_.clear(); }

void EngineWorker::add_checkpoint(std::string text, std::vector<int32_t> ids) {
  // Keep the checkpoints whose ids the new one starts with (the same conversation);
  // the others belong to a branch that was edited away.
  std::erase_if(checkpoints_, [&](const Checkpoint& c) {
    return c.text == text || c.ids.size() > ids.size() ||
           !std::equal(c.ids.begin(), c.ids.end(), ids.begin());
  });
  checkpoints_.push_back({std::move(text), std::move(ids)});
  constexpr size_t kMaxCheckpoints = 64;
  if (checkpoints_.size() > kMaxCheckpoints) checkpoints_.erase(checkpoints_.begin());
}

void EngineWorker::clearSession() {
  forget_texts();
  if (!session_) return;
  session_->truncate(0);
  emit memoryReport(memory_map(*session_));
}

std::shared_ptr<const Model> EngineWorker::shared_model() const {
  const std::lock_guard<std::mutex> lock(model_mutex_);
  return model_;
}

std::optional<ChatFormat> EngineWorker::chat_format() const {
  const std::lock_guard<std::mutex> lock(model_mutex_);
  return format_;
}

void EngineWorker::setChatTemplateOverride(const QString& override_text) {
  if (!model_) return;
  auto format = ChatFormat::for_model(*model_, override_text.toStdString());
  if (!format) {
    emit chatFormatFailed(qstr(format.message()));
    return;
  }
  {
    const std::lock_guard<std::mutex> lock(model_mutex_);
    format_ = std::move(format).value();
  }
  // The prompts of the new format share nothing with the old one's texts.
  forget_texts();
  settings_.insert(QStringLiteral("chat_template_override"), override_text);
  emit chatFormatChanged(format_map(*format_, override_text));
}

void EngineWorker::summarizeDocument(qint64 job_id, const QString& db_path) {
  try {
    SummaryJobHooks hooks;
    Clock::time_point last_progress{};
    hooks.progress = [&](const SummaryProgress& p) {
      // At most ~10 a second (the engine may report within a step).
      const Clock::time_point now = Clock::now();
      if (ms_between(last_progress, now) < 100 && p.steps_done < p.steps_total) return;
      last_progress = now;
      emit summaryProgress(job_id, progress_to_map(p));
    };
    hooks.plan = [&](const SummaryPlan& p) { emit summaryPlan(job_id, plan_to_map(p)); };
    hooks.partial = [&](const StoredPartial& p) { emit summaryPartial(job_id, partial_to_map(p)); };
    hooks.cancelled = [this] { return cancel_summary_.load(); };
    const SummaryJobOutcome outcome =
        run_summary_job(db_path, job_id, model_, session_ ? session_->options() : SessionOptions{},
                        hooks);  // without a model: the job is marked failed, saying so
    emit summaryFinished(job_id, outcome_to_map(outcome));
  } catch (const std::exception& e) {
    emit summaryFinished(
        job_id, {{QStringLiteral("status"), QStringLiteral("failed")},
                 {QStringLiteral("error"),
                  QStringLiteral("Summarizing failed: %1").arg(qstr(e.what()))}});
  } catch (...) {
    emit summaryFinished(job_id, {{QStringLiteral("status"), QStringLiteral("failed")},
                                  {QStringLiteral("error"), QStringLiteral("Summarizing failed")}});
  }
}

void EngineWorker::reportMemory() {
  try {
    if (session_) emit memoryReport(memory_map(*session_));
  } catch (...) {
    // Nothing to report: a report that cannot be built is skipped.
  }
}

}  // namespace kvchat::app
