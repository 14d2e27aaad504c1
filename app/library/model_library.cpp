#include "library/model_library.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>

#include "util/display_text.h"

namespace kvchat::app {
namespace {

// The model files the list shows from the models folder (links there followed), by name.
QFileInfoList model_files_in(const QString& models_dir) {
  return QDir(models_dir)
      .entryInfoList({QStringLiteral("*.gguf"), QStringLiteral("*.GGUF")}, QDir::Files, QDir::Name);
}

// The folder with its links resolved ("" when it is not there: then nothing lies in it).
QString canonical_dir(const QString& dir) {
  return dir.isEmpty() ? QString() : QDir(dir).canonicalPath();
}

// Whether the canonical path lies under the canonical folder (both resolved, so that
// "models/../elsewhere" and links cannot pass for it).
bool lies_under(const QString& canonical, const QString& dir) {
  if (canonical.isEmpty() || dir.isEmpty()) return false;
  const QString prefix = dir.endsWith(QLatin1Char('/')) ? dir : dir + QLatin1Char('/');
  return canonical.startsWith(prefix);
}

}  // namespace

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
  for (const QFileInfo& info : model_files_in(models_dir)) {
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

ModelFileOwner model_file_owner(const QString& path, const QString& models_dir,
                                const QString& demo_path) {
  if (!demo_path.isEmpty() && model_file_key(demo_path) == model_file_key(path))
    return ModelFileOwner::Demo;
  if (lies_under(QFileInfo(path).canonicalFilePath(), canonical_dir(models_dir)))
    return ModelFileOwner::Kvchat;
  return ModelFileOwner::Elsewhere;
}

bool listed_from_models_dir(const QString& path, const QString& models_dir) {
  const QString key = model_file_key(path);
  for (const QFileInfo& info : model_files_in(models_dir))
    if (model_file_key(info.absoluteFilePath()) == key) return true;
  return false;
}

QString model_removal_problem(const QString& path, const QString& loaded_path,
                              const QString& models_dir, const QString& demo_path) {
  const QFileInfo info(path);
  const QString name = info.fileName();
  if (!info.isFile())
    return QCoreApplication::translate("ModelLibraryFacts", "%1 is not there any more.").arg(name);
  switch (model_file_owner(path, models_dir, demo_path)) {
    case ModelFileOwner::Demo:
      return QCoreApplication::translate("ModelLibraryFacts",
                                         "%1 is the demo model that comes with kvchat: kvchat "
                                         "does not delete it. Use Forget to take it off the list.")
          .arg(name);
    case ModelFileOwner::Elsewhere: {
      const QString models = canonical_dir(models_dir);
      const QString shown_models = models.isEmpty() ? QDir::cleanPath(models_dir) : models;
      // Outside, yet found in the models folder: through a link there, which the list
      // shows as long as it is there; kvchat deletes neither the link nor the file.
      if (listed_from_models_dir(path, models_dir))
        return QCoreApplication::translate(
                   "ModelLibraryFacts",
                   "%1 is a file outside kvchat's models folder (%2) that a link there points "
                   "to: kvchat deletes neither the link nor the file. Delete the link yourself "
                   "to take it off the list.")
            .arg(name, shown_models);
      return QCoreApplication::translate(
                 "ModelLibraryFacts",
                 "%1 is not in kvchat's models folder (%2): kvchat only deletes files it "
                 "downloaded or that you moved there. Use Forget to take it off the list.")
          .arg(name, shown_models);
    }
    case ModelFileOwner::Kvchat: break;
  }
  if (!loaded_path.isEmpty() && model_file_key(loaded_path) == model_file_key(path))
    return QCoreApplication::translate(
               "ModelLibraryFacts",
               "%1 is the model loaded now: open another model first, then remove it.")
        .arg(name);
  return {};
}

bool remove_model_file(const QString& path, const QString& loaded_path, const QString& models_dir,
                       const QString& demo_path, QString* error) {
  auto fail = [error](const QString& why) {
    if (error) *error = why;
    return false;
  };
  const QString problem = model_removal_problem(path, loaded_path, models_dir, demo_path);
  if (!problem.isEmpty()) return fail(problem);
  // The resolved file, the one found in the models folder: never a link's own path,
  // which may lie outside it.
  const QFileInfo info(path);
  QFile file(info.canonicalFilePath());
  if (!file.remove())
    return fail(QCoreApplication::translate("ModelLibraryFacts", "%1 could not be removed: %2")
                    .arg(info.fileName(), file.errorString()));
  return true;
}

}  // namespace kvchat::app
