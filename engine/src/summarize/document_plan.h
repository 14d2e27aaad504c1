// The counting pass: a document streamed through the Chunker with the step budget, to
// plan its summary from exact token and chunk counts.
#pragma once

#include <optional>

#include "kvchat/summarize.h"

namespace kvchat::summarize {

// The plan for `reader` on `session`; nullopt when callbacks.cancelled() stopped the
// count. The reader is rewound before and after.
Result<std::optional<SummaryPlan>> plan_for_session(const Session& session, DocumentReader& reader,
                                                    const SummarizeOptions& options,
                                                    const SummarizeCallbacks& callbacks);
// The same from a tokenizer and a context's figures: what plan_for_session runs.
Result<std::optional<SummaryPlan>> plan_for_context(const Tokenizer& tok, DocumentReader& reader,
                                                    int32_t n_ctx, const std::string& kv_type,
                                                    uint64_t kv_bytes_per_token,
                                                    const SummarizeOptions& options,
                                                    const SummarizeCallbacks& callbacks);

}  // namespace kvchat::summarize
