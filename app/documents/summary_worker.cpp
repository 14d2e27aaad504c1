#include "documents/summary_worker.h"

#include <QCoreApplication>

#include <chrono>
#include <exception>

#include "documents/summary_job.h"
#include "engine/engine_maps.h"
#include "kvchat/model.h"

namespace kvchat::app {

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

SummaryWorker::SummaryWorker(QObject* parent) : QObject(parent) {
  register_worker_values();
  qRegisterMetaType<SummaryPlan>();
  qRegisterMetaType<SummaryProgress>();
  qRegisterMetaType<StoredPartial>();
  qRegisterMetaType<SummaryJobOutcome>();
}

void SummaryWorker::run(qint64 job_id, const QString& db_path, std::shared_ptr<const Model> model,
                        const SessionOptions& options) {
  SummaryJobOutcome outcome;
  try {
    SummaryJobHooks hooks;
    Clock::time_point last_progress{};
    hooks.progress = [&](const SummaryProgress& p, const Session& session) {
      // At most ~10 a second (the engine may report within a step).
      const Clock::time_point now = Clock::now();
      if (ms_between(last_progress, now) < 100 && p.steps_done < p.steps_total) return;
      last_progress = now;
      emit summaryProgress(job_id, p);
      emit memoryReport(job_id, memory_figures(session));
    };
    hooks.plan = [&](const SummaryPlan& p) { emit summaryPlan(job_id, p); };
    hooks.partial = [&](const StoredPartial& p) { emit summaryPartial(job_id, p); };
    hooks.cancelled = [this] { return cancel_.load(); };
    outcome = run_summary_job(db_path, job_id, std::move(model), options, hooks);
  } catch (const std::exception& e) {
    outcome = failed_outcome(QCoreApplication::translate("SummaryWorker", "Summarizing failed: %1")
                                 .arg(QString::fromUtf8(e.what())));
  } catch (...) {
    outcome = failed_outcome(
        QCoreApplication::translate("SummaryWorker", "Summarizing failed: an unknown exception"));
  }
  emit memoryReport(job_id, {});
  emit summaryFinished(job_id, outcome);
}

}  // namespace kvchat::app
