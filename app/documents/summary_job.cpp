#include "documents/summary_job.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QLocale>
#include <cmath>
#include <algorithm>
#include <string>

#include "memory/ram_tier.h"
#include "settings/sampling_settings.h"
#include "kvchat/conversation.h"
#include "kvchat/document.h"
#include "kvchat/model.h"
#include "util/engine_text.h"

namespace kvchat::app {

SummarizeOptions default_summarize_options() {
  SummarizeOptions o;
  o.sampling.temperature = 0.0f;  // greedy (the engine's default too)
  return o;
}

SummarizeOptions summarize_options_for(int32_t overhead, int32_t n_ctx) {
  SummarizeOptions o = default_summarize_options();
  const int32_t fit = (n_ctx - overhead - o.margin_tokens - 3 * kSummarySlackTokens) / 4;
  o.summary_tokens = std::clamp(fit, 16, o.summary_tokens);
  return o;
}

QVariantMap summarize_options_to_map(const SummarizeOptions& o) {
  const SamplingParams& s = o.sampling;
  return {{QStringLiteral("instruction"), qstr(o.instruction)},
          {QStringLiteral("merge_instruction"), qstr(o.merge_instruction)},
          {QStringLiteral("summary_tokens"), o.summary_tokens},
          {QStringLiteral("margin_tokens"), o.margin_tokens},
          {QStringLiteral("prefill_tokens_per_second"), o.prefill_tokens_per_second},
          {QStringLiteral("decode_tokens_per_second"), o.decode_tokens_per_second},
          {QStringLiteral("sampling"),
           QVariantMap{{QStringLiteral("temperature"), s.temperature},
                       {QStringLiteral("top_k"), s.top_k},
                       {QStringLiteral("top_p"), s.top_p},
                       {QStringLiteral("min_p"), s.min_p},
                       {QStringLiteral("repeat_penalty"), s.repeat_penalty},
                       {QStringLiteral("repeat_last_n"), s.repeat_last_n},
                       // A string: a 64-bit seed does not survive a JSON double.
                       {QStringLiteral("seed"), QString::number(s.seed)}}}};
}

SummarizeOptions summarize_options_from_map(const QVariantMap& m) {
  SummarizeOptions o = default_summarize_options();
  if (m.contains(QStringLiteral("instruction")))
    o.instruction = m.value(QStringLiteral("instruction")).toString().toStdString();
  if (m.contains(QStringLiteral("merge_instruction")))
    o.merge_instruction = m.value(QStringLiteral("merge_instruction")).toString().toStdString();
  o.summary_tokens = m.value(QStringLiteral("summary_tokens"), o.summary_tokens).toInt();
  o.margin_tokens = m.value(QStringLiteral("margin_tokens"), o.margin_tokens).toInt();
  o.prefill_tokens_per_second =
      m.value(QStringLiteral("prefill_tokens_per_second"), 0.0).toDouble();
  o.decode_tokens_per_second = m.value(QStringLiteral("decode_tokens_per_second"), 0.0).toDouble();
  o.sampling = sampling_params(m.value(QStringLiteral("sampling")).toMap(), o.sampling);
  return o;
}

QVariantMap plan_to_map(const SummaryPlan& p) {
  return {{QStringLiteral("document_tokens"), static_cast<qint64>(p.document_tokens)},
          {QStringLiteral("n_ctx"), p.n_ctx},
          {QStringLiteral("kv_type"), qstr(p.kv_type)},
          {QStringLiteral("document_kv_bytes"), static_cast<qint64>(p.document_kv_bytes)},
          {QStringLiteral("peak_kv_bytes"), static_cast<qint64>(p.peak_kv_bytes)},
          {QStringLiteral("fits_whole"), p.fits_whole},
          {QStringLiteral("chunk_tokens"), p.chunk_tokens},
          {QStringLiteral("n_chunks"), p.n_chunks},
          {QStringLiteral("n_levels"), p.n_levels},
          {QStringLiteral("merge_fan_in"), p.merge_fan_in},
          {QStringLiteral("n_steps"), p.n_steps},
          {QStringLiteral("prompt_overhead_tokens"), p.prompt_overhead_tokens},
          {QStringLiteral("summary_tokens"), p.summary_tokens},
          {QStringLiteral("kv_bytes_per_token"), static_cast<qint64>(p.kv_bytes_per_token)},
          {QStringLiteral("tokens_to_process"), static_cast<qint64>(p.tokens_to_process)},
          {QStringLiteral("estimated_seconds"), p.estimated_seconds},
          {QStringLiteral("text"), plan_text(p)}};
}

QString plan_text(const SummaryPlan& p) {
  if (p.fits_whole) return QCoreApplication::translate("SummaryJob", "fits — sent whole");
  QLocale locale;  // grouped digits, also in the C locale
  locale.setNumberOptions(locale.numberOptions() & ~QLocale::OmitGroupSeparator);
  const auto count = [&](double n) {
    return locale.toString(static_cast<qint64>(std::llround(n)));
  };
  const double per_chunk = p.n_chunks > 0 ? static_cast<double>(p.document_tokens) / p.n_chunks : 0;
  QString text =
      (p.n_levels == 1
           ? QCoreApplication::translate(
                 "SummaryJob",
                 "%1 chunks of about %2 tokens, %3 level of merging, about %4 tokens to process")
           : QCoreApplication::translate(
                 "SummaryJob",
                 "%1 chunks of about %2 tokens, %3 levels of merging, about %4 tokens to process"))
          .arg(count(p.n_chunks), count(per_chunk), count(p.n_levels),
               count(static_cast<double>(p.tokens_to_process)));
  if (p.estimated_seconds > 0) {
    text += QCoreApplication::translate("SummaryJob", ", about %1 s at the measured speed")
                .arg(count(std::ceil(p.estimated_seconds)));
  }
  return text;
}

QVariantMap progress_to_map(const SummaryProgress& p) {
  return {{QStringLiteral("steps_done"), p.steps_done},
          {QStringLiteral("steps_total"), p.steps_total},
          {QStringLiteral("seconds_elapsed"), p.seconds_elapsed},
          {QStringLiteral("seconds_left"), p.seconds_left},
          {QStringLiteral("stage"), qstr(p.stage)}};
}

StoredPartial stored_partial(const PartialSummary& p) {
  StoredPartial s;
  s.level = p.level;
  s.index = p.index;
  s.token_begin = p.token_begin;
  s.token_end = p.token_end;
  s.source_begin = p.source_begin;
  s.source_end = p.source_end;
  s.text = qstr(p.text);
  return s;
}

PartialSummary engine_partial(const StoredPartial& s) {
  PartialSummary p;
  p.level = s.level;
  p.index = s.index;
  p.token_begin = s.token_begin;
  p.token_end = s.token_end;
  p.source_begin = s.source_begin;
  p.source_end = s.source_end;
  p.text = s.text.toStdString();
  return p;
}

QVariantMap partial_to_map(const StoredPartial& p) {
  return {{QStringLiteral("level"), p.level},
          {QStringLiteral("index"), p.index},
          {QStringLiteral("token_begin"), p.token_begin},
          {QStringLiteral("token_end"), p.token_end},
          {QStringLiteral("source_begin"), p.source_begin},
          {QStringLiteral("source_end"), p.source_end},
          {QStringLiteral("text"), p.text}};
}

SummaryJobOutcome failed_outcome(const QString& error) {
  SummaryJobOutcome o;
  o.status = JobStatus::Failed;
  o.error = error;
  return o;
}

namespace {

// A job's run: the store and job it writes to, and its outcome so far.
struct JobRun {
  DocumentStore& store;
  qint64 job_id;
  const QElapsedTimer& clock;  // started with the run
  SummaryJobOutcome& out;

