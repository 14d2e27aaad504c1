// kvchat: the desktop app. A Qt Quick window over ChatController; the engine runs on
// its own thread. `--data-dir DIR` keeps the database and settings under DIR (tests);
// `--model FILE` opens a GGUF instead of the embedded demo model; `--ctx N` sets the
// context length, `--kv-type TYPE` the KV type and `--context-policy P` the policy of the
// model opened (saved for that model, like the Settings drawer does); `--attach FILE` loads
// a document as the "Attach document" button would (once the model is ready) — what the
// end-to-end test uses, since synthetic drag-and-drop under Xvfb is unreliable.
// `kvchat FILE...` (the desktop entry's `Exec=kvchat %f`): a .gguf opens as a model, like
// --model; another file is attached as a document, like --attach.
//
// One window per data directory (single_instance.h): launched again on the same one, kvchat
// hands its files to the running window, which opens them and comes to the front, and
// exits 0. A running window that does not answer within a second is not waited for; one
// of another user (its socket or its process not this user's) is never trusted: the window
// then opens on its own and its banner says why.
#include <QAccessible>
#include <QCommandLineParser>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPalette>
#include <QQmlApplicationEngine>
#include <QQmlContext>
#include <QQuickItem>
#include <QQuickStyle>
#include <QQuickWindow>

#include <QTextStream>
#include <QTimer>
#include <cstdio>
#include <memory>

#include "chat_controller.h"
#include "i18n/ui_language.h"
#include "documents/document_controller.h"
#include "engine/engine_maps.h"
#include "engine/engine_worker.h"
#include "model_library_controller.h"
#include "models_page_controller.h"
#include "server/local_server_controller.h"
#include "single_instance.h"
#include "long_message_benchmark.h"
#include "stall_meter.h"
#include "test_state_file.h"
#include "testing/chat_state_probe.h"
#include "testing/model_pages_probe.h"

namespace {

// For the end-to-end tests: what the window itself shows, beside the controller's state
// file (KVCHAT_TEST_STATE_FILE), in "<that file>.ui.json": the layout Main.qml measures
// (pane widths, whether the memory panel is a drawer, the zoom), the item with the
// keyboard focus and the whole Tab order with each stop's accessible name. Inert when the
// variable is not set (Main.qml reports only when `enabled`).
class UiTestState : public QObject {
  Q_OBJECT
  Q_PROPERTY(bool enabled READ enabled CONSTANT)

 public:
  UiTestState() {
    const QString state = qEnvironmentVariable("KVCHAT_TEST_STATE_FILE");
    if (!state.isEmpty()) path_ = state + QStringLiteral(".ui.json");
  }
  bool enabled() const { return !path_.isEmpty(); }

  // `layout` plus, from `focus_root`'s window, the focused item and the Tab order from
  // `focus_root` round to itself. Written (atomically) only when something changed.
  Q_INVOKABLE void report(const QVariantMap& layout, QQuickItem* focus_root) {
    if (path_.isEmpty()) return;
    QVariantMap state = layout;
    if (focus_root && focus_root->window()) {
      QQuickWindow* window = focus_root->window();
      state.insert(QStringLiteral("focus"), describe(window->activeFocusItem()));
      QVariantList stops;
      QQuickItem* item = focus_root;
      for (int i = 0; i < 400 && item; ++i) {
        stops.append(describe(item));
        item = item->nextItemInFocusChain(true);
        if (item == focus_root) break;
      }
      state.insert(QStringLiteral("tab_order"), stops);
      state.insert(QStringLiteral("device_pixel_ratio"), window->devicePixelRatio());
    }
    const QByteArray json = QJsonDocument(QJsonObject::fromVariantMap(state)).toJson();
    if (json == last_) return;
    if (kvchat::app::write_test_state_file(path_, json)) last_ = json;
  }

