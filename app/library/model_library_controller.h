// ModelLibraryController: the Models page's "My models" (ui/ModelLibrary.qml), what
// model_library.h finds on disk as rows for QML, each with its "will it fit?" at the
// page's context and KV type against the free memory (ModelsPageController's options,
// models_fit.h's arithmetic on the local header), and the row's actions: Open (like
// Ctrl+O), Show in folder, Remove from disk (only for kvchat's own files, those in its
// models folder; refused for the loaded model; the recent list drops it) and Forget (a
// file kept elsewhere, or the demo model, taken off the recent list and left on disk).
// What it needs from the rest of the app comes through Hooks.
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
  // last_used_text, loaded, owned (kvchat_owns_model_file: Remove from disk is offered),
  // demo (the bundled demo model), error, fit_state ("done" / "error" / "unreadable"),
  // fit, fit_error (fit and fit_state as ModelsPage.fitSummary reads them).
  Q_PROPERTY(QVariantList entries READ entries NOTIFY entriesChanged)
  Q_PROPERTY(QString message READ message NOTIFY messageChanged)
  Q_PROPERTY(QString modelsDir READ models_dir CONSTANT)
  // The engine's KV types (kvchat::kv_type_costs: "f32", "f16", "q8_0", "q4_0"), the
  // model picker's choices.
  Q_PROPERTY(QStringList kvTypes READ kv_types CONSTANT)

 public:
  struct Hooks {
    std::function<QStringList()> recent;                // the recent models, newest first
    std::function<QVariantMap()> used_at;               // path -> when it was last loaded
    std::function<QString()> loaded_path;               // the model loaded now ("" = none)
    std::function<void(const QString&)> open_model;     // ChatController::loadModel
    std::function<void(const QString&)> forget_recent;  // drops a path from the recent list
    std::function<QString()> demo_path;  // the bundled demo model, never deleted ("" = none)
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
  static QStringList kv_types();
  // The folders Show in folder showed, oldest first (tests).
  QList<QUrl> shown_folders() const { return shown_; }
  // The model picker (ui/ModelPicker.qml): what loading the file (a path or a file URL) with these
  // options will take, before the load (the model picker's figures, recomputed as the options
  // change): the file's facts (path, file_name, name, size_text, n_ctx_train) and fit_map_for's
  // figures at run_context(ctx) tokens of kv_type (models_fit.h: n_layers, n_kv_heads, head_dim,
  // runnable, why_not, n_ctx, weights_bytes, kv_bytes = K and V at exactly n_ctx tokens,
  // kv_allocated_bytes, total_bytes = weights + allocated KV, free_bytes, fits), with
  // gpu_layers, on_gpu (measured against the GPU's free memory: the CUDA backend runs the
  // chat and gpu_layers is not 0; else the free RAM), error ("" = computed) and fit_text,
  // one sentence in the window's language.
  Q_INVOKABLE QVariantMap loadEstimate(const QString& path, int ctx, const QString& kv_type,
                                       int gpu_layers);

  // Scans models/ and the recent list again (headers read again only for changed files).
  Q_INVOKABLE void refresh();
  Q_INVOKABLE void open(const QString& path);
  Q_INVOKABLE void showInFolder(const QString& path);
  // Why the file cannot be removed now ("" = it can): asked before the confirmation.
  // Besides the loaded model, a file kvchat does not own (model_removal_problem).
  Q_INVOKABLE QString removalProblem(const QString& path) const;
  // Removes the file from disk (after the window's confirmation); false: message says why.
  Q_INVOKABLE bool remove(const QString& path);
  // Takes the file off the recent list, the file left on disk; refused (false, message
  // says why) for a file the models folder shows, which would stay listed.
  Q_INVOKABLE bool forget(const QString& path);

 signals:
  void entriesChanged();
  void messageChanged();
  void modelRemoved(const QString& path);  // the file is gone from disk

 private:
  QString estimate_text(const QVariantMap& estimate) const;  // loadEstimate's fit_text
  void rebuild();  // entries_ from scanned_, the fits recomputed
  void set_message(const QString& text);
  ModelFileFacts facts_cached(const QString& path);
  QVariantMap entry_map(const ModelLibraryEntry& e, const QString& loaded_key,
                        const QString& demo_path) const;
  QString demo_path() const { return hooks_.demo_path ? hooks_.demo_path() : QString(); }

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
