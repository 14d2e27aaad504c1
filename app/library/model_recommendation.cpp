// The welcome's recommended catalog models (model_recommendation.h).
#include "library/model_recommendation.h"

#include <algorithm>

#include "kvchat/gguf_inspect.h"
#include "library/models_fit.h"

namespace kvchat::app {

namespace {

int shape_value(const QVariantMap& shape, const char* key) {
  return shape.value(QLatin1String(key)).toInt();
}

double file_size(const QVariantMap& file) { return file.value(QStringLiteral("size")).toDouble(); }

}  // namespace

QVariantMap recommended_file(const QVariantMap& catalog_entry) {
  const QVariantList files = catalog_entry.value(QStringLiteral("files")).toList();
  QVariantMap smallest;
  for (const QVariant& v : files) {
    const QVariantMap f = v.toMap();
    if (f.value(QStringLiteral("quant")).toString() == QLatin1String("Q4_K_M")) return f;
    if (smallest.isEmpty() || file_size(f) < file_size(smallest)) smallest = f;
  }
  return smallest;
}

QVariantMap catalog_fit(const QVariantMap& catalog_entry, const QVariantMap& file, int ctx,
                        const QString& kv_type, qint64 free_bytes) {
  const QVariantMap shape = catalog_entry.value(QStringLiteral("shape")).toMap();
  // What the header would say, as far as the fit needs it: the KV cache's shape and the
  // weights (the file's size: its header is a few MB at most, so this errs on the safe side).
  GgufInspection in;
  in.architecture = catalog_entry.value(QStringLiteral("architecture")).toString().toStdString();
  in.name = catalog_entry.value(QStringLiteral("name")).toString().toStdString();
  in.n_layers = shape_value(shape, "n_layers");
  in.n_kv_heads = shape_value(shape, "n_kv_heads");
  in.head_dim = shape_value(shape, "head_dim");
  in.n_ctx_train = shape_value(shape, "n_ctx_train");
  in.sliding_window = shape_value(shape, "sliding_window");
  in.n_windowed_layers = shape_value(shape, "n_windowed_layers");
  in.shape_known = in.n_layers > 0 && in.n_kv_heads > 0 && in.head_dim > 0;
  in.runnable = in.shape_known;
  const double size = file_size(file);
  if (!in.shape_known || size <= 0) return {};
  in.file_size = uint64_t(size);
  in.weight_bytes = uint64_t(size);
  QString error;
  const QVariantMap fit = fit_map_for(in, ctx, kv_type, free_bytes, 0, &error);
  return error.isEmpty() ? fit : QVariantMap();
}

QVariantList recommend_catalog_models(const QVariantList& catalog, qint64 free_bytes, int ctx,
                                      const QString& kv_type, int max_count) {
  QVariantList out;
  for (const QVariant& v : catalog) {
    const QVariantMap m = v.toMap();
    // Only models trained to follow instructions: a first model has to answer.
    if (!m.value(QStringLiteral("chat")).toBool()) continue;
    const int n_ctx_train =
        m.value(QStringLiteral("shape")).toMap().value(QStringLiteral("n_ctx_train")).toInt();
    if (n_ctx_train < ctx) continue;  // cannot hold a conversation of the default length
    const QVariantMap file = recommended_file(m);
    const QVariantMap fit = catalog_fit(m, file, ctx, kv_type, free_bytes);
    if (fit.isEmpty() || !fit.value(QStringLiteral("fits")).toBool()) continue;
    out.append(QVariantMap{{"name", m.value(QStringLiteral("name"))},
                           {"repo", m.value(QStringLiteral("repo"))},
                           {"architecture", m.value(QStringLiteral("architecture"))},
                           {"parameters", m.value(QStringLiteral("parameters"))},
                           {"license", m.value(QStringLiteral("license"))},
                           {"file", file.value(QStringLiteral("file"))},
                           {"quant", file.value(QStringLiteral("quant"))},
                           {"size", file_size(file)},
                           {"size_approx", file.value(QStringLiteral("size_approx")).toBool()},
                           {"n_ctx", fit.value(QStringLiteral("n_ctx"))},
                           {"fits", true},
                           {"fit", fit}});
  }
  std::stable_sort(out.begin(), out.end(), [](const QVariant& a, const QVariant& b) {
    return file_size(a.toMap()) < file_size(b.toMap());
  });
  while (out.size() > std::max(max_count, 0)) out.removeLast();
  return out;
}

}  // namespace kvchat::app