 private:
  // One stop: objectName, QML type ("IconButton", not "IconButton_QMLTYPE_12") and the
  // name and role assistive technology gets: its Accessible.name, or for a button its
  // text (what Qt Quick Controls name a button by once an assistive technology is on,
  // which under Xvfb it is not).
  static QVariantMap describe(QQuickItem* item) {
    if (!item) return {};
    QString name;
    int role = 0;
    if (QAccessibleInterface* a = QAccessible::queryAccessibleInterface(item)) {
      name = a->text(QAccessible::Name);
      role = static_cast<int>(a->role());
    }
    if (name.isEmpty() && item->inherits("QQuickAbstractButton")) {
      name = item->property("text").toString();
    }
    const QString type =
        QString::fromLatin1(item->metaObject()->className()).section(QStringLiteral("_QML"), 0, 0);
    const QPointF at = item->mapToScene({0, 0});  // tells apart two stops of the same name
    return {{"object_name", item->objectName()},
            {"type", type},
            {"name", name},
            {"role", role},
            {"x", qRound(at.x())},
            {"y", qRound(at.y())}};
  }

  QString path_;
  QByteArray last_;
};

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

// A file named on the command line or handed over by a later launch: a GGUF model
// (by its extension) or a document to attach.
bool is_model_file(const QString& path) {
  return path.endsWith(QStringLiteral(".gguf"), Qt::CaseInsensitive);
}

// What a launch asks to open, as the running instance must read it: absolute paths (its
// working directory is another), URLs (a `file:` one, an `hf://` one) as given. `--model`
// first, then the positional files in their order.
QStringList files_to_open(const QString& model, const QStringList& positional) {
  QStringList files;
  auto add = [&files](const QString& f) {
    if (f.isEmpty()) return;
    files.append(f.contains(QStringLiteral("://")) ? f : QFileInfo(f).absoluteFilePath());
  };
  add(model);
  for (const QString& f : positional) add(f);
  return files;
}

// Opens `files` in the window: the last model among them is loaded, the other files are
// attached as documents (once the model is ready).
void open_files(kvchat::app::ChatController& chat, const QStringList& files) {
  QString model;
  for (const QString& f : files) {
    if (is_model_file(f)) model = f;
  }
  if (!model.isEmpty()) chat.models()->loadModel(model);
  for (const QString& f : files) {
    if (!is_model_file(f)) chat.document_controller()->attach(f);
  }
}

// Brings the window to the front (un-minimized, raised, asked for the keyboard focus).
void raise_window(QQmlApplicationEngine& engine) {
  if (engine.rootObjects().isEmpty()) return;
  auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().constFirst());
  if (!window) return;
  window->setWindowStates(window->windowStates() & ~Qt::WindowMinimized);
  window->show();
  window->raise();
  window->requestActivate();
}

