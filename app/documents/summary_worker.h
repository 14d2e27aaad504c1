// SummaryWorker: runs summary jobs (run_summary_job) on a thread of its own, on a Session
// of its own over the chat's loaded model (the weights are shared, read-only), so the
// chat keeps replying while a document is summarized. Lives on the thread DocumentController
// moves it to; results leave as queued signals. Cancel is an atomic flag any thread sets.
#pragma once

#include <QObject>
#include <QString>
#include <atomic>
#include <memory>

#include "documents/summary_job.h"
#include "engine/worker_values.h"
#include "kvchat/session.h"

namespace kvchat {
class Model;
}

namespace kvchat::app {

class SummaryWorker : public QObject {
  Q_OBJECT
 public:
  explicit SummaryWorker(QObject* parent = nullptr);

  // Thread-safe: arm (before queueing run) and set the job's cancel flag; the job stops
  // at its next check, its partials kept.
  void reset_cancel() { cancel_.store(false); }
  void request_cancel() { cancel_.store(true); }

  // Runs (or resumes) job `job_id` of the database at `db_path` (this thread's own
  // connection) with `model` and the chat's session options. Call on the worker's thread
  // (QMetaObject::invokeMethod with a functor). Without a model the job is marked failed.
  void run(qint64 job_id, const QString& db_path, std::shared_ptr<const Model> model,
           const SessionOptions& options);

 signals:
  void summaryPlan(qint64 job_id, const SummaryPlan& plan);
  void summaryProgress(qint64 job_id, const SummaryProgress& progress);
  void summaryPartial(qint64 job_id, const StoredPartial& partial);  // stored already
  // The job session's memory with each progress report; an empty value (no session) when
  // the job ends.
  void memoryReport(qint64 job_id, const MemoryFigures& figures);
  void summaryFinished(qint64 job_id, const SummaryJobOutcome& outcome);

 private:
  std::atomic<bool> cancel_{false};
};

}  // namespace kvchat::app

Q_DECLARE_METATYPE(kvchat::SummaryPlan)
Q_DECLARE_METATYPE(kvchat::SummaryProgress)
Q_DECLARE_METATYPE(kvchat::app::StoredPartial)
Q_DECLARE_METATYPE(kvchat::app::SummaryJobOutcome)
