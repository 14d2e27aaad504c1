// DocumentController's preview (see document_controller.h): what the document costs sent
// whole and summarized. The summary's chunks are counted by document_summary_plan, the
// function the job plans with, on a pool thread; the preview says "Counting chunks…" meanwhile.
#include <QLocale>
#include <QtConcurrent>
#include <algorithm>

#include "documents/document_controller.h"
#include "documents/summary_job.h"
#include "documents/summary_preview.h"
#include "engine/engine_worker.h"
#include "memory/memory_state.h"
#include "util/byte_size.h"
#include "kvchat/model.h"
#include "kvchat/summarize.h"
#include "util/engine_text.h"

namespace kvchat::app {

namespace {

// Room kept for the reply when a document is sent whole.
constexpr qint64 kReplyRoomTokens = 64;

// Why "Send whole" is not offered ("" when it is): the tokens it needs against the
// context's, else its KV cache against the free memory.
QString send_whole_why_not(const QVariantMap& p, qint64 needed, int n_ctx) {
  const QLocale locale;
  if (n_ctx <= 0 || needed > n_ctx)
    return DocumentController::tr(
               "Sent whole it needs %1 tokens with this conversation; the context holds %2. "
               "Summarize it instead.")
        .arg(locale.toString(needed), locale.toString(n_ctx));
  if (!p.value(QStringLiteral("fits_memory")).toBool())
    return DocumentController::tr(
               "Its KV cache (%1) needs more than the free memory (%2). Summarize it instead.")
        .arg(util::format_bytes(p.value(QStringLiteral("kv_bytes")).toDouble()),
             util::format_bytes(p.value(QStringLiteral("free_bytes")).toDouble()));
  return {};
}

}  // namespace

void DocumentController::rebuild_preview() {
  if (document_.isEmpty()) return;
  preview_inputs_ = preview_key();
  const auto model = worker_.shared_model();
  const QVariantMap m = chat_.memory_state()->memory();
  QVariantMap p = document_;
  const qint64 tokens = document_.value(QStringLiteral("n_tokens")).toLongLong();
  const bool counted =
      model && document_.value(QStringLiteral("tokens_model")).toString() == model_identity(*model);
  const qint64 bpt = m.value(QStringLiteral("kv_bytes_per_token")).toLongLong();
  const int n_ctx = m.value(QStringLiteral("n_ctx")).toInt();
  const QString kv_type = m.value(QStringLiteral("kv_type")).toString();
  const qint64 device_free = m.value(QStringLiteral("device_free_bytes")).toLongLong();
  const qint64 free = device_free > 0
                          ? device_free
                          : m.value(QStringLiteral("system_available_bytes")).toLongLong();
  const qint64 kv_bytes = tokens * bpt;
  p.insert(QStringLiteral("counted"), counted);
  p.insert(QStringLiteral("kv_type"), kv_type);
  p.insert(QStringLiteral("kv_bytes_per_token"), bpt);
  p.insert(QStringLiteral("kv_bytes"), kv_bytes);
  p.insert(QStringLiteral("n_ctx"), n_ctx);
  p.insert(QStringLiteral("free_bytes"), free);
  p.insert(QStringLiteral("free_is_device"), device_free > 0);
  p.insert(QStringLiteral("fits_memory"), free <= 0 || kv_bytes <= free);
  // Summarize asks first with a model that continues text rather than following it.
  const QString warning = summary_warning();
  p.insert(QStringLiteral("summary_warning"), warning);
  p.insert(QStringLiteral("summary_confirm"),
           !warning.isEmpty() && summary_confirm_document_ != 0 &&
               summary_confirm_document_ == document_.value(QStringLiteral("id")).toLongLong());

  if (!counted) {
    p.insert(QStringLiteral("fits_context"), false);
    p.insert(QStringLiteral("can_send_whole"), false);
    p.insert(QStringLiteral("can_summarize"), false);
    p.insert(QStringLiteral("plan_text"),
             model ? tr("Counting tokens…") : tr("Load a model to count the tokens."));
    p.insert(QStringLiteral("send_whole_why_not"), p.value(QStringLiteral("plan_text")));
  } else if (preview_whole(p, tokens, n_ctx)) {
    preview_summary(p, *model, n_ctx, kv_type, bpt);
  }
  preview_ = p;
  emit previewChanged();
}

bool DocumentController::preview_whole(QVariantMap& p, qint64 tokens, int n_ctx) {
  // Sent whole: the conversation as the model sees it, the document as a new user turn,
  // and room for a reply. Its tokens are counted on the engine thread (with the chat's
  // own token checkpoints); until they arrive the preview says it is counting.
  const QString key = conversation_key();
  if (conversation_tokens_key_ != key) {
    if (conversation_tokens_asked_ != key) {
      conversation_tokens_asked_ = key;
      ChatTurns history = chat_turns(chat_.message_items());
      history.push_back({QStringLiteral("user"), QString()});
      QMetaObject::invokeMethod(
          &worker_,
          [w = &worker_, history, prompt = chat_.system_prompt(), key] {
            w->countConversationTokens(history, prompt, key);
          },
          Qt::QueuedConnection);
    }
    p.insert(QStringLiteral("counted"), false);
    p.insert(QStringLiteral("fits_context"), false);
    p.insert(QStringLiteral("can_send_whole"), false);
    p.insert(QStringLiteral("can_summarize"), false);
    p.insert(QStringLiteral("plan_text"), tr("Counting tokens…"));
    p.insert(QStringLiteral("send_whole_why_not"), tr("Counting tokens…"));
    return false;
  }
  if (conversation_tokens_ < 0) {
    // A template that refuses this conversation: the document alone is counted.
    p.insert(QStringLiteral("conversation_tokens_error"), conversation_tokens_error_);
  }
  const qint64 conversation_tokens = std::max<qint64>(conversation_tokens_, 0);
  const qint64 needed = conversation_tokens + tokens + kReplyRoomTokens;
  const bool fits_context = n_ctx > 0 && needed <= n_ctx;
  p.insert(QStringLiteral("conversation_tokens"), conversation_tokens);
  p.insert(QStringLiteral("context_needed"), needed);
  p.insert(QStringLiteral("fits_context"), fits_context);
  const bool fits_memory = p.value(QStringLiteral("fits_memory")).toBool();
  p.insert(QStringLiteral("can_send_whole"), fits_context && fits_memory);
  p.insert(QStringLiteral("send_whole_why_not"), send_whole_why_not(p, needed, n_ctx));
  return true;
}

void DocumentController::preview_summary(QVariantMap& p, const Model& model, int n_ctx,
                                         const QString& kv_type, qint64 bpt) {
  // Summarized: the engine's plan, timed at the last reply's measured speeds.
  const int32_t overhead = worker_.summary_prompt_overhead();
  SummarizeOptions options = summarize_options_for(overhead, n_ctx);
  const QVariantMap st = chat_.last_reply_stats();
  options.prefill_tokens_per_second =
      st.value(QStringLiteral("prefill_tokens_per_second")).toDouble();
  options.decode_tokens_per_second = st.value(QStringLiteral("tokens_per_second")).toDouble();
  p.insert(QStringLiteral("prefill_tps"), options.prefill_tokens_per_second);
  p.insert(QStringLiteral("decode_tps"), options.decode_tokens_per_second);
  p.insert(QStringLiteral("options"), summarize_options_to_map(options));
  // The chunks and passes: the job's own counting pass over the stored text
  // (document_summary_plan, off this thread: a long document takes a while), then timed here
  // at the last reply's speeds with those counts.
  const QString plan_key = QStringLiteral("%1|%2|%3|%4|%5|%6")
                               .arg(document_.value(QStringLiteral("id")).toLongLong())
                               .arg(model_identity(model))
                               .arg(n_ctx)
                               .arg(kv_type)
                               .arg(bpt)
                               .arg(options.summary_tokens);
  if (measured_plan_key_ != plan_key) {
    if (plan_asked_key_ != plan_key) count_plan(plan_key, n_ctx, kv_type, bpt, options);
    p.insert(QStringLiteral("plan_text"), tr("Counting chunks…"));
    p.insert(QStringLiteral("can_summarize"), false);
    return;
  }
  Result<SummaryPlan> plan = Error{measured_plan_error_.toStdString()};
  if (measured_plan_) {
    plan = plan_summary(measured_plan_->document_tokens, n_ctx, kv_type.toStdString(),
                        static_cast<uint64_t>(bpt), measured_plan_->prompt_overhead_tokens, options,
                        options.prefill_tokens_per_second, options.decode_tokens_per_second,
                        measured_plan_->n_chunks);
  }
  if (plan) {
    p.insert(QStringLiteral("plan"), plan_to_map(*plan));
    p.insert(QStringLiteral("plan_text"), plan_text(*plan));
    p.insert(QStringLiteral("can_summarize"), true);
  } else {
    p.insert(QStringLiteral("plan_text"), tr("Cannot summarize: %1").arg(qstr(plan.message())));
    p.insert(QStringLiteral("can_summarize"), false);
  }
}

void DocumentController::count_plan(const QString& key, int32_t n_ctx, const QString& kv_type,
                                    qint64 bpt, const SummarizeOptions& options) {
  plan_asked_key_ = key;
  const auto model = worker_.shared_model();
  const qint64 id = document_.value(QStringLiteral("id")).toLongLong();
  const QString name = document_.value(QStringLiteral("name")).toString();
  const QString db = database_path_;
  auto* watcher = new QFutureWatcher<Result<SummaryPlan>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, key] {
    watcher->deleteLater();
    if (plan_asked_key_ != key) return;  // superseded
    const Result<SummaryPlan> r = watcher->result();
    measured_plan_key_ = key;
    measured_plan_.reset();
    measured_plan_error_.clear();
    if (r)
      measured_plan_ = *r;
    else
      measured_plan_error_ = qstr(r.message());
    rebuild_preview();
  });
  watcher->setFuture(QtConcurrent::run(
      [model, id, name, db, n_ctx, kv_type, bpt, options]() -> Result<SummaryPlan> {
        QString error;
        auto store = DocumentStore::open(db, &error);
        if (!store) return Error{error.toStdString()};
        return document_summary_plan(model->tokenizer(), store->document_text(id), name, n_ctx,
                                     kv_type.toStdString(), static_cast<uint64_t>(bpt), options);
      }));
}

}  // namespace kvchat::app
