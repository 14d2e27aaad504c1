// The summary plan of a stored document, as the document card previews it and as the job
// then runs it: one function for both (the engine's counting pass, plan_document_summary,
// over the same text with the same chunk budget and reserve), so the chunks and passes the
// preview shows are the job's.
#pragma once

#include <QByteArray>
#include <QString>
#include <functional>
#include <string>

#include "kvchat/result.h"
#include "kvchat/summarize.h"

namespace kvchat::app {

// The plan a job with `options` (summarize_options_for the context) runs on a session of
// n_ctx tokens of kv_type: the text streamed through the job's Chunker. Any thread;
// cancelled() stops the count (an error).
Result<SummaryPlan> document_summary_plan(const Tokenizer& tokenizer, const QByteArray& text,
                                          const QString& name, int32_t n_ctx,
                                          const std::string& kv_type, uint64_t kv_bytes_per_token,
                                          const SummarizeOptions& options,
                                          const std::function<bool()>& cancelled = {});

}  // namespace kvchat::app
