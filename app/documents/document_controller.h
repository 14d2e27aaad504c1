// DocumentController: the long-documents half of the window (chat.documents in QML).
// Attaching a file, a drop or a long paste loads it off the GUI thread (DocumentLoader)
// and shows a cost preview: tokens, the KV bytes they would occupy at the current KV
// type, whether they fit the context and the free memory, and the summary plan. From
// there the document is sent whole (a user message; its KV stays in the conversation's
// cache and snapshot) or summarized: a job on a thread of its own, on a Session of its own
// over the shared weights (SummaryWorker), so the chat keeps replying meanwhile;
// cancellable, resumable from its stored partials. The final summary lands in the
// conversation as an assistant message. It knows the chat only through ConversationHost
// (ChatController wires its signals to the slots below); its messages go to NoticeCenter.
// GUI thread only.
#pragma once

#include <QHash>
#include <QObject>
#include <QString>
#include <QThread>
#include <QVariantList>
#include <QVariantMap>
#include <memory>
#include <optional>

#include "conversations/conversation_host.h"
#include "documents/document_loader.h"
#include "documents/summary_job.h"
#include "kvchat/summarize.h"
#include "store/document_store.h"

namespace kvchat::app {

class ConversationStore;
class EngineWorker;
class NoticeCenter;
class SummaryWorker;

class DocumentController : public QObject {
  Q_OBJECT
  Q_PROPERTY(bool loading READ loading NOTIFY loadingChanged)
  Q_PROPERTY(double loadProgress READ load_progress NOTIFY loadingChanged)
  Q_PROPERTY(QString loadStage READ load_stage NOTIFY loadingChanged)
  Q_PROPERTY(QVariantMap preview READ preview NOTIFY previewChanged)
  // The open conversation's job: the one running when it writes into this conversation,
  // else this conversation's stored resumable one (empty: none). A job of another
  // conversation is not shown here; its notices wait in its own conversation.
  Q_PROPERTY(QVariantMap job READ job NOTIFY jobChanged)
  Q_PROPERTY(bool summarizing READ summarizing NOTIFY jobChanged)
  // Whether the job shown is the one running (summarizing may be true for another one).
  Q_PROPERTY(bool jobRunning READ job_running NOTIFY jobChanged)
  Q_PROPERTY(QVariantMap sentWhole READ sent_whole NOTIFY sentWholeChanged)
  // The running job's session: memory_map fields (empty when no job runs). The memory
  // panel shows it beside the chat's, and the budget both share.
  Q_PROPERTY(QVariantMap jobMemory READ job_memory NOTIFY jobMemoryChanged)

 public:
  // store may be null (the database could not be opened): every action then says so.
  // Its notices and errors are shown by `notices` (per conversation).
  DocumentController(ConversationHost& chat, EngineWorker& worker, NoticeCenter& notices,
                     ConversationStore* store, QString database_path, QObject* parent = nullptr);
  ~DocumentController() override;

  bool loading() const { return loader_.busy(); }
  double load_progress() const { return load_progress_; }
  QString load_stage() const { return load_stage_; }
  QVariantMap preview() const { return preview_; }
  QVariantMap job() const { return job_; }
  // The job started last, running or finished, in any conversation (empty: none yet).
  QVariantMap running_job() const { return running_job_; }
  bool summarizing() const { return summarizing_; }
  bool job_running() const;
  // Whether the running job writes into this conversation (it cannot be deleted then).
  bool summarizing_into(qint64 conversation_id) const;
  QVariantMap sent_whole() const { return sent_whole_; }
  QVariantMap job_memory() const { return job_memory_; }
  SummaryWorker* summary_worker() { return summary_worker_; }

  // A local path or a file:// URL (file dialog, drop, --attach). While the model loads
  // the document waits for it (its tokens are counted with that model). A document
  // attached while another loads replaces it, even one stuck in a read that never returns
  // (DocumentLoader: the old result is dropped).
  Q_INVOKABLE void attach(const QString& path_or_url);
  Q_INVOKABLE void attachText(const QString& text);  // a long paste
  // Ends the load at once ("cancelled"), stuck or not.
  Q_INVOKABLE void cancelLoad();
  Q_INVOKABLE void dismissPreview();
  // Only when the preview says it fits: the text becomes a user message, and a reply.
  Q_INVOKABLE void sendWhole();
  // With a model not trained to follow instructions (summary_warning() not empty) the first
  // call only asks (the preview's summary_confirm: the card shows the warning with
  // "Summarize anyway" and "Cancel"); a second call while it asks, or summarizeAnyway(),
  // starts the job. Otherwise it starts at once.
  Q_INVOKABLE void summarize();
  Q_INVOKABLE void summarizeAnyway();
  Q_INVOKABLE void cancelSummaryWarning();
  // Why a summary by the loaded model may not be a summary: "" for a model trained to
  // follow instructions (model/instruction_tuned.h) or without a model. In the preview as
  // summary_warning.
  QString summary_warning() const;
  Q_INVOKABLE void resume();  // the job shown, when it was cancelled, failed or interrupted
  Q_INVOKABLE void cancelSummary();
  Q_INVOKABLE void dismissJob();  // hides a finished or resumable job (it stays stored)
  // A job's partial summaries in (level, index) order: level, index, token_begin,
  // token_end, source_begin, source_end, text.
  Q_INVOKABLE QVariantList partials(qint64 job_id) const;

