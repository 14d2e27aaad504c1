#include "window/app_window.h"

#include <QDesktopServices>
#include <QFileInfo>
#include <QGuiApplication>
#include <QQuickWindow>
#include <QUrl>

#include "documents/document_controller.h"
#include "engine/engine_maps.h"
#include "engine/engine_worker.h"
#include "hub/hub_endpoint.h"
#include "kvchat/chat_model.h"
#include "memory/memory_state.h"
#include "model/model_controller.h"
#include "notices/notice_center.h"
#include "platform/single_instance.h"
#include "testing/long_message_benchmark.h"
#include "testing/stall_benchmark.h"
#include "window/qml_singletons.h"

namespace kvchat::app {
namespace {

QString embedded_demo_model();  // below

// My models (issue 26): the model files on disk, opened and forgotten through the chat.
ModelLibraryController::Hooks library_hooks(ChatController& chat) {
  ModelLibraryController::Hooks h;
  h.recent = [&chat] { return chat.models()->recent_models(); };
  h.used_at = [&chat] { return chat.models()->recent_models_used(); };
  h.loaded_path = [&chat] { return chat.models()->path(); };
  h.open_model = [&chat](const QString& path) { chat.models()->loadModel(path); };
  h.forget_recent = [&chat](const QString& path) { chat.models()->forget_recent_model(path); };
  h.demo_path = [] { return embedded_demo_model(); };  // never deleted (issue 43)
  // Under test the folder is only recorded (in the state file), never opened.
  if (qEnvironmentVariableIsEmpty("KVCHAT_TEST_STATE_FILE"))
    h.open_folder = [](const QUrl& url) { QDesktopServices::openUrl(url); };
  return h;
}

// Settings → Local server (issue 28): the window's model, settings and chat template over
// the OpenAI API.
LocalServerController::Hooks server_hooks(ChatController& chat) {
  LocalServerController::Hooks h;
  h.model = [&chat] { return chat.engine_worker()->shared_model(); };
  h.session_options = [&chat] { return chat.engine_worker()->session_options(); };
  h.chat_template = [&chat] {
    LocalServerController::ChatTemplateChoice choice;
    if (const auto format = chat.engine_worker()->chat_format()) {
      choice.override_text = override_text_of(*format);
      choice.enable_thinking = format->enable_thinking();
    }
    return choice;
  };
  h.load_setting = [&chat](const QString& key, const QVariant& fallback) {
    return chat.uiSetting(key, fallback);
  };
  h.save_setting = [&chat](const QString& key, const QVariant& value) {
    chat.setUiSetting(key, value);
  };
  MemoryState* memory = chat.memory_state();
  h.available_bytes = [memory] {
    return static_cast<uint64_t>(
        memory->memory().value(QStringLiteral("system_available_bytes")).toLongLong());
  };
  return h;
}

// The demo model shipped beside the binary (kvchat::demo_model_path).
QString embedded_demo_model() {
  return QString::fromStdString(
      demo_model_path(QCoreApplication::applicationFilePath().toStdString()));
}

}  // namespace

AppWindow::AppWindow(const LaunchOptions& options)
    : options_(options),
      chat_(options.data_dir),
      // The window's language: the system locale's, or the one chosen in Settings (saved).
      language_([this](const QString& choice) {
        chat_.setUiSetting(QStringLiteral("language"), choice);
      }),
      // The Models page (issue 15): the catalog, the Hub search, "Will it fit?", downloads;
      // a finished download opens like any other model.
      hub_(options.data_dir, ConversationStore::default_path(options.data_dir),
           chat_.uiSetting(QLatin1String(hub::kHubEndpointSetting), QString()).toString(),
           [this](const QString& path) { chat_.models()->loadModel(path); }),
      library_(hub_.models_dir(), &hub_, library_hooks(chat_)),
      server_(server_hooks(chat_)),
      theme_(options.theme) {
  language_.apply(chat_.uiSetting(QStringLiteral("language"), QStringLiteral("system")).toString());
  hub_.set_setting_saver(
      [this](const QString& key, const QVariant& value) { chat_.setUiSetting(key, value); });
  wire();
  // The end-to-end tests' view of the window (KVCHAT_TEST_STATE_FILE): an observer of the
  // controllers' signals, made only when testing.
  if (const QString path = qEnvironmentVariable("KVCHAT_TEST_STATE_FILE"); !path.isEmpty()) {
    probe_ = std::make_unique<ChatStateProbe>(chat_, path);
    probe_->watch(&language_);
    pages_probe_ = std::make_unique<ModelPagesProbe>(hub_, library_, path);
    ui_test_state_.set_probe(probe_.get());
  }
}

void AppWindow::wire() {
  // With the CUDA backend, "will it fit?" is against the GPU's free memory.
  MemoryState* memory = chat_.memory_state();
  QObject::connect(memory, &MemoryState::memoryChanged, &hub_, [this, memory] {
    hub_.set_gpu_free_bytes(
        memory->memory().value(QStringLiteral("device_free_bytes")).toLongLong());
  });
  QObject::connect(chat_.models(), &ModelController::modelChanged, &library_,
                   &ModelLibraryController::refresh,
                   Qt::QueuedConnection);  // after the recent list is saved
  QObject::connect(chat_.models(), &ModelController::modelChanged, &server_,
                   &LocalServerController::model_changed);
  // A running server restarts with a new template; every restart is said with its reason
  // in the status line (its clients' generations in flight were cancelled), and one that
  // did not serve again says why.
  QObject::connect(
      chat_.engine_worker(), &EngineWorker::chatFormatChanged, &server_,
      [this] {
        const QString note = server_.chat_template_changed();
        if (!note.isEmpty() && !server_.running()) chat_.models()->note_setting(note);
      },
      Qt::QueuedConnection);
  QObject::connect(&server_, &LocalServerController::restarted, chat_.models(),
                   [this](const QString& message) { chat_.models()->note_setting(message); });
}

void AppWindow::say_why_alone(const QString& untrusted, const QString& not_listening) {
  if (!untrusted.isEmpty()) {
    chat_.notices()->set_message(
        QCoreApplication::translate("main",
                                    "Another kvchat on this data folder was not trusted, so this "
                                    "window opened on its own: %1.")
            .arg(untrusted),
        true, 0);
  } else if (!not_listening.isEmpty()) {
    chat_.notices()->set_message(
        QCoreApplication::translate("main", "Files opened later will not come to this window: %1.")
            .arg(not_listening),
        true, 0);
  }
}

bool AppWindow::load() {
  qml::ChatSingleton::object = &chat_;
  qml::NoticesSingleton::object = chat_.notices();
  qml::ConversationListSingleton::object = chat_.conversation_list();
  qml::SystemPromptsSingleton::object = chat_.system_prompts();
  qml::MemoryStateSingleton::object = chat_.memory_state();
  qml::ModelsSingleton::object = chat_.models();
  qml::ModelHubSingleton::object = &hub_;
  qml::LibrarySingleton::object = &library_;
  qml::LocalServerSingleton::object = &server_;
  qml::ToolsSingleton::object = chat_.tools();
  qml::RemoteSingleton::object = chat_.remote();
  qml::LanguageSingleton::object = &language_;
  qml::UiTestStateSingleton::object = &ui_test_state_;
  qml::WindowThemeSingleton::object = &theme_;
  language_.set_engine(&engine_);
  engine_.addImportPath(QStringLiteral("qrc:/"));  // the module kvchat: qrc:/kvchat
  engine_.load(QUrl(QStringLiteral("qrc:/kvchat/Main.qml")));
  return !engine_.rootObjects().isEmpty();
}

int AppWindow::run(QGuiApplication& app, SingleInstance& instance) {
  // Asked for (--model, else the last .gguf named), else the reopened conversation's model,
  // else the last one used, else the demo.
  const QString demo = embedded_demo_model();
  const QString path = chat_.model_to_open_at_start(options_.asked_model(), demo);
  if (options_.benchmark_stall_tokens)
    return benchmark_stalls(app, chat_, path, *options_.benchmark_stall_tokens);
  if (options_.benchmark_long_messages) return benchmark_long_messages(app, chat_, engine_);
  chat_.models()->set_demo_model_path(demo);  // offered when a load fails
  // --ctx, --kv-type, --context-policy: this model's; used by the load below.
  if (!options_.engine_settings.isEmpty())
    chat_.models()->set_engine_settings_for(path, options_.engine_settings);
  if (!path.isEmpty()) chat_.models()->loadModel(path);
  // After loadModel: the document waits for the model, its tokens counted with it.
  if (!options_.attach.isEmpty())
    chat_.document_controller()->attach(QFileInfo(options_.attach).absoluteFilePath());
  for (const QString& f : options_.positional) {
    if (!is_model_file(f)) chat_.document_controller()->attach(QFileInfo(f).absoluteFilePath());
  }
  // Later launches on this data directory: their files open here, the window comes up.
  QObject::connect(&instance, &SingleInstance::filesReceived, &chat_,
                   [this](const QStringList& handed) { open_handed_over(handed); });
  return app.exec();
}

void AppWindow::open_handed_over(const QStringList& files) {
  QString model;
  for (const QString& f : files) {
    if (is_model_file(f)) model = f;
  }
  if (!model.isEmpty()) chat_.models()->loadModel(model);
  for (const QString& f : files) {
    if (!is_model_file(f)) chat_.document_controller()->attach(f);
  }
  raise();
}

void AppWindow::raise() {
  if (engine_.rootObjects().isEmpty()) return;
  auto* window = qobject_cast<QQuickWindow*>(engine_.rootObjects().constFirst());
  if (!window) return;
  window->setWindowStates(window->windowStates() & ~Qt::WindowMinimized);
  window->show();
  window->raise();
  window->requestActivate();
}

}  // namespace kvchat::app
