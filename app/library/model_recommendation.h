// The catalog's chat models recommended for a first download on this computer (the
// welcome's "Recommended for this computer"): instruction-tuned models of the built-in
// catalog (resources/models_catalog.json: "chat": true, and the KV cache's "shape" from
// each model's config.json), each at its recommended file (Q4_K_M, else its smallest),
// checked with the engine's own fit arithmetic (GgufInspection::fit, the Models page's
// "Will it fit?") at a default context against the free memory, before any header is
// read: the file's size stands for its weights.
#pragma once

#include <QString>
#include <QVariantList>
#include <QVariantMap>

namespace kvchat::app {

// The context a recommendation is checked at (tokens): a model must hold a conversation
// this long, and its weights and KV cache at this length must fit.
inline constexpr int kRecommendContext = 4096;
inline constexpr int kRecommendCount = 3;

// The catalog entry's recommended file: its Q4_K_M file, else its smallest (empty when it
// has no file).
QVariantMap recommended_file(const QVariantMap& catalog_entry);

// The fit (fit_map_for's map) of a catalog entry's file at ctx tokens of kv_type against
// free_bytes, from the entry's shape and the file's size; empty when the entry has no
// usable shape (its fit cannot be known before the header is read).
QVariantMap catalog_fit(const QVariantMap& catalog_entry, const QVariantMap& file, int ctx,
                        const QString& kv_type, qint64 free_bytes);

// At most max_count chat models of the catalog that were trained on at least ctx tokens
// and fit free_bytes at ctx tokens, smallest download first (a first model: the quickest
// to fetch and to answer; only the catalog's instruction-tuned models are candidates, and
// one that cannot hold a conversation of ctx tokens is left out). Each: name, repo, file,
// quant, parameters, license, architecture, size (bytes, double), size_approx, n_ctx (the
// context checked), fits (true), fit (the fit map).
QVariantList recommend_catalog_models(const QVariantList& catalog, qint64 free_bytes,
                                      int ctx = kRecommendContext,
                                      const QString& kv_type = QStringLiteral("f16"),
                                      int max_count = kRecommendCount);

}  // namespace kvchat::app
