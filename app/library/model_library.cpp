#include "library/model_library.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>

#include "util/display_text.h"

namespace kvchat::app {

QString model_file_key(const QString& path) {
  const QFileInfo info(path);
  const QString canonical = info.canonicalFilePath();
  return canonical.isEmpty() ? QDir::cleanPath(info.absoluteFilePath()) : canonical;
}

ModelFileFacts read_model_file_facts(const QString& path) {
  ModelFileFacts f;
  const QFileInfo info(path);
  f.path = QDir::cleanPath(info.absoluteFilePath());
  f.file_name = info.fileName();
  f.size = info.size();
  f.modified = info.lastModified();
  f.name = model_display_name(f.path, {}, {});
  if (!info.isFile()) {
    f.error = QCoreApplication::translate("ModelLibraryFacts", "the file is not there");
    return f;
  }
  auto inspected = inspect_gguf_file(f.path.toStdString());
  if (!inspected) {
    QString why = QString::fromStdString(inspected.error().message);
    const QString prefix = f.path + QStringLiteral(": ");  // the row names the file already
    if (why.startsWith(prefix)) why = why.mid(prefix.size());
    f.error = cut_for_display(why.toStdString(), 2000);
    return f;
  }
  auto in = std::make_shared<const GgufInspection>(std::move(*inspected));
  f.general_name = cut_for_display(in->name);
  f.architecture = cut_for_display(in->architecture);
  f.name = model_display_name(f.path, in->name, in->architecture);
  if (!in->tensor_types.empty())
    f.quantization = cut_for_display(in->tensor_types.front().type, 64);
  f.n_ctx_train = in->n_ctx_train;
  f.inspection = std::move(in);
  return f;
}

QVector<ModelLibraryEntry> scan_model_library(const QString& models_dir, const QStringList& recent,
                                              const QVariantMap& used_at,
                                              const ModelFactsReader& read) {
  const ModelFactsReader reader = read ? read : ModelFactsReader(read_model_file_facts);
  QVector<ModelLibraryEntry> out;
  QHash<QString, int> by_key;
  QHash<QString, QDateTime> used;
  for (auto it = used_at.constBegin(); it != used_at.constEnd(); ++it) {
    const QDateTime when = it.value().typeId() == QMetaType::QDateTime
                               ? it.value().toDateTime()
                               : QDateTime::fromString(it.value().toString(), Qt::ISODateWithMs);
    if (when.isValid()) used.insert(model_file_key(it.key()), when);
  }
  for (int rank = 0; rank < recent.size(); ++rank) {
    const QString& path = recent[rank];
    if (path.isEmpty() || !QFileInfo(path).isFile()) continue;  // gone: not listed
    const QString key = model_file_key(path);
    if (by_key.contains(key)) continue;
    ModelLibraryEntry e;
    e.facts = reader(path);
    e.recent_rank = rank;
    e.last_used = used.value(key);
    by_key.insert(key, out.size());
    out.append(e);
  }
  const QDir dir(models_dir);
  const QFileInfoList files = dir.entryInfoList(
      {QStringLiteral("*.gguf"), QStringLiteral("*.GGUF")}, QDir::Files, QDir::Name);
  for (const QFileInfo& info : files) {
    const QString key = model_file_key(info.absoluteFilePath());
    if (const auto it = by_key.constFind(key); it != by_key.constEnd()) {
      out[*it].in_models_dir = true;
      continue;
    }
    ModelLibraryEntry e;
    e.facts = reader(info.absoluteFilePath());
    e.in_models_dir = true;
    by_key.insert(key, out.size());
    out.append(e);
  }
  return out;
}

bool remove_model_file(const QString& path, const QString& loaded_path, QString* error) {
  const QFileInfo info(path);
  auto fail = [error](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (!loaded_path.isEmpty() && model_file_key(loaded_path) == model_file_key(path))
    return fail(QCoreApplication::translate(
                    "ModelLibraryFacts",
                    "%1 is the model loaded now: open another model first, then remove it.")
                    .arg(info.fileName()));
  if (!info.isFile())
    return fail(QCoreApplication::translate("ModelLibraryFacts", "%1 is not there any more.")
                    .arg(info.fileName()));
  QFile file(path);
  if (!file.remove())
    return fail(QCoreApplication::translate("ModelLibraryFacts", "%1 could not be removed: %2")
                    .arg(info.fileName(), file.errorString()));
  return true;
}

}  // namespace kvchat::app
