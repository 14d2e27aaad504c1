#include "testing/chat_state_probe.h"

#include <QAbstractItemModel>
#include <QCoreApplication>
#include <QLocale>
#include <algorithm>

#include "chat/chat_controller.h"
#include "conversations/conversation_list_controller.h"
#include "documents/document_controller.h"
#include "util/byte_size.h"
#include "memory/memory_state.h"
#include "model/model_controller.h"
#include "notices/notice_center.h"
#include "testing/state_probe.h"

namespace kvchat::app {

ChatStateProbe::ChatStateProbe(ChatController& chat, const QString& path, QObject* parent)
    : QObject(parent), chat_(chat) {
  // "reply_finished": set when a reply ends, cleared when the next starts or another
  // conversation's memory is restored (its earlier reply is no news).
  connect(&chat_, &ChatController::replyEnded, this, [this] { reply_finished_ = true; });
  connect(&chat_, &ChatController::generatingChanged, this, [this] {
    if (chat_.generating()) reply_finished_ = false;
  });
  connect(chat_.memory_state(), &MemoryState::snapshotRestored, this,
          [this] { reply_finished_ = false; });
  auto* messages = qobject_cast<QAbstractItemModel*>(chat_.messages());
  connect(messages, &QAbstractItemModel::modelReset, this, [this] { shown_texts_.clear(); });
  connect(messages, &QAbstractItemModel::rowsRemoved, this,
          [this](const QModelIndex&, int first, int) {
            for (auto it = shown_texts_.begin(); it != shown_texts_.end();) {
              it = it.key() >= first ? shown_texts_.erase(it) : std::next(it);
            }
          });
  // Made after the hooks above: a signal they handle is in the state it writes.
  writer_ = std::make_unique<StateProbe>(path, [this] { return state(); });
  for (QObject* object :
       {static_cast<QObject*>(&chat_), static_cast<QObject*>(chat_.models()),
        static_cast<QObject*>(chat_.memory_state()), static_cast<QObject*>(chat_.notices()),
        static_cast<QObject*>(chat_.conversation_list()), static_cast<QObject*>(chat_.documents()),
        static_cast<QObject*>(chat_.messages()), static_cast<QObject*>(chat_.tools()),
        static_cast<QObject*>(chat_.remote()),
        static_cast<QObject*>(chat_.conversation_list()->list_model())}) {
    writer_->watch(object);
  }
}

ChatStateProbe::~ChatStateProbe() = default;

void ChatStateProbe::watch(QObject* object) { writer_->watch(object); }

void ChatStateProbe::noteShownText(int row, const QString& text) {
  if (const auto it = shown_texts_.constFind(row); it != shown_texts_.constEnd() && *it == text)
    return;
  shown_texts_.insert(row, text);
  writer_->schedule();
}

QVariantMap ChatStateProbe::reply_state() const {
  const QVector<StoredMessage>& items = chat_.message_items();
  QVariantMap reply;
  if (!items.isEmpty()) {
    const StoredMessage& m = items.back();
    reply = {{"role", m.role},
             {"state", message_state_name(m.state)},
             {"version", m.version},
             {"version_count", m.version_count},
             {"content", m.content},
             {"stats", m.stats},
             {"tool_steps", m.tool_steps}};
  }
  QVariantList shown;
  for (int row = 0; row < items.size(); ++row) shown.push_back(shown_texts_.value(row));
  reply.insert(QStringLiteral("shown_texts"), shown);
  return reply;
}

QVariantMap ChatStateProbe::state() const {
  const QVector<StoredMessage>& items = chat_.message_items();
  QVariantMap last_message;
  if (!items.isEmpty()) {
    const StoredMessage& m = items.back();
    last_message = {{"role", m.role}, {"chars", m.content.size()}, {"stats", m.stats}};
  }
  const MemoryState& memory = *chat_.memory_state();  // the memory panel's figures
  const QVariantList history = memory.memory_history();
  const ModelController& models = *chat_.models();
  QVariantMap state{
      {"reply_finished", reply_finished_},
      {"messages", static_cast<int>(items.size())},
      {"memory", memory.memory()},
      {"kv_used_text", util::format_bytes(memory.memory().value("kv_used_bytes").toDouble())},
      {"snapshot_status", memory.snapshot_status()},
      {"snapshot_bytes", memory.snapshot_bytes()},
      {"current_conversation", chat_.current_conversation()},
      {"memory_history_points", history.size()},
      {"memory_history_last_tokens",
       history.isEmpty() ? QVariant(-1) : history.back().toMap().value("tokens")},
      {"kv_quality", memory.kv_quality()},
      {"store_error", chat_.store_error()},
      {"reply", reply_state()},  // the last reply's version, state, text, tool calls
      // Tools: the servers of mcp.json, the open conversation's, the prompt waiting.
      {"tools", QVariantMap{{"servers", chat_.tools()->servers()},
                            {"conversation_servers", chat_.conversation_tool_servers()},
                            {"required", chat_.conversation_tools_required()},
                            {"prompt", chat_.tool_prompt()},
                            {"memory", chat_.tool_memory()},
                            {"always_allowed", chat_.tools()->always_allowed()}}},
      // Remote models: the endpoints and their models, the loaded one's engine memory.
      {"remote", QVariantMap{{"endpoints", chat_.remote()->endpoints()},
                             {"active", chat_.remote()->active()},
                             {"memory", chat_.remote()->memory()}}},
      {"startup_notice", chat_.startup_notice()},
      {"save_error", chat_.save_error()},
      {"unsaved_messages", chat_.unsaved_messages()},
      {"documents", documents_state()},
      {"last_message", last_message},
      // Per-model settings, a failed load, a full context.
      {"model_error", models.error()},
      {"model_path", models.path()},
      {"model_loading", models.loading()},
      {"settings_model", models.settings_model()},
      {"engine_settings", models.engine_settings()},
      {"notice", chat_.notices()->notice()},
      {"context_notice", chat_.context_notice()},
      // The status line's sentence and the context's fill.
      {"last_event", chat_.last_event()},
      {"context_usage", memory.context_usage()},
      {"empty_replies", static_cast<int>(std::count_if(items.begin(), items.end(),
                                                       [](const StoredMessage& m) {
                                                         return m.role ==
                                                                    QLatin1String("assistant") &&
                                                                m.content.isEmpty() &&
                                                                m.state != MessageState::Streaming;
                                                       }))},
      // The window's language: its locale and a few of the words it shows.
      {"ui",
       QVariantMap{{"locale", QLocale().name()},
                   {"send", QCoreApplication::translate("ChatView", "Send")},
                   {"new_chat", QCoreApplication::translate("Sidebar", "New chat")},
                   {"memory", QCoreApplication::translate("Main", "Memory")},
                   // false on a first run: the window shows its welcome
                   {"welcome_seen", chat_.uiSetting(QStringLiteral("welcome_seen"), false)}}}};
  state.insert(list_state());
  return state;
}

QVariantMap ChatStateProbe::list_state() const {
  const ConversationListController& list = *chat_.conversation_list();
  const ConversationListModel& listed = list.list_model();
  QStringList titles;  // as listed, newest first
  for (int row = 0; row < listed.rowCount(); ++row) {
    titles.push_back(listed.data(listed.index(row), ConversationListModel::TitleRole).toString());
  }
  return {{"conversations", listed.rowCount()},
          {"conversation_titles", titles},
          {"search_text", list.search_text()},
          {"current_listed", listed.rowOf(chat_.current_conversation()) >= 0},
          {"pending_delete", list.pending_delete()}};
}

QVariantMap ChatStateProbe::documents_state() const {
  const DocumentController* docs = chat_.document_controller();
  if (!docs) return {};
  const NoticeCenter& notices = *chat_.notices();
  return {{"loading", docs->loading()},
          {"preview", docs->preview()},
          // The message banner (NoticeCenter), under the keys the e2e scripts read.
          {"message", notices.message()},
          {"message_is_error", notices.message_is_error()},
          {"job", docs->job()},
          {"running_job", docs->running_job()},
          {"summarizing", docs->summarizing()},
          {"sent_whole", docs->sent_whole()},
          {"job_memory", docs->job_memory()}};
}

}  // namespace kvchat::app
