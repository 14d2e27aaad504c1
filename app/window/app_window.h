// AppWindow: the window's parts made and wired once: the chat (ChatController, which makes
// the engine thread, the store, the models, the documents), the window's language, the
// Models page and My models, the local server, what the end-to-end tests read, and the QML
// engine that shows them (Main.qml of the module kvchat, the parts as its singletons:
// window/qml_singletons.h). Members are made in the order declared and destroyed in reverse:
// the QML engine first, the chat last.
#pragma once

#include <QQmlApplicationEngine>
#include <QString>
#include <memory>

#include "chat/chat_controller.h"
#include "i18n/ui_language.h"
#include "library/model_library_controller.h"
#include "library/models_page_controller.h"
#include "server/local_server_controller.h"
#include "testing/chat_state_probe.h"
#include "testing/model_pages_probe.h"
#include "window/launch_options.h"
#include "window/ui_test_state.h"
#include "window/window_theme.h"

class QGuiApplication;

namespace kvchat::app {

class SingleInstance;

class AppWindow {
 public:
  explicit AppWindow(const LaunchOptions& options);

  // Why this window is on its own (another instance not trusted, or not listening for
  // later launches), for the whole window until dismissed. Empty: nothing to say.
  void say_why_alone(const QString& untrusted, const QString& not_listening);
  // Main.qml loaded with the parts as singletons; false when it could not be.
  bool load();
  // The model and files asked for opened (or a benchmark run), later launches' files
  // taken from `instance`; the application's event loop until it quits.
  int run(QGuiApplication& app, SingleInstance& instance);

 private:
  void wire();  // the parts that follow each other (free memory, the loaded model)
  // Opens `files`: the last model among them is loaded, the other files are attached as
  // documents (once the model is ready); the window comes to the front.
  void open_handed_over(const QStringList& files);
  void raise();

  LaunchOptions options_;
  ChatController chat_;
  UiLanguage language_;
  ModelsPageController hub_;
  ModelLibraryController library_;
  LocalServerController server_;
  UiTestState ui_test_state_;
  WindowTheme theme_;
  std::unique_ptr<ChatStateProbe> probe_;  // KVCHAT_TEST_STATE_FILE only
  std::unique_ptr<ModelPagesProbe> pages_probe_;
  QQmlApplicationEngine engine_;
};

}  // namespace kvchat::app
