#include "library/model_library_controller.h"

#include <QFileInfo>
#include <QLocale>
#include <QUrl>

#include "kvchat/kv_types.h"

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

QStringList ModelLibraryController::kv_types() {
  QStringList names;
  for (const kvchat::KvTypeCost& c : kvchat::kv_type_costs())
    names.append(QString::fromStdString(c.name));
  return names;
}

QVariantMap ModelLibraryController::loadEstimate(const QString& path_or_url, int ctx,
                                                 const QString& kv_type, int gpu_layers) {
  const QUrl url(path_or_url);
  const QString path = url.isLocalFile() ? url.toLocalFile() : path_or_url;
  const ModelFileFacts f = facts_cached(path);
  // With no layer on the GPU the weights and the KV stay in RAM (measured now); otherwise
  // they go to the GPU when CUDA runs the chat (its free memory, as the Models page has it).
  const bool on_gpu = gpu_layers != 0 && page_ && page_->free_memory_is_gpu();
  const qint64 free_bytes =
      on_gpu ? qint64(page_->free_memory_bytes()) : qint64(kvchat::available_memory_bytes());
  QString error = f.error;
  QVariantMap m;
  if (f.inspection) {
    m = fit_map_for(*f.inspection, ctx, kv_type, free_bytes, qint64(f.inspection->header_bytes),
                    &error);
    if (error.isEmpty() && !f.inspection->runnable) error = m.value("why_not").toString();
  } else {
    m.insert({{"fits", false}, {"runnable", false}});
  }
  m.insert({{"path", f.path},
            {"file_name", f.file_name},
            {"name", f.name},
            {"size_text", util::format_bytes(double(f.size))},
            {"n_ctx_train", f.n_ctx_train},
            {"gpu_layers", gpu_layers},
            {"on_gpu", on_gpu},
            {"error", error}});
  m.insert(QStringLiteral("fit_text"), estimate_text(m));
  return m;
}

QString ModelLibraryController::estimate_text(const QVariantMap& m) const {
  const QString error = m.value("error").toString();
  if (!m.value("runnable").toBool() && m.contains("why_not"))
    return tr("kvchat cannot run it: %1").arg(m.value("why_not").toString());
  if (!error.isEmpty()) return tr("The memory cannot be computed: %1").arg(error);
  const auto bytes = [&m](const char* key) { return util::format_bytes(m.value(key).toDouble()); };
  const QString tokens = QLocale().toString(m.value("n_ctx").toLongLong());
  const bool gpu = m.value("on_gpu").toBool();
  QString text;
  if (m.value("free_bytes").toDouble() <= 0)
    text = tr("%1 weights + %2 KV cache at %3 tokens = %4 (the free memory is not known).");
  else if (m.value("fits").toBool())
    text = gpu ? tr("%1 weights + %2 KV cache at %3 tokens = %4, of %5 free on the GPU: it fits.")
               : tr("%1 weights + %2 KV cache at %3 tokens = %4, of %5 free in RAM: it fits.");
  else
    text = gpu ? tr("%1 weights + %2 KV cache at %3 tokens = %4, but only %5 is free on the GPU: "
                    "it does not fit.")
               : tr("%1 weights + %2 KV cache at %3 tokens = %4, but only %5 is free in RAM: it "
                    "does not fit.");
  text =
      text.arg(bytes("weights_bytes"), bytes("kv_allocated_bytes"), tokens, bytes("total_bytes"));
  return text.contains(QLatin1String("%5")) ? text.arg(bytes("free_bytes")) : text;
}

void ModelLibraryController::refresh() {
  const QStringList recent = hooks_.recent ? hooks_.recent() : QStringList();
  const QVariantMap used = hooks_.used_at ? hooks_.used_at() : QVariantMap();
  scanned_ = scan_model_library(models_dir_, recent, used,
                                [this](const QString& p) { return facts_cached(p); });
  rebuild();
}

QVariantMap ModelLibraryController::entry_map(const ModelLibraryEntry& e, const QString& loaded_key,
                                              const QString& demo_path) const {
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
  const ModelFileOwner owner = model_file_owner(f.path, models_dir_, demo_path);
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
      {"owned", owner == ModelFileOwner::Kvchat},
      {"demo", owner == ModelFileOwner::Demo},
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
  const QString demo = demo_path();
  entries_.clear();
  for (const ModelLibraryEntry& e : scanned_) entries_.append(entry_map(e, loaded_key, demo));
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
  return model_removal_problem(path, loaded, models_dir_, demo_path());
}

bool ModelLibraryController::remove(const QString& path) {
  const QString loaded = hooks_.loaded_path ? hooks_.loaded_path() : QString();
  const qint64 size = QFileInfo(path).size();
  const QString key = model_file_key(path);
  QString error;
  if (!remove_model_file(path, loaded, models_dir_, demo_path(), &error)) {
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

bool ModelLibraryController::forget(const QString& path) {
  const QString name = QFileInfo(path).fileName();
  if (listed_from_models_dir(path, models_dir_)) {
    set_message(tr("%1 is in kvchat's models folder (%2), which is always listed: Forget only "
                   "takes off models opened from elsewhere.")
                    .arg(name, models_dir_));
    return false;
  }
  // Every way the recent list names this file (paths compared once resolved).
  const QString key = model_file_key(path);
  QStringList named;
  for (const QString& r : hooks_.recent ? hooks_.recent() : QStringList())
    if (model_file_key(r) == key) named.append(r);
  if (named.isEmpty() || !hooks_.forget_recent) {
    set_message(tr("%1 is not in the recent list.").arg(name));
    refresh();
    return false;
  }
  for (const QString& r : named) hooks_.forget_recent(r);
  set_message(tr("%1 is off the list; the file stays on disk.").arg(name));
  refresh();
  return true;
}

}  // namespace kvchat::app
