#include "library/model_library_controller.h"

#include <QFileInfo>
#include <QLocale>

#include "util/byte_size.h"
#include "library/models_fit.h"
#include "library/models_page_controller.h"

namespace kvchat::app {

ModelLibraryController::ModelLibraryController(const QString& models_dir,
                                               ModelsPageController* page, Hooks hooks,
                                               QObject* parent)
    : QObject(parent), models_dir_(models_dir), page_(page), hooks_(std::move(hooks)) {
  if (page_)
    connect(page_, &ModelsPageController::fitOptionsChanged, this,
            &ModelLibraryController::rebuild);
}

ModelFileFacts ModelLibraryController::facts_cached(const QString& path) {
  const QString key = model_file_key(path);
  const QFileInfo info(path);
  if (const auto it = cache_.constFind(key);
      it != cache_.constEnd() && it->size == info.size() && it->modified == info.lastModified()) {
    return *it;
  }
  ModelFileFacts f = read_model_file_facts(path);
  cache_.insert(key, f);
  return f;
}

void ModelLibraryController::refresh() {
  const QStringList recent = hooks_.recent ? hooks_.recent() : QStringList();
  const QVariantMap used = hooks_.used_at ? hooks_.used_at() : QVariantMap();
  scanned_ = scan_model_library(models_dir_, recent, used,
                                [this](const QString& p) { return facts_cached(p); });
  rebuild();
}

QVariantMap ModelLibraryController::entry_map(const ModelLibraryEntry& e,
                                              const QString& loaded_key) const {
  const ModelFileFacts& f = e.facts;
  QString last_used_text;
  if (e.last_used.isValid())
    last_used_text = QLocale().toString(e.last_used.toLocalTime(), QLocale::ShortFormat);
  else if (e.recent_rank == 0)
    last_used_text = tr("the last one used");
  else if (e.recent_rank > 0)
    last_used_text = tr("recently (%1 other models since)").arg(e.recent_rank);
  else
    last_used_text = tr("never");
  QVariantMap m{
      {"path", f.path},
      {"file_name", f.file_name},
      {"name", f.name},
      {"general_name", f.general_name},
      {"architecture", f.architecture},
      {"quantization", f.quantization},
      {"size", double(f.size)},
      {"size_text", util::format_bytes(double(f.size))},
      {"n_ctx_train", f.n_ctx_train},
      {"in_models_dir", e.in_models_dir},
      {"recent_rank", e.recent_rank},
      {"last_used", e.last_used.isValid() ? e.last_used.toString(Qt::ISODate) : QString()},
      {"last_used_text", last_used_text},
      {"loaded", !loaded_key.isEmpty() && model_file_key(f.path) == loaded_key},
      {"error", f.error}};
  if (!f.inspection) {
    m.insert({{"fit_state", QStringLiteral("unreadable")},
              {"fit", QVariantMap()},
              {"fit_error", f.error}});
    return m;
  }
  const int ctx = page_ ? page_->fit_context() : 4096;
  const QString kv = page_ ? page_->fit_kv_type() : QStringLiteral("f16");
  const qint64 free_bytes =
      page_ ? qint64(page_->free_memory_bytes()) : qint64(kvchat::available_memory_bytes());
  QString error;
  const QVariantMap fit =
      fit_map_for(*f.inspection, ctx, kv, free_bytes, qint64(f.inspection->header_bytes), &error);
  m.insert({{"fit_state", error.isEmpty() ? QStringLiteral("done") : QStringLiteral("error")},
            {"fit", fit},
            {"fit_error", error}});
  return m;
}

void ModelLibraryController::rebuild() {
  const QString loaded = hooks_.loaded_path ? hooks_.loaded_path() : QString();
  const QString loaded_key = loaded.isEmpty() ? QString() : model_file_key(loaded);
  entries_.clear();
  for (const ModelLibraryEntry& e : scanned_) entries_.append(entry_map(e, loaded_key));
  emit entriesChanged();
}

void ModelLibraryController::set_message(const QString& text) {
  message_ = text;
  emit messageChanged();
}

void ModelLibraryController::open(const QString& path) {
  if (!QFileInfo(path).isFile()) {
    set_message(tr("%1 is not there any more.").arg(QFileInfo(path).fileName()));
    refresh();
    return;
  }
  set_message(QString());
  if (hooks_.open_model) hooks_.open_model(path);
}

void ModelLibraryController::showInFolder(const QString& path) {
  const QUrl url = QUrl::fromLocalFile(QFileInfo(path).absolutePath());
  shown_.append(url);
  if (hooks_.open_folder) hooks_.open_folder(url);
}

QString ModelLibraryController::removalProblem(const QString& path) const {
  const QString loaded = hooks_.loaded_path ? hooks_.loaded_path() : QString();
  if (!loaded.isEmpty() && model_file_key(loaded) == model_file_key(path))
    return tr("%1 is the model loaded now: open another model first, then remove it.")
        .arg(QFileInfo(path).fileName());
  return QString();
}

bool ModelLibraryController::remove(const QString& path) {
  const QString loaded = hooks_.loaded_path ? hooks_.loaded_path() : QString();
  const qint64 size = QFileInfo(path).size();
  const QString key = model_file_key(path);
  QString error;
  if (!remove_model_file(path, loaded, &error)) {
    set_message(error);
    refresh();
    return false;
  }
  cache_.remove(key);
  emit modelRemoved(path);
  if (hooks_.forget_recent) hooks_.forget_recent(path);
  set_message(tr("Removed %1 (%2) from disk.")
                  .arg(QFileInfo(path).fileName(), util::format_bytes(double(size))));
  refresh();
  return true;
}

}  // namespace kvchat::app
