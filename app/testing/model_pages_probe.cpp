#include "testing/model_pages_probe.h"

#include <QUrl>

#include "library/model_library_controller.h"
#include "library/models_page_controller.h"
#include "testing/state_probe.h"

namespace kvchat::app {

ModelPagesProbe::ModelPagesProbe(ModelsPageController& page, ModelLibraryController& library,
                                 const QString& base_path, QObject* parent)
    : QObject(parent), page_(page), library_(library) {
  connect(&page_, &ModelsPageController::modelDownloaded, this,
          [this](const QString& path) { opened_.append(path); });
  connect(&library_, &ModelLibraryController::modelRemoved, this,
          [this](const QString& path) { removed_.append(path); });
  page_probe_ = std::make_unique<StateProbe>(base_path + QStringLiteral(".models.json"),
                                             [this] { return page_state(); });
  page_probe_->watch(&page_);
  library_probe_ = std::make_unique<StateProbe>(base_path + QStringLiteral(".library.json"),
                                                [this] { return library_state(); });
  library_probe_->watch(&library_);
}

ModelPagesProbe::~ModelPagesProbe() = default;

QVariantMap ModelPagesProbe::page_state() const {
  QVariantList results;
  for (const QVariant& r : page_.search_results())
    results.append(r.toMap().value(QStringLiteral("id")));
  return {{"endpoint", page_.endpoint()},
          {"catalog", page_.catalog().size()},
          {"search_results", results},
          {"current_repo", page_.current_repo()},
          {"files", page_.files()},
          {"downloads", page_.downloads()},
          {"offline_notice", page_.offline_notice()},
          {"message", page_.message()},
          {"opened", opened_},
          {"fit_ctx", page_.fit_context()},
          {"fit_kv_type", page_.fit_kv_type()},
          {"free_memory_bytes", page_.free_memory_bytes()}};
}

QVariantMap ModelPagesProbe::library_state() const {
  QStringList shown;
  for (const QUrl& u : library_.shown_folders()) shown.append(u.toString());
  return {{"models_dir", library_.models_dir()},
          {"entries", library_.entries()},
          {"message", library_.message()},
          {"shown_folders", shown},
          {"removed", removed_}};
}

}  // namespace kvchat::app
