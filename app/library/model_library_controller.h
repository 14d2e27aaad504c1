// ModelLibraryController: the Models page's "My models" (ui/ModelLibrary.qml), what
// model_library.h finds on disk as rows for QML, each with its "will it fit?" at the
// page's context and KV type against the free memory (ModelsPageController's options,
// models_fit.h's arithmetic on the local header), and the row's actions: Open (like
// Ctrl+O), Show in folder, Remove from disk (refused for the loaded model; the recent
// list drops it). What it needs from the rest of the app comes through Hooks.
#pragma once

#include <QHash>
#include <QObject>
#include <QUrl>
#include <QVariantList>
#include <functional>

#include "library/model_library.h"

namespace kvchat::app {

class ModelsPageController;

class ModelLibraryController : public QObject {
  Q_OBJECT
  // Maps: path, file_name, name, general_name, architecture, quantization, size,
  // size_text, n_ctx_train, in_models_dir, recent_rank, last_used (ISO or ""),
  // last_used_text, loaded, error, fit_state ("done" / "error" / "unreadable"), fit,
  // fit_error (fit and fit_state as ModelsPage.fitSummary reads them).
  Q_PROPERTY(QVariantList entries READ entries NOTIFY entriesChanged)
  Q_PROPERTY(QString message READ message NOTIFY messageChanged)
  Q_PROPERTY(QString modelsDir READ models_dir CONSTANT)

 public:
  struct Hooks {
    std::function<QStringList()> recent;                // the recent models, newest first
    std::function<QVariantMap()> used_at;               // path -> when it was last loaded
    std::function<QString()> loaded_path;               // the model loaded now ("" = none)
    std::function<void(const QString&)> open_model;     // ChatController::loadModel
    std::function<void(const QString&)> forget_recent;  // drops a removed file from the list
    // How a folder is shown (QDesktopServices::openUrl in the app; unset: only recorded).
    std::function<void(const QUrl&)> open_folder;
  };
  // page: the fit options and the free memory (may be null: the fits at 4096 f16 and
  // MemAvailable).
  ModelLibraryController(const QString& models_dir, ModelsPageController* page, Hooks hooks,
                         QObject* parent = nullptr);

  QVariantList entries() const { return entries_; }
  QString message() const { return message_; }
  QString models_dir() const { return models_dir_; }
  // The folders Show in folder showed, oldest first (tests).
  QList<QUrl> shown_folders() const { return shown_; }

  // Scans models/ and the recent list again (headers read again only for changed files).
  Q_INVOKABLE void refresh();
  Q_INVOKABLE void open(const QString& path);
  Q_INVOKABLE void showInFolder(const QString& path);
  // Why the file cannot be removed now ("" = it can): asked before the confirmation.
  Q_INVOKABLE QString removalProblem(const QString& path) const;
  // Removes the file from disk (after the window's confirmation); false: message says why.
  Q_INVOKABLE bool remove(const QString& path);

 signals:
  void entriesChanged();
  void messageChanged();
  void modelRemoved(const QString& path);  // the file is gone from disk

 private:
  void rebuild();  // entries_ from scanned_, the fits recomputed
  void set_message(const QString& text);
  ModelFileFacts facts_cached(const QString& path);
  QVariantMap entry_map(const ModelLibraryEntry& e, const QString& loaded_key) const;

  QString models_dir_;
  ModelsPageController* page_;
  Hooks hooks_;
  QHash<QString, ModelFileFacts> cache_;  // by model_file_key
  QVector<ModelLibraryEntry> scanned_;
  QVariantList entries_;
  QString message_;
  QList<QUrl> shown_;
};

}  // namespace kvchat::app
