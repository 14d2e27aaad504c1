// The Models page's catalog (library/models_catalog.h): read, sized, and its files as rows.
#include "library/models_catalog.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>

#include "hub/names.h"
#include "util/byte_size.h"

namespace kvchat::app {

namespace {

// size_text and size_approx of one entry, from its files' sizes (files without one are
// left out of the range).
void add_size_text(QVariantMap& entry) {
  double smallest = 0, largest = 0;
  bool approx = false;
  for (const QVariant& v : entry.value(QStringLiteral("files")).toList()) {
    const QVariantMap f = v.toMap();
    const double size = f.value(QStringLiteral("size")).toDouble();
    if (size <= 0) continue;
    smallest = smallest > 0 ? std::min(smallest, size) : size;
    largest = std::max(largest, size);
    approx = approx || f.value(QStringLiteral("size_approx")).toBool();
  }
  QString text;
  if (largest > 0) {
    const QString low = util::format_bytes(smallest), high = util::format_bytes(largest);
    // Symbols and byte sizes only: the same in every language the window speaks.
    text = low == high ? low : low + QStringLiteral(" – ") + high;
    if (approx) text = QStringLiteral("≈ ") + text;
  }
  entry.insert(QStringLiteral("size_text"), text);
  entry.insert(QStringLiteral("size_approx"), approx);
}

}  // namespace

QVariantList read_models_catalog(const QString& path) {
  QVariantList catalog;
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return catalog;
  const QJsonArray models =
      QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("models")).toArray();
  for (const QJsonValue& m : models) {
    QVariantMap entry = m.toObject().toVariantMap();
    if (!hub::valid_repo_id(entry.value(QStringLiteral("repo")).toString())) continue;
    add_size_text(entry);
    catalog.append(entry);
  }
  return catalog;
}

bool catalog_sizes_approximate(const QVariantList& catalog) {
  return std::any_of(catalog.begin(), catalog.end(), [](const QVariant& e) {
    return e.toMap().value(QStringLiteral("size_approx")).toBool();
  });
}

QVariantMap catalog_entry(const QVariantList& catalog, const QString& repo) {
  for (const QVariant& e : catalog) {
    const QVariantMap entry = e.toMap();
    if (entry.value(QStringLiteral("repo")).toString() == repo) return entry;
  }
  return {};
}

QVariantList catalog_file_rows(const QVariantMap& entry, const QString& models_dir,
                               qint64 free_bytes) {
  QVariantList rows;
  for (const QVariant& v : entry.value(QStringLiteral("files")).toList()) {
    const QVariantMap f = v.toMap();
    const QString path = f.value(QStringLiteral("file")).toString();
    if (!hub::valid_file_path(path)) continue;
    const double size = f.value(QStringLiteral("size")).toDouble();
    const QVariantMap fit{{"weights_bytes", size},
                          {"free_bytes", double(free_bytes)},
                          {"fits", size > 0 && size <= double(free_bytes)}};
    rows.append(QVariantMap{
        {"path", path},
        {"size", size},
        {"size_approx", f.value(QStringLiteral("size_approx")).toBool()},
        {"sha256", QString()},
        {"downloaded", QFileInfo::exists(QDir(models_dir).filePath(QFileInfo(path).fileName()))},
        {"fit_state", size > 0 ? QStringLiteral("estimate") : QStringLiteral("idle")},
        {"fit", size > 0 ? fit : QVariantMap()},
        {"fit_error", QString()}});
  }
  return rows;
}

}  // namespace kvchat::app
