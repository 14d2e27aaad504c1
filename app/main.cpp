// kvchat: the desktop app. A Qt Quick window over ChatController; the engine runs on
// its own thread. `--data-dir DIR` keeps the database and settings under DIR (tests);
// `--model FILE` opens a GGUF instead of the embedded demo model; `--ctx N` sets the
// context length (saved like the Settings drawer does); `--attach FILE` loads a document
// as the "Attach document" button would (once the model is ready) — what the end-to-end
// test uses, since synthetic drag-and-drop under Xvfb is unreliable.
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QPalette>
#include <QQmlApplicationEngine>
#include <QQmlContext>
#include <QQuickStyle>

#include <QTextStream>
#include <QTimer>
#include <cstdio>

#include "chat_controller.h"
#include "i18n/ui_language.h"
#include "documents/document_controller.h"
#include "models_page_controller.h"
#include "stall_meter.h"

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

// --benchmark-ui-stalls N: the longest time the GUI event loop did not run while the
// model loaded and while N tokens were generated (target: under 50 ms).
int benchmark_stalls(QGuiApplication& app, kvchat::app::ChatController& chat, const QString& path,
                     int tokens) {
  kvchat::app::StallMeter meter;
  double load_ms = 0, generate_ms = 0;
  qint64 load_ticks = 0;
  QObject::connect(&chat, &kvchat::app::ChatController::modelChanged, &app, [&] {
    if (chat.model_loading() || load_ms > 0) return;
    meter.stop();
    load_ms = meter.longest_ms();
    load_ticks = meter.ticks();
    if (!chat.model_error().isEmpty()) {
      std::fprintf(stderr, "kvchat: %s\n", qPrintable(chat.model_error()));
      app.exit(1);
      return;
    }
    chat.newConversation();
    QVariantMap sampling = chat.sampling();
    sampling["temperature"] = 0.0;
    sampling["max_tokens"] = tokens;
    chat.set_sampling(sampling);
    meter.start();
    chat.send(QStringLiteral("Genesis 1\n1 In the beginning"));
  });
  QObject::connect(&chat, &kvchat::app::ChatController::replyFinished, &app, [&] {
    meter.stop();
    generate_ms = meter.longest_ms();
    const auto& stats = chat.last_reply_stats();
    std::printf("{\"model\": \"%s\", \"load_longest_stall_ms\": %.2f, \"load_ticks\": %lld, "
                "\"generate_tokens\": %d, \"generate_longest_stall_ms\": %.2f, "
                "\"generate_ticks\": %lld, \"tokens_per_second\": %.1f}\n",
                qPrintable(path), load_ms, static_cast<long long>(load_ticks),
                stats.value("generated_tokens").toInt(), generate_ms,
                static_cast<long long>(meter.ticks()), stats.value("tokens_per_second").toDouble());
    app.quit();
  });
  QTimer::singleShot(500, &app, [&] {  // let the window show first
    meter.start();
    chat.loadModel(path);
  });
  return app.exec();
}

}  // namespace

