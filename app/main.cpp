// kvchat: the desktop app. A Qt Quick window (ui/, the QML module kvchat) over the parts
// AppWindow makes (app/window/app_window.h); the engine runs on its own thread. The command
// line: app/window/launch_options.h.
//
// One window per data directory (platform/single_instance.h): launched again on the same
// one, kvchat hands its files to the running window, which opens them and comes to the
// front, and exits 0. A running window that does not answer within a second is not waited
// for; one of another user (its socket or its process not this user's) is never trusted:
// the window then opens on its own and its banner says why.
#include <QGuiApplication>
#include <QQuickStyle>
#include <cstdio>

#include "platform/file_dialogs.h"
#include "platform/single_instance.h"
#include "window/app_window.h"
#include "window/launch_options.h"

int main(int argc, char** argv) {
  // The desktop's own file dialogs (the XDG portal) where they are there: decided before
  // the application object, which loads the platform theme (platform/file_dialogs.h).
  kvchat::app::prefer_platform_file_dialogs();
  QGuiApplication app(argc, argv);
  app.setApplicationName(QStringLiteral("kvchat"));
  app.setApplicationVersion(QStringLiteral(KVCHAT_VERSION));
  app.setDesktopFileName(QStringLiteral("io.github.kvchat.kvchat"));
  QQuickStyle::setStyle(QStringLiteral("Fusion"));
  const auto options = kvchat::app::LaunchOptions::parse(app);

  // Already running on this data directory: the files go to that window (a benchmark run
  // measures a window of its own). A socket of another user's is never trusted: this
  // window then opens on its own and says why, on stderr and in the window.
  kvchat::app::SingleInstance instance(options.data_dir);
  QString untrusted, not_listening;
  if (!options.benchmark()) {
    if (instance.hand_over(options.files_to_open(), 1000, &untrusted)) return 0;
    if (!untrusted.isEmpty()) {
      std::fprintf(stderr, "kvchat: another instance was not trusted (%s): opening a window\n",
                   qPrintable(untrusted));
    }
    if (!instance.listen()) {
      not_listening = instance.error();
      std::fprintf(stderr, "kvchat: not single-instance (%s)\n", qPrintable(not_listening));
    }
  }
  kvchat::app::AppWindow window(options);
  window.say_why_alone(untrusted, not_listening);
  if (!window.load()) return 1;
  return window.run(app, instance);
}