  // The chat's notifications (ChatController connects its signals to these).
  void on_model_changed();
  void on_conversation_changed();
  void on_chat_memory_changed();
  void on_reply_finished();
  // A conversation deleted for good: its document and job go with it.
  void forget_conversation(qint64 conversation_id);

 signals:
  void loadingChanged();
  void previewChanged();
  void jobChanged();
  void sentWholeChanged();
  void jobMemoryChanged();
  // The job running in another conversation than the open one moved on (running_job).
  void runningJobChanged();

 private:
  void begin_loading();  // clears the previous preview and message
  void start_load(const QString& path);
  void on_loaded(const QVariantMap& document);
  void on_load_failed(const QString& message);
  void rebuild_preview();  // document_preview.cpp
  // The preview's figures of the document sent whole into `p`; false (and `p` saying so)
  // while the conversation's tokens are being counted.
  bool preview_whole(QVariantMap& p, qint64 tokens, int n_ctx);
  // The preview's summary plan into `p` (or that its chunks are being counted).
  void preview_summary(QVariantMap& p, const Model& model, int n_ctx, const QString& kv_type,
                       qint64 bpt);
  // The summary plan of document_ for these figures, counted on a pool thread
  // (document_summary_plan, as the job plans): measured_plan_ once it is in.
  void count_plan(const QString& key, int32_t n_ctx, const QString& kv_type, qint64 bpt,
                  const SummarizeOptions& options);
  void on_conversation_tokens(const QString& key, qint64 tokens, const QString& error);
  QString conversation_key() const;
  void refresh_job();
  // job_ from running_job_ when that writes into the open conversation.
  void on_running_job_changed();
  void start_job(qint64 job_id, const QString& name, qint64 conversation_id);
  void on_job_plan(qint64 job_id, const SummaryPlan& plan);
  void on_job_progress(qint64 job_id, const SummaryProgress& progress);
  void on_job_partial(qint64 job_id, const StoredPartial& partial);
  void on_job_finished(qint64 job_id, const SummaryJobOutcome& outcome);
  void set_summarizing(bool on);
  QString preview_key() const;

  ConversationHost& chat_;
  EngineWorker& worker_;
  NoticeCenter& notices_;
  QThread summary_thread_;
  SummaryWorker* summary_worker_ = nullptr;  // lives on summary_thread_
  QVariantMap job_memory_;
  // The open conversation's tokens (counted on the engine thread) and what they were
  // counted for (conversation_key()); -1 while unknown.
  qint64 conversation_tokens_ = -1;
  QString conversation_tokens_key_;
  QString conversation_tokens_error_;
  QString conversation_tokens_asked_;     // the key of the count in flight
  std::unique_ptr<DocumentStore> store_;  // shares the ConversationStore's connection
  QString database_path_;
  DocumentLoader loader_;
  QString pending_path_;  // attached while the model was loading
  QString pending_text_;
  double load_progress_ = 0;
  QString load_stage_;
  QVariantMap document_;  // the loaded document (document_map) the preview is of
  // Each conversation's loaded document (the preview belongs to the conversation it was
  // attached in); 0: attached before any conversation existed (goes with the first one).
  QHash<qint64, QVariantMap> documents_;
  qint64 shown_conversation_ = 0;    // the conversation document_ / preview_ are of
  qint64 loading_conversation_ = 0;  // the conversation the load in flight was attached in
  QVariantMap preview_;
  QString preview_inputs_;     // what the preview was computed from (see preview_key)
  QString plan_asked_key_;     // the plan count in flight (or done) for these figures
  QString measured_plan_key_;  // what measured_plan_ / measured_plan_error_ are for
  std::optional<SummaryPlan> measured_plan_;
  QString measured_plan_error_;
  QVariantMap job_;          // shown (see the job property)
  QVariantMap running_job_;  // the job started last, running or finished, in any conversation
  bool summarizing_ = false;
  QVariantMap sent_whole_;
  qint64 summary_confirm_document_ = 0;  // the document whose summary warning asks (0: none)
};

}  // namespace kvchat::app