int main(int argc, char** argv) {
  QGuiApplication app(argc, argv);
  app.setApplicationName(QStringLiteral("kvchat"));
  app.setApplicationVersion(QStringLiteral(KVCHAT_VERSION));
  app.setDesktopFileName(QStringLiteral("io.github.kvchat.kvchat"));
  QQuickStyle::setStyle(QStringLiteral("Fusion"));

  QCommandLineParser cli;
  cli.setApplicationDescription(QStringLiteral("kvchat: local chat that shows its KV cache"));
  cli.addHelpOption();
  cli.addVersionOption();
  QCommandLineOption data_dir({QStringLiteral("data-dir")}, QStringLiteral("Keep everything under DIR."),
                              QStringLiteral("DIR"));
  QCommandLineOption model({QStringLiteral("model")}, QStringLiteral("Open this GGUF model."),
                           QStringLiteral("FILE"));
  QCommandLineOption theme({QStringLiteral("theme")}, QStringLiteral("light, dark or system (default)."),
                           QStringLiteral("THEME"), QStringLiteral("system"));
  QCommandLineOption stalls({QStringLiteral("benchmark-ui-stalls")},
                            QStringLiteral("Load the model, generate N tokens, print the longest "
                                           "event-loop stalls as JSON and quit."),
                            QStringLiteral("N"));
  QCommandLineOption attach({QStringLiteral("attach")},
                            QStringLiteral("Load this document (text, Markdown, PDF) and show its "
                                           "cost preview."),
                            QStringLiteral("FILE"));
  QCommandLineOption ctx({QStringLiteral("ctx")},
                         QStringLiteral("Context length in tokens (kept in the settings)."),
                         QStringLiteral("N"));
  cli.addOption(attach);
  cli.addOption(ctx);
  cli.addOption(data_dir);
  cli.addOption(model);
  cli.addOption(theme);
  cli.addOption(stalls);
  cli.process(app);

  // The database, settings and snapshots: under --data-dir, or $XDG_DATA_HOME/kvchat.
  const QString dir = cli.isSet(data_dir)
                          ? cli.value(data_dir)
                          : QFileInfo(kvchat::app::ConversationStore::default_path({})).path();
  kvchat::app::ChatController chat(dir);
  // The window's language: the system locale's, or the one chosen in Settings (saved).
  kvchat::app::UiLanguage language(
      [&chat](const QString& choice) { chat.setUiSetting(QStringLiteral("language"), choice); });
  QObject::connect(&language, &kvchat::app::UiLanguage::changed, &chat, [&chat] { chat.write_test_state(); });
  language.apply(chat.uiSetting(QStringLiteral("language"), QStringLiteral("system")).toString());

  // The Models page (issue 15): the catalog, the Hub search, "Will it fit?", downloads;
  // a finished download opens like any other model.
  kvchat::app::ModelsPageController model_hub(
      dir, kvchat::app::ConversationStore::default_path(dir),
      chat.uiSetting(QLatin1String(kvchat::hub::kHubEndpointSetting), QString()).toString(),
      [&chat](const QString& path) { chat.loadModel(path); });
  model_hub.set_setting_saver(
      [&chat](const QString& key, const QVariant& value) { chat.setUiSetting(key, value); });

  QQmlApplicationEngine engine;
  engine.rootContext()->setContextProperty(QStringLiteral("chat"), &chat);
  engine.rootContext()->setContextProperty(QStringLiteral("modelHub"), &model_hub);
  engine.rootContext()->setContextProperty(QStringLiteral("language"), &language);
  language.set_engine(&engine);
  engine.rootContext()->setContextProperty(QStringLiteral("storeError"), chat.store_error());
  // "dark" / "light" force a palette; "system" follows the platform theme: dark when its
  // window colour is dark (Qt 6.4 has no colour-scheme API; the palette is what it gives).
  QString theme_name = cli.value(theme);
  if (theme_name == QStringLiteral("system") &&
      QGuiApplication::palette().color(QPalette::Window).lightness() < 128) {
    theme_name = QStringLiteral("dark");
  }
  engine.rootContext()->setContextProperty(QStringLiteral("themeName"), theme_name);
  engine.load(QUrl(QStringLiteral("qrc:/ui/Main.qml")));
  if (engine.rootObjects().isEmpty()) return 1;

  const QString path = cli.isSet(model) ? cli.value(model) : embedded_demo_model();
  if (cli.isSet(stalls)) return benchmark_stalls(app, chat, path, cli.value(stalls).toInt());
  if (cli.isSet(ctx)) {
    QVariantMap settings = chat.engine_settings();
    settings.insert(QStringLiteral("ctx"), cli.value(ctx).toInt());
    chat.setEngineSettings(settings);  // no model yet: saved, used by the load below
  }
  if (!path.isEmpty()) chat.loadModel(path);
  // After loadModel: the document waits for the model, its tokens counted with it.
  if (cli.isSet(attach)) {
    chat.document_controller()->attach(QFileInfo(cli.value(attach)).absoluteFilePath());
  }
  return app.exec();
}
