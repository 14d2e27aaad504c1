// ChatController, what the end-to-end tests read (KVCHAT_TEST_STATE_FILE): the window's
// state written as JSON after each change, only when that variable is set.
#include <QCoreApplication>
#include <QLocale>
#include <algorithm>

#include "chat_controller.h"
#include "documents/document_controller.h"
#include "test_state_file.h"

namespace kvchat::app {

// For the end-to-end test (KVCHAT_TEST_STATE_FILE): what the window shows — the
// conversations listed, the messages of the open one, the memory panel's numbers.
void ChatController::write_test_state(bool reply_finished) {
  test_reply_finished_ = reply_finished;
  const QString path = qEnvironmentVariable("KVCHAT_TEST_STATE_FILE");
  if (path.isEmpty()) return;
  QVariantMap last_message;
  if (!messages_.items().isEmpty()) {
    const StoredMessage& m = messages_.items().back();
    last_message = {{"role", m.role}, {"chars", m.content.size()}, {"stats", m.stats}};
  }
  const MemoryState& memory = *memory_state_;  // the memory panel's figures
  const QVariantList history = memory.memory_history();
  QVariantMap state{{"reply_finished", reply_finished},
                          {"messages", messages_.rowCount()},
                          {"memory", memory.memory()},
                          {"kv_used_text", formatBytes(memory.memory().value("kv_used_bytes").toDouble())},
                          {"snapshot_status", memory.snapshot_status()},
                          {"snapshot_bytes", memory.snapshot_bytes()},
                          {"current_conversation", current_},
                          {"memory_history_points", history.size()},
                          {"memory_history_last_tokens",
                           history.isEmpty() ? QVariant(-1) : history.back().toMap().value("tokens")},
                          {"kv_quality", memory.kv_quality()},
                          {"store_error", store_error_},
                          {"reply", reply_test_state()},  // the last reply's version, state, text
                          {"startup_notice", startup_notice_},
                          {"save_error", save_error_},
                          {"unsaved_messages", messages_.unsaved_count()},
                          {"documents", documents_ ? documents_->test_state() : QVariantMap()},
                          {"last_message", last_message},
                          // Per-model settings, a failed load, a full context (issue 13).
                          {"model_error", models_->error()},
                          {"model_path", models_->path()},
                          {"model_loading", models_->loading()},
                          {"settings_model", models_->settings_model()},
                          {"engine_settings", models_->engine_settings()},
                          {"notice", notices_.notice()},
                          {"context_notice", context_notice_},
                          // The status line's sentence and the context's fill (issue 26 point 8).
                          {"last_event", last_event()},
                          {"context_usage", memory.context_usage()},
                          {"empty_replies", static_cast<int>(std::count_if(
                                                messages_.items().begin(), messages_.items().end(),
                                                [](const StoredMessage& m) {
                                                  return m.role == QLatin1String("assistant") &&
                                                         m.content.isEmpty() &&
                                                         m.state != MessageState::Streaming;
                                                }))},
                          // The window's language: its locale and a few of the words it shows.
                          {"ui", QVariantMap{{"locale", QLocale().name()},
                                             {"send", QCoreApplication::translate("ChatView", "Send")},
                                             {"new_chat", QCoreApplication::translate("Sidebar", "New chat")},
                                             {"memory", QCoreApplication::translate("Main", "Memory")},
                                             // false on a first run: the window shows its welcome
                                             {"welcome_seen", uiSetting(QStringLiteral("welcome_seen"), false)}}}};
  // The sidebar's list: conversations, conversation_titles, search_text, current_listed,
  // pending_delete.
  if (conversation_list_) state.insert(conversation_list_->test_state());
  write_test_state_file(path, state);
}

}  // namespace kvchat::app
