// The curated catalog of the Models page (resources/models_catalog.json) as the page shows
// it: each entry with its files' sizes in a few characters, and, when the Hub cannot list
// an entry's repository (offline), the catalog's own files as the page's file rows, so
// that the pane still shows what the catalog knows instead of nothing.
#pragma once

#include <QString>
#include <QVariantList>
#include <QVariantMap>

namespace kvchat::app {

// The entries of the catalog file at `path` whose repository name the Hub accepts (empty
// when the file cannot be read), each with size_text: its files' sizes, the smallest to
// the largest ("≈ 808 MB – 2.48 GB"; one size when they are alike; "≈" when any is marked
// size_approx), empty when the catalog gives no size; and size_approx (whether the
// sizes shown are approximate).
QVariantList read_models_catalog(const QString& path);

// Whether any entry shows an approximate size (the list's heading says so).
bool catalog_sizes_approximate(const QVariantList& catalog);

// The catalog's entry for `repo`; empty when the catalog has none.
QVariantMap catalog_entry(const QVariantList& catalog, const QString& repo);

// `entry`'s files as the page's file rows when the Hub cannot list them: path, size (the
// catalog's), size_approx, sha256 "" (no download without the Hub's hash), downloaded (the
// file is in models_dir), fit_state "estimate" and fit {weights_bytes, free_bytes, fits}:
// whether the file alone fits in free_bytes (the KV cache needs the file's header).
// fit_error "".
QVariantList catalog_file_rows(const QVariantMap& entry, const QString& models_dir,
                               qint64 free_bytes);

}  // namespace kvchat::app
