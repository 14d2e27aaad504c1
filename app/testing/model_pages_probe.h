// ModelPagesProbe: what the end-to-end tests read of the Models page
// (<KVCHAT_TEST_STATE_FILE>.models.json) and of My models (.library.json): each page's
// figures from its public getters, rewritten by a StateProbe after any of its signals.
// Made by main.cpp only when testing; the pages do not know it. GUI thread only.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <memory>

namespace kvchat::app {

class ModelLibraryController;
class ModelsPageController;
class StateProbe;

class ModelPagesProbe : public QObject {
  Q_OBJECT
 public:
  ModelPagesProbe(ModelsPageController& page, ModelLibraryController& library,
                  const QString& base_path, QObject* parent = nullptr);
  ~ModelPagesProbe() override;

  QVariantMap page_state() const;
  QVariantMap library_state() const;

 private:
  ModelsPageController& page_;
  ModelLibraryController& library_;
  QStringList opened_;   // downloads finished and opened, in order
  QStringList removed_;  // files removed from disk, in order
  std::unique_ptr<StateProbe> page_probe_, library_probe_;
};

}  // namespace kvchat::app
