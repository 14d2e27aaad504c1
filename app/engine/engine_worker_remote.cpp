// EngineWorker with a model served elsewhere (kvchat/remote_client.h): loading opens the
// endpoint and checks that it serves the model; a reply streams from its
// /v1/chat/completions with the signals a local reply has. What needs local weights
// (snapshots, the RAM tier, token counts, summaries, tools) finds no conversation_ and does
// nothing, as before a first load; the window says so.
#include <QCoreApplication>
#include <chrono>
#include <functional>

#include "engine/engine_maps.h"
#include "engine/engine_worker.h"
#include "kvchat/remote_client.h"
#include "memory/ram_tier.h"
#include "remote/remote_model_path.h"
#include "util/engine_text.h"

namespace kvchat::app {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The window's words for a remote reply's format (lupdate reads the literal here).
QString endpoint_template() {
  return QCoreApplication::translate("EngineWorker", "the endpoint's own chat template");
}

// OpenAI's finish_reason as the window's stop reasons (stop_reason_name()).
QString stop_reason_of(const std::string& finish) {
  if (finish == "stop" || finish.empty()) return QStringLiteral("eos");
  return qstr(finish);  // "length", "cancelled", "tool_calls", "content_filter"
}

}  // namespace

void EngineWorker::load_remote(const ModelLoadRequest& request) {
  const auto ref = parse_remote_model_path(request.path);
  if (!ref) {
    emit modelLoadFailed(
        QCoreApplication::translate("EngineWorker", "'%1' is not a remote model's name.")
            .arg(request.path));
    return;
  }
  auto client =
      RemoteClient::open({request.remote_url.toStdString(), request.remote_key.toStdString()});
  if (!client) {
    emit modelLoadFailed(qstr(client.message()));
    return;
  }
  emit loadProgress(0.5);
  auto models = (*client)->list_models();
  if (!models) {
    emit modelLoadFailed(QStringLiteral("%1: %2").arg(request.remote_name, qstr(models.message())));
    return;
  }
  const std::string wanted = ref->model.toStdString();
  int64_t context = -1;
  for (const RemoteModel& m : *models) {
    if (m.id == wanted) context = m.context_length;
  }
  if (context < 0) {
    emit modelLoadFailed(QCoreApplication::translate("EngineWorker", "%1 no longer serves %2.")
                             .arg(request.remote_name, ref->model));
    return;
  }
  // Only now is the local model released (its weights, its session, its KV in RAM).
  conversation_.reset();
  app_ram_tier()->erase_prefix("c");
  app_ram_tier()->erase_prefix("summary/");
  {
    const std::lock_guard<std::mutex> lock(model_mutex_);
    model_.reset();
    format_.reset();
    summary_prompt_overhead_ = 0;
  }
  remote_ = std::move(*client);
  remote_model_ = wanted;
  LoadedModel loaded;
  loaded.info.path = request.path.toStdString();
  loaded.info.name = wanted;
  loaded.info.architecture = "remote";
  loaded.info.n_ctx_train = static_cast<int32_t>(context);
  // Another remote model is another identity (a conversation follows its own).
  loaded.info.identity = std::hash<std::string>{}(loaded.info.path);
  loaded.remote = true;
  loaded.remote_name = request.remote_name;
  loaded.remote_origin = qstr(remote_->origin());
  loaded.backend = QStringLiteral("remote");
  loaded.n_ctx = static_cast<int>(context);
  loaded.format.description = endpoint_template();
  loaded.format.source = QStringLiteral("remote");
  emit modelLoaded(loaded);
  emit memoryReport(MemoryFigures{});  // no local session: the panel's local figures empty
}

void EngineWorker::run_remote_reply(const ChatTurns& messages, const QString& system_prompt,
                                    const ReplySampling& sampling, bool continuing) {
  const Clock::time_point t0 = Clock::now();
  emit replyStarted();
  RemoteChatRequest request;
  request.model = remote_model_;
  request.messages = remote_messages(system_prompt.toStdString(), chat_messages(messages));
  request.sampling = sampling.params;
  request.max_tokens = sampling.max_tokens;
  request.continue_final = continuing;
  // The text as a local thinking model writes it: reasoning inside <think> markers.
  QString raw;
  bool in_thinking = false;
  double thinking_seconds = 0;
  auto emit_piece = [&](QString piece) {
    raw += piece;
    emit replyChunk(piece);
    return !stop_.load();
  };
  RemoteStreamCallbacks cb;
  cb.cancelled = [this] { return stop_.load(); };
  cb.on_thinking = [&](std::string_view t) {
    const QString piece = qstr(t);
    const bool opening = !in_thinking;
    in_thinking = true;
    return emit_piece(opening ? qstr(kStoredThinkingOpen) + piece : piece);
  };
  cb.on_text = [&](std::string_view t) {
    QString piece = qstr(t);
    if (in_thinking) {
      thinking_seconds = seconds_since(t0);
      piece.prepend(qstr(kStoredThinkingClose));
      in_thinking = false;
    }
    return emit_piece(piece);
  };
  auto got = remote_->chat(request, cb);
  if (!got) {
    emit replyFailed(qstr(got.message()));
    return;
  }
  ReplyStats stats;
  stats.prompt_tokens = static_cast<int>(std::max<int64_t>(0, got->prompt_tokens));
  stats.reused_tokens = static_cast<int>(std::max<int64_t>(0, got->cached_tokens));
  stats.evaluated_tokens = stats.prompt_tokens - stats.reused_tokens;
  stats.generated_tokens =
      static_cast<int>(got->completion_tokens >= 0 ? got->completion_tokens : got->content_events);
  stats.ttft_ms = got->first_byte_seconds * 1000;
  stats.decode_seconds = std::max(0.0, got->seconds - got->first_byte_seconds);
  stats.tokens_per_second =
      stats.decode_seconds > 0 ? stats.generated_tokens / stats.decode_seconds : 0.0;
  stats.stop_reason = stop_reason_of(got->finish_reason);
  stats.seed = static_cast<qint64>(sampling.params.seed);
  stats.text = raw;
  stats.n_past = stats.prompt_tokens + stats.generated_tokens;
  stats.chat_format = endpoint_template();
  stats.thinking = !got->reasoning.empty();
  stats.thinking_seconds = stats.thinking ? (in_thinking ? got->seconds : thinking_seconds) : 0;
  stats.thinking_closed = stats.thinking && !in_thinking;
  emit replyFinished(stats);
}

}  // namespace kvchat::app
