// What `kvchat` is asked to do at launch, from its command line:
//   --data-dir DIR     keep the database and settings under DIR (tests)
//   --model FILE       open a GGUF instead of the embedded demo model
//   --ctx N, --kv-type TYPE, --context-policy P
//                      the context length, KV type and policy of the model opened (saved
//                      for that model, like the Settings drawer does)
//   --attach FILE      load a document as "Attach document" would (once the model is
//                      ready): what the end-to-end tests use, since synthetic drag-and-drop
//                      under Xvfb is unreliable
//   --theme T          light, dark or system
//   --benchmark-ui-stalls N, --benchmark-long-messages
//   FILE...            (the desktop entry's `Exec=kvchat %f`) a .gguf opens as a model,
//                      like --model; another file is attached, like --attach
#pragma once

#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <optional>

class QCoreApplication;

namespace kvchat::app {

struct LaunchOptions {
  QString data_dir;  // --data-dir, else where ConversationStore keeps kvchat.sqlite
  QString model;     // --model ("" when not given)
  QStringList positional;
  QString attach;
  QString theme = QStringLiteral("system");
  std::optional<int> benchmark_stall_tokens;  // --benchmark-ui-stalls N
  bool benchmark_long_messages = false;
  // --ctx, --kv-type, --context-policy: engine settings for the model opened (empty: none).
  QVariantMap engine_settings;

  static LaunchOptions parse(const QCoreApplication& app);  // --help and --version exit
  bool benchmark() const { return benchmark_stall_tokens || benchmark_long_messages; }
  // What a launch asks to open, as a running instance must read it: absolute paths (its
  // working directory is another), URLs (a `file:` one, an `hf://` one) as given. --model
  // first, then the positional files in their order.
  QStringList files_to_open() const;
  // The model asked for: --model, else the last .gguf named.
  QString asked_model() const;
};

// A file named on the command line or handed over by a later launch: a GGUF model (by its
// extension) or a document to attach.
bool is_model_file(const QString& path);

}  // namespace kvchat::app
