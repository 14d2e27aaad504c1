// kvchat: the desktop app. A Qt Quick window over ChatController; the engine runs on
// its own thread. `--data-dir DIR` keeps the database and settings under DIR (tests);
// `--model FILE` opens a GGUF instead of the embedded demo model.
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QQmlApplicationEngine>
#include <QQmlContext>
#include <QQuickStyle>
#include <QStandardPaths>

#include "chat_controller.h"

namespace {

// The demo model ships beside the binary (build/share/kvchat/models, or the installed
// share directory).
QString embedded_demo_model() {
  const QDir bin(QCoreApplication::applicationDirPath());
  for (const QString& rel : {QStringLiteral("../share/kvchat/models/kjv-demo-f16.gguf"),
                             QStringLiteral("../../resources/models/kjv-demo-f16.gguf")}) {
    const QString p = bin.absoluteFilePath(rel);
    if (QFileInfo::exists(p)) return QDir::cleanPath(p);
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  QGuiApplication app(argc, argv);
  app.setApplicationName(QStringLiteral("kvchat"));
  app.setOrganizationName(QStringLiteral("kvchat"));
  QQuickStyle::setStyle(QStringLiteral("Fusion"));

  QCommandLineParser cli;
  cli.setApplicationDescription(QStringLiteral("kvchat: local chat that shows its KV cache"));
  cli.addHelpOption();
  QCommandLineOption data_dir({QStringLiteral("data-dir")}, QStringLiteral("Keep everything under DIR."),
                              QStringLiteral("DIR"));
  QCommandLineOption model({QStringLiteral("model")}, QStringLiteral("Open this GGUF model."),
                           QStringLiteral("FILE"));
  cli.addOption(data_dir);
  cli.addOption(model);
  cli.process(app);

  const QString dir = cli.isSet(data_dir)
                          ? cli.value(data_dir)
                          : QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
  kvchat::app::ChatController chat(dir);

  QQmlApplicationEngine engine;
  engine.rootContext()->setContextProperty(QStringLiteral("chat"), &chat);
  engine.rootContext()->setContextProperty(QStringLiteral("storeError"), chat.store_error());
  engine.load(QUrl(QStringLiteral("qrc:/ui/Main.qml")));
  if (engine.rootObjects().isEmpty()) return 1;

  const QString path = cli.isSet(model) ? cli.value(model) : embedded_demo_model();
  if (!path.isEmpty()) chat.loadModel(path);
  return app.exec();
}
