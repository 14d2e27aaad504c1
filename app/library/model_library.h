// "My models" (issue 26): the model files on this computer, the data directory's models/
// and the recent models that still exist (one row per file: paths compared once
// resolved), each with what its GGUF header says (read from disk, without loading the
// model): the window's name for it, architecture, quantization, size, trained context.
// Plain structs and functions, no QML: ModelLibraryController shows them.
#pragma once

#include <QDateTime>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <QVector>
#include <functional>
#include <memory>

#include "kvchat/gguf_inspect.h"

namespace kvchat::app {

struct ModelFileFacts {
  QString path;       // absolute
  QString file_name;  // "stories260K.gguf"
  QString
      name;  // model_display_name: "stories260K" (general.name beside it only when it says more)
  QString general_name, architecture;
  QString quantization;  // the tensor type holding most of the bytes ("F16", "Q4_K")
  qint64 size = 0;       // bytes on disk
  int n_ctx_train = 0;   // 0: not known
  QDateTime modified;
  // Why the header cannot be read (truncated, not GGUF...); then only path, file_name,
  // name, size and modified are filled.
  QString error;
  std::shared_ptr<const GgufInspection> inspection;
};

// The facts of one file, its header read from disk.
ModelFileFacts read_model_file_facts(const QString& path);

struct ModelLibraryEntry {
  ModelFileFacts facts;
  bool in_models_dir = false;
  int recent_rank = -1;  // its place in the recent list (0: the last used); -1: never used
  QDateTime last_used;   // when it was last loaded, when known
};

// The key two paths of the same file share: the canonical path when the file exists,
// else the absolute one.
QString model_file_key(const QString& path);

// Every *.gguf in models_dir (by name) and every recent model that exists, deduplicated;
// recent ones first, in the recent order (newest first), then the others by file name.
// used_at: path -> when it was loaded (ISO 8601 text or QDateTime). read: how a file's
// facts are read (read_model_file_facts; the controller caches).
using ModelFactsReader = std::function<ModelFileFacts(const QString& path)>;
QVector<ModelLibraryEntry> scan_model_library(const QString& models_dir, const QStringList& recent,
                                              const QVariantMap& used_at,
                                              const ModelFactsReader& read = {});

// Whose a model file is (issue 43). kvchat deletes only what it owns: the files in its
// models folder (downloaded there, or moved there by the user). A file opened from
// elsewhere is the user's, and so is whatever a link in the models folder points to
// outside it (links are resolved first); the demo model that comes with kvchat is never
// deleted, wherever it lies.
enum class ModelFileOwner {
  Kvchat,     // in the models folder, once resolved
  Elsewhere,  // outside it (or not there): only taken off the list (Forget)
  Demo,       // the bundled demo model (demo_path), the same file however named
};
ModelFileOwner model_file_owner(const QString& path, const QString& models_dir,
                                const QString& demo_path);
inline bool kvchat_owns_model_file(const QString& path, const QString& models_dir,
                                   const QString& demo_path) {
  return model_file_owner(path, models_dir, demo_path) == ModelFileOwner::Kvchat;
}

// Whether the list shows the file because models_dir holds it (a *.gguf there, or a link
// there to it): then taking it off the recent list does not take it off the list.
bool listed_from_models_dir(const QString& path, const QString& models_dir);

// Why remove_model_file would refuse the file ("" = it would not): not there, the demo
// model, not kvchat's (outside the models folder, or a link there to a file outside), or
// the model loaded now.
QString model_removal_problem(const QString& path, const QString& loaded_path,
                              const QString& models_dir, const QString& demo_path);

// Removes the file from disk: the resolved file, in the models folder (a link to it is
// left, dangling, wherever it is). Refused (false, *error says why) for what
// model_removal_problem names, and a file the system does not let go. The refusal of a
// file kvchat does not own is here too, not only in the window, so that no caller
// deletes the user's files.
bool remove_model_file(const QString& path, const QString& loaded_path, const QString& models_dir,
                       const QString& demo_path, QString* error);

}  // namespace kvchat::app
