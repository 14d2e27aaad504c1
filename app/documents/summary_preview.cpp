#include "documents/summary_preview.h"

#include "kvchat/document.h"
#include "kvchat/tokenizer.h"

namespace kvchat::app {

Result<SummaryPlan> document_summary_plan(const Tokenizer& tokenizer, const QByteArray& text,
                                          const QString& name, int32_t n_ctx,
                                          const std::string& kv_type, uint64_t kv_bytes_per_token,
                                          const SummarizeOptions& options,
                                          const std::function<bool()>& cancelled) {
  auto reader = DocumentReader::from_bytes(
      std::string(text.constData(), static_cast<size_t>(text.size())), name.toStdString());
  if (!reader) return Error{reader.message()};
  SummarizeCallbacks callbacks;
  callbacks.cancelled = cancelled;
  return plan_document_summary(tokenizer, **reader, n_ctx, kv_type, kv_bytes_per_token, options,
                               callbacks);
}

}  // namespace kvchat::app
