#include "documents/document_controller.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QUrl>
#include <algorithm>
#include <string>

#include "documents/summary_job.h"
#include "documents/summary_worker.h"
#include "engine/engine_worker.h"
#include "memory/memory_state.h"
#include "model/instruction_tuned.h"
#include "kvchat/model.h"
#include "kvchat/summarize.h"
#include "notices/notice_center.h"
#include "store/conversation_store.h"

namespace kvchat::app {

namespace {

QString job_name_status(const StoredSummaryJob& j) {
  // A job still marked running when nothing runs was cut short by a crash or a kill.
  return j.status == JobStatus::Running ? QStringLiteral("interrupted") : job_status_name(j.status);
}

}  // namespace

DocumentController::DocumentController(ConversationHost& chat, EngineWorker& worker,
                                       NoticeCenter& notices, ConversationStore* store,
                                       QString database_path, QObject* parent)
    : QObject(parent),
      chat_(chat),
      worker_(worker),
      notices_(notices),
      store_(store ? std::make_unique<DocumentStore>(*store) : nullptr),
      database_path_(std::move(database_path)),
      loader_(database_path_) {
  connect(&loader_, &DocumentLoader::progress, this,
          [this](qint64 done, qint64 total, const QString& stage) {
            load_progress_ = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0;
            load_stage_ = stage;
            emit loadingChanged();
          });
  connect(&loader_, &DocumentLoader::finished, this, &DocumentController::on_loaded);
  connect(&loader_, &DocumentLoader::failed, this, &DocumentController::on_load_failed);
  // Queued from the engine thread: the conversation's share of the preview.
  connect(&worker_, &EngineWorker::conversationTokensCounted, this,
          &DocumentController::on_conversation_tokens);
  // Summary jobs on their own thread, queued from it.
  summary_worker_ = new SummaryWorker;
  summary_worker_->moveToThread(&summary_thread_);
  connect(&summary_thread_, &QThread::finished, summary_worker_, &QObject::deleteLater);
  connect(summary_worker_, &SummaryWorker::summaryPlan, this, &DocumentController::on_job_plan);
  connect(summary_worker_, &SummaryWorker::summaryProgress, this,
          &DocumentController::on_job_progress);
  connect(summary_worker_, &SummaryWorker::summaryPartial, this,
          &DocumentController::on_job_partial);
  connect(summary_worker_, &SummaryWorker::summaryFinished, this,
          &DocumentController::on_job_finished);
  connect(summary_worker_, &SummaryWorker::memoryReport, this,
          [this](qint64, const MemoryFigures& figures) {
            job_memory_ = figures.to_map();
            emit jobMemoryChanged();
          });
  summary_thread_.start();
}

DocumentController::~DocumentController() {
  loader_.cancel();
  summary_worker_->request_cancel();  // a running job stops, its partials kept
  summary_thread_.quit();
  summary_thread_.wait();
}

void DocumentController::on_chat_memory_changed() {
  // Not token by token while a reply streams: replyFinished rebuilds it once.
  if (!preview_.isEmpty() && !chat_.generating() && preview_key() != preview_inputs_) {
    rebuild_preview();
  }
}

void DocumentController::on_reply_finished() {
  if (!preview_.isEmpty()) rebuild_preview();  // a new measured speed
}

// ---- loading ----------------------------------------------------------------------------

void DocumentController::attach(const QString& path_or_url) {
  const QUrl url(path_or_url);
  const QString path = url.isLocalFile() ? url.toLocalFile() : path_or_url;
  if (path.isEmpty()) return;
  if (!store_) {
    notices_.set_message(tr("Documents cannot be stored: %1").arg(chat_.store_error()), true);
    return;
  }
  if (chat_.model_loading()) {  // counted with the model being loaded
    pending_path_ = path;
    pending_text_.clear();
    notices_.set_message(
        tr("“%1” will be loaded when the model is ready.").arg(QFileInfo(path).fileName()), false);
    return;
  }
  start_load(path);
}

void DocumentController::attachText(const QString& text) {
  if (text.trimmed().isEmpty()) return;
  if (!store_) {
    notices_.set_message(tr("Documents cannot be stored: %1").arg(chat_.store_error()), true);
    return;
  }
  if (chat_.model_loading()) {
    pending_text_ = text;
    pending_path_.clear();
    return;
  }
  begin_loading();
  loader_.load_text(text, chat_.current_conversation(), worker_.shared_model());
  emit loadingChanged();
}

void DocumentController::start_load(const QString& path) {
  begin_loading();
  loader_.load_file(path, chat_.current_conversation(), worker_.shared_model());
  emit loadingChanged();
}

void DocumentController::begin_loading() {
  loading_conversation_ = chat_.current_conversation();
  summary_confirm_document_ = 0;
  notices_.dismissMessage();
  document_.clear();
  preview_.clear();
  emit previewChanged();
  load_progress_ = 0;
  load_stage_ = QStringLiteral("reading");
}

void DocumentController::cancelLoad() {
  pending_path_.clear();
  pending_text_.clear();
  // At once, even when the load is stuck in a read that never returns: its result, if it
  // ever comes, is dropped (on_load_failed says it was cancelled).
  loader_.abandon();
}

void DocumentController::on_loaded(const QVariantMap& document) {
  // The conversation it was attached in (a recount keeps the one it had).
  const qint64 id = document.value(QStringLiteral("id")).toLongLong();
  qint64 conversation = loading_conversation_;
  for (auto it = documents_.cbegin(); it != documents_.cend(); ++it) {
    if (it.value().value(QStringLiteral("id")).toLongLong() == id) conversation = it.key();
  }
  documents_.insert(conversation, document);
  emit loadingChanged();
  if (conversation != chat_.current_conversation()) return;  // shown when that one is open
  document_ = document;
  rebuild_preview();
}

void DocumentController::on_load_failed(const QString& message) {
  emit loadingChanged();
  if (message == QLatin1String("cancelled")) {
    notices_.set_message(tr("Loading the document was cancelled."), false);
  } else {
    // The conversation is untouched: nothing was added to it.
    notices_.set_message(message, true);
  }
}

// What the conversation's token count depends on: the model and its format, the open
// conversation, its messages and system prompt.
QString DocumentController::conversation_key() const {
  QCryptographicHash h(QCryptographicHash::Sha1);
  const auto model = worker_.shared_model();
  h.addData(model ? model_identity(*model).toUtf8() : QByteArray());
  const auto format = worker_.chat_format();
  h.addData(format ? QByteArray::fromStdString(format->description() + format->template_source())
                   : QByteArray());
  h.addData(QByteArray::number(chat_.current_conversation()));
  h.addData(chat_.system_prompt().toUtf8());
  for (const StoredMessage& m : chat_.message_items()) {
    h.addData(QByteArray::number(m.id));
    h.addData(m.role.toUtf8());
    h.addData(QByteArray::number(m.content.size()));
    h.addData(m.content.toUtf8());
  }
  return QString::fromLatin1(h.result().toHex());
}

void DocumentController::on_conversation_tokens(const QString& key, qint64 tokens,
                                                const QString& error) {
  if (key != conversation_tokens_asked_) return;  // an older question
  conversation_tokens_key_ = key;
  conversation_tokens_ = tokens;
  conversation_tokens_error_ = error;
  if (!preview_.isEmpty()) rebuild_preview();
}

void DocumentController::on_model_changed() {
  if (chat_.model_loading()) return;
  if (!pending_path_.isEmpty()) {
    const QString path = std::exchange(pending_path_, QString());
    start_load(path);
    return;
  }
  if (!pending_text_.isEmpty()) {
    attachText(std::exchange(pending_text_, QString()));
    return;
  }
  // The preview's tokens are this model's: count them again for another one.
  const auto model = worker_.shared_model();
  if (!document_.isEmpty() && model &&
      document_.value(QStringLiteral("tokens_model")).toString() != model_identity(*model)) {
    loader_.count_tokens(document_.value(QStringLiteral("id")).toLongLong(), model);
    emit loadingChanged();
    return;
  }
  if (!preview_.isEmpty()) rebuild_preview();
}

void DocumentController::dismissPreview() {
  documents_.remove(chat_.current_conversation());
  document_.clear();
  preview_.clear();
  preview_inputs_.clear();
  summary_confirm_document_ = 0;
  emit previewChanged();
}

// ---- the cost preview -------------------------------------------------------------------

// The inputs the preview depends on, besides the document: the cache's shape and fill.
QString DocumentController::preview_key() const {
  const QVariantMap m = chat_.memory_state()->memory();
  return QStringLiteral("%1/%2/%3/%4/%5")
      .arg(m.value(QStringLiteral("n_ctx")).toString(),
           m.value(QStringLiteral("kv_type")).toString(),
           m.value(QStringLiteral("kv_bytes_per_token")).toString(),
           m.value(QStringLiteral("n_past")).toString())
      .arg(chat_.current_conversation());
}

// ---- sending whole ----------------------------------------------------------------------

void DocumentController::sendWhole() {
  if (preview_.isEmpty() || !store_) return;
  if (!preview_.value(QStringLiteral("can_send_whole")).toBool()) {
    notices_.set_message(tr("“%1” does not fit the context window whole: summarize it instead.")
                             .arg(preview_.value(QStringLiteral("name")).toString()),
                         true);
    return;
  }
  if (chat_.generating()) return;
  const qint64 id = preview_.value(QStringLiteral("id")).toLongLong();
  const QString name = preview_.value(QStringLiteral("name")).toString();
  const qint64 tokens = preview_.value(QStringLiteral("n_tokens")).toLongLong();
  const QByteArray text = store_->document_text(id);
  if (text.isEmpty()) {
    notices_.set_message(tr("The stored text of “%1” cannot be read.").arg(name), true);
    return;
  }
  const QVariantMap stats{{QStringLiteral("document_id"), id},
                          {QStringLiteral("document_name"), name},
                          {QStringLiteral("document_tokens"), tokens}};
  if (!chat_.send_with_stats(QString::fromUtf8(text), stats)) return;  // it said why
  dismissPreview();
  sent_whole_ = {{QStringLiteral("name"), name}, {QStringLiteral("tokens"), tokens}};
  emit sentWholeChanged();
}

// ---- summary jobs -----------------------------------------------------------------------

void DocumentController::summarize() {
  if (preview_.isEmpty() || !store_ || summarizing_) return;
  // As shown: a new conversation (below) rebuilds the preview, counting its tokens again.
  const QVariantMap preview = preview_;
  if (!preview.value(QStringLiteral("can_summarize")).toBool()) {
    notices_.set_message(preview.value(QStringLiteral("plan_text")).toString(), true);
    return;
  }
  // A model that continues text rather than following it: the card asks first.
  const qint64 document = preview.value(QStringLiteral("id")).toLongLong();
  if (!summary_warning().isEmpty() && summary_confirm_document_ != document) {
    summary_confirm_document_ = document;
    preview_.insert(QStringLiteral("summary_confirm"), true);
    emit previewChanged();
    return;
  }
  summary_confirm_document_ = 0;
  if (!chat_.current_conversation()) chat_.newConversation();
  const qint64 conversation = chat_.current_conversation();
  QString error;
  const qint64 job =
      store_->create_job(preview.value(QStringLiteral("id")).toLongLong(), conversation,
                         preview.value(QStringLiteral("options")).toMap(),
                         preview.value(QStringLiteral("plan")).toMap(), &error);
  if (!job) {
    notices_.set_message(error, true);
    return;
  }
  const QString name = preview.value(QStringLiteral("name")).toString();
  dismissPreview();
  start_job(job, name, conversation);
}

void DocumentController::summarizeAnyway() {
  if (preview_.isEmpty()) return;
  summary_confirm_document_ = preview_.value(QStringLiteral("id")).toLongLong();
  summarize();
}

void DocumentController::cancelSummaryWarning() {
  summary_confirm_document_ = 0;
  if (preview_.isEmpty()) return;
  preview_.insert(QStringLiteral("summary_confirm"), false);
  emit previewChanged();
}

QString DocumentController::summary_warning() const {
  const auto model = worker_.shared_model();
  const auto format = worker_.chat_format();
  if (!model || !format || instruction_tuned(*model, *format)) return {};
  if (model->info().name == "kjv-demo")
    return tr(
        "The demo model was not trained to follow instructions: it continues King James "
        "verses, so its summary will not be a summary.");
  return tr(
      "This model was not trained to follow instructions (its file has no chat "
      "template): its summary may not be a summary.");
}

void DocumentController::resume() {
  if (job_.isEmpty() || job_running()) return;
  if (summarizing_) {
    notices_.set_message(tr("Another summary is being written (in “%1”): one job runs at a time. "
                            "Resume this one when it is done, or cancel that one first.")
                             .arg(running_job_.value(QStringLiteral("name")).toString()),
                         false);
    return;
  }
  const QString status = job_.value(QStringLiteral("status")).toString();
  if (status == QLatin1String("done") || status == QLatin1String("running")) return;
  if (!worker_.shared_model()) {
    notices_.set_message(
        tr("Open a model to resume this summary; the %n summaries written so far are kept.",
           nullptr, job_.value(QStringLiteral("partials")).toInt()),
        true);
    return;
  }
  start_job(job_.value(QStringLiteral("id")).toLongLong(),
            job_.value(QStringLiteral("name")).toString(),
            job_.value(QStringLiteral("conversation_id")).toLongLong());
}

void DocumentController::start_job(qint64 job_id, const QString& name, qint64 conversation_id) {
  const auto stored = store_->job(job_id);
  const QVariantMap plan = stored ? stored->plan : QVariantMap();
  const int partials = stored ? stored->partials : 0;
  running_job_ = {
      {QStringLiteral("id"), job_id},
      {QStringLiteral("name"), name},
      {QStringLiteral("conversation_id"), conversation_id},
      {QStringLiteral("status"), QStringLiteral("running")},
      {QStringLiteral("resumed"), partials},
      {QStringLiteral("partials"), partials},
      {QStringLiteral("steps_done"), partials},
      {QStringLiteral("steps_total"), plan.value(QStringLiteral("n_steps")).toInt()},
      {QStringLiteral("seconds_elapsed"), 0.0},
      {QStringLiteral("seconds_left"), 0.0},
      {QStringLiteral("stage"),
       partials > 0 ? tr("resuming after %1 summaries").arg(partials) : tr("counting chunks")},
      {QStringLiteral("plan_text"), plan.value(QStringLiteral("text"))}};
  notices_.set_message({}, false, conversation_id);  // an older notice of this conversation
  summary_worker_->reset_cancel();  // before queueing: a cancel from now on is kept
  // "Summarizing" and the job's view change together: never a running job shown with the
  // stored one's status and counts.
  if (conversation_id == chat_.current_conversation()) job_ = running_job_;
  summarizing_ = true;
  emit jobChanged();
  // The chat's model (the weights are shared) and session options, on a session of the
  // job's own.
  QMetaObject::invokeMethod(
      summary_worker_,
      [w = summary_worker_, job_id, db = database_path_, model = worker_.shared_model(),
       options = worker_.session_options()] { w->run(job_id, db, model, options); });
}

void DocumentController::cancelSummary() {
  if (!summarizing_) return;
  summary_worker_->request_cancel();
  running_job_.insert(QStringLiteral("status"), QStringLiteral("cancelling"));
  on_running_job_changed();
}

void DocumentController::on_job_plan(qint64 job_id, const SummaryPlan& plan) {
  if (running_job_.value(QStringLiteral("id")).toLongLong() != job_id) return;
  running_job_.insert(QStringLiteral("steps_total"), plan.n_steps);
  running_job_.insert(QStringLiteral("plan_text"), plan_to_map(plan).value(QStringLiteral("text")));
  on_running_job_changed();
}

void DocumentController::on_job_progress(qint64 job_id, const SummaryProgress& progress) {
  if (running_job_.value(QStringLiteral("id")).toLongLong() != job_id) return;
  running_job_.insert(progress_to_map(progress));
  on_running_job_changed();
}

void DocumentController::on_job_partial(qint64 job_id, const StoredPartial&) {
  if (running_job_.value(QStringLiteral("id")).toLongLong() != job_id) return;
  running_job_.insert(QStringLiteral("partials"),
                      running_job_.value(QStringLiteral("partials")).toInt() + 1);
  on_running_job_changed();
}

void DocumentController::on_job_finished(qint64 job_id, const SummaryJobOutcome& outcome) {
  set_summarizing(false);
  if (running_job_.value(QStringLiteral("id")).toLongLong() != job_id) return;
  const QString status = job_status_name(outcome.status);
  const QString name = running_job_.value(QStringLiteral("name")).toString();
  running_job_.insert(QStringLiteral("status"), status);
  running_job_.insert(QStringLiteral("partials"), outcome.partials);
  running_job_.insert(QStringLiteral("tokens_evaluated"), outcome.tokens_evaluated);
  running_job_.insert(QStringLiteral("seconds"), outcome.seconds);
  running_job_.insert(QStringLiteral("seconds_left"), 0.0);
  if (status == QLatin1String("done")) {
    const auto stored = store_ ? store_->job(job_id) : std::nullopt;
    const auto doc = stored && store_ ? store_->document(stored->document_id) : std::nullopt;
    const QVariantMap user_stats{{QStringLiteral("document_id"), doc ? doc->id : 0},
                                 {QStringLiteral("document_name"), name},
                                 {QStringLiteral("document_tokens"), doc ? doc->n_tokens : 0},
                                 {QStringLiteral("summary_request"), true}};
    const QVariantMap reply_stats{{QStringLiteral("summary_job_id"), job_id},
                                  {QStringLiteral("summary_partials"), outcome.partials},
                                  {QStringLiteral("summary_levels"), outcome.levels},
                                  {QStringLiteral("summary_resumed"), outcome.resumed},
                                  {QStringLiteral("tokens_evaluated"), outcome.tokens_evaluated},
                                  {QStringLiteral("peak_kv_bytes"), outcome.peak_kv_bytes},
                                  {QStringLiteral("seconds"), outcome.seconds}};
    QString error;
    const qint64 into = running_job_.value(QStringLiteral("conversation_id")).toLongLong();
    if (!chat_.append_exchange(into, outcome.request, user_stats, outcome.summary, reply_stats,
                               &error)) {
      notices_.set_message(tr("The summary is stored with its job but could not be added to the "
                              "conversation: %1")
                               .arg(error),
                           true, into);
    }
  } else if (status == QLatin1String("cancelled")) {
    running_job_.insert(QStringLiteral("stage"),
                        tr("cancelled after %1 summaries").arg(outcome.partials));
  } else {
    running_job_.insert(QStringLiteral("error"), outcome.error);
    notices_.set_message(tr("Summarizing “%1” failed: %2").arg(name, outcome.error), true,
                         running_job_.value(QStringLiteral("conversation_id")).toLongLong());
  }
  on_running_job_changed();
}

bool DocumentController::summarizing_into(qint64 conversation_id) const {
  return summarizing_ &&
         running_job_.value(QStringLiteral("conversation_id")).toLongLong() == conversation_id;
}

void DocumentController::dismissJob() {
  if (job_running() || job_.isEmpty()) return;
  if (running_job_.value(QStringLiteral("id")) == job_.value(QStringLiteral("id"))) {
    running_job_.clear();
  }
  job_.clear();
  emit jobChanged();
}

bool DocumentController::job_running() const {
  return summarizing_ && !job_.isEmpty() &&
         job_.value(QStringLiteral("id")) == running_job_.value(QStringLiteral("id"));
}

void DocumentController::on_running_job_changed() {
  const qint64 conversation = chat_.current_conversation();
  if (running_job_.isEmpty() ||
      running_job_.value(QStringLiteral("conversation_id")).toLongLong() != conversation) {
    emit runningJobChanged();
    return;
  }
  job_ = running_job_;
  emit jobChanged();
}

void DocumentController::refresh_job() {
  const qint64 conversation = chat_.current_conversation();
  job_.clear();
  if (!running_job_.isEmpty() &&
      running_job_.value(QStringLiteral("conversation_id")).toLongLong() == conversation) {
    job_ = running_job_;
  } else if (store_ && conversation) {
    for (const StoredSummaryJob& j : store_->resumable_jobs(conversation)) {
      if (summarizing_ && j.id == running_job_.value(QStringLiteral("id")).toLongLong()) continue;
      const auto doc = store_->document(j.document_id);
      job_ = {{QStringLiteral("id"), j.id},
              {QStringLiteral("name"), doc ? doc->name : QString()},
              {QStringLiteral("conversation_id"), j.conversation_id},
              {QStringLiteral("status"), job_name_status(j)},
              {QStringLiteral("partials"), j.partials},
              {QStringLiteral("steps_done"), j.partials},
              {QStringLiteral("steps_total"), j.plan.value(QStringLiteral("n_steps")).toInt()},
              {QStringLiteral("seconds_left"), 0.0},
              {QStringLiteral("error"), j.error},
              {QStringLiteral("stage"), tr("%1 of about %2 summaries written")
                                            .arg(j.partials)
                                            .arg(j.plan.value(QStringLiteral("n_steps")).toInt())},
              {QStringLiteral("plan_text"), j.plan.value(QStringLiteral("text"))}};
      break;
    }
  }
  emit jobChanged();
}

void DocumentController::on_conversation_changed() {
  refresh_job();
  // The document this conversation holds whole (its last one), for the memory panel.
  sent_whole_.clear();
  for (const StoredMessage& m : chat_.message_items()) {
    if (m.role == QLatin1String("user") && m.stats.contains(QStringLiteral("document_tokens")) &&
        !m.stats.value(QStringLiteral("summary_request")).toBool()) {
      sent_whole_ = {{QStringLiteral("name"), m.stats.value(QStringLiteral("document_name"))},
                     {QStringLiteral("tokens"), m.stats.value(QStringLiteral("document_tokens"))}};
    }
  }
  emit sentWholeChanged();
  // The preview is the open conversation's document (one attached before any conversation
  // existed goes with the first one opened).
  const qint64 conversation = chat_.current_conversation();
  if (shown_conversation_ == 0 && conversation != 0 && documents_.contains(0)) {
    documents_.insert(conversation, documents_.take(0));
  }
  shown_conversation_ = conversation;
  document_ = documents_.value(conversation);
  if (document_.isEmpty()) {
    if (!preview_.isEmpty()) {
      preview_.clear();
      preview_inputs_.clear();
      emit previewChanged();
    }
    return;
  }
  const auto model = worker_.shared_model();
  if (model &&
      document_.value(QStringLiteral("tokens_model")).toString() != model_identity(*model)) {
    loader_.count_tokens(document_.value(QStringLiteral("id")).toLongLong(), model);
    emit loadingChanged();
  }
  rebuild_preview();
}

QVariantList DocumentController::partials(qint64 job_id) const {
  QVariantList out;
  if (!store_) return out;
  for (const StoredPartial& p : store_->partials(job_id)) out.push_back(partial_to_map(p));
  return out;
}

void DocumentController::forget_conversation(qint64 conversation_id) {
  if (conversation_id == 0) return;
  documents_.remove(conversation_id);
  if (!summarizing_ &&
      running_job_.value(QStringLiteral("conversation_id")).toLongLong() == conversation_id) {
    running_job_.clear();
  }
}

void DocumentController::set_summarizing(bool on) {
  if (summarizing_ == on) return;
  summarizing_ = on;
  emit jobChanged();
}

}  // namespace kvchat::app
