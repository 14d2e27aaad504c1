#include "library/models_fit.h"

#include <QStringList>
#include <algorithm>

#include "util/display_text.h"

namespace kvchat::app {

QVariantMap fit_map(const GgufInspection& in, const GgufFit* fit, qint64 bytes_read) {
  QVariantList types;
  QStringList type_text;
  for (const GgufTensorTypeCount& t : in.tensor_types) {
    types.append(QVariantMap{{"type", cut_for_display(t.type, 64)},
                             {"count", t.count},
                             {"bytes", double(t.bytes)},
                             {"supported", t.supported}});
    type_text.append(QStringLiteral("%1 × %2").arg(t.count).arg(cut_for_display(t.type, 64)));
  }
  QVariantMap m{{"name", cut_for_display(in.name)},
                {"architecture", cut_for_display(in.architecture)},
                {"runnable", in.runnable},
                {"why_not", cut_for_display(in.why_not, 2000)},
                {"n_layers", in.n_layers},
                {"n_kv_heads", in.n_kv_heads},
                {"head_dim", in.head_dim},
                {"n_ctx_train", in.n_ctx_train},
                {"n_params", double(in.n_params)},
                {"header_bytes", double(in.header_bytes)},
                {"bytes_read", double(bytes_read)},
                {"tensor_types", types},
                {"tensor_types_text", type_text.join(QStringLiteral(", "))}};
  if (fit) {
    m.insert({{"n_ctx", double(fit->n_ctx)},
              {"kv_type", QString::fromStdString(fit->kv_type)},
              {"weights_bytes", double(fit->weights_bytes)},
              {"kv_bytes", double(fit->kv_bytes)},
              {"kv_allocated_bytes", double(fit->kv_allocated_bytes)},
              {"total_bytes", double(fit->total_bytes)},
              {"free_bytes", double(fit->free_bytes)},
              {"fits", fit->fits},
              {"max_ctx", double(fit->max_ctx)},
              {"max_ctx_capped", double(fit->max_ctx_capped)},
              {"concurrent_conversations", double(fit->concurrent_conversations)}});
  } else {
    m.insert({{"fits", false},
              {"max_ctx", 0.0},
              {"max_ctx_capped", 0.0},
              {"concurrent_conversations", 0.0}});
  }
  return m;
}

int run_context(int requested, int n_ctx_train) {
  if (requested <= 0) return n_ctx_train;
  return n_ctx_train > 0 ? std::min(requested, n_ctx_train) : requested;
}

QVariantMap fit_map_for(const GgufInspection& inspection, int ctx, const QString& kv_type,
                        qint64 free_bytes, qint64 bytes_read, QString* error) {
  if (!inspection.runnable) return fit_map(inspection, nullptr, bytes_read);
  const int n_ctx = run_context(ctx, inspection.n_ctx_train);
  auto fit =
      inspection.fit(n_ctx, kv_type.toStdString(), uint64_t(std::max<qint64>(free_bytes, 0)));
  if (!fit) {
    if (error) *error = cut_for_display(fit.error().message, 2000);
    return fit_map(inspection, nullptr, bytes_read);
  }
  QVariantMap m = fit_map(inspection, &*fit, bytes_read);
  m.insert(QStringLiteral("requested_ctx"), ctx);
  m.insert(QStringLiteral("ctx_cut_to_trained"), ctx > 0 && n_ctx < ctx);
  return m;
}

}  // namespace kvchat::app
