// A summary job as the app runs it: Conversation::summarize_document on a Session of its own
// (same model and options as the chat's, so the conversation's KV cache is untouched),
// with every partial summary written to SQLite (its own transaction) as it arrives, so a
// cancelled or crashed job resumes where it stopped. Runs on the summary thread
// (SummaryWorker, on a thread of its own), which opens its own database connection for it.
#pragma once

#include <QString>
#include <QVariantMap>
#include <functional>
#include <memory>

#include "kvchat/session.h"
#include "kvchat/summarize.h"
#include "store/document_store.h"

namespace kvchat::app {

// The options the app summarizes with: the engine's defaults, greedy sampling (a resumed
// job continues what an uninterrupted one would have written).
SummarizeOptions default_summarize_options();
// default_summarize_options() with summaries short enough for a small context (`overhead`:
// summary_prompt_overhead for the model and those instructions): about a
// quarter of what a step leaves for text, so a merge takes at least three of them
// (16 to 96 tokens; 96, the engine's default, from a context of about 460 tokens up).
SummarizeOptions summarize_options_for(int32_t overhead, int32_t n_ctx);
QVariantMap summarize_options_to_map(const SummarizeOptions& o);
SummarizeOptions summarize_options_from_map(const QVariantMap& m);
QVariantMap plan_to_map(const SummaryPlan& plan);
// The plan in the window's words, counts grouped as everywhere in it ("3,887 tokens"):
// SummaryPlan::describe()'s sentence, translated.
QString plan_text(const SummaryPlan& plan);
QVariantMap progress_to_map(const SummaryProgress& p);
StoredPartial stored_partial(const PartialSummary& p);
PartialSummary engine_partial(const StoredPartial& p);
QVariantMap partial_to_map(const StoredPartial& p);

struct SummaryJobHooks {
  std::function<void(const SummaryPlan&)> plan;  // measured, after it is stored
  // With the job's session (its memory report: the panel shows both sessions' KV).
  std::function<void(const SummaryProgress&, const Session&)> progress;
  std::function<void(const StoredPartial&)> partial;  // after it is stored
  std::function<bool()> cancelled;
};

struct SummaryJobOutcome {
  JobStatus status = JobStatus::Failed;  // Done, Cancelled or Failed
  QString request;                       // Done: the user's message of the exchange
  QString summary;                       // Done: the final summary (the reply)
  QString error;                         // Failed: why
  int partials = 0;                      // stored for the job, resumed ones included
  int resumed = 0;                       // partials that were there before this run
  int levels = 0;                        // merge levels of the plan
  qint64 tokens_evaluated = 0;           // this run
  qint64 peak_kv_bytes = 0;              // the job session's peak KV use
  double seconds = 0;                    // this run
};

// Runs (or resumes) job `job_id` of the database at `db_path`: the document's stored
// text, the job's options, and the partials already stored as `done`. The job's status
// is written at the end (done + final summary, cancelled, failed + error). Blocking.
SummaryJobOutcome run_summary_job(const QString& db_path, qint64 job_id,
                                  std::shared_ptr<const Model> model,
                                  const SessionOptions& session_options,
                                  const SummaryJobHooks& hooks);
// A job that failed before (or outside) run_summary_job: status Failed and why.
SummaryJobOutcome failed_outcome(const QString& error);

}  // namespace kvchat::app