// --benchmark-ui-stalls N: the longest time the GUI event loop did not run while the
// model loaded and while N tokens were generated (target: under 50 ms).
int benchmark_stalls(QGuiApplication& app, kvchat::app::ChatController& chat, const QString& path,
                     int tokens) {
  kvchat::app::StallMeter meter;
  double load_ms = 0, generate_ms = 0;
  qint64 load_ticks = 0;
  QObject::connect(chat.models(), &kvchat::app::ModelController::modelChanged, &app, [&] {
    if (chat.models()->loading() || load_ms > 0) return;
    meter.stop();
    load_ms = meter.longest_ms();
    load_ticks = meter.ticks();
    if (!chat.models()->error().isEmpty()) {
      std::fprintf(stderr, "kvchat: %s\n", qPrintable(chat.models()->error()));
      app.exit(1);
      return;
    }
    chat.newConversation();
    QVariantMap sampling = chat.models()->sampling();
    sampling["temperature"] = 0.0;
    sampling["max_tokens"] = tokens;
    chat.models()->set_sampling(sampling);
    meter.start();
    chat.send(QStringLiteral("Genesis 1\n1 In the beginning"));
  });
  QObject::connect(&chat, &kvchat::app::ChatController::replyFinished, &app, [&] {
    meter.stop();
    generate_ms = meter.longest_ms();
    const auto& stats = chat.last_reply_stats();
    std::printf(
        "{\"model\": \"%s\", \"load_longest_stall_ms\": %.2f, \"load_ticks\": %lld, "
        "\"generate_tokens\": %d, \"generate_longest_stall_ms\": %.2f, "
        "\"generate_ticks\": %lld, \"tokens_per_second\": %.1f}\n",
        qPrintable(path), load_ms, static_cast<long long>(load_ticks),
        stats.value("generated_tokens").toInt(), generate_ms, static_cast<long long>(meter.ticks()),
        stats.value("tokens_per_second").toDouble());
    app.quit();
  });
  QTimer::singleShot(500, &app, [&] {  // let the window show first
    meter.start();
    chat.models()->loadModel(path);
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
  QCommandLineOption data_dir({QStringLiteral("data-dir")},
                              QStringLiteral("Keep everything under DIR."), QStringLiteral("DIR"));
  QCommandLineOption model({QStringLiteral("model")}, QStringLiteral("Open this GGUF model."),
                           QStringLiteral("FILE"));
  QCommandLineOption theme({QStringLiteral("theme")},
                           QStringLiteral("light, dark or system (default)."),
                           QStringLiteral("THEME"), QStringLiteral("system"));
  QCommandLineOption stalls({QStringLiteral("benchmark-ui-stalls")},
                            QStringLiteral("Load the model, generate N tokens, print the longest "
                                           "event-loop stalls as JSON and quit."),
                            QStringLiteral("N"));
  QCommandLineOption long_messages(
      {QStringLiteral("benchmark-long-messages")},
      QStringLiteral("Open every conversation, page through and copy its long messages, print "
                     "the longest event-loop stall of each as JSON and quit (no model)."));
  QCommandLineOption attach({QStringLiteral("attach")},
                            QStringLiteral("Load this document (text, Markdown, PDF) and show its "
                                           "cost preview."),
                            QStringLiteral("FILE"));
  QCommandLineOption ctx({QStringLiteral("ctx")},
                         QStringLiteral("Context length in tokens (kept in the settings)."),
                         QStringLiteral("N"));
  cli.addOption(attach);
  cli.addOption(ctx);
  QCommandLineOption kv_type(
      {QStringLiteral("kv-type")},
      QStringLiteral("Use this KV type (f32, f16, q8_0, q4_0) for the model opened."),
      QStringLiteral("TYPE"));
  cli.addOption(kv_type);
  QCommandLineOption context_policy(
      {QStringLiteral("context-policy")},
      QStringLiteral(
          "When the context is full: drop-oldest (default), shift or stop (for the model opened)."),
      QStringLiteral("POLICY"));
  cli.addOption(context_policy);
  cli.addOption(data_dir);
  cli.addOption(model);
  cli.addOption(theme);
  cli.addOption(stalls);
  cli.addOption(long_messages);
  cli.addPositionalArgument(QStringLiteral("FILE"),
                            QStringLiteral("A GGUF model to open, or a document to attach."),
                            QStringLiteral("[FILE...]"));
  cli.process(app);

  // The database, settings and snapshots: under --data-dir, or $XDG_DATA_HOME/kvchat.
  const QString dir = cli.isSet(data_dir)
                          ? cli.value(data_dir)
                          : QFileInfo(kvchat::app::ConversationStore::default_path({})).path();
  const QStringList positional = cli.positionalArguments();
  const QStringList files = files_to_open(cli.value(model), positional);

  // Already running on this data directory: the files go to that window (a benchmark run
  // measures a window of its own). A socket of another user's is never trusted
  // (single_instance.h): this window then opens on its own and says why, on stderr and
  // (below) in the window.
  kvchat::app::SingleInstance instance(dir);
  QString untrusted, not_listening;
  const bool benchmark = cli.isSet(stalls) || cli.isSet(long_messages);
  if (!benchmark) {
    if (instance.hand_over(files, 1000, &untrusted)) return 0;
    if (!untrusted.isEmpty()) {
      std::fprintf(stderr, "kvchat: another instance was not trusted (%s): opening a window\n",
                   qPrintable(untrusted));
    }
    if (!instance.listen()) {
      not_listening = instance.error();
      std::fprintf(stderr, "kvchat: not single-instance (%s)\n", qPrintable(not_listening));
    }
  }
  kvchat::app::ChatController chat(dir);
  // The window's language: the system locale's, or the one chosen in Settings (saved).
  kvchat::app::UiLanguage language(
      [&chat](const QString& choice) { chat.setUiSetting(QStringLiteral("language"), choice); });
  language.apply(chat.uiSetting(QStringLiteral("language"), QStringLiteral("system")).toString());
  // Why this window is on its own, for the whole window (conversation 0) until dismissed.
  if (!untrusted.isEmpty()) {
    chat.notices()->set_message(
        QCoreApplication::translate("main",
                                    "Another kvchat on this data folder was not trusted, so this "
                                    "window opened on its own: %1.")
            .arg(untrusted),
        true, 0);
  } else if (!not_listening.isEmpty()) {
    chat.notices()->set_message(
        QCoreApplication::translate("main", "Files opened later will not come to this window: %1.")
            .arg(not_listening),
        true, 0);
  }

  // The Models page (issue 15): the catalog, the Hub search, "Will it fit?", downloads;
  // a finished download opens like any other model.
  kvchat::app::ModelsPageController model_hub(
      dir, kvchat::app::ConversationStore::default_path(dir),
      chat.uiSetting(QLatin1String(kvchat::hub::kHubEndpointSetting), QString()).toString(),
      [&chat](const QString& path) { chat.models()->loadModel(path); });
  model_hub.set_setting_saver(
      [&chat](const QString& key, const QVariant& value) { chat.setUiSetting(key, value); });
  // With the CUDA backend, "will it fit?" is against the GPU's free memory.
  kvchat::app::MemoryState* memory = chat.memory_state();
  QObject::connect(memory, &kvchat::app::MemoryState::memoryChanged, &model_hub,
                   [memory, &model_hub] {
                     model_hub.set_gpu_free_bytes(
                         memory->memory().value(QStringLiteral("device_free_bytes")).toLongLong());
                   });

  // My models (issue 26): the model files on disk, on the same page.
  kvchat::app::ModelLibraryController::Hooks library_hooks;
  library_hooks.recent = [&chat] { return chat.models()->recent_models(); };
  library_hooks.used_at = [&chat] { return chat.models()->recent_models_used(); };
  library_hooks.loaded_path = [&chat] { return chat.models()->path(); };
  library_hooks.open_model = [&chat](const QString& path) { chat.models()->loadModel(path); };
  library_hooks.forget_recent = [&chat](const QString& path) {
    chat.models()->forget_recent_model(path);
  };
  // Under test the folder is only recorded (in the state file), never opened.
  if (qEnvironmentVariableIsEmpty("KVCHAT_TEST_STATE_FILE"))
    library_hooks.open_folder = [](const QUrl& url) { QDesktopServices::openUrl(url); };
  kvchat::app::ModelLibraryController model_library(model_hub.models_dir(), &model_hub,
                                                    library_hooks);
  QObject::connect(chat.models(), &kvchat::app::ModelController::modelChanged, &model_library,
                   &kvchat::app::ModelLibraryController::refresh,
                   Qt::QueuedConnection);  // after the recent list is saved

  // Settings → Local server (issue 28): the window's model over the OpenAI API.
  kvchat::app::LocalServerController::Hooks server_hooks;
  server_hooks.model = [&chat] { return chat.engine_worker()->shared_model(); };
  server_hooks.session_options = [&chat] { return chat.engine_worker()->session_options(); };
  server_hooks.chat_template = [&chat] {
    kvchat::app::LocalServerController::ChatTemplateChoice choice;
    if (const auto format = chat.engine_worker()->chat_format()) {
      choice.override_text = kvchat::app::override_text_of(*format);
      choice.enable_thinking = format->enable_thinking();
    }
    return choice;
  };
  server_hooks.load_setting = [&chat](const QString& key, const QVariant& fallback) {
    return chat.uiSetting(key, fallback);
  };
  server_hooks.save_setting = [&chat](const QString& key, const QVariant& value) {
    chat.setUiSetting(key, value);
  };
  server_hooks.available_bytes = [memory] {
    return static_cast<uint64_t>(
        memory->memory().value(QStringLiteral("system_available_bytes")).toLongLong());
  };
  kvchat::app::LocalServerController local_server(server_hooks);
  QObject::connect(chat.models(), &kvchat::app::ModelController::modelChanged, &local_server,
                   &kvchat::app::LocalServerController::model_changed);
  QObject::connect(chat.engine_worker(), &kvchat::app::EngineWorker::chatFormatChanged,
                   &local_server, &kvchat::app::LocalServerController::chat_template_changed,
                   Qt::QueuedConnection);

  UiTestState ui_test_state;  // before the engine: outlives the QML that uses it
  // The end-to-end tests' view of the window (KVCHAT_TEST_STATE_FILE): an observer of the
  // controllers' signals, made only when testing.
  std::unique_ptr<kvchat::app::ChatStateProbe> probe;
  std::unique_ptr<kvchat::app::ModelPagesProbe> pages_probe;
  if (const QString path = qEnvironmentVariable("KVCHAT_TEST_STATE_FILE"); !path.isEmpty()) {
    probe = std::make_unique<kvchat::app::ChatStateProbe>(chat, path);
    probe->watch(&language);
    pages_probe = std::make_unique<kvchat::app::ModelPagesProbe>(model_hub, model_library, path);
  }
  QQmlApplicationEngine engine;
  engine.rootContext()->setContextProperty(QStringLiteral("chat"), &chat);
  engine.rootContext()->setContextProperty(QStringLiteral("notices"), chat.notices());
  engine.rootContext()->setContextProperty(QStringLiteral("conversationList"),
                                           chat.conversation_list());
  // The saved system prompts, picked per conversation (conversations/system_prompt_controller.h).
  engine.rootContext()->setContextProperty(QStringLiteral("systemPrompts"), chat.system_prompts());
  // The memory panel's figures, the snapshot lines, the KV quality (memory/memory_state.h).
  engine.rootContext()->setContextProperty(QStringLiteral("memoryState"), chat.memory_state());
  engine.rootContext()->setContextProperty(QStringLiteral("models"), chat.models());
  engine.rootContext()->setContextProperty(QStringLiteral("modelHub"), &model_hub);
  engine.rootContext()->setContextProperty(QStringLiteral("modelLibrary"), &model_library);
  engine.rootContext()->setContextProperty(QStringLiteral("localServer"), &local_server);
  engine.rootContext()->setContextProperty(QStringLiteral("language"), &language);
  engine.rootContext()->setContextProperty(QStringLiteral("uiTestState"), &ui_test_state);
  engine.rootContext()->setContextProperty(QStringLiteral("testProbe"),
                                           probe.get());  // null: not testing
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

  // Asked for (--model, else the last .gguf named), else the reopened conversation's model,
  // else the last one used, else the demo.
  QString asked = cli.value(model);
  for (const QString& f : positional) {
    if (!cli.isSet(model) && is_model_file(f)) asked = f;
  }
  const QString path = chat.model_to_open_at_start(asked, embedded_demo_model());
  if (cli.isSet(stalls)) return benchmark_stalls(app, chat, path, cli.value(stalls).toInt());
  if (cli.isSet(long_messages)) return kvchat::app::benchmark_long_messages(app, chat, engine);
  chat.models()->set_demo_model_path(embedded_demo_model());  // offered when a load fails
  if (cli.isSet(ctx) || cli.isSet(kv_type) || cli.isSet(context_policy)) {
    QVariantMap settings;
    if (cli.isSet(context_policy))
      settings.insert(QStringLiteral("context_policy"), cli.value(context_policy));
    if (cli.isSet(ctx)) settings.insert(QStringLiteral("ctx"), cli.value(ctx).toInt());
    if (cli.isSet(kv_type)) settings.insert(QStringLiteral("kv_type"), cli.value(kv_type));
    chat.models()->set_engine_settings_for(path, settings);  // this model's; used by the load below
  }
  if (!path.isEmpty()) chat.models()->loadModel(path);
  // After loadModel: the document waits for the model, its tokens counted with it.
  if (cli.isSet(attach)) {
    chat.document_controller()->attach(QFileInfo(cli.value(attach)).absoluteFilePath());
  }
  for (const QString& f : positional) {
    if (!is_model_file(f)) chat.document_controller()->attach(QFileInfo(f).absoluteFilePath());
  }
  // Later launches on this data directory: their files open here, the window comes up.
  QObject::connect(&instance, &kvchat::app::SingleInstance::filesReceived, &chat,
                   [&chat, &engine](const QStringList& handed) {
                     open_files(chat, handed);
                     raise_window(engine);
                   });
  return app.exec();
}

#include "main.moc"