  // The outcome with `status`, once written to the job's row (a failure to write it fails
  // a run that had not failed already).
  SummaryJobOutcome finish(JobStatus status) const {
    out.status = status;
    out.seconds = static_cast<double>(clock.elapsed()) / 1000.0;
    out.partials = static_cast<int>(store.partials(job_id).size());
    QString write_error;
    if (!store.set_job_status(job_id, status, out.summary, out.error, &write_error) &&
        status != JobStatus::Failed) {
      out.status = JobStatus::Failed;
      out.error = write_error;
    }
    return out;
  }
};

// The job's stored document, read; `request` is set to the user's message of the exchange
// the summary is added as. Null with run.out.error set when it is not stored or unreadable.
std::unique_ptr<DocumentReader> read_job_document(const JobRun& run, qint64 document_id,
                                                  QString* request) {
  const QByteArray text = run.store.document_text(document_id);
  const auto doc = run.store.document(document_id);
  if (!doc || text.isEmpty()) {
    run.out.error =
        QCoreApplication::translate("SummaryJob", "The job's document (%1) is not stored.")
            .arg(document_id);
    return nullptr;
  }
  auto r = DocumentReader::from_bytes(
      std::string(text.constData(), static_cast<size_t>(text.size())), doc->name.toStdString());
  if (!r) {
    run.out.error = QString::fromStdString(r.message());
    return nullptr;
  }
  *request = QCoreApplication::translate("SummaryJob", "Summarize “%1”").arg(doc->name);
  return std::move(r).value();
}

// The summarizer's callbacks for a run: each partial stored as it arrives (`write_error`
// set, and the run cancelled, when one cannot be), the plan stored, and the hooks called.
SummarizeCallbacks job_callbacks(const JobRun& run, const SummaryJobHooks& hooks,
                                 const Conversation& conversation, QString& write_error) {
  DocumentStore& store = run.store;
  const qint64 job_id = run.job_id;
  SummarizeCallbacks callbacks;
  callbacks.on_summary = [&store, job_id, &hooks, &write_error](const PartialSummary& p) {
    if (!write_error.isEmpty()) return;
    const StoredPartial s = stored_partial(p);
    if (!store.save_partial(job_id, s, &write_error)) return;
    if (hooks.partial) hooks.partial(s);
  };
  callbacks.on_plan = [&store, job_id, &hooks](const SummaryPlan& plan) {
    QString plan_error;  // the stored estimate stays if this fails; nothing else depends on it
    store.set_job_plan(job_id, plan_to_map(plan), &plan_error);
    if (hooks.plan) hooks.plan(plan);
  };
  callbacks.on_progress = [&hooks, &conversation](const SummaryProgress& p) {
    if (hooks.progress) hooks.progress(p, conversation.session());
  };
  callbacks.cancelled = [&hooks, &write_error] {
    return !write_error.isEmpty() || (hooks.cancelled && hooks.cancelled());
  };
  return callbacks;
}

// The summary of a job marked running: its document summarized in a conversation on a
// session of its own, resuming from the partials an earlier run stored.
SummaryJobOutcome summarize_job(const JobRun& run, const StoredSummaryJob& job,
                                const std::shared_ptr<const Model>& model,
                                const SessionOptions& session_options,
                                const SummaryJobHooks& hooks) {
  SummaryJobOutcome& out = run.out;
  // What an earlier run of this job already wrote is not redone.
  std::vector<PartialSummary> done;
  for (const StoredPartial& p : run.store.partials(run.job_id)) done.push_back(engine_partial(p));
  out.resumed = static_cast<int>(done.size());

  QString request;  // the user's message of the exchange the summary is added as
  const std::unique_ptr<DocumentReader> reader = read_job_document(run, job.document_id, &request);
  if (!reader) return run.finish(JobStatus::Failed);

  // A conversation on a session of its own: the chat's KV cache is not disturbed.
  auto session = Session::create(model, session_options);
  if (!session) {
    out.error = QString::fromStdString(session.message());
    return run.finish(JobStatus::Failed);
  }
  auto format = ChatFormat::for_model(*model);
  if (!format) {
    out.error = QString::fromStdString(format.message());
    return run.finish(JobStatus::Failed);
  }
  Conversation conversation(std::move(session).value(), std::move(format).value());
  // A run of this job stopped earlier left its KV in the RAM tier: taken back (the next
  // chunk's prompt reuses what it shares with it).
  const std::string tier_key = "summary/" + std::to_string(run.job_id);
  if (ParkedKvPtr parked = app_ram_tier()->take(tier_key)) {
    (void)conversation.resume(std::move(parked));  // another model or settings: not reused
  }

  QString write_error;  // a partial that could not be stored stops the job
  const SummarizeCallbacks callbacks = job_callbacks(run, hooks, conversation, write_error);
  const SummarizeOptions options = summarize_options_from_map(job.options);
  auto result =
      conversation.summarize_document(*reader, request.toStdString(), options, done, callbacks);
  if (!write_error.isEmpty()) {
    out.error = write_error;
    return run.finish(JobStatus::Failed);
  }
  if (!result) {
    out.error = QString::fromStdString(result.message());
    return run.finish(JobStatus::Failed);
  }
  out.levels = result->plan.n_levels;
  out.tokens_evaluated = static_cast<qint64>(result->tokens_evaluated);
  out.peak_kv_bytes = static_cast<qint64>(result->peak_kv_bytes);
  if (result->cancelled) {
    // Resumed later: its KV waits in RAM meanwhile (within the tier's budget).
    app_ram_tier()->put(tier_key, KvTierKind::Summary, conversation.park());
    return run.finish(JobStatus::Cancelled);
  }
  // The exchange the conversation appended: the request and the summary.
  out.request = qstr(conversation.messages().end()[-2].content);
  out.summary = qstr(conversation.messages().back().content);
  return run.finish(JobStatus::Done);
}

}  // namespace

SummaryJobOutcome run_summary_job(const QString& db_path, qint64 job_id,
                                  std::shared_ptr<const Model> model,
                                  const SessionOptions& session_options,
                                  const SummaryJobHooks& hooks) {
  QElapsedTimer clock;
  clock.start();
  SummaryJobOutcome out;
  QString error;
  auto store = DocumentStore::open(db_path, &error);
  if (!store) {
    out.error = error;
    return out;  // the job row cannot be written either
  }
  const JobRun run{*store, job_id, clock, out};
  const auto job = store->job(job_id);
  if (!job) {
    out.error =
        QCoreApplication::translate("SummaryJob", "Summary job %1 is not stored.").arg(job_id);
    return out;
  }
  if (!model) {
    out.error = QCoreApplication::translate("SummaryJob", "No model is loaded.");
    return run.finish(JobStatus::Failed);
  }
  if (!store->set_job_status(job_id, JobStatus::Running, {}, {}, &error)) {
    out.error = error;
    return run.finish(JobStatus::Failed);
  }
  return summarize_job(run, *job, model, session_options, hooks);
}

}  // namespace kvchat::app
