// The window's controllers as singletons of the QML module `kvchat` (qt_add_qml_module in
// app/CMakeLists.txt): QML reads `Chat.send(...)`, `Models.modelInfo`, ... typed, so qmllint
// checks every use. The controllers are made by C++ (AppWindow) before the QML engine
// loads; each singleton's create() gives that one instance, owned by C++
// (QML_FOREIGN: the controllers' own headers know nothing of QML).
#pragma once

#include <QJSEngine>
#include <QQmlEngine>
#include <QtQml/qqmlregistration.h>

#include "chat/chat_controller.h"
#include "conversations/conversation_list_controller.h"
#include "conversations/system_prompt_controller.h"
#include "i18n/ui_language.h"
#include "library/model_library_controller.h"
#include "library/models_page_controller.h"
#include "memory/memory_state.h"
#include "model/model_controller.h"
#include "notices/notice_center.h"
#include "remote/remote_models_controller.h"
#include "server/local_server_controller.h"
#include "tools/tools_controller.h"
#include "window/ui_test_state.h"
#include "window/window_theme.h"

namespace kvchat::app::qml {

// The instance a singleton of type T hands to QML (set before the engine loads).
template <class T>
struct Instance {
  static inline T* object = nullptr;
  static T* create(QQmlEngine*, QJSEngine*) {
    QJSEngine::setObjectOwnership(object, QJSEngine::CppOwnership);
    return object;
  }
};

// Chat: the chat: messages, replies, conversations, settings.
struct ChatSingleton : Instance<ChatController> {
  Q_GADGET
  QML_FOREIGN(kvchat::app::ChatController)
  QML_NAMED_ELEMENT(Chat)
  QML_SINGLETON
};

// Notices: the banners' messages.
struct NoticesSingleton : Instance<NoticeCenter> {
  Q_GADGET
  QML_FOREIGN(kvchat::app::NoticeCenter)
  QML_NAMED_ELEMENT(Notices)
  QML_SINGLETON
};

// ConversationList: the sidebar's conversations.
struct ConversationListSingleton : Instance<ConversationListController> {
  Q_GADGET
  QML_FOREIGN(kvchat::app::ConversationListController)
  QML_NAMED_ELEMENT(ConversationList)
  QML_SINGLETON
};

// SystemPrompts: the saved system prompts.
struct SystemPromptsSingleton : Instance<SystemPromptController> {
  Q_GADGET
  QML_FOREIGN(kvchat::app::SystemPromptController)
  QML_NAMED_ELEMENT(SystemPrompts)
  QML_SINGLETON
};

// MemoryState: the memory panel's figures, snapshots, KV quality.
struct MemoryStateSingleton : Instance<MemoryState> {
  Q_GADGET
  QML_FOREIGN(kvchat::app::MemoryState)
  QML_NAMED_ELEMENT(MemoryState)
  QML_SINGLETON
};

// Models: the loaded model and its settings.
struct ModelsSingleton : Instance<ModelController> {
  Q_GADGET
  QML_FOREIGN(kvchat::app::ModelController)
  QML_NAMED_ELEMENT(Models)
  QML_SINGLETON
};

// ModelHub: the Models page: catalog, Hub, fit, downloads.
struct ModelHubSingleton : Instance<ModelsPageController> {
  Q_GADGET
  QML_FOREIGN(kvchat::app::ModelsPageController)
  QML_NAMED_ELEMENT(ModelHub)
  QML_SINGLETON
};

// Library: My models: the model files on disk.
struct LibrarySingleton : Instance<ModelLibraryController> {
  Q_GADGET
  QML_FOREIGN(kvchat::app::ModelLibraryController)
  QML_NAMED_ELEMENT(Library)
  QML_SINGLETON
};

// LocalServer: Settings → Local server.
struct LocalServerSingleton : Instance<LocalServerController> {
  Q_GADGET
  QML_FOREIGN(kvchat::app::LocalServerController)
  QML_NAMED_ELEMENT(LocalServer)
  QML_SINGLETON
};

// Tools: Settings → Tools: the MCP servers of mcp.json, their tools, consent, limits.
struct ToolsSingleton : Instance<ToolsController> {
  Q_GADGET
  QML_FOREIGN(kvchat::app::ToolsController)
  QML_NAMED_ELEMENT(Tools)
  QML_SINGLETON
};

// Remote: Models page → Remote (endpoints, their models) and the remote engine's memory.
struct RemoteSingleton : Instance<RemoteModelsController> {
  Q_GADGET
  QML_FOREIGN(kvchat::app::RemoteModelsController)
  QML_NAMED_ELEMENT(Remote)
  QML_SINGLETON
};
// Language: the window's language.
struct LanguageSingleton : Instance<UiLanguage> {
  Q_GADGET
  QML_FOREIGN(kvchat::app::UiLanguage)
  QML_NAMED_ELEMENT(Language)
  QML_SINGLETON
};

// UiTestState: what the window shows, for the end-to-end tests.
struct UiTestStateSingleton : Instance<UiTestState> {
  Q_GADGET
  QML_FOREIGN(kvchat::app::UiTestState)
  QML_NAMED_ELEMENT(UiTestState)
  QML_SINGLETON
};

// WindowTheme: the palette asked for at start.
struct WindowThemeSingleton : Instance<WindowTheme> {
  Q_GADGET
  QML_FOREIGN(kvchat::app::WindowTheme)
  QML_NAMED_ELEMENT(WindowTheme)
  QML_SINGLETON
};

// The types the singletons' properties hand out (Chat.documents, Chat.contextMeter, Chat.messages,
// ConversationList.model, SystemPrompts.model): known to QML by their members, made only by C++.
struct DocumentControllerType {
  Q_GADGET
  QML_FOREIGN(kvchat::app::DocumentController)
  QML_ANONYMOUS
};
struct ContextMeterType {
  Q_GADGET
  QML_FOREIGN(kvchat::app::ContextMeter)
  QML_ANONYMOUS
};
struct MessageListModelType {
  Q_GADGET
  QML_FOREIGN(kvchat::app::MessageListModel)
  QML_ANONYMOUS
};
struct ConversationListModelType {
  Q_GADGET
  QML_FOREIGN(kvchat::app::ConversationListModel)
  QML_ANONYMOUS
};
struct SystemPromptListModelType {
  Q_GADGET
  QML_FOREIGN(kvchat::app::SystemPromptListModel)
  QML_ANONYMOUS
};

}  // namespace kvchat::app::qml
